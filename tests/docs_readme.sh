#!/usr/bin/env bash
# docs_readme.sh [TESTDIR]: the README's numbers are what its commands print.
# Every README command that prints a number and runs on the CPU in seconds is
# run here as the README writes it (its text must be in the README, with
# `sdekit` the tool under test), and the numbers it prints, formatted as the
# README gives them, must be in the README's text:
#   the escape times (examples/double-well.sde), --dt-check and --extrapolate
#   on the washboard and on Brownian motion leaving (-1, 1) (examples/), the
#   paths --target-se used, --mlmc on GBM, --adaptive on GBM, a scan of three axes, the dt
#   --sample-times chose.
# With TESTDIR (the build's tests/), the figures of the README's "Trust" that
# the test programs print are compared too: test_strong's strong orders and
# test_weak's weak orders (test docs_readme_orders, label slow: test_weak
# takes half a minute on 2 cores).
# Not here: timings (`sdekit bench`, "Speed": they depend on the machine; the
# figures are docs/BENCHMARKS.md's), GPU-only commands, and commands that
# print no number.
#
# Environment (set by CTest): SDK_BIN, SDK_SOURCE_DIR, SDK_CACHE_DIR.
set -u
BIN=${SDK_BIN:-}
SRC=${SDK_SOURCE_DIR:-}
TESTDIR=${1:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ] || [ -z "$SRC" ]; then
  echo "docs_readme: SDK_BIN and SDK_SOURCE_DIR must be set" >&2
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/docs_readme.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export SDK_CACHE_DIR=${SDK_CACHE_DIR:-$T/cache}
unset SDEKIT_MODEL_PATH
nfail=0
nchk=0
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }

# The README as one line: continued command lines joined, white space squeezed
# (a number or a command may wrap anywhere in the text).
RM=$(sed -e ':a' -e '/\\$/N; s/ *\\\n */ /; ta' "$SRC/README.md" | tr '\n' ' ' | tr -s ' ')
says() {
  nchk=$((nchk + 1))
  case $RM in
  *"$1"*) ;;
  *) fail "README.md does not say: $1" ;;
  esac
}
# near TEMPLATE V1 V2 ...: the README says TEMPLATE, each @ in it a number that
# is Vi as the README prints it: within one unit of its last printed digit (a
# last digit may round the other way where another CPU or compiler gives the
# kernels' floating point other last bits)
near() {
  local tpl=$1 re rep i
  shift
  nchk=$((nchk + 1))
  [ $# -le 9 ] || { fail "near: at most 9 numbers in one statement ($tpl)"; return; }
  re=$(printf '%s' "$tpl" | sed -e 's/[][\.*^$()+?{}|/]/\\&/g' -e 's/@/([-+0-9.eE]+)/g')
  rep=
  for ((i = 1; i <= $#; i++)); do rep="$rep \\$i"; done
  local m
  m=$(printf '%s' "$RM" | grep -oE -- "$re" | head -1)
  if [ -z "$m" ]; then
    fail "README.md does not say: $tpl (with $*)"
    return
  fi
  local got
  got=$(printf '%s' "$m" | sed -E "s/^$re\$/$rep/")
  # shellcheck disable=SC2086
  set -- $got "$@"
  local n=$(($# / 2)) bad
  bad=$(awk -v n=$n 'function unit(r,  a, m, d) { split(r, a, /[eE]/); m = a[1]
      d = index(m, ".") ? length(m) - index(m, ".") : 0; return 10 ^ (-d) * 10 ^ (a[2] + 0) }
    BEGIN { for (i = 1; i <= n; i++) { r = ARGV[i]; v = ARGV[i + n]
      if (v == "" || (v - r > 1.0001 * unit(r)) || (r - v > 1.0001 * unit(r))) printf "%s (runs give %s) ", r, v } }' "$@")
  [ -z "$bad" ] || fail "README.md says '$m': $bad"
}
# run CMD: CMD is in the README; run it here, sdekit being the tool under test
sdekit() { "$BIN" "$@"; }
run() {
  says "$1"
  eval "$1" > "$T/out.log" 2>&1 || { fail "'$1' failed: $(tail -3 "$T/out.log")"; return 1; }
}
# col FILE COLUMN [FIRST]: the column of the first block's row whose first
# field is FIRST (default: the first row)
col() {
  awk -v want="$2" -v first="${3:-}" '
    /^#/ { if (!data) { hdr = $0; sub(/^# */, "", hdr) } ; next }
    NF == 0 { if (data) exit; next }
    { data = 1; if (first != "" && $1 + 0 != first + 0) next
      n = split(hdr, h, "\t"); for (i = 1; i <= n; i++) if (h[i] == want) { print $i; exit } }' "$1"
}
# h5 FILE DATASET: the dataset's values, one per line (h5dump, full precision)
h5() { h5dump -A 0 -y -m %.17g -d "$2" "$1" | sed -n '/DATA {/,/}/p' | grep -oE '[-+0-9.eE]+' | grep -E '[0-9]'; }
have_h5dump=1
command -v h5dump > /dev/null || { have_h5dump=0; echo "docs_readme: no h5dump: the values read from HDF5 files are not checked"; }
cd "$T" || exit 1
ln -s "$SRC/examples" examples
mkdir results

# Escape times
if run "sdekit run examples/double-well.sde --scan D=0.25:0.5:6 --paths 10000 --dt 0.005 --t-end 200 --observe fpt -o results/escape.h5 -o results/escape.tsv"; then
  near "at D = 0.5: @ +- @, against" "$(col results/escape.tsv mean_over 0.5)" \
    "$(col results/escape.tsv mean_err_over 0.5)"
fi

# Adaptive steps with an absorbing boundary (issue 30)
if run "sdekit run examples/double-well.sde --set D=0.0625 --set b=0 --adaptive --scheme srk2 --precision double --dt-max 0.25 --rtol 0.03 --atol 0.03 --t-end 2000 --paths 20000 --observe fpt -o results/escape-adaptive.h5 -o results/escape-adaptive.tsv"; then
  near "gives a mean escape time of @ +- @ (" "$(col results/escape-adaptive.fpt.tsv mean_over)" \
    "$(col results/escape-adaptive.fpt.tsv mean_err_over)"
  near "with @ accepted and @ rejected sub-steps per path." \
    "$(col results/escape-adaptive.adaptive.tsv accepted_mean)" \
    "$(col results/escape-adaptive.adaptive.tsv rejected_mean)"
fi

# The time-step bias: the washboard
wb="sdekit run examples/washboard.sde --scheme srk2 --dt 0.05 --t-end 40 --transient 4 --paths 524288 --seed 2 --observe drift --dt-check"
if run "$wb -o wb.tsv"; then
  near "<<v>> = @ +- @ and a bias of @ +- @." "$(col wb.tsv drift_x)" \
    "$(col wb.tsv drift_x_err)" "$(col wb.tsv bias)" "$(col wb.tsv bias_err)"
fi
if eval "$wb --extrapolate -o wbx.tsv" > /dev/null 2>&1; then
  near "(@ here" "$(col wbx.tsv drift_x)"
else
  fail "$wb --extrapolate failed"
fi

# ... and Brownian motion leaving (-1, 1)
bm="sdekit run examples/bm-exit.sde --scheme euler --precision double --dt 0.04 --t-end 6 --paths 524288 --observe fpt --dt-check"
if run "$bm -o bm.h5 -o bm.tsv"; then
  near "-o bm.tsv # exit_mean @ +- @ " "$(col bm.tsv exit_mean)" "$(col bm.tsv exit_err)"
  near "the mean exit time @ +- @ " "$(col bm.tsv exit_mean)" "$(col bm.tsv exit_err)"
  if [ $have_h5dump = 1 ]; then
    near "has a bias of @ +- @ " "$(h5 bm.h5 /fpt/bias_exit_mean)" \
      "$(h5 bm.h5 /fpt/bias_err_exit_mean)"
  fi
fi
says "sdekit run examples/bm-exit.sde ... --dt-check --extrapolate -o bmx.tsv"
if eval "$bm --extrapolate -o bmx.tsv" > /dev/null 2>&1; then
  near "-o bmx.tsv # exit_mean @ +- @ " "$(col bmx.tsv exit_mean)" "$(col bmx.tsv exit_err)"
  near "the extrapolated value is @ +- @:" "$(col bmx.tsv exit_mean)" "$(col bmx.tsv exit_err)"
else
  fail "$bm --extrapolate failed"
fi
says "With discrete monitoring alone (\`--no-bridge-correction\`)"
if eval "$bm --no-bridge-correction -o d.tsv" > /dev/null 2>&1 &&
  eval "$bm --no-bridge-correction --extrapolate -o dx.tsv" > /dev/null 2>&1; then
  near "(@ -> @ there)" "$(col d.tsv exit_mean)" "$(col dx.tsv exit_mean)"
else
  fail "$bm --no-bridge-correction failed"
fi

# Paths to a requested standard error
if run "sdekit run ou --scan k=0.2:1:3 --t-end 1 --observe moments,expr --observe-expr x2='x*x' --target-se 0.003 --target-on expr -o x2.h5" &&
  run "sdekit info x2.h5"; then
  used=$(sed -nE 's/^paths used: +(.*) per grid point$/\1/p' "$T/out.log")
  reached=$(sed -nE 's/^target: +.*: reached at ([0-9]+) grid points.*/\1/p' "$T/out.log")
  says "sdekit info x2.h5 # paths used: $used per grid point; target: reached at $reached"
fi

# Multilevel Monte Carlo
if run "sdekit run gbm --set mu=0.05 --set sigma=0.2 --t-end 1 --dt 0.25 --scheme milstein --observe expr --observe-expr S2=S*S --mlmc 1e-3 -o gbm.h5" &&
  [ $have_h5dump = 1 ]; then
  levels=$(h5 gbm.h5 /mlmc/paths | paste -sd, | sed -E 's/,/, /g; s/, ([0-9]+)$/ and \1/')
  nlev=$(h5 gbm.h5 /mlmc/paths | wc -l)
  near "gives @ +- @ (exact 1.150274) from $nlev levels of $levels paths" \
    "$(h5 gbm.h5 /expr/mean_S2 | tail -1)" "$(h5 gbm.h5 /expr/err_S2 | tail -1)"
  near "(@ path-steps;" "$(h5 gbm.h5 /mlmc/cost | awk '{s += $1} END {print s}')"
fi

# Adaptive time steps
if run "sdekit run gbm --adaptive --scheme milstein --precision double --set sigma=0.8 --dt-max 0.25 --rtol 1e-3 --t-end 1 --paths 10000 --observe moments -o gbm-ad.tsv"; then
  near "gives E S(1) = @ +- @ (exact 1.64872) with @ accepted and @ rejected" \
    "$(col gbm-ad.moments.tsv mean_S 1)" "$(col gbm-ad.moments.tsv mean_err_S 1)" \
    "$(col gbm-ad.adaptive.tsv accepted_mean)" "$(col gbm-ad.adaptive.tsv rejected_mean)"
  near "(at most @ and @), the smallest @." "$(col gbm-ad.adaptive.tsv accepted_max)" \
    "$(col gbm-ad.adaptive.tsv rejected_max)" "$(col gbm-ad.adaptive.tsv dt_min)"
fi

# Scans of three axes
if run "sdekit run josephson --scan a=4:8:3 --scan f=0:0.2:2 --scan D=0.001:0.01:2 --periods 200 -o s3.h5 -o s3.tsv"; then
  shape=$("$BIN" info s3.h5 | sed -nE 's|^ +/drift/value +[a-z0-9]+ +(\[.*\])$|\1|p')
  blocks=$(awk '/^# block/ {n++} !/^#/ && NF > 0 {c[n]++} END {for (i in c) print c[i]}' s3.tsv |
    sort -u)
  nblocks=$(grep -c '^# block' s3.tsv)
  [ "$(printf '%s\n' "$blocks" | wc -l)" = 1 ] || fail "s3.tsv has blocks of different lengths"
  says "# /drift/value is $shape; s3.tsv: $nblocks blocks of $blocks rows"
fi

# Sample times: the dt chosen
if run "sdekit run ou --observe moments,density --sample-times 0,0.5,1,2,5,10 -o ou.h5"; then
  says "($("$BIN" info ou.h5 | sed -nE 's/^dt: +([0-9.e-]+)$/\1/p') for the second line)"
fi

# The test programs' figures ("Trust")
if [ -n "$TESTDIR" ]; then
  o=$("$TESTDIR/test_strong" 2>&1) || fail "test_strong failed"
  ord() { printf '%s\n' "$o" | awk -v s="$1" -v c="$2" -v k="$3" \
    '$1 == s && $2 == c && $0 ~ k { for (i = 1; i < NF; i++) if ($i == "order") { print $(i+1), $(i+3); exit } }'; }
  # shellcheck disable=SC2046
  near "euler @ +- @, milstein @ +- @ (Ito) and @ +- @ (Stratonovich), srk2" \
    $(ord euler ito strong) $(ord milstein ito strong) $(ord milstein stratonovich strong)
  # shellcheck disable=SC2046
  near "(Stratonovich), srk2 @ +- @ (Stratonovich) and @ +- @ (Ito)" \
    $(ord srk2 stratonovich strong) $(ord srk2 ito strong)
  o=$("$TESTDIR/test_weak" 2>&1) || fail "test_weak failed"
  ord() { printf '%s\n' "$o" | awk -v s="$1" -v c="$2" -v k="$3" \
    '$1 == s && $2 == c && index($0, k) { for (i = 1; i < NF; i++) if ($i == "order") { print $(i+1), $(i+3); exit } }'; }
  # shellcheck disable=SC2046
  near "euler @ +- @, weak2 @ +- @ (and on GBM's E S(1)^2 from 2^23 paths: @ +- @ and @ +- @," \
    $(ord euler gaussian OU) $(ord weak2 gaussian OU) $(ord euler gaussian GBM) $(ord weak2 gaussian GBM)
  # shellcheck disable=SC2046
  near "(euler @ +- @, weak2 @ +- @ on OU)" $(ord euler three-point OU) $(ord weak2 three-point OU)
fi
echo "docs_readme: $nchk statements checked, $nfail failed"
[ $nfail -eq 0 ]
