#!/usr/bin/env bash
# [levy] and [colored] (issue 31) given what they cannot take: a stability
# index or skewness out of range or not a number, a negative or zero
# correlation time, a negative intensity (also through --set and a scan),
# a Levy noise on a variable with a [noise] line, a coloured noise with a
# drift, the schemes that need more than the increments, --dt-check.  Each
# is one error naming the file and line, exit 2, nothing written.
. "$(dirname "$0")/lib.sh"

R="--paths 16 --t-end 0.1 --dt 0.01 --seed 1"
# (the refusals of the generator come after the plan's notes: the note of
# ALPHA < 2 on the default --observe drift is kept out of them)
RQ="$R --observe range"
# levy NAME VALUE [MORE LINES...]: dx = -x dt + [levy] x = VALUE (line 9)
levy() {
  sde_file "$1" '[model]' 'name = l' 'vars = x' '[params]' 's = 1' '[drift]' 'x = -x' \
    '[levy]' "x = $2" "${@:3}"
}
# colored NAME VALUE [MORE LINES...]: dx = eta dt, [colored] eta = VALUE (line 8)
colored() {
  sde_file "$1" '[model]' 'name = c' 'vars = x' '[params]' 'tau = 1' 'D = 1' '[colored]' \
    "eta = $2" '[drift]' 'x = eta' "${@:3}"
}

f=$(levy a0 '0, 0, s')
expect_error alpha-zero 2 "a0\.sde:9: \[levy\] x: ALPHA = '0' must be a number in \(0, 2\]" run "$f" $R -o "$T/a.tsv"
f=$(levy a3 '3, 0, s')
expect_error alpha-big 2 "a3\.sde:9: \[levy\] x: ALPHA = '3' must be a number in \(0, 2\]" run "$f" $R -o "$T/a.tsv"
f=$(levy aexpr 's, 0, s')
expect_error alpha-expr 2 "aexpr\.sde:9: \[levy\] x: ALPHA = 's' must be a number" run "$f" $R -o "$T/a.tsv"
f=$(levy anan 'nan, 0, s')
expect_error alpha-nan 2 "anan\.sde:9: \[levy\] x: ALPHA = 'nan' must be a number" run "$f" $R -o "$T/a.tsv"
f=$(levy b2 '1.5, 2, s')
expect_error beta-big 2 "b2\.sde:9: \[levy\] x: BETA = '2' must be a number in \[-1, 1\]" run "$f" $R -o "$T/a.tsv"
f=$(levy two '1.5, 0')
expect_error two-values 2 "two\.sde:9: \[levy\] x: expected ALPHA, BETA, SCALE" run "$f" $R -o "$T/a.tsv"
f=$(levy unknown '1.5, 0, q')
expect_error unknown-name 2 "unknown\.sde:9: \[levy\] x: unknown name 'q'" run "$f" $R -o "$T/a.tsv"
f=$(levy both '1.5, 0, s' '[noise]' 'x = 1')
expect_error noise-too 2 "both\.sde:9: \[levy\] x: x has a \[noise\] line \(line 11\)" run "$f" $R -o "$T/a.tsv"
f=$(levy twice '1.5, 0, s' 'x = 1, 0, s')
expect_error twice 2 "twice\.sde:10: " run "$f" $R -o "$T/a.tsv"
f=$(levy ok '1.5, 0, s')
expect_error milstein 2 "ok\.sde:9: \[levy\] x: scheme milstein needs more of the noise than its increments" \
  run "$f" $RQ --scheme milstein -o "$T/a.tsv"
expect_error weak2 2 "ok\.sde:9: \[levy\] x: scheme weak2 needs more" run "$f" $RQ --scheme weak2 -o "$T/a.tsv"
expect_error dt-check 2 "--dt-check: model 'l' has \[colored\] or \[levy\] noise" \
  run "$f" $R --dt-check -o "$T/a.tsv"
f=$(levy state '1.5, 0, s*x')
expect_error state-srk2 2 "state\.sde:9: \[levy\] x: a scale that depends on the state is integrated in the Ito sense only" \
  run "$f" $RQ --scheme srk2 -o "$T/a.tsv"
run_sdk run "$f" $R --scheme euler -o "$T/state.tsv"
check state-euler-runs [ "$rc" -eq 0 ]

# the statistics a stable law leaves without a value: one note before the run
f=$(levy a07 '0.7, 0, s')
run_sdk run "$f" $R --observe moments,hist -o "$T/n.tsv"
check note-mean [ "$rc" -eq 0 ]
check note-mean-text grep -q "^sdekit: note: \[levy\] x: ALPHA = 0.7: a variable driven by it has no mean and no variance (unless the model bounds it): the means, variances and correlations that --observe moments reports do not exist, nor do their standard errors$" "$ERRF"
f=$(levy a15 '1.5, 0, s')
run_sdk run "$f" $R --sample-every 1 --observe acf,psd,range -o "$T/n.tsv"
check note-variance-text grep -q "^sdekit: note: \[levy\] x: ALPHA = 1.5: a variable driven by it has no variance (unless the model bounds it): the variances and correlations that --observe acf, psd reports do not exist, and their standard errors, the means' too, do not hold$" "$ERRF"
run_sdk run "$f" $R --observe range,hist -o "$T/n.tsv"
check no-note-range [ "$rc" -eq 0 ] && check no-note-range-text [ "$(grep -c 'note: \[levy\]' "$ERRF")" -eq 0 ]
f=$(levy a2 '2, 0, s')
run_sdk run "$f" $R --observe moments -o "$T/n.tsv"
check no-note-alpha-2 [ "$(grep -c 'note: \[levy\]' "$ERRF")" -eq 0 ]

f=$(colored neg 'tau, D')
expect_error tau-negative 2 "neg\.sde:8: \[colored\] eta: TAU = -1, D = 1 \(the correlation time must be finite and > 0, the intensity finite and >= 0\) \(at grid point 0\)" \
  run "$f" $R --set tau=-1 -o "$T/a.tsv"
expect_error tau-zero-scanned 2 "neg\.sde:8: \[colored\] eta: TAU = 0, D = 1 .*\(at grid point 1 \(tau=0\)\)" \
  run "$f" $R --scan tau=1:0:2 -o "$T/a.tsv"
expect_error d-negative 2 "neg\.sde:8: \[colored\] eta: TAU = 1, D = -0.5" run "$f" $R --set D=-0.5 -o "$T/a.tsv"
f=$(colored inf 'tau/0, D')
expect_error tau-inf 2 "inf\.sde:8: \[colored\] eta: TAU = inf" run "$f" $R -o "$T/a.tsv"
f=$(colored one 'tau')
expect_error one-value 2 "one\.sde:8: \[colored\] eta: expected TAU, D" run "$f" $R -o "$T/a.tsv"
f=$(colored drift 'tau, D' 'eta = 1')
expect_error drift 2 "drift\.sde:11: \[drift\] eta: 'eta' is a \[colored\] noise \(line 8\), which has no drift" \
  run "$f" $R -o "$T/a.tsv"
f=$(colored clash 'tau, D' '[dichotomous]' 'eta = 1, -1, 1, 1')
expect_error clash 2 "clash\.sde:12: \[dichotomous\] eta: 'eta' is already a variable" run "$f" $R -o "$T/a.tsv"
f=$(colored bound 'tau, D' '[boundaries]' 'o = absorb x >= 1')
expect_error boundaries 2 "bound\.sde:8: \[colored\] is not supported together with \[boundaries\] yet" \
  run "$f" $R -o "$T/a.tsv"
f=$(colored ok 'tau, D')
expect_error three-point 2 "ok\.sde:8: \[colored\]: its exact update needs Gaussian values, not --noise three-point" \
  run "$f" $R --scheme weak2 --noise three-point -o "$T/a.tsv"

finish h_levy_colored
