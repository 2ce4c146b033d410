#!/usr/bin/env bash
# [events] (issue 31) a run cannot honour, each one clear error with the file
# and line, exit 2, nothing written: a condition that is no comparison of a
# variable with a level in the parameters, an unknown variable, a reset of a
# parameter or of no name at all, a variable reset twice, no 'when' or no
# ':', a reset to a constant inside the condition (it would fire again and
# again; also at a grid point of a scan), a NaN level, and the features
# events do not go with (systems, [boundaries], --dt-check, --observe events
# on a model without events).  A reset that depends on the state and leaves
# the path inside the condition is not refusable before the run: it ends,
# reported by events/stuck (tests/test_events.c).
. "$(dirname "$0")/lib.sh"

R="--paths 16 --t-end 1 --dt 0.01 --seed 1"
# model NAME EVENT-LINES...: a Brownian motion with drift, [params] L = 1,
# z = 0, and the given [events] (from line 13 on)
model() {
  sde_file "$1" '[model]' 'name = e' 'vars = x, y' '[params]' 'L = 1' 'z = 0' '[drift]' 'x = 1' \
    'y = 0' '[noise]' 'x = 1' '[events]' "${@:2}"
}
f=$(model cmp 'a = when x + y >= L : x = 0')
expect_error not-one-variable 2 "cmp\.sde:13: \[events\] a: expected a comparison of one variable" \
  run "$f" $R -o "$T/a.tsv"
f=$(model lvl 'a = when x >= y : x = 0')
expect_error level-with-state 2 "lvl\.sde:13: \[events\] a: the level of a boundary may use the parameters only" \
  run "$f" $R -o "$T/a.tsv"
f=$(model unk 'a = when w >= L : x = 0')
expect_error unknown-variable 2 "unk\.sde:13: \[events\] a: .*'w'" run "$f" $R -o "$T/a.tsv"
f=$(model par 'a = when x >= L : L = 0')
expect_error reset-parameter 2 "par\.sde:13: \[events\] a: only a variable can be reset; 'L' is none" \
  run "$f" $R -o "$T/a.tsv"
f=$(model twice 'a = when x >= L : x = 0, x = 1')
expect_error reset-twice 2 "twice\.sde:13: \[events\] a: 'x' is reset twice" run "$f" $R -o "$T/a.tsv"
f=$(model nowhen 'a = x >= L : x = 0')
expect_error no-when 2 "nowhen\.sde:13: \[events\] a: expected 'when COND : VAR = EXPR'" \
  run "$f" $R -o "$T/a.tsv"
f=$(model nocolon 'a = when x >= L')
expect_error no-colon 2 "nocolon\.sde:13: \[events\] a: no ':' after the condition" \
  run "$f" $R -o "$T/a.tsv"
f=$(model noeq 'a = when x >= L : x')
expect_error no-assignment 2 "noeq\.sde:13: \[events\] a: expected VAR = EXPR after ':'" \
  run "$f" $R -o "$T/a.tsv"
f=$(model forever 'a = when x >= L : x = L')
expect_error fires-forever 2 "forever\.sde:13: \[events\] a: the reset x = 1 leaves the condition true \(level 1\): the event would fire again and again" \
  run "$f" $R -o "$T/a.tsv"
f=$(model ok 'a = when x >= L : x = 0')
expect_error fires-forever-scan 2 "ok\.sde:13: \[events\] a: the reset x = 0 leaves the condition true \(level -1\).* \(at grid point 1 \(L=-1\)\)" \
  run "$f" $R --scan L=1:-1:2 -o "$T/a.tsv"
f=$(model nan 'a = when x >= z/z : x = 0')
expect_error nan-level 2 "nan\.sde:13: \[events\] a: the level of x is nan \(must be finite\)" \
  run "$f" $R -o "$T/a.tsv"
expect_error dt-check 2 "--dt-check: model 'e' has \[events\]" \
  run "$W/ok.sde" $R --dt-check -o "$T/a.tsv"
expect_error no-events 2 "--observe events needs a model with \[events\]" \
  run ou $R --observe events -o "$T/a.tsv"
printf '%s\n' '[model]' 'name = e' 'vars = x' '[drift]' 'x = 1' '[noise]' 'x = 1' \
  '[boundaries]' 'b = absorb x <= -1' '[events]' 'a = when x >= 1 : x = 0' >"$W/bnd.sde"
expect_error with-boundaries 2 "bnd\.sde:11: \[events\] are not supported with \[boundaries\]" \
  run "$W/bnd.sde" $R -o "$T/a.tsv"
expect_error single-too-long 2 "--observe events: 20000000 steps in single precision .*use --precision double" \
  run "$W/ok.sde" --paths 16 --dt 1e-6 --t-end 20 --observe events -o "$T/a.tsv"
expect_error too-many-steps 2 "ok\.sde:13: \[events\]: a run with events takes fewer than 2\^44 steps" \
  run "$W/ok.sde" --paths 16 --dt 1e-13 --t-end 10 --precision double -o "$T/a.tsv"
expect_error tavg 2 "model 'e' has \[events\]: not supported with time averages \(--observe tavg\) yet" \
  run "$W/ok.sde" $R --observe tavg -o "$T/a.tsv"
check nothing-written [ ! -e "$T/a.tsv" ]
# the good model runs and counts
run_sdk run "$W/ok.sde" $R --observe events -o "$T/ok.tsv"
check ok-runs [ "$rc" -eq 0 ]
finish
