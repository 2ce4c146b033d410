#!/usr/bin/env bash
# The issue ceiling of weak2 three-point's instruction mix on this GPU, measured
# (docs/BENCHMARKS.md, issue 14): scripts/mix-bound.py's kernels, the fraction
# of issue slots each fills under Nsight Compute, and their instruction counts.
#
#   [SDEKIT=build/sdekit] bash scripts/mix-bound.sh [WORKDIR]   # nvcc, cuobjdump, ncu, python3
#
# The mix R is the hot loop of `sdekit codegen josephson --backend cuda --scheme
# weak2 --noise three-point` compiled for sm_90 (16 steps, scripts/sass-loop.py):
# FFMA 224, LOP3 82, IMAD.WIDE 72, FMUL 64 (32 of them cos's), FADD 48, MUFU 32,
# FSEL 32, ISETP 32, MOV 20, LDG 8 and 61 uniform-datapath instructions.
# Calibration: ffma alone (should fill every slot), the floating-point part,
# the integer part (Philox and the three-point thresholds), its two halves.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
R="ffma=224,fmul=32,fadd=48,cos=32,imadw=72,lop3uu=10,setsel=32,uadd=31,uni=8,uxs=11,ldg=8"
specs="ffma8:even:8:ffma=680 fp8:even:8:ffma=224,fmul=32,fadd=48,cos=32
  int8:even:8:imadw=72,lop3uu=10,setsel=32 imad8:even:8:imadw=72 alu8:even:8:lop3uu=82,setsel=32"
for c in 4 8 12 16 24 32; do specs="$specs r$c:even:$c:$R"; done
specs="$specs rb8:burst:8:$R rb16:burst:16:$R"
# shellcheck disable=SC2086
python3 "$here/mix-bound.py" $specs > "$work/mix.cu"
nvcc -arch=sm_90 -O3 -lineinfo "$work/mix.cu" -o "$work/mix"
cuobjdump -sass "$work/mix" > "$work/mix.sass"
# the columns of the table, in order
metrics=(smsp__issue_active.avg.pct_of_peak_sustained_active
  smsp__warps_eligible.avg.per_cycle_active
  sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active
  sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active
  sm__pipe_fmalite_cycles_active.avg.pct_of_peak_sustained_active)
M=$(IFS=,; echo "${metrics[*]}")
# row NAME INSTR TEXT: one line of the table from $work/NAME.ncu
row() {
  local v=()
  for m in "${metrics[@]}"; do v+=("$(awk -v m="$m" '$1 == m {print $NF}' "$work/$1.ncu")"); done
  printf '%-6s %6s %7s %9s %6s %7s %6s  %s\n' "$1" "$2" "${v[@]}" "$3"
}
printf '%-6s %6s %7s %9s %6s %7s %6s  %s\n' kernel instr issue% eligible alu% heavy% lite% "loop mix"
for spec in $specs; do
  k=${spec%%:*}
  mix=$(python3 "$here/sass-loop.py" "$k" 1 < "$work/mix.sass")
  ncu --kernel-name "$k" --launch-skip 1 --launch-count 1 --metrics "$M" "$work/mix" "$k" > "$work/$k.ncu" 2>&1
  row "$k" "$(echo "$mix" | sed -n 's/.*loop of \([0-9]*\) instructions.*/\1/p')" \
    "$(echo "$mix" | sed -n '2s/^ *//p')"
done
# The kernel itself, when SDEKIT names a build (its 4th launch: 1000 steps of 2^22 paths)
if [ -n "${SDEKIT:-}" ]; then
  sdekit=$(cd "$(dirname "$SDEKIT")" && pwd)/$(basename "$SDEKIT")
  (cd "$work" && ncu --kernel-name regex:sdk_advance --launch-skip 3 --launch-count 1 --metrics "$M" \
    "$sdekit" run josephson --paths 4194304 --periods 60 --scheme weak2 --noise three-point \
    --backend cuda > "$work/weak2.ncu" 2>&1)
  row weak2 - "sdk_advance, sdekit run josephson --scheme weak2 --noise three-point (42.5 per step)"
fi
