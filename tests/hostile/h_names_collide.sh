#!/usr/bin/env bash
# Issue 25 items 9 and 14: names the results make from the model's names.
# Any identifier may name a variable or parameter, but some pairs would make
# one dataset or TSV column twice: the moments' error of x is
# moments/mean_err_x, the mean of a variable err_x; --save-paths keeps
# paths/index and paths/step beside paths/VAR; cov_a_b_c is the covariance
# of (a_b, c) and of (a, b_c); a scanned parameter drift_x is the first TSV
# column, and so is the drift of x.  Each is refused before anything is
# written, with a message naming both, instead of an internal "dataset made
# twice" or an ambiguous header.  And --observe order without systems of
# particles (r = 1 whatever the state) is refused.
. "$(dirname "$0")/lib.sh"

# model FILE VARS...: dX = -X dt + dW for every X, parameters k and drift_x
model() {
  local f=$1
  shift
  {
    printf '[model]\nname = clash\nvars = %s\n' "$(IFS=,; echo "$*" | sed 's/,/, /g')"
    printf '[params]\nk = 1\ndrift_x = 1\n[drift]\n'
    for v in "$@"; do printf '%s = -k*%s\n' "$v" "$v"; done
    printf '[noise]\n'
    for v in "$@"; do printf '%s = 1\n' "$v"; done
  } >"$f"
}
mkdir -p "$T/m"
Q=(--paths 4 --t-end 0.1 --dt 0.01 --quiet)

model "$T/m/err.sde" x err_x
expect_error "moments of x beside err_x" 2 \
  "moments.*'x' and 'err_x'.*'moments/mean_err_x'" run "$T/m/err.sde" "${Q[@]}" --observe moments -o out.h5
model "$T/m/index.sde" x index
expect_error "saved paths with a variable index" 2 \
  "save-paths.*variable 'index'.*'paths/index'" run "$T/m/index.sde" "${Q[@]}" --save-paths 0 -o out.h5
model "$T/m/step.sde" x step
expect_error "saved paths with a variable step" 2 \
  "save-paths.*variable 'step'.*'paths/step'" run "$T/m/step.sde" "${Q[@]}" --save-paths 0 -o out.h5
expect_error "density of a variable step" 2 \
  "density of 'step'.*'density/step'" run "$T/m/step.sde" "${Q[@]}" --observe density --density-var step -o out.h5
model "$T/m/cov.sde" a_b c a b_c
expect_error "cov TSV: cov_a_b_c twice" 2 \
  "TSV output of --observe cov: .*'cov_a_b_c'" run "$T/m/cov.sde" "${Q[@]}" --observe cov -o out.tsv
model "$T/m/x.sde" x
expect_error "drift TSV: scanned drift_x beside the column drift_x" 2 \
  "TSV output of --observe drift: the scanned parameter 'drift_x' and column 2 .*'drift_x'" \
  run "$T/m/x.sde" "${Q[@]}" --observe drift --scan drift_x=1:2:2 -o out.tsv
expect_error "order parameter without --particles" 2 \
  "--observe order needs systems of particles.*--particles N with N >= 2" \
  run josephson "${Q[@]}" --observe order -o out.h5
expect_error "order parameter with --particles 1" 2 \
  "--observe order needs systems of particles" \
  run josephson "${Q[@]}" --observe order --particles 1 -o out.h5

# the names that do not clash still work, and their files are as before
run_sdk run "$T/m/err.sde" "${Q[@]}" --observe range,tavg,cov -o ok.h5 -o ok.tsv
check "err_x beside x: range, tavg and cov work (exit $rc: $(head -c 200 "$ERRF"))" test "$rc" -eq 0
check "err_x beside x: the cov header" grep -q $'^# t\tcov_x_x\tcov_x_x_err\tcov_x_err_x\t' ok.cov.tsv
run_sdk run "$T/m/index.sde" "${Q[@]}" --observe moments -o ok2.h5 -o ok2.tsv
check "a variable index without --save-paths works (exit $rc: $(head -c 200 "$ERRF"))" test "$rc" -eq 0
check "its moments header" grep -q $'^# t\tmean_x\tvar_x\tmean_index\tvar_index\tmean_err_x\tmean_err_index$' ok2.tsv
run_sdk run "$T/m/x.sde" "${Q[@]}" --observe drift --scan k=1:2:2 -o ok3.tsv
check "a scan of k with the drift TSV works (exit $rc)" test "$rc" -eq 0
check "its header" grep -q $'^# k\tdrift_x\tdrift_x_err$' ok3.tsv
finish
