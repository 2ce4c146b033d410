#!/usr/bin/env bash
# On the GPU machine: build, GPU tests, CPU tests, benchmarks, SASS counts.
# Logs under $OUT (device tool) or ./gpu-out.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}; mkdir -p "$OUT"
[ -d .debs ] && eval "$(scripts/device-deps.sh .debs)"
export SDEKIT_CACHE_DIR=$PWD/build-gpu/kcache PATH=/usr/local/cuda/bin:$PATH
{ cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release ${SDK_CMAKE_ARGS:-} && cmake --build build-gpu -j16; } > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
B=build-gpu/sdekit
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt" 2>&1
# SM clock while the benchmark runs (sampled)
(for i in $(seq 60); do nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader; sleep 0.5; done > "$OUT/clock.txt" 2>&1) &
(cd build-gpu && ctest --output-on-failure -L gpu) > "$OUT/check-gpu.log" 2>&1; echo "check-gpu rc=$?"
if [ "${SKIP_CPU:-0}" = 0 ]; then (cd build-gpu && ctest --output-on-failure -LE gpu -j8) > "$OUT/check-cpu.log" 2>&1; echo "check-cpu rc=$?"; fi
{ $B bench --backend cuda; $B bench --backend cuda --precision double --paths 4194304
  $B bench --threads 16; } > "$OUT/bench.txt" 2>&1
# SASS of the advance kernel: special-function (MUFU) and other counts
cub=$(ls -t $SDEKIT_CACHE_DIR/cuda-*.cubin | head -1)
$B compile josephson --backend cuda > "$OUT/compile.txt" 2>&1
cuobjdump -sass "$cub" > "$OUT/sass.txt" 2>&1
grep -E "check|rc=" "$OUT"/check-*.log | grep -E "tests passed|tests failed" ; grep -h "tests passed\|Failed\|FAIL" "$OUT"/check-*.log | head -20
cat "$OUT/gpu.txt" "$OUT/bench.txt" "$OUT/compile.txt"
grep -c MUFU "$OUT/sass.txt"
