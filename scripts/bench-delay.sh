#!/usr/bin/env bash
# The cost of a delay of 1000 steps (issue 31's goal on the H100: at most 2x,
# a ratio >= 0.50): the delayed OU process dx = -a x(t - tau) dt + s dW
# (models/delay_ou.sde, tau = 10, a = 0.1) against the plain OU process
# dx = -k x dt + sqrt(2 D) dW (models/ou.sde, k = 0.1), both srk2, dt
# 0.01, --observe none, t-end T_END (default 1000: 1e5 steps), then the
# options given (--backend, --paths, --precision double, --threads ...).
# Each rate is sdekit's own speed line (steps/s), the best of REPEATS runs
# (default 3) after one that compiles the kernel; the ratio is delay_ou /
# ou.  The delay's floor is memory: a step writes x_n and reads x_{n+1-D}
# from the ring (8 bytes a path-step in single precision,
# codegen/delay_cuda.c), so 0.5 of ou's 7.4e11 steps/s needs about 2.9 TB/s
# of the H100's 3.35.
#
#   [SDEKIT=BIN] [REPEATS=R] [T_END=T] scripts/bench-delay.sh [RUN OPTIONS...]
#
# The lead's H100 line: scripts/bench-delay.sh --backend cuda --paths 1048576
# (2 CPU cores: T_END=100 scripts/bench-delay.sh --threads 2 --paths 65536)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${SDEKIT:-$src/build/sdekit}
export LD_LIBRARY_PATH=$(cd "$(dirname "$bin")" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

rate() { # MODEL SETTINGS...: the best steps/s over the repeats
  local opts=("$src/models/$1.sde" "${@:2}" --scheme srk2 --dt 0.01
    --t-end "${T_END:-1000}" --observe none "${extra[@]}" -o "$T/out.tsv")
  "$bin" run "${opts[@]}" 2> "$T/err" || { cat "$T/err" >&2 && exit 1; } # (the kernel built)
  for _ in $(seq "${REPEATS:-3}"); do
    "$bin" run "${opts[@]}" 2>&1 | sed -n 's/.*(\([0-9.e+-]*\) steps\/s).*/\1/p'
  done | sort -g | tail -n 1
}
extra=("$@")
delay=$(rate delay_ou --set tau=10 --set a=0.1)
plain=$(rate ou --set k=0.1)
echo "srk2, dt 0.01, a delay of 1000 steps against none (options: ${extra[*]:-none})"
printf 'ou k=0.1                  %10.3e steps/s\n' "$plain"
printf 'delay_ou tau=10 (D=1000)  %10.3e steps/s  ratio %.3f (goal >= 0.50)\n' "$delay" \
  "$(awk -v a="$delay" -v b="$plain" 'BEGIN { print a / b }')"
