#!/usr/bin/env bash
# cli_scan_axes.sh: scans of more than two axes and zipped scans (issue 28).
#   (a) a 3-axis scan k x D x m of an OU process with a mean m: every grid
#       point's drift (x(T) - x(0))/T equals the exact value
#       (m + (1 - m) e^{-kT} - 1)/T within 5 standard errors; a single run
#       with --set of those values agrees within 5 combined standard errors.
#       Bitwise: path i of grid point g has the Philox key g * paths + i, so a
#       single run reproduces grid point 0 only: given as 1-point scans it does
#       bit for bit (with --set the parameters are constants of the kernel
#       and the last bits differ, so that comparison is statistical);
#   (b) the same 12 points as a --scan-file table (one zipped axis of 12
#       rows, the same grid order): bit for bit;
#   (c) the same grid as zipped axes (--scan k=LIST --scan +D=LIST --scan m):
#       6 x 2 points in the same order: bit for bit;
#   (d) a zipped scan of ranges (--scan k,D=R1,R2) equals the --scan-file
#       table of its points bit for bit; the HDF5 file records every zipped
#       parameter (scan/D with zipped_with = k) and one grid dimension;
#   (e) TSV of 3 axes: one block per (k, D), headed "# block: k=.. D=..",
#       two blank lines between blocks (gnuplot's index);
#   (f) info shows every axis; plot refuses 3 axes, saying what to do.
# Backend from $SDK_TEST_BACKEND (default cpu).  Needs h5dump for the
# bitwise comparisons (skipped, exit 77, without it).
#
# Environment (set by CTest): SDK_BIN.
set -u

BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_scan_axes: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
command -v h5dump >/dev/null 2>&1 || { echo "cli_scan_axes: no h5dump: skipped"; exit 77; }
BACKEND=${SDK_TEST_BACKEND:-cpu}
if [ "$BACKEND" = cuda ]; then
  [ "$("$BIN" devices --count 2>/dev/null || echo 0)" != 0 ] || { echo "no CUDA device: skipped"; exit 77; }
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/cli_scan_axes.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export SDEKIT_CACHE_DIR=${SDEKIT_CACHE_DIR:-$T/cache}
unset SDEKIT_MODEL_PATH
cd "$T" || exit 1

npass=0
nfail=0
check() { # NAME GOT WANT
  if [ "$2" = "$3" ]; then
    npass=$((npass + 1))
  else
    nfail=$((nfail + 1))
    echo "FAIL: $1: got '$2', expected '$3'"
  fi
}

SRC=${SDK_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
cp "$SRC/tests/scan-ou3.sde" ou3.sde || exit 1
RUN=(run ./ou3.sde --paths 4096 --t-end 1 --seed 7 --precision double --backend "$BACKEND"
  --observe drift --quiet)

# vals FILE DATASET: its values to 17 digits, one per line, in storage order
vals() {
  h5dump -m '%.17g' -y -w 0 -d "$2" "$1" |
    awk '/DATA \{/ { if (!done) on = 1; next } on && /\}/ { on = 0; done = 1 } on' |
    tr ',' '\n' | awk 'NF { print $1 }'
}

# (a) 3 x 2 x 2 grid against the exact value and single runs
"$BIN" "${RUN[@]}" --scan k=0.5:1.5:3 --scan D=0.25:0.5:2 --scan m=0:1:2 -o s3.h5 -o s3.tsv 2>err ||
  check "3-axis run" "failed: $(head -c 300 err)" ok
check "3-axis drift shape" "$(h5dump -H -d /drift/value s3.h5 | grep -o '( 3, 2, 2 )' | head -1)" "( 3, 2, 2 )"
vals s3.h5 /drift/value >s3.v
vals s3.h5 /drift/error >s3.e
g=0
bad_exact=0
bad_single=0
for k in 0.5 1 1.5; do
  for D in 0.25 0.5; do
    for m in 0 1; do
      v=$(sed -n "$((g + 1))p" s3.v)
      e=$(sed -n "$((g + 1))p" s3.e)
      awk -v v="$v" -v e="$e" -v k="$k" -v m="$m" 'BEGIN {
        x = (m + (1 - m) * exp(-k) - 1); exit !(e > 0 && (v - x) ^ 2 <= 25 * e * e) }' ||
        { bad_exact=$((bad_exact + 1)); echo "grid point $g: $v +- $e, exact differs by more than 5 s.e."; }
      "$BIN" "${RUN[@]}" --set k=$k --set D=$D --set m=$m -o one.h5 2>err ||
        check "single run $g" "failed: $(head -c 300 err)" ok
      v1=$(vals one.h5 /drift/value)
      e1=$(vals one.h5 /drift/error)
      awk -v a="$v" -v b="$v1" -v ea="$e" -v eb="$e1" 'BEGIN {
        exit !((a - b) ^ 2 <= 25 * (ea * ea + eb * eb)) }' ||
        { bad_single=$((bad_single + 1)); echo "grid point $g: $v against single run $v1"; }
      g=$((g + 1))
    done
  done
done
check "3-axis: every grid point within 5 s.e. of the exact drift" "$bad_exact" 0
check "3-axis: every grid point within 5 s.e. of its single run" "$bad_single" 0
"$BIN" "${RUN[@]}" --scan k=0.5:0.5:1 --scan D=0.25:0.25:1 --scan m=0:0:1 -o p0.h5 2>err
check "grid point 0 = a run of 1-point scans, bit for bit" "$(vals p0.h5 /drift/value)" "$(head -1 s3.v)"

# (b) the same points as a table: one zipped axis of 12 rows
{
  printf 'k\tD\tm\n'
  for k in 0.5 1 1.5; do for D in 0.25 0.5; do for m in 0 1; do printf '%s\t%s\t%s\n' $k $D $m; done; done; done
} >grid.tsv
"$BIN" "${RUN[@]}" --scan-file grid.tsv -o tab.h5 2>err ||
  check "--scan-file run" "failed: $(head -c 300 err)" ok
check "3-axis scan = its --scan-file table, bit for bit" "$(vals tab.h5 /drift/value)" "$(cat s3.v)"
check "table: one grid dimension of 12" "$(h5dump -H -d /drift/value tab.h5 | grep -o '( 12 )' | head -1)" "( 12 )"

# (c) the same grid with (k, D) zipped into one axis of 6, then m
"$BIN" "${RUN[@]}" --scan k=0.5,0.5,1,1,1.5,1.5 --scan +D=0.25,0.5,0.25,0.5,0.25,0.5 --scan m=0:1:2 \
  -o zip6.h5 2>err || check "zipped-list run" "failed: $(head -c 300 err)" ok
check "3-axis scan = zipped (k,D) x m, bit for bit" "$(vals zip6.h5 /drift/value)" "$(cat s3.v)"

# (d) zipped ranges against their table
"$BIN" "${RUN[@]}" --scan k,D=0.5:1.5:3,0.25:0.75:3 --scan m=0:1:2 -o zr.h5 -o zr.tsv 2>err ||
  check "zipped-range run" "failed: $(head -c 300 err)" ok
printf 'k D\n0.5 0.25\n1 0.5\n# a comment\n\n1.5 0.75\n' >zr_table.tsv
"$BIN" "${RUN[@]}" --scan-file zr_table.tsv --scan m=0:1:2 -o zt.h5 -o zt.tsv 2>err ||
  check "zipped-table run" "failed: $(head -c 300 err)" ok
check "zipped ranges = their --scan-file table, bit for bit" "$(vals zt.h5 /drift/value)" "$(vals zr.h5 /drift/value)"
check "zipped: D recorded" "$(vals zr.h5 /scan/D | tr '\n' ' ')" "0.25 0.5 0.75 "
check "zipped: D moves with k" "$(h5dump -a /scan/D/zipped_with zr.h5 | grep -o '"k"')" '"k"'
check "zipped: grid 3 x 2" "$(h5dump -H -d /drift/value zr.h5 | grep -o '( 3, 2 )' | head -1)" "( 3, 2 )"
check "zipped TSV = table TSV (data lines)" "$(grep -v '^#' zr.tsv)" "$(grep -v '^#' zt.tsv)"
check "zipped TSV header names D" "$(grep -c '^# k	D	m	drift_x' zr.tsv)" 1

# (e) TSV blocks of a 3-axis scan
check "3-axis TSV: 6 block headers" "$(grep -c '^# block: k=[0-9.]* D=[0-9.]*$' s3.tsv)" 6
check "3-axis TSV: first block header" "$(grep -m1 '^# block:' s3.tsv)" "# block: k=0.5 D=0.25"
check "3-axis TSV: 12 data lines" "$(grep -cv '^#\|^$' s3.tsv)" 12
check "3-axis TSV: runs of blank lines are 2" \
  "$(awk '/^$/ { b++; next } { if (b) r[b]++; b = 0 } END { for (x in r) printf "%s:%s ", x, r[x] }' s3.tsv)" "2:5 "
if command -v gnuplot >/dev/null 2>&1; then
  check "gnuplot counts 6 blocks" "$(gnuplot -e "stats 's3.tsv' using 4 nooutput; print STATS_blocks" 2>&1 | tail -n 1)" 6
fi

# (f) info and plot
"$BIN" info s3.h5 >info.txt 2>&1
check "info lists 3 axes" "$(grep -c 'n=[0-9]*, linear' info.txt)" 3
check "info: zipped parameter" "$("$BIN" info zr.h5 | grep -c 'D: moves with k (zipped)')" 1
"$BIN" plot s3.h5 -o p.png >out.txt 2>err
rc=$?
check "plot of 3 axes refused" "$rc $(grep -c 'has 3 scan axes (k, D, m): sdekit plot draws at most 2' err)" "2 1"
check "plot of 3 axes: no picture" "$(ls p*.png 2>/dev/null | wc -l)" 0

# (g) a scanned period: the headers say it is per grid point, not grid
# point 0's (y' = 1: the drift is 1 at every point; the tavg window's times
# differ between points, so it is given in steps)
printf '[model]\nname = per\nvars = x, y\nperiod = 2*pi/omega\n[params]\nomega = 1\n[drift]\nx = cos(omega*t)\ny = 1\n' >per.sde
"$BIN" run per.sde --scan omega=1,2,4 --paths 4 --periods 3 --transient-periods 1 --drift y \
  --observe drift,tavg --precision double --quiet -o pt.h5 -o pt.tsv 2>err ||
  check "scanned period run" "failed: $(head -c 300 err)" ok
check "scanned period: TSV header" "$(grep -h '^# period:' pt.drift.tsv)" \
  "# period: per grid point (100 steps per period: spp x dt)"
check "scanned period: info" "$("$BIN" info pt.h5 | grep '^period:')" \
  "period:      per grid point (100 steps per period: spp x dt)"
check "scanned period: tavg window in steps" "$(grep -h '^# time averages' pt.tavg.tsv)" \
  "# time averages over steps [100, 300] (times per grid point: steps x dt; per path, then over the paths)"
check "scanned period: the drift of y" "$(grep -v '^#' pt.drift.tsv | awk 'NF { printf "%.12f ", $2 }')" \
  "1.000000000000 1.000000000000 1.000000000000 "

# (h) a '#' after a row's values is a comment (was "more than 2 values")
printf '# points\nk\n0.5 # the first\n1\t# the second\n' >cm.tsv
"$BIN" run ou --scan-file cm.tsv --paths 4 --t-end 0.1 --quiet -o cm.h5 2>err ||
  check "scan file with comments after values" "failed: $(head -c 300 err)" ok
check "scan file with comments: its points" "$(vals cm.h5 /scan/k | tr '\n' ' ')" "0.5 1 "

echo "cli_scan_axes: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
