#!/usr/bin/env bash
# Issue 25 item 9: a TSV header that would name two columns alike (a scanned
# parameter drift_x beside the drift of x; cov_a_b_c from variables a_b, c
# and a, b_c) is refused before the run, not when the TSV is written after
# it: a run of minutes fails at once, with nothing written, for every TSV
# output the run has (-o FILE.tsv, BASE.OBS.tsv of several observables, -
# and the default stdout), beside an HDF5 output too.
. "$(dirname "$0")/lib.sh"

cat >"$T/x.sde" <<'EOF'
[model]
name = clash
vars = x
[params]
k = 1
drift_x = 1
[drift]
x = -k*x
[noise]
x = 1
EOF
cat >"$T/cov.sde" <<'EOF'
[model]
name = clash
vars = a_b, c, a, b_c
[drift]
a_b = -a_b
c = -c
a = -a
b_c = -b_c
[noise]
a_b = 1
c = 1
a = 1
b_c = 1
EOF
# minutes of work (10^10 path-steps and more) on any machine
LONG=(--paths 100000 --t-end 1000 --dt 0.01 --threads 1 --quiet)

# prerun NAME REGEX ARGS...: expect_error's checks (exit 2, one error line,
# no file made), and the refusal comes within 2 s (killed at 15 s otherwise)
prerun() {
  local name=$1 re=$2 bin=$BIN t0 t1
  shift 2
  BIN=timeout
  t0=$(date +%s%N)
  expect_error "$name" 2 "$re" -k 2 15 "$bin" "$@"
  t1=$(date +%s%N)
  BIN=$bin
  check "$name: refused in $(((t1 - t0) / 1000000)) ms, before the run (< 2000)" \
    test $(((t1 - t0) / 1000000)) -lt 2000
}

prerun "-o FILE.tsv, scanned drift_x beside the drift of x" \
  "TSV output of --observe drift: the scanned parameter 'drift_x' and column 2 .*'drift_x'" \
  run "$T/x.sde" "${LONG[@]}" --scan drift_x=1:2:2 -o out.tsv
prerun "no -o (stdout), scanned drift_x" \
  "TSV output of --observe drift: the scanned parameter 'drift_x'" \
  run "$T/x.sde" "${LONG[@]}" --scan drift_x=1:2:2
check "no -o: nothing on stdout" test ! -s "$OUTF"
prerun "-o - with a checkpoint, scanned drift_x" \
  "TSV output of --observe drift: the scanned parameter 'drift_x'" \
  run "$T/x.sde" "${LONG[@]}" --scan drift_x=1:2:2 --checkpoint run.ckpt -o -
prerun "-o FILE.h5 -o FILE.tsv, moments and cov: cov_a_b_c twice" \
  "TSV output of --observe cov: column [0-9]+ and column [0-9]+ .*'cov_a_b_c'" \
  run "$T/cov.sde" "${LONG[@]}" --observe moments,cov -o out.h5 -o out.tsv

# HDF5 alone keeps the names apart: the same run is not refused
run_sdk run "$T/cov.sde" --paths 4 --t-end 0.1 --dt 0.01 --quiet --observe moments,cov -o ok.h5
check "HDF5 alone: cov of a_b, c, a, b_c runs (exit $rc: $(head -c 200 "$ERRF"))" test "$rc" -eq 0
finish
