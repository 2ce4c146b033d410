#!/usr/bin/env bash
# Throughput of --adaptive against fixed steps of the same scheme (issue 30):
# geometric Brownian motion (models/gbm.sde), milstein, to t = 1:
#
#   fixed   --dt 1/256                                    steps/s
#   loose   --adaptive --dt-max 1/256, rtol = atol = 1e6  accepted sub-steps/s
#           (a tolerance that accepts every step: one sub-step per step of
#           dt-max, the tree's root only)
#   tight   --adaptive --dt-max 1/16, rtol 1e-3           accepted sub-steps/s
#           (about 9 sub-steps per step of dt-max, levels 0..8, rejections:
#           the tree's deeper levels)
#
# Each rate is sdekit's own speed line (the best of --repeats runs, whole
# runs after a first one that compiles the kernel), with the ratios
# loose/fixed (issue 30's goal on the H100: >= 0.70) and tight/fixed, and the
# adaptive runs' lane utilisation (the adaptive results, per grid point).
# Then PROG1's model, josephson (models/josephson.sde), srk2, --spp 128 for
# --periods P (default 50 on cuda, 2 on cpu): fixed steps of period/128
# against --adaptive with that step as dt-max and the loose tolerance.
#
#   scripts/bench-adaptive.sh [--backend cpu|cuda] [--precision single|double]
#                             [--paths N] [--repeats R] [--threads N] [--bin SDEKIT]
#                             [--periods P]
#
# The lead's H100 line: scripts/bench-adaptive.sh --backend cuda --paths 4194304
set -eu
backend=cpu precision=single paths=262144 repeats=3 threads= bin= periods=
while [ $# -gt 0 ]; do
  case $1 in
  --backend) backend=$2 ;;
  --precision) precision=$2 ;;
  --paths) paths=$2 ;;
  --repeats) repeats=$2 ;;
  --threads) threads=$2 ;;
  --bin) bin=$2 ;;
  --periods) periods=$2 ;;
  *)
    echo "bench-adaptive.sh: unknown argument $1" >&2
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
common=("$src/models/gbm.sde" --scheme milstein --t-end 1 --backend "$backend"
  --precision "$precision" --paths "$paths" --observe none)
[ -n "$threads" ] && common+=(--threads "$threads")

# best rate of a run over the repeats: the speed line's steps/s (adaptive:
# its accepted sub-steps/s)
best() { # NAME ARGS...
  local name=$1 r rate top=0
  shift
  "$bin" run "${common[@]}" "$@" -o "$T/$name.tsv" 2> /dev/null || true # (compiles)
  for r in $(seq "$repeats"); do
    "$bin" run "${common[@]}" "$@" -o "$T/$name.tsv" 2> "$T/err" || {
      cat "$T/err" >&2
      exit 1
    }
    rate=$(sed -n -e 's/.*accepted sub-steps (\([0-9.e+-]*\)\/s).*/\1/p' \
      -e 't' -e 's/.*(\([0-9.e+-]*\) steps\/s).*/\1/p' "$T/err" | tail -1)
    top=$(awk -v a="$rate" -v b="$top" 'BEGIN { print (a + 0 > b + 0) ? a : b }')
  done
  echo "$top"
}
# the lane utilisation of an adaptive run (the adaptive results' column; with
# --observe none they are the run's only TSV)
lanes() {
  awk -F'\t' '/^# accepted_mean/ { for (i = 1; i <= NF; i++) if ($i ~ /lane_util/) c = i; next }
    !/^#/ && c { print $c; exit }' "$T/$1.tsv" 2> /dev/null || true
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > 0) ? a / b : 0 }'; }
fixed=$(best fixed --dt 0.00390625)
loose=$(best loose --adaptive --dt-max 0.00390625 --rtol 1e6 --atol 1e6)
lu_loose=$(lanes loose)
tight=$(best tight --adaptive --dt-max 0.0625 --rtol 1e-3)
lu_tight=$(lanes tight)
printf 'gbm milstein %s %s, %s paths, best of %s\n' "$backend" "$precision" "$paths" "$repeats"
printf 'fixed dt 1/256         %10.3e steps/s\n' "$fixed"
printf 'adaptive loose         %10.3e accepted sub-steps/s  ratio %.3f  lanes %s\n' "$loose" \
  "$(ratio "$loose" "$fixed")" "${lu_loose:-?}"
printf 'adaptive rtol 1e-3     %10.3e accepted sub-steps/s  ratio %.3f  lanes %s\n' "$tight" \
  "$(ratio "$tight" "$fixed")" "${lu_tight:-?}"

# PROG1's model: josephson srk2, steps of period / 128
[ -n "$periods" ] || { [ "$backend" = cuda ] && periods=50 || periods=2; }
common=("$src/models/josephson.sde" --scheme srk2 --spp 128 --periods "$periods"
  --backend "$backend" --precision "$precision" --paths "$paths" --observe none)
[ -n "$threads" ] && common+=(--threads "$threads")
jfixed=$(best jfixed)
jloose=$(best jloose --adaptive --rtol 1e6 --atol 1e6)
lu_jloose=$(lanes jloose)
printf 'josephson (PROG1) srk2 %s %s, --spp 128, %s periods\n' "$backend" "$precision" "$periods"
printf 'fixed dt period/128    %10.3e steps/s\n' "$jfixed"
printf 'adaptive loose         %10.3e accepted sub-steps/s  ratio %.3f  lanes %s\n' "$jloose" \
  "$(ratio "$jloose" "$jfixed")" "${lu_jloose:-?}"
