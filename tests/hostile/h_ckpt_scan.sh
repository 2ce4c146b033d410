#!/usr/bin/env bash
# Issue 10 item 9: one scan point whose paths blow up does not cost the scan.
# dx = a x^3 dt + 0.1 dW from x = 1 explodes near t = 1/(2a) for a > 0: the
# healthy points (a = -2, -1, 0) are written bitwise equal to a scan of only
# those points, the bad one (a = 1) as NaN with its count of non-finite paths
# (HDF5 dataset "nonfinite", TSV column), the error names a=1, exit 1.
. "$(dirname "$0")/lib.sh"
printf '[model]\nname = cubic\nvars = x\n[params]\na = 0\n[drift]\nx = a*x*x*x\n[noise]\nx = 0.1\n[init]\nx = 1.0\n' >"$T/cubic.sde"
D=$T/d
mkdir -p "$D/all" "$D/ok"
COMMON=(--paths 256 --t-end 2 --dt 0.01 --observe drift,moments,hist --precision double)
(cd "$D/all" && "$BIN" run "$T/cubic.sde" --scan a=-2:1:4 "${COMMON[@]}" -o r.h5 -o r.tsv --quiet \
  >"$T/out" 2>"$T/err")
rc=$?
check "exit 1 (got $rc)" test "$rc" = 1
check "one error line" test "$(wc -l <"$T/err")" = 1
check "the error names the parameter value" grep -Eq '^sdekit: error: 256 of 256 paths became NaN/Inf at grid point 3 \(a=1\) by step [0-9]+' "$T/err"
check "the error says the rest is written" grep -q 'the other 3 of 4 grid points are complete' "$T/err"
check "outputs written" test -s "$D/all/r.h5" -a -s "$D/all/r.drift.tsv" -a -s "$D/all/r.moments.tsv"
(cd "$D/ok" && "$BIN" run "$T/cubic.sde" --scan a=-2:0:3 "${COMMON[@]}" -o r.tsv --quiet) || fail "healthy run"
# drift: the healthy rows are the same text (same digits), the bad one NaN with its count
check "drift header has the nonfinite column" grep -q $'drift_x_err\tnonfinite$' "$D/all/r.drift.tsv"
paste <(grep -v '^#' "$D/ok/r.drift.tsv" | grep -v '^a') <(grep -v '^#' "$D/all/r.drift.tsv" | grep -v '^a' | head -3) >"$T/pairs"
check "healthy drift rows equal the healthy-only run" awk -F'\t' '{ if ($1 != $4 || $2 != $5 || $3 != $6 || $7 != 0) exit 1 }' "$T/pairs"
check "bad drift row is NaN with 256 non-finite paths" grep -Eq $'^1\tnan\tnan\t256$' <(grep -v '^#' "$D/all/r.drift.tsv")
# moments: every healthy row identical, every row of a=1 NaN
check "healthy moments identical" cmp -s <(grep -v '^#' "$D/ok/r.moments.tsv" | grep -v '^$') <(grep -v '^#' "$D/all/r.moments.tsv" | grep -v '^1	' | grep -v '^$')
check "bad moments all NaN" awk -F'\t' '$1 == 1 { n++; if ($3 != "nan") exit 1 } END { exit n > 0 ? 0 : 1 }' <(grep -v '^#' "$D/all/r.moments.tsv")
if command -v h5dump >/dev/null; then
  check "HDF5 nonfinite dataset" bash -c "h5dump -d /nonfinite '$D/all/r.h5' | tr -d ' \n' | grep -q 'DATA{(0):0,0,0,256}'"
fi
# every point blown up: nothing to keep, the run stops (exit 1, no file)
expect_error "all points blown up" 1 "became NaN/Inf at grid point 0 \(a=1\).* and so did every other" \
  run "$T/cubic.sde" --scan a=1:2:2 "${COMMON[@]}" -o "$D/none.tsv"
check "no file then" test ! -e "$D/none.tsv"
finish
