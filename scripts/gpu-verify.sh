#!/usr/bin/env bash
# On the GPU machine (the device tool): build, the GPU test suite, GPU golden
# hashes against an older tree, and benchmarks, in one call.  Logs under $OUT.
#
#   bash scripts/gpu-verify.sh [STAGE...]     stages: build tests cpu golden bench compare
#                                              (default: build tests golden bench)
#
# golden: when .old/ holds another checkout (e.g. `git archive REV | tar -x -C .old`,
# carried with the call), both trees run scripts/golden.sh on the GPU and the
# hashes are compared: OLD_EXTRA / NEW_EXTRA are the extra options of each side
# (default NEW_EXTRA="--no-compensation": the pre-issue-10 tree had no compensation).
# BENCH: the bench commands, ';'-separated (default: --compensation and PROG1).
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
stages=${*:-build tests golden bench}
has() { case " $stages " in *" $1 "*) return 0 ;; esac; return 1; }
[ -d .debs ] && eval "$(scripts/device-deps.sh .debs 2> "$OUT/deps.log")"
export PATH=$PWD/.deps/root/usr/bin:/usr/local/cuda/bin:$PATH
export SDEKIT_CACHE_DIR=$PWD/build-gpu/kcache
summary=$OUT/summary.txt
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

build() { # SRC BUILD
  { cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release ${SDK_CMAKE_ARGS:-} &&
      cmake --build "$2" -j16; } > "$OUT/build-$(basename "$2").log" 2>&1
}
if has build; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv \
    > "$OUT/gpu.txt" 2>&1
  say "gpu: $(tail -1 "$OUT/gpu.txt")"
  if [ -d .old ] && { has golden || has compare; }; then build .old build-old & fi
  build . build-gpu && say "build: ok" || { say "build: FAILED"; tail -30 "$OUT/build-build-gpu.log"; exit 1; }
  wait
fi
B=build-gpu/sdekit

if has tests; then
  (cd build-gpu && timeout ${CTEST_TIMEOUT:-560} ctest -V -L gpu) > "$OUT/check-gpu.log" 2>&1
  say "ctest -L gpu: rc=$? $(grep -E 'tests passed' "$OUT/check-gpu.log")"
  grep -E '^ *[0-9]+/[0-9]+ Test' "$OUT/check-gpu.log" | sed 's/^ *//' | tee -a "$summary"
fi
if has cpu; then
  (cd build-gpu && timeout 300 ctest --output-on-failure -LE gpu -j16) > "$OUT/check-cpu.log" 2>&1
  say "ctest -LE gpu (on the GPU machine's CPU): rc=$? $(grep -E 'tests passed' "$OUT/check-cpu.log")"
fi

if has golden && [ -x build-old/sdekit ]; then
  SDEKIT_CACHE_DIR=$PWD/build-old/kcache GOLDEN_EXTRA="--backend cuda ${OLD_EXTRA:-}" \
    timeout 200 sh scripts/golden.sh build-old > "$OUT/golden-old.txt" 2> "$OUT/golden-old.err"
  GOLDEN_EXTRA="--backend cuda ${NEW_EXTRA---no-compensation}" \
    timeout 200 sh scripts/golden.sh build-gpu > "$OUT/golden-new.txt" 2> "$OUT/golden-new.err"
  n=$(wc -l < "$OUT/golden-new.txt")
  d=$(diff "$OUT/golden-old.txt" "$OUT/golden-new.txt" | grep -c '^>')
  say "golden (GPU): $n runs, $d differ between .old (${OLD_EXTRA:-}) and this tree (${NEW_EXTRA---no-compensation})"
  diff "$OUT/golden-old.txt" "$OUT/golden-new.txt" | grep '^>' | tee -a "$summary"
fi

if has bench; then
  (for i in $(seq 240); do nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader; sleep 1; done > "$OUT/clock.txt" 2>&1) &
  clk=$!
  IFS=';' read -ra cmds <<< "${BENCH:-bench --backend cuda --compensation;bench --backend cuda}"
  for c in "${cmds[@]}"; do
    echo "\$ sdekit $c" >> "$OUT/bench.txt"
    # shellcheck disable=SC2086
    timeout 240 $B $c >> "$OUT/bench.txt" 2>&1
    echo >> "$OUT/bench.txt"
  done
  kill $clk 2> /dev/null
  say "SM clock during the benchmarks (MHz, min/max): $(cut -d, -f1 "$OUT/clock.txt" | awk '{print $1}' | sort -n | sed -n '1p;$p' | tr '\n' ' ')"
  cat "$OUT/bench.txt" >> "$summary"
fi
if has compare && [ -x build-old/sdekit ]; then
  # throughput of the older tree and this one, alternated (scripts/bench-compare.sh)
  timeout 420 bash scripts/bench-compare.sh build-old/sdekit "$B" cuda "${ROUNDS:-3}" \
    > "$OUT/compare.txt" 2>&1
  say "bench-compare (old = .old, new = this tree, best of ${ROUNDS:-3} alternated):"
  cat "$OUT/compare.txt" >> "$summary"
fi
echo "---- summary ----"
cat "$summary"
