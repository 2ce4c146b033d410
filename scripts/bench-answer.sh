#!/usr/bin/env bash
# Time to answer (issue 26): seconds from the command to an answer within a
# requested total error, for three questions:
#
#   dw    the double well's mean escape time (examples/double-well.sde, D 0.5,
#         x0 = -1 to x >= 1) to 0.5% = 0.0335; exact 6.697757907 (the integral
#         formula, quadrature to 1e-12)
#   jj    <<v>> of the Josephson junction (models/josephson.sde, the paper's
#         PROG1 model at a = 4.2), the drift over periods [10, 50], to 1e-3;
#         no exact value: reference -0.01637 +- 0.0002 (srk2 at 100/200/400
#         steps per period, 2^18 paths each, extrapolated; see below)
#   gbm   E S(1)^2 of GBM (mu 0.05, sigma 0.2, S0 1) to 1e-4; exact
#         exp(2 mu + sigma^2) = 1.150273799
#
# "To EPS" means what --target-error promises: |bias| <= EPS/2 and SE <= EPS/2
# (so |value - exact| <= EPS at about 95% confidence; the RMS error is at most
# EPS/sqrt(2)).  --mlmc promises a bias estimate below EPS/sqrt(2) and an SE
# <= EPS/2 (RMS <= 0.87 EPS).  Every row is held to its promise; the hand
# choices are the cheapest (dt, paths) meeting the first one.  Methods:
#
#   fixed     sdekit with a (dt, paths) chosen by hand: the largest dt whose
#             bias (measured below, or exact) is <= EPS/2, then the paths
#             for SE <= EPS/2; for gbm also with weak2 (weak order 2: the
#             best fixed-step choice)
#   target    sdekit --target-error EPS from a coarse dt (no hand tuning)
#   mlmc      sdekit --mlmc EPS (expectations and time averages only: not the
#             escape time); the value columns hold the estimate and its RMS
#             error
#   jax       bench/peers/answer_jax.py, the same scheme, dt and paths as
#             "fixed" (so the same error), jit + lax.scan; its own timer
#             around the second call (the first compiles)
#
# Columns: seconds is the whole process (sdekit: the median wall time of the
# command, start-up included; jax: its in-process timer), run-s the run alone
# (sdekit's summary line: without the process start, the CUDA context and the
# kernel cache; jax: the same timer).
#
# The hand choices (measured with sdekit itself, 2026-11-27):
#   dw:  EPS 0.0335; srk2, the bias against the exact value at dt 0.08 / 0.04
#        / 0.02: +0.0184 / +0.0161 / +0.0082 (+- 0.0020, 2^23 paths each): dt
#        0.04 (0.0161 <= 0.01675); sd of tau 5.86: SE <= 0.01675 needs 122400
#        paths -> 131072.
#   jj:  EPS 1e-3; srk2, <<v>> at 50/100/200/400 steps per period (2^18
#        paths, SE 1.6e-4): -0.018366, -0.017226, -0.016740, -0.016557; bias
#        at 100 about -8.6e-4, at 200 about -3.4e-4 (<= 5e-4): spp 200; sd of
#        a path's drift 0.081: SE <= 5e-4 needs 26244 paths -> 32768.
#   gbm: EPS 1e-4; euler, the exact bias of the Euler recursion E S_n^2 is
#        -5.25e-5 at dt 1/160, -4.2e-5 at dt 1/200 (<= 5e-5): dt 1/200;
#        weak2's bias (--dt-check, 2^22 paths, double) is -1.6e-5 +- 7e-7 at
#        dt 1/4; variance of S^2 0.2296: SE <= 5e-5 needs 9.18e7 paths ->
#        92274688 (5632 x 16384).
#
#   scripts/bench-answer.sh cpu|cuda [dw jj gbm]
#
# Environment: SDEKIT (default build/sdekit), THREADS (cpu, default 2), ROW_TIMEOUT
# (seconds a run may take, default 120),
# REPEATS (default 3: the median of that many timed runs after a warm-up),
# PYTHON (for the JAX peers, default python3), JAX=0 skips the peers,
# METHODS (default "fixed target mlmc jax").  Prints one table row per
# problem and method: seconds, path-steps, value, the error the run reports,
# and |value - reference|.
set -uo pipefail
BE=${1:?usage: scripts/bench-answer.sh cpu\|cuda [dw jj gbm]}
shift
PROBLEMS=${*:-dw jj gbm}
SDEKIT=${SDEKIT:-build/sdekit}
REPEATS=${REPEATS:-3}
PYTHON=${PYTHON:-python3}
METHODS=${METHODS:-fixed target mlmc jax}
PEER=$(dirname "$0")/../bench/peers/answer_jax.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

case $BE in
  cpu) BEOPTS=(--backend cpu --threads "${THREADS:-2}") ;;
  cuda) BEOPTS=(--backend cuda) ;;
  *) echo "bench-answer: backend cpu or cuda, not '$BE'" >&2 && exit 2 ;;
esac

# col FILE NAME: the value of column NAME in the last data row of the first
# block of a TSV file whose header names it (a drift, the fpt means, the
# last sample of a series over time)
col() {
  awk -F'\t' -v want="$2" '
    /^#/ { sub(/^# */, ""); n = split($0, h, "\t"); c = 0
           for (i = 1; i <= n; i++) if (h[i] == want) c = i; next }
    NF == 0 { if (v != "") exit; next }
    c { v = $c }
    END { print v }' "$1"
}

median() { sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'; }

# timed NAME CMD...: run CMD once as a warm-up (kernels compiled and cached),
# then REPEATS times; stdout of the last run in $T/NAME.out, stderr in
# $T/NAME.err; prints the median wall seconds, or nothing if it failed
timed() {
  local name=$1 r t0 t1
  shift
  "$@" > "$T/$name.out" 2> "$T/$name.err" || return 1
  for r in $(seq "$REPEATS"); do
    t0=$(date +%s.%N)
    "$@" > "$T/$name.out" 2> "$T/$name.err" || return 1
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", b - a}'
  done | median
}

steps_of() { sed -n 's/.*, \([0-9.e+]*\) path-steps in .*/\1/p' "$1" | tail -1; }
# the seconds of the run itself (its summary line), without the process's start-up
runs_of() { sed -n 's/.* path-steps in \([0-9.e+]*\) s .*/\1/p' "$1" | tail -1; }

row() { # PROBLEM METHOD SETTINGS SECONDS PATHSTEPS VALUE ERROR REF [RUN-SECONDS]
  awk -v p="$1" -v m="$2" -v s="$3" -v t="$4" -v n="$5" -v v="$6" -v e="$7" -v r="$8" \
    -v rs="${9:-}" 'BEGIN {
    d = (v != "" && r != "") ? sprintf("%.2e", (v > r) ? v - r : r - v) : "-"
    printf "%-4s %-7s %-34s %9s %7s %10s %14s %10s %9s\n", p, m, s, (t == "" ? "failed" : t),
      (rs == "" ? "-" : rs), (n == "" ? "-" : n), (v == "" ? "-" : v), (e == "" ? "-" : e), d }'
}

# sdk_row PROBLEM METHOD SETTINGS VALUECOL ERRCOL REF ARGS...: one sdekit run
sdk_row() {
  local p=$1 m=$2 s=$3 vc=$4 ec=$5 ref=$6 secs
  shift 6
  secs=$(timed "$p-$m" timeout "${ROW_TIMEOUT:-120}" "$SDEKIT" run "$@" "${BEOPTS[@]}" --quiet \
    -o "$T/$p-$m.tsv")
  if [ -z "$secs" ]; then
    row "$p" "$m" "$s" "" "" "" "" ""
    if grep -q '^sdekit: error: ' "$T/$p-$m.err"; then
      sed -n 's/^sdekit: error: /    (error: /p' "$T/$p-$m.err" | head -1 | sed 's/$/)/'
    else
      echo "    (did not finish within ${ROW_TIMEOUT:-120} s)"
    fi
    return
  fi
  # the summary line is on stderr without --quiet: run once more for it
  "$SDEKIT" run "$@" "${BEOPTS[@]}" -o "$T/$p-$m.tsv" 2> "$T/$p-$m.err" > /dev/null
  row "$p" "$m" "$s" "$secs" "$(steps_of "$T/$p-$m.err")" "$(col "$T/$p-$m.tsv" "$vc")" \
    "$(col "$T/$p-$m.tsv" "$ec")" "$ref" "$(runs_of "$T/$p-$m.err")"
}

jax_row() { # PROBLEM SETTINGS REF ARGS...
  local p=$1 s=$2 ref=$3 out
  shift 3
  [ "${JAX:-1}" = 0 ] && return
  if ! out=$("$PYTHON" "$PEER" "$@" 2> "$T/$p-jax.err"); then
    row "$p" jax "$s" "" "" "" "" ""
    tail -1 "$T/$p-jax.err" | sed 's/^/    (/; s/$/)/'
    return
  fi
  read -r v e secs n <<< "$out"
  row "$p" jax "$s" "$secs" "-" "$v" "$e" "$ref" "$secs"
}

want() { case " $METHODS " in *" $1 "*) return 0 ;; esac; return 1; }

dw() {
  local ref=6.697757907 eps=0.0335 m=examples/double-well.sde
  local common=(--scheme srk2 --t-end 200 --observe fpt)
  want fixed && sdk_row dw fixed "srk2 dt 0.04, 131072 paths" mean_over mean_err_over $ref \
    $m "${common[@]}" --dt 0.04 --paths 131072
  # --target-error needs --dt-check, whose path at 2 dt does not track
  # absorption: refused for [boundaries] (so is --mlmc: not an expectation at t_end)
  want target && sdk_row dw target "--target-error $eps from dt 0.16" mean_over mean_err_over \
    $ref $m "${common[@]}" --dt 0.16 --target-error $eps
  want mlmc && row dw mlmc "(escape times: not supported)" "-" "-" "" "" ""
  want jax && jax_row dw "srk2 dt 0.04, 131072 paths" $ref doublewell --dt 0.04 --paths 131072 \
    --batch 131072
}

jj() {
  local ref=-0.01637 eps=0.001
  local common=(josephson --scheme srk2 --periods 50 --transient-periods 10)
  want fixed && sdk_row jj fixed "srk2 spp 200, 32768 paths" drift_x drift_x_err $ref \
    "${common[@]}" --spp 200 --paths 32768
  want target && sdk_row jj target "--target-error $eps from spp 50" drift_x drift_x_err $ref \
    "${common[@]}" --spp 50 --target-error $eps
  want mlmc && sdk_row jj mlmc "--mlmc $eps from spp 50" mean_v err_v $ref \
    "${common[@]}" --spp 50 --observe tavg --mlmc $eps
  want jax && jax_row jj "srk2 spp 200, 32768 paths" $ref josephson --spp 200 --paths 32768 \
    --periods 50 --transient-periods 10
}

gbm() {
  local ref=1.150273799 eps=1e-4
  # one sample of the user observable, at t_end (and t = 0)
  local common=(gbm --set mu=0.05 --set sigma=0.2 --t-end 1 --observe expr
    --observe-expr S2=S*S)
  want fixed && sdk_row gbm fixed "euler dt 1/200, 92274688 paths" mean_S2 err_S2 $ref \
    "${common[@]}" --scheme euler --dt 0.005 --sample-every 200 --paths 92274688
  want fixed && sdk_row gbm fixed "weak2 dt 1/4, 92274688 paths" mean_S2 err_S2 $ref \
    "${common[@]}" --scheme weak2 --dt 0.25 --sample-every 4 --paths 92274688
  want target && sdk_row gbm target "--target-error $eps from dt 1/4" mean_S2 err_S2 $ref \
    "${common[@]}" --scheme euler --dt 0.25 --sample-every 4 --target-error $eps
  want mlmc && sdk_row gbm mlmc "--mlmc $eps weak2, dt_0 1" mean_S2 err_S2 $ref \
    "${common[@]}" --scheme weak2 --dt 1 --sample-every 1 --mlmc $eps
  want mlmc && sdk_row gbm mlmc "--mlmc $eps milstein, dt_0 1" mean_S2 err_S2 $ref \
    "${common[@]}" --scheme milstein --dt 1 --sample-every 1 --mlmc $eps
  want mlmc && sdk_row gbm mlmc "--mlmc $eps milstein, dt_0 1/4" mean_S2 err_S2 $ref \
    "${common[@]}" --scheme milstein --dt 0.25 --sample-every 4 --mlmc $eps
  want mlmc && sdk_row gbm mlmc "--mlmc $eps euler, dt_0 1/4" mean_S2 err_S2 $ref \
    "${common[@]}" --scheme euler --dt 0.25 --sample-every 4 --mlmc $eps
  want jax && jax_row gbm "euler dt 1/200, 92274688 paths" $ref gbm --dt 0.005 \
    --paths 92274688 --batch 4194304
}

printf "%-4s %-7s %-34s %9s %7s %10s %14s %10s %9s\n" what method settings seconds run-s \
  path-steps value error "|v - ref|"
for p in $PROBLEMS; do
  case $p in
    dw | jj | gbm) "$p" ;;
    *) echo "bench-answer: unknown problem '$p' (dw, jj, gbm)" >&2 && exit 2 ;;
  esac
done
