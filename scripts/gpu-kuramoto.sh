#!/usr/bin/env bash
# On the GPU machine: build, GPU tests, the Kuramoto benchmarks (issue 4), SASS
# counts of the system kernels.  Logs under $OUT (device tool) or ./gpu-out.
# Usage: scripts/gpu-kuramoto.sh [tests|bench|all]  (default all)
set -uo pipefail
what=${1:-all}
OUT=${OUT:-$PWD/gpu-out}; mkdir -p "$OUT"
[ -d .debs ] && eval "$(scripts/device-deps.sh .debs 2>/dev/null)"
export SDK_CACHE_DIR=$PWD/build-gpu/kcache PATH=/usr/local/cuda/bin:$PATH
{ cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release ${SDK_CMAKE_ARGS:-} && cmake --build build-gpu -j16; } > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
B=build-gpu/sdekit
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv > "$OUT/gpu.txt" 2>&1
if [ "$what" = all ] || [ "$what" = tests ]; then
  (cd build-gpu && timeout 300 ctest --output-on-failure -L gpu ${CTEST_EXCLUDE:+-E $CTEST_EXCLUDE}) > "$OUT/check-gpu.log" 2>&1; echo "check-gpu rc=$?"
  grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/check-gpu.log" | head
  grep -E "^(order|particle|pairwise|r = |stationary|below)" "$OUT/check-gpu.log" | head -20
fi
if [ -n "${PROFILE:-}" ]; then
  NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  echo "ncu: ${NCU:-none}"
  [ -n "$NCU" ] && timeout 240 "$NCU" --launch-skip 40 --launch-count 1 -k regex:sdk_sys_step \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
    --section ComputeWorkloadAnalysis --section LaunchStats \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio" \
    $B run kuramoto-meanfield --backend cuda --particles 16777216 --paths 1 --t-end 0.5 --dt 0.01 --quiet -o /tmp/p.h5 > "$OUT/ncu.txt" 2>&1
  grep -E "stalled|Stall|Issued Warp|No Eligible|Active Warps|Eligible Warps|Throughput|Achieved Occupancy|Registers|Pipe|Duration|Executed Ipc|SM Busy|Issue Slots" "$OUT/ncu.txt" | head -60
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
  (for i in $(seq 40); do nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader; sleep 0.5; done > "$OUT/clock.txt" 2>&1) &
  { $B bench --backend cuda --model kuramoto-meanfield --repeats 5
    for v in ${SYS_VARIANTS:-SDK_SYS_CPB=1 SDK_SYS_CPB=4 SDK_SYS_ITER=4 SDK_SYS_PDL=1}; do
      echo "== $v"; env ${v//,/ } $B bench --backend cuda --model kuramoto-meanfield --repeats 3 | tail -6; done
    $B bench --backend cuda --model kuramoto-meanfield --particles 4194304 --repeats 5
    $B bench --backend cuda --model kuramoto-meanfield --particles 262144 --repeats 5
    $B bench --backend cuda --model kuramoto --repeats 3
    if [ -n "${CPU_BENCH:-}" ]; then
      $B bench --model kuramoto-meanfield --particles 4194304 --steps 200 --repeats 3 --threads 16
      $B bench --model kuramoto --particles 16384 --steps 20 --repeats 3 --threads 16
    fi
  } > "$OUT/bench.txt" 2>&1
  cat "$OUT/bench.txt"
  for m in kuramoto-meanfield kuramoto; do
    cub=$(SDK_CACHE_DIR=$SDK_CACHE_DIR $B compile $m --particles 65536 --backend cuda 2>&1 | grep -o '/[^ ]*\.cubin')
    echo "== $m $cub"; cuobjdump -sass "$cub" > "$OUT/sass-$m.txt" 2>&1
    nvdisasm -c "$cub" > /tmp/$m.sass 2>/dev/null && python3 scripts/sass_loops.py /tmp/$m.sass | grep sys_step
    awk '/Function : sdk_sys_step/,/Function : sdk_red/' "$OUT/sass-$m.txt" | grep -cE '^\s+/\*[0-9a-f]{4}\*/' 
  done
fi
cat "$OUT/gpu.txt"
