#!/usr/bin/env bash
# Issue 26: --dt-check refuses, with one error line naming why and what to
# change, every run whose coarse path at 2 dt it could not make exactly:
# systems of particles, jumps and dichotomous events, [boundaries], numbers
# of steps (run, transient, sample interval) that are odd, observables
# without a value it measures; --extrapolate without it.  Then a resumed
# --dt-check run continues its coarse path bitwise.
. "$(dirname "$0")/lib.sh"
cat >"$T/wall.sde" <<'M'
[model]
name = wall
vars = x
[drift]
x = 0
[noise]
x = 1
[init]
x = 0.5
[boundaries]
left = absorb x <= 0
M
O="--paths 64 --t-end 1 --dt 0.01"
expect_error "systems of particles" 2 "dt-check: .*systems of interacting particles" \
  run kuramoto --particles 8 $O --dt-check
expect_error "dichotomous noise" 2 "dt-check: .*\[jumps\] or \[dichotomous\]" \
  run telegraph_ou $O --dt-check
expect_error "Poisson jumps" 2 "dt-check: .*\[jumps\] or \[dichotomous\]" \
  run shot_noise_ou $O --dt-check
expect_error "boundaries" 2 "dt-check: .*\[boundaries\]" run "$T/wall.sde" $O --dt-check
expect_error "an odd number of steps" 2 "dt-check: the run is 101 steps.*--t-end" \
  run ou --paths 64 --t-end 1.01 --dt 0.01 --dt-check
expect_error "an odd transient" 2 "dt-check: the transient is 11 steps.*--transient" \
  run ou $O --transient 0.11 --dt-check
expect_error "an odd sample interval" 2 "dt-check: the sample interval is 5 steps.*--sample-every" \
  run ou $O --observe moments --sample-every 5 --dt-check
expect_error "an observable without a value it measures" 2 "dt-check: --observe hist has no value" \
  run ou $O --observe moments,hist --dt-check -o "$W/r.h5"
expect_error "--extrapolate alone" 2 "extrapolate needs --dt-check" run ou $O --extrapolate

# stopped and resumed: the coarse path's rows go through the checkpoint
R="run ou --paths 2000 --dt 0.01 --observe moments,drift --dt-check"
run_sdk $R --t-end 2 -o "$T/a.tsv" -o "$T/a.h5"
check "the whole run (rc=$rc)" test "$rc" = 0
run_sdk $R --t-end 1 --checkpoint "$T/ck" -o "$T/h.tsv"
run_sdk resume "$T/ck" --t-end 2 -o "$T/b.tsv"
check "resumed to the end (rc=$rc)" test "$rc" = 0
for o in drift moments; do
  check "$o with its bias resumed bitwise" cmp -s <(grep -v '^#' "$T/a.$o.tsv") <(grep -v '^#' "$T/b.$o.tsv")
done
check "the drift's TSV has the bias" grep -q "bias.bias_err" "$T/a.drift.tsv"
"$BIN" info "$T/a.h5" >"$T/a.txt" 2>&1
check "info shows the drift's bias" grep -q "bias_err" "$T/a.txt"
finish
