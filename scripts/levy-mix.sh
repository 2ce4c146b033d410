#!/usr/bin/env bash
# The instruction mix of the GPU step loop of josephson_levy against josephson
# (issue 31's goal: Levy noise on PROG1 at >= 0.6 of the Gaussian steps/s),
# from the cubins that NVRTC builds for sm_90 (`sdekit compile --arch`: no GPU
# needed), and the ratio each bound predicts:
#   issue  Gaussian warp instructions per step / Levy's (4 per clock per SM)
#   MUFU   Gaussian MUFU per step / Levy's (16 per clock per SM)
# Measured on the H200 (2026-11-28): 0.496, the issue ratio of this kernel
# 0.498; the kernel of 4ef1904 measured 0.32 on the H100, issue ratio 0.331
# (MUFU ratio 0.36): the step runs at the issue bound's fraction of the
# Gaussian step, not at the special-function unit's (docs/history/
# BENCHMARKS-development.md, "Issue 31: what bounds the Levy step").
#
#   [SDEKIT=BIN] bash scripts/levy-mix.sh [MODEL_LEVY [MODEL_GAUSS]]
#
# Needs cuobjdump and nvdisasm on PATH (the CUDA toolkit's, or PyPI's
# nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm) and NVRTC for sdekit.
# Count NVRTC's cubin, not `nvcc --use_fast_math -ptx`: nvcc 13 does not
# define __USE_FAST_MATH__ where NVRTC does, so nvcc compiles
# kernels/levy_draw.h's CPU branch (a division: 95.4 instructions a step
# against NVRTC's 85.4).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${SDEKIT:-$src/build/sdekit}
levy=${1:-josephson_levy} gauss=${2:-josephson}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

mix() { # MODEL -> "instructions MUFU" per step of the hot loop (16 steps)
  local cubin
  cubin=$("$bin" compile "$1" --backend cuda --arch sm_90 2>&1 |
    sed -n 's/^sdekit: \(compiled\|cached\) \([^ ]*\.cubin\) .*/\2/p')
  [ -n "$cubin" ] || { echo "levy-mix: no cubin for $1" >&2 && exit 1; }
  cuobjdump -sass "$cubin" > "$T/$1.sass"
  python3 "$src/scripts/sass-loop.py" sdk_advance 16 < "$T/$1.sass" | tee "$T/$1.txt" >&2
  sed -n 's/.*, \([0-9.]*\) per step .*, \([0-9.]*\) MUFU per step/\1 \2/p' "$T/$1.txt"
}
read -r li lm <<< "$(mix "$levy")"
read -r gi gm <<< "$(mix "$gauss")"
awk -v li="$li" -v lm="$lm" -v gi="$gi" -v gm="$gm" -v l="$levy" -v g="$gauss" 'BEGIN {
  printf "%-16s %7.2f instructions/step, %5.2f MUFU/step\n", l, li, lm
  printf "%-16s %7.2f instructions/step, %5.2f MUFU/step\n", g, gi, gm
  printf "predicted %s / %s: issue %.3f, MUFU %.3f\n", l, g, gi / li, gm / lm }'
