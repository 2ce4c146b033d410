#!/bin/sh
# The CUDA kernel's --observe psd (codegen/psd.h) run on the host as C++
# (scripts/cuda-host/psd.cpp): its per-path sums of periodograms against
# the host's operations (obs_psd.c) on the same trajectory, bit for bit,
# in double and single precision, sampled every step and every 3 steps, with
# and without a transient, the steps in 1 and 3 launches.  No GPU needed;
# the device's own math is not checked (test_psd_kernel_gpu).
#   scripts/cuda-host-psd.sh [BUILD_DIR]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$src/build}/sdekit
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
one() { # PRECISION STEPS ARGS... (STEPS at --dt 0.05: --t-end STEPS / 20)
  prec=$1 steps=$2
  shift 2
  "$bin" codegen "$src/models/ou.sde" --backend cuda --precision "$prec" --observe psd \
    --dt 0.05 --t-end "$(awk -v s="$steps" 'BEGIN { print s / 20 }')" "$@" > "$T/k.cu"
  row=$(sed -n 's/.*real \*const sdk_pr = (st + p0) + (sdk_i64)\([0-9]*\) \* npad;.*/\1/p' "$T/k.cu" | head -1)
  [ -n "$row" ] || { echo "no psd in the kernel: $prec $*"; fail=1; return; }
  c++ -std=c++17 -O2 -ffp-contract=off -w -DKERNEL="\"$T/k.cu\"" \
    -I"$src/scripts/cuda-host" "$src/scripts/cuda-host/psd.cpp" -o "$T/run"
  for l in 1 3; do
    printf '%s %s, %s launch(es): ' "$prec" "$*" "$l"
    "$T/run" 40 "$l" "$steps" 7 "$row" || fail=1
  done
}
one double 100 --psd-segment 16 --sample-every 1
one double 100 --psd-segment 8 --sample-every 3 --transient 0.35 --psd-window rect
one single 100 --psd-segment 16 --sample-every 1 --transient 0
one single 100 --psd-segment 8 --sample-every 3 --transient 0.35
# (segments of several passes of kernels/psd_fft.h: 1 + 4, 3 + 4 and 4 + 4 stages)
one double 100 --psd-segment 64 --sample-every 1 --transient 0
one single 400 --psd-segment 256 --sample-every 1 --transient 0
one double 560 --psd-segment 512 --sample-every 1 --transient 0
exit $fail
