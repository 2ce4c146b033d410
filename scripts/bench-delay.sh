#!/usr/bin/env bash
# The cost of a delay of 1000 steps (issue 31's goal on the H100: at most 2x,
# a ratio >= 0.50): the delayed OU process dx = -a x(t - tau) dt + s dW
# (models/delay_ou.sde, tau = 10, a = 0.1) against the plain OU process
# dx = -k x dt + sqrt(2 D) dW (models/ou.sde, k = 0.1), both srk2, dt 0.01,
# --observe none, t-end 1000 (1e5 steps).  Each rate is sdekit's own speed
# line (steps/s), the best of --repeats runs after one that compiles the
# kernel; the ratio is delay_ou / ou.  The delay's floor is memory: each
# step writes x_n and reads x_{n+1-D} from the ring (8 bytes a path-step in
# single precision, codegen/delay_cuda.c), so 0.5 of ou's 7.4e11 steps/s
# needs about 2.9 TB/s of the H100's 3.35.
#
#   scripts/bench-delay.sh [--backend cpu|cuda] [--precision single|double]
#                          [--paths N] [--t-end T] [--repeats R] [--threads N]
#                          [--bin SDEKIT]
#
# The lead's H100 line: scripts/bench-delay.sh --backend cuda --paths 1048576
set -eu
backend=cpu precision=single paths=65536 tend=1000 repeats=3 threads= bin=
while [ $# -gt 0 ]; do
  case $1 in
  --backend) backend=$2 ;;
  --precision) precision=$2 ;;
  --paths) paths=$2 ;;
  --t-end) tend=$2 ;;
  --repeats) repeats=$2 ;;
  --threads) threads=$2 ;;
  --bin) bin=$2 ;;
  *)
    echo "bench-delay.sh: unknown argument $1" >&2
    exit 2
    ;;
  esac
  shift 2
done
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${bin:-$src/build/sdekit}
# (its own library: a copied build's RUNPATH names the tree it was built in)
export LD_LIBRARY_PATH=$(cd "$(dirname "$bin")" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
common=(--scheme srk2 --dt 0.01 --t-end "$tend" --backend "$backend" --precision "$precision"
  --paths "$paths" --observe none)
[ -n "$threads" ] && common+=(--threads "$threads")

best() { # NAME MODEL ARGS...: the best steps/s of the speed line
  local name=$1 r rate top=0
  shift
  "$bin" run "$@" "${common[@]}" -o "$T/$name.tsv" 2> /dev/null || true # (compiles)
  for r in $(seq "$repeats"); do
    "$bin" run "$@" "${common[@]}" -o "$T/$name.tsv" 2> "$T/err" || {
      cat "$T/err" >&2
      exit 1
    }
    rate=$(sed -n 's/.*(\([0-9.e+-]*\) steps\/s).*/\1/p' "$T/err" | tail -1)
    top=$(awk -v a="$rate" -v b="$top" 'BEGIN { print (a + 0 > b + 0) ? a : b }')
  done
  echo "$top"
}
delay=$(best delay "$src/models/delay_ou.sde" --set tau=10 --set a=0.1)
plain=$(best plain "$src/models/ou.sde" --set k=0.1)
printf 'srk2 %s %s, dt 0.01, %s paths, t-end %s, best of %s\n' "$backend" "$precision" "$paths" \
  "$tend" "$repeats"
printf 'ou k=0.1                  %10.3e steps/s\n' "$plain"
printf 'delay_ou tau=10 (D=1000)  %10.3e steps/s  ratio %.3f (goal >= 0.50)\n' "$delay" \
  "$(awk -v a="$delay" -v b="$plain" 'BEGIN { print a / b }')"
