#!/usr/bin/env bash
# The cost of alpha-stable Levy noise on PROG1 (issue 31's goal: a ratio >=
# 0.6): models/josephson_levy.sde (v driven by 1.8-stable noise) against
# models/josephson.sde (the same junction with white noise), srk2 single,
# PERIODS periods (default 2000) of 100 steps, --observe none, then the
# options given (--backend, --paths, --threads ...).  Each rate is sdekit's
# own speed line (steps/s), the best of REPEATS runs (default 3) after one
# that compiles the kernel; the ratio is josephson_levy / josephson.
# scripts/levy-mix.sh predicts it from the kernels' instruction counts.
# NCU=1 (CUDA, Nsight Compute on PATH) adds each kernel's fraction of the
# issue slots and of its pipes' peaks (XU: the special-function unit) over
# one launch (the 4th) of 60 periods: which bound the step sits on.
#
#   [SDEKIT=BIN] [REPEATS=R] [PERIODS=N] [NCU=1] scripts/bench-levy.sh [RUN OPTIONS...]
#
# The lead's H200 line: scripts/bench-levy.sh --backend cuda --paths 1048576
# (2 CPU cores: PERIODS=20 scripts/bench-levy.sh --threads 2 --paths 65536)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${SDEKIT:-$src/build/sdekit}
lib=$(cd "$(dirname "$bin")" && pwd)
export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

rate() { # MODEL: the best steps/s over the repeats
  local opts=("$src/models/$1.sde" --scheme srk2 --precision single
    --periods "${PERIODS:-2000}" --observe none "${extra[@]}" -o "$T/out.tsv")
  "$bin" run "${opts[@]}" 2> "$T/err" || { cat "$T/err" >&2 && exit 1; } # (the kernel built)
  for _ in $(seq "${REPEATS:-3}"); do
    "$bin" run "${opts[@]}" 2>&1 | sed -n 's/.*(\([0-9.e+-]*\) steps\/s).*/\1/p'
  done | sort -g | tail -n 1
}
extra=("$@")
levy=$(rate josephson_levy)
plain=$(rate josephson)
echo "srk2 single, $((${PERIODS:-2000} * 100)) steps, Levy noise against white (options: ${extra[*]:-none})"
printf 'josephson       %10.3e steps/s\n' "$plain"
printf 'josephson_levy  %10.3e steps/s  ratio %.3f (goal >= 0.6)\n' "$levy" \
  "$(awk -v a="$levy" -v b="$plain" 'BEGIN { print a / b }')"
[ "${NCU:-0}" = 1 ] || exit 0
M=smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_xu_cycles_active.avg.pct_of_peak_sustained_active
M=$M,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active
M=$M,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active
M=$M,sm__pipe_fmalite_cycles_active.avg.pct_of_peak_sustained_active
for m in josephson josephson_levy; do
  echo "$m (ncu, % of peak):"
  ncu --kernel-name regex:sdk_advance --launch-skip 3 --launch-count 1 --metrics "$M" \
    "$bin" run "$src/models/$m.sde" --scheme srk2 --precision single --periods 60 --observe none \
    "${extra[@]}" -o "$T/out.tsv" 2>&1 | awk '$1 ~ /^(smsp|sm)__/ {print "  " $1, $NF}'
done
