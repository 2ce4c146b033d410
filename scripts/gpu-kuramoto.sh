#!/usr/bin/env bash
# On the GPU machine: build, GPU tests, the Kuramoto benchmarks (issue 4), SASS
# of the system kernels.  Logs under $OUT (device tool) or ./gpu-out; a short
# summary last.
# Usage: scripts/gpu-kuramoto.sh STAGE...   stages: tests, mf (mean-field at
#   2^24, 2^22, 2^20), pairs (N = 65536), cpu (16 threads),
#   sass, variants (kernel tuning knobs), shape (the kernel chosen at 2^24), fig4
#   (the paper's Fig. 4 at its size, data only); default: tests mf
set -uo pipefail
stages=${*:-tests mf}
OUT=${OUT:-$PWD/gpu-out}; mkdir -p "$OUT"
[ -d .debs ] && eval "$(scripts/device-deps.sh .debs 2>/dev/null)"
export SDEKIT_CACHE_DIR=$PWD/build-gpu/kcache PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
{ cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release ${SDK_CMAKE_ARGS:-} && cmake --build build-gpu -j16; } > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
B=build-gpu/sdekit
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv > "$OUT/gpu.txt" 2>&1
(for i in $(seq 300); do nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader; sleep 1; done > "$OUT/clock.txt" 2>&1) &
summary=$OUT/summary.txt; : > "$summary"
has() { case " $stages " in *" $1 "*) return 0;; esac; return 1; }
if has tests; then
  (cd build-gpu && timeout 420 ctest -V -L gpu -j3 ${CTEST_EXCLUDE:+-E $CTEST_EXCLUDE}) > "$OUT/check-gpu.log" 2>&1
  echo "check-gpu rc=$? ($(( $(date +%s) - t0 )) s)" | tee -a "$summary"
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|\*\*\*" "$OUT/check-gpu.log" | head -12 | tee -a "$summary"
  grep -E "^[0-9]+: (system |order|particle|pairwise|stationary|below|r = I1|test_kuramoto|kat_cuda|cli_checkpoint)" "$OUT/check-gpu.log" | head -24 | tee -a "$summary"
  grep -E "FAILED" "$OUT/check-gpu.log" | head -10 | tee -a "$summary"
fi
if has mf; then
  for n in ${MF_N:-16777216 4194304 1048576}; do
    $B bench --backend cuda --model kuramoto-meanfield --particles $n --repeats ${REPEATS:-5} > "$OUT/bench-mf-$n.txt" 2>&1
    { echo "== mean-field N=$n"; grep -E "r\(t\)|no obs|P\(x|same|baseline|ratio|roofline|copy|error" "$OUT/bench-mf-$n.txt"; } | tee -a "$summary"
  done
fi
if has pairs; then
  for p in 0; do
    SDEKIT_BASELINE_CUBIN=$OUT/prog2.cubin $B bench --backend cuda --model kuramoto --repeats 3 > "$OUT/bench-pairs-$p.txt" 2>&1
    { echo "== pairs N=65536"; grep -E "r\(t\)|no obs|baseline|ratio|error" "$OUT/bench-pairs-$p.txt"; } | tee -a "$summary"
  done
fi
if has variants; then
  for v in ${SYS_VARIANTS:-SDEKIT_RUN_MINB=2 SDEKIT_SYS_BPS=1 SDEKIT_SYS_BPS=2 SDEKIT_SYS_QI=4}; do
    for n in ${VAR_N:-16777216 4194304}; do
      env ${v//,/ } $B bench --backend cuda --model kuramoto-meanfield --particles $n --repeats 3 --workload-only > "$OUT/var.txt" 2>&1
      { echo "== $v N=$n: $(grep -E "^r\(t\) every step, P|error" "$OUT/var.txt")"; } | tee -a "$summary"
    done
  done
fi
if has cpu; then
  # the GPU workloads' sizes (fewer steps: the rates do not depend on them)
  { $B bench --model kuramoto-meanfield --particles 16777216 --steps 50 --repeats 1 --threads 16
    $B bench --model kuramoto --particles 65536 --steps 2 --repeats 1 --threads 16; } > "$OUT/bench-cpu.txt" 2>&1
  { echo "== CPU, 16 threads"; grep -E "N =|r\(t\) every step, P|no obs|baseline|ratio|cpu:|\(" "$OUT/bench-cpu.txt"; } | tee -a "$summary"
fi
if has sass; then
  if [ -f "$OUT/prog2.cubin" ]; then
    nvdisasm -c "$OUT/prog2.cubin" > /tmp/prog2.sass 2>/dev/null
    { echo "== PROG2 baseline"; python3 scripts/sass_loops.py /tmp/prog2.sass 2>/dev/null | head -4; } | tee -a "$summary"
    rm -f "$OUT/prog2.cubin"
  fi
  for m in kuramoto-meanfield kuramoto; do
    for n in 4194304 65536; do
      cub=$($B compile $m --particles $n --backend cuda --observe order 2>&1 | grep -o '/[^ ]*\.cubin')
      cuobjdump -res-usage "$cub" > "$OUT/res-$m-$n.txt" 2>&1
      nvdisasm -c "$cub" > "$OUT/sass-$m-$n.sass" 2>/dev/null
      { echo "== $m N=$n"; grep -A1 "sdk_sys" "$OUT/res-$m-$n.txt" | grep -oE "Function [a-z_0-9]+|REG:[0-9]+|STACK:[0-9]+|SHARED:[0-9]+|LOCAL:[0-9]+" | paste -sd' ';
        python3 scripts/sass_loops.py "$OUT/sass-$m-$n.sass" 2>/dev/null | grep sys | head -6; } | tee -a "$summary"
    done
  done
fi
if has shape; then # which system kernel, and how much of 2^24 stays on chip
  $B run kuramoto-meanfield --backend cuda --particles 16777216 --paths 1 --dt 0.0078125 --t-end 0.78125 \
    --observe order --verbose -o /tmp/shape.h5 2>&1 | grep -E "systems:" | tee -a "$summary"
fi
if has fig4; then # the paper's Fig. 4 at its size; drawn elsewhere with PLOT_ONLY=1
  mkdir -p build; [ -e build/sdekit ] || ln -s ../build-gpu/sdekit build/sdekit
  t1=$(date +%s); RUN_ONLY=1 bash examples/fig4-kuramoto-density.sh > "$OUT/fig4.log" 2>&1
  echo "fig4 rc=$? $(( $(date +%s) - t1 )) s: $(tail -1 "$OUT/fig4.log")" | tee -a "$summary"
  cp results/fig4-kuramoto.h5 "$OUT/" 2>/dev/null
fi
sort -t, -k1 -n "$OUT/clock.txt" | awk -F, '{print $1}' | uniq -c | sort -rn | head -3 | sed 's/^/SM clock samples: /' >> "$summary"
cat "$OUT/gpu.txt" >> "$summary"
echo "total $(( $(date +%s) - t0 )) s" >> "$summary"
echo; echo "==== summary"; cat "$summary"
