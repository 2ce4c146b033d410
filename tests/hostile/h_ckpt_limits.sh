#!/usr/bin/env bash
# Issue 10 item 6 (run part): step counts and in-memory observables have
# named, documented maxima (SDK_MAX_STEPS = 2^53, SDK_MAX_SAMPLE_VALUES =
# 2^28 in src/sim/run.h); beyond them one clean error naming the limit, at
# once (the old code overflowed the step count, or allocated gigabytes).
. "$(dirname "$0")/lib.sh"
lim() { # NAME REGEX ARGS...
  local name=$1 re=$2
  shift 2
  SECONDS=0
  expect_error "$name" 2 "$re" "$@"
  check "$name: at once (${SECONDS}s)" test "$SECONDS" -lt 10
}
STEPS='more than the maximum of 9007199254740992 \(SDK_MAX_STEPS, 2\^53\)'
lim "--periods 9e15" "9e\+17 steps, $STEPS" run josephson --periods 9e15 -o r.tsv
lim "--periods x --spp overflowing" "steps, $STEPS" run josephson --periods 9e15 --spp 9e15 -o r.tsv
lim "--t-end / --dt beyond the maximum" "1e\+19 steps, $STEPS" run ou --t-end 1e16 --dt 1e-3 -o r.tsv
lim "--t-end / --dt not finite" "inf steps, $STEPS" run ou --t-end 1e300 --dt 1e-300 -o r.tsv
lim "--t-end 1e300" "steps, $STEPS" run ou --t-end 1e300 -o r.tsv
lim "--transient-periods 9e15" "transient would take 9e\+17 steps, $STEPS" run josephson --periods 10 --transient-periods 9e15 -o r.tsv
lim "--transient 1e300" "transient would take .* steps, $STEPS" run ou --t-end 1 --transient 1e300 -o r.tsv
lim "moments sampled too often" "SDK_MAX_SAMPLE_VALUES" run ou --t-end 1e7 --observe moments --sample-every 1 -o r.tsv
lim "saved paths x samples" "SDK_MAX_SAMPLE_VALUES" run ou --t-end 1e6 --save-paths 0,1,2,3,4,5,6,7,8,9 --sample-every 1 --paths 16 -o r.tsv
lim "histogram bins x grid points" "SDK_MAX_SAMPLE_VALUES" run ou --scan k=1:2:10000 --observe hist --bins 1e8 -o r.tsv
lim "paths x grid points" "too many paths" run ou --scan k=1:2:1e7 --paths 1e9 -o r.tsv
finish
