#!/usr/bin/env bash
# Runs to a requested standard error from the command line (issue 26):
# --max-paths reached exits 0 with a notice on stderr and status 1 in the
# results, `sdekit info` and the TSV show paths_used (and status); SIGINT in a
# later batch (of --target-se, and of a level of --mlmc) and `sdekit resume`
# give the uninterrupted run's HDF5 file byte for byte; bad values are refused with one error line.  Backend from
# $SDK_TEST_BACKEND (default cpu).
set -u
B=${SDK_BIN:?}
[ -x "$B" ] || exit 77
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
BACKEND=${SDK_TEST_BACKEND:-cpu}
npass=0 nfail=0
pass() { npass=$((npass + 1)); }
failed() { nfail=$((nfail + 1)); echo "FAIL: $*" >&2; }
check() { local name=$1; shift; if "$@"; then pass; else failed "$name"; fi; }
refused() { # refused NAME PATTERN ARGS...
  local name=$1 want=$2; shift 2
  local out
  out=$("$B" run ou --t-end 0.1 --backend "$BACKEND" "$@" 2>&1 >/dev/null)
  [ $? -eq 2 ] && [ "$(printf '%s\n' "$out" | grep -c .)" -eq 1 ] &&
    printf '%s' "$out" | grep -q -- "$want" && pass || failed "$name: $out"
}
cd "$T" || exit 1

# --max-paths reached at one grid point: exit 0, a notice, status and paths_used
"$B" run ou --scan k=0.5:2:3 --t-end 1 --observe moments --target-se 0.004 --max-paths 32768 \
  --backend "$BACKEND" -o m.h5 -o m.tsv 2>err.txt
check "--max-paths reached exits 0" [ $? -eq 0 ]
check "a notice names the bound" grep -q "warning: the standard error --target-se 0.004 was not reached at 1 of 3 grid points: stopped 1 at --max-paths 32768 (target/status" err.txt
check "info shows the paths used" grep -q "^paths used:  32768 per grid point" <("$B" info m.h5)
check "info shows the status" grep -q "^target: .*reached at 2 grid points, --max-paths at 1 grid point (target/status)$" <("$B" info m.h5)
check "TSV: paths_used and status columns" grep -q "^# k	paths_used	status	t	mean_x" m.tsv
check "TSV: the status column's meaning" grep -q "^# status: 0 reached, 1 --max-paths, 2 --max-seconds, 3 NaN/Inf" m.tsv
check "TSV: the first grid point stopped at --max-paths" grep -q "^0.5	32768	1	1	" m.tsv

# the notice names only the bounds that stopped a grid point, as given (and
# what --max-paths was rounded to)
"$B" run ou --t-end 1 --observe moments --target-se 1e-5 --max-seconds 0.2 --backend "$BACKEND" \
  -o ms.tsv 2>err.txt
check "--max-seconds alone: named alone" \
  grep -q "grid points: stopped 1 at --max-seconds 0.2; the paths used" err.txt
check "--max-seconds alone: no --max-paths named" bash -c "! grep -q -- --max-paths err.txt"
"$B" run ou --t-end 1 --observe moments --target-se 1e-4 --max-paths 16385 --backend "$BACKEND" \
  -o mp.tsv 2>err.txt
check "--max-paths rounded: the value given and the rounded one" grep -q -- \
  "stopped 1 at --max-paths 16385 (rounded down to 16384: whole units of 16384 paths) (target" \
  err.txt
check "--max-paths alone: no --max-seconds named" bash -c "! grep -q -- --max-seconds err.txt"

# --target-error and --mlmc take the same bounds: exit 0, a notice, the status
# (3 --max-paths, 4 --max-seconds) in the results, the TSV and `sdekit info`.
# bounded NAME OPTION EPS BOUND VALUE STATUS SAID MEANING1
bounded() {
  local n=$1 opt=$2 eps=$3 bound=$4 v=$5 st=$6 said=$7 m1=$8
  "$B" run ou --t-end 1 --dt 0.25 --observe moments "$opt" "$eps" "$bound" "$v" \
    --backend "$BACKEND" -o "$n.h5" -o "$n.tsv" 2>err.txt
  check "$opt at $bound exits 0" [ $? -eq 0 ]
  check "a notice names $opt's bound" grep -q -- "$said" err.txt
  check "TSV: $opt's status column means" grep -q -- "^# status: 0 reached, 1 $m1, 2 NaN/Inf, 3 --max-paths, 4 --max-seconds" "$n.tsv"
  check "TSV: $opt's status $st" grep -q "^[0-9]*	$st	1	" "$n.tsv"
  check "info shows $opt's status" grep -q -- "^target: .*$opt .*: reached at 0 grid points, $bound at 1 grid point" <("$B" info "$n.h5")
}
bounded te --target-error 2e-4 --max-paths 40000 3 \
  "warning: --target-error 0.0002 was not reached at 1 of 1 grid points: stopped 1 at --max-paths 40000" \
  "the bias still too large at the finest dt tried"
bounded ml --mlmc 1e-5 --max-seconds 0.1 4 \
  "stopped 1 at --max-seconds 0.1 (mlmc/status.*depends on the machine's speed" \
  "the bias estimate still above EPS/sqrt(2) after the most levels"

# --target-error with a bias at EPS/2 itself (OU, euler, dt 0.02: -0.0018653 against
# 0.0018629): the next dt, where the paths at this one grew fourfold a round until the bound
"$B" run ou --t-end 1 --dt 0.02 --scheme euler --precision double --observe moments \
  --target-error 0.0037258 --max-paths 6000000 --backend "$BACKEND" -o tie.h5 2>/dev/null
check "--target-error: a bias at EPS/2 goes on to the next dt" \
  grep -q "^target: .*reached at 1 grid point" <("$B" info tie.h5)

# a grid point that blew up at a dt other than the one the result keeps: named, exit 1
out=$("$B" run gbm --scan mu=0.05,200 --t-end 1 --observe moments --target-error 0.01 \
  --backend "$BACKEND" -o nan.h5 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] && printf '%s' "$out" | grep -q "became NaN/Inf at grid point 1" && pass ||
  failed "--target-error, a grid point NaN: status $rc: $out"

# --mlmc: the variance at t_end is level 0's (dt_0), no corrected expectation: NaN, said
out=$("$B" run gbm --set sigma=0.3 --t-end 1 --dt 0.25 --scheme milstein --observe moments \
  --mlmc 1e-3 --backend "$BACKEND" -o mv.tsv 2>&1 >/dev/null)
printf '%s' "$out" | grep -q "note: --mlmc: moments/var_\* at t_end are NaN" &&
  grep -v '^#' mv.tsv | tail -1 | grep -q -w nan && pass || failed "--mlmc variance: $out"

# --target-error records the seed given (its dts run with seeds derived from
# it): the header, the file and info say it, and it reproduces the file
"$B" run ou --t-end 1 --dt 0.1 --observe moments --target-error 0.01 --seed 7 \
  --backend "$BACKEND" -o sd.tsv -o sd.h5 --quiet 2>/dev/null
check "--target-error: the TSV's seed is the one given" grep -q "^# seed: 7$" sd.tsv
check "--target-error: info's seed is the one given" grep -q "^seed: *7$" <("$B" info sd.h5)

# a --target-error scan whose grid points end at different dts: the steps are
# each grid point's (target/steps), not one count for all
"$B" run ou --scan k=0.5:4:3 --scheme euler --t-end 1 --dt 0.1 --observe moments \
  --target-error 0.003 --backend "$BACKEND" -o ts.tsv -o ts.h5 --quiet 2>/dev/null
"$B" info ts.h5 >ts.info
check "--target-error scan: the dts differ (else this checks nothing)" \
  grep -q "^dt: .* (per grid point)" ts.info
check "--target-error scan: info's steps per grid point" \
  grep -q "^steps: *[0-9]* to [0-9]* (per grid point: target/steps" ts.info
check "--target-error scan: info's last sample is t_end" \
  grep -q "^moments at the last sample (t_end: step [0-9]* to [0-9]* per grid point)" ts.info
check "--target-error scan: TSV steps per grid point" \
  grep -q "^# steps: [0-9]* to [0-9]* (per grid point: target/steps" ts.tsv
check "--target-error scan: TSV sample_every per grid point" \
  grep -q "^# sample_every: per grid point" ts.tsv

# the paths of a scan in batches: their range, in the TSV header and info
# alike (no second line with one grid point's count)
"$B" run ou --scan k=0.2:1:3 --t-end 1 --observe moments --target-se 0.003 --backend "$BACKEND" \
  -o sp.tsv -o sp.h5 --quiet
for f in ts sp; do
  check "$f: TSV paths per grid point" \
    grep -q "^# paths: [0-9]* to [0-9]* per grid point (the column paths_used)$" $f.tsv
  check "$f: info's paths used" grep -q "^paths used: *[0-9]* to [0-9]* per grid point$" \
    <("$B" info $f.h5)
  check "$f: info has no other count of paths" bash -c "! '$B' info $f.h5 | grep -q '^paths:'"
done

# a reflecting wall has no exit times (NaN, with a NaN error): no target,
# so the run ends when the exit's mean time is met, not at --max-paths
cat > wall.sde <<'EOF2'
[model]
name = wall
vars = x
[params]
D = 0.5
[drift]
x = 0
[noise]
x = sqrt(2*D)
[init]
x = 0.5
[boundaries]
wall = reflect x <= 0
exit = absorb x >= 1
EOF2
"$B" run wall.sde --dt 0.01 --t-end 20 --observe fpt --target-se 0.01 --max-paths 1048576 \
  --backend "$BACKEND" -o w.h5 2>werr.txt
check "reflecting wall: exit 0" [ $? -eq 0 ]
check "reflecting wall: the target reached, not --max-paths" \
  grep -q "^target: .*: reached at 1 grid point (target/status)$" <("$B" info w.h5)

# --mlmc does not take first-passage times (--target-error does)
out=$("$B" run wall.sde --dt 0.01 --t-end 20 --observe fpt --mlmc 0.05 --backend "$BACKEND" \
  2>&1 >/dev/null)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q -- "--observe fpt is not one" && pass ||
  failed "--mlmc with fpt: $out"

# nothing silent: a default or an option these drivers change is said
out=$("$B" run ou --t-end 3.02 --dt 0.01 --observe moments --dt-check --backend "$BACKEND" \
  -o dtc.h5 2>&1 >/dev/null)
printf '%s' "$out" | grep -q "note: --dt-check: the default sample interval is rounded up to 4" &&
  grep -q "sample every 4)" <("$B" info dtc.h5) && pass || failed "dt-check rounding: $out"
# --dt-check's bias in every TSV, tavg's too (README: bias_NAME, bias_err_NAME),
# and --extrapolate said in the TSV header and info, as HDF5's attribute does
"$B" run ou --t-end 1 --dt 0.01 --paths 1024 --observe drift,tavg --dt-check --backend "$BACKEND" \
  -o dc.tsv --quiet 2>/dev/null
check "tavg TSV: bias columns" grep -q "^# mean_x	err_x	bias_mean_x	bias_err_mean_x$" dc.tavg.tsv
check "tavg TSV: a bias in every row" awk -F'\t' '!/^#/ && NF { n++; if (NF != 4) bad = 1 }
  END { exit !(n == 1 && !bad) }' dc.tavg.tsv
check "no --extrapolate: not said" bash -c "! grep -q extrapolated dc.drift.tsv dc.tavg.tsv"
"$B" run ou --t-end 1 --dt 0.01 --paths 1024 --observe drift,tavg --dt-check --extrapolate \
  --backend "$BACKEND" -o dx.tsv -o dx.h5 --quiet 2>/dev/null
for o in drift tavg; do
  check "--extrapolate: the $o TSV says it" grep -q "^# extrapolated: the values are value - bias" \
    dx.$o.tsv
  check "--extrapolate: info says it of $o" grep -q "^$o.*, extrapolated (--extrapolate" \
    <("$B" info dx.h5)
done
out=$("$B" run ou --t-end 1 --dt 0.01 --sample-every 10 --observe expr --observe-expr x2=x*x \
  --mlmc 0.01 --backend "$BACKEND" -o ml.h5 2>&1 >/dev/null)
printf '%s' "$out" | grep -q "note: --mlmc samples at t = 0 and t_end alone: --sample-every 10" &&
  pass || failed "mlmc --sample-every: $out"

out=$("$B" run josephson --dt 0.013 --periods 4 --target-se 0.05 --backend "$BACKEND" \
  -o once.h5 2>&1 >/dev/null)
[ "$(printf '%s\n' "$out" | grep -c "note: --dt 0.013 does not divide the period")" -eq 1 ] &&
  pass || failed "the plan's note once, not once per batch: $out"

# SIGINT in a later batch, resumed: the same file
A=(run ou --scheme euler --dt 0.0005 --t-end 10 --observe moments,drift --target-se 0.002
   --threads 1 --backend "$BACKEND")
mkdir -p a b
(cd a && "$B" "${A[@]}" -o r.h5 --quiet) || failed "uninterrupted run"
(cd b && exec "$B" "${A[@]}" -o r.h5 --checkpoint c.ckpt --checkpoint-every 0.1 --quiet 2>err.txt) &
pid=$!
sleep 2
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
if [ $rc -eq 130 ]; then
  check "interrupted, then resumed" bash -c "cd b && '$B' resume c.ckpt --quiet"
  check "resumed: byte-identical HDF5" cmp -s a/r.h5 b/r.h5
else
  echo "the run ended (status $rc) before the signal: resume not checked on this machine"
fi

# --mlmc (issue 26): SIGINT in a window of one of its levels, resumed: the same
# file (the driver's levels, carries and paths are in the checkpoint)
M=(run gbm --set mu=0.05 --set sigma=0.2 --t-end 1 --dt 0.25 --scheme euler --observe moments,expr
   --observe-expr S2=S*S --mlmc 3e-4 --threads 1 --backend "$BACKEND")
mkdir -p ma mb
(cd ma && "$B" "${M[@]}" -o r.h5 --quiet) || failed "uninterrupted --mlmc run"
(cd mb && exec "$B" "${M[@]}" -o r.h5 --checkpoint c.ckpt --checkpoint-every 0.1 --quiet 2>err.txt) &
pid=$!
sleep 1
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
if [ $rc -eq 130 ]; then
  echo "--mlmc: $(cat mb/err.txt)"
  check "--mlmc interrupted, then resumed" bash -c "cd mb && '$B' resume c.ckpt --quiet"
  check "--mlmc resumed: byte-identical HDF5" cmp -s ma/r.h5 mb/r.h5
  out=$(cd mb && "$B" resume c.ckpt --t-end 2 --force 2>&1)
  printf '%s' "$out" | grep -q -- "--mlmc cannot be extended" && pass || failed "mlmc extend: $out"
else
  echo "the --mlmc run ended (status $rc) before the signal: resume not checked on this machine"
fi

# a finished run to a standard error is not extended
mkdir -p x
(cd x && "$B" run ou --t-end 1 --observe moments --target-se 0.004 --backend "$BACKEND" \
  --checkpoint c.ckpt -o r.h5 --quiet) || failed "checkpointed run to a standard error"
out=$(cd x && "$B" resume c.ckpt --t-end 2 --force 2>&1)
printf '%s' "$out" | grep -q "a run to a standard error cannot be extended" && pass || failed "extend: $out"

# paths that blow up: the message counts the paths run there (a batch's or
# level's), not the most a grid point may have
blown() { # blown NAME PATTERN ARGS...: exit 1, one error line matching PATTERN
  local name=$1 want=$2; shift 2
  local out
  out=$("$B" run gbm --t-end 1 --observe moments --backend "$BACKEND" --quiet -o nan.tsv "$@" \
    2>&1 >/dev/null)
  [ $? -eq 1 ] && [ "$(printf '%s\n' "$out" | grep -c .)" -eq 1 ] &&
    printf '%s' "$out" | grep -Eq -- "$want" && pass || failed "$name: $out"
}
blown "NaN: --target-se" "error: [0-9]+ of 16384 paths became NaN/Inf at grid point 0 " \
  --set mu=200 --target-se 0.01
blown "NaN: --target-se scan" "error: [0-9]+ of 16384 paths became NaN/Inf at grid point 1 " \
  --scan mu=0.05:200:2 --target-se 0.003
blown "NaN: --mlmc" "error: --mlmc level 0 at dt 0.01: [0-9]+ of 1024 paths became NaN/Inf" \
  --set mu=200 --mlmc 0.01
blown "NaN: --target-error" "error: --target-error at dt 0.01: [0-9]+ of 2048 paths became NaN" \
  --set mu=200 --target-error 0.01 --paths 2000

refused "EPS 0" "--target-se '0': expected a standard error > 0" --target-se 0
refused "EPS nan" "--target-rse 'nan': expected a standard error > 0" --target-rse nan
refused "EPS negative" "expected a standard error > 0" --target-se -1
refused "both" "--target-se and --target-rse: give one of them" --target-se 0.1 --target-rse 0.1
refused "not observed" "--target-on drift: the run does not observe it" --observe moments \
  --target-se 0.1 --target-on drift
refused "no error" "--target-on range: --observe range reports no standard error" \
  --observe moments,range --target-se 0.1 --target-on range -o x.h5
refused "cov" "--observe cov cannot be run in batches" --observe cov --target-se 0.1
refused "hist" "give --hist-range x=LO:HI" --observe hist --target-se 0.1
refused "max-paths alone" "--max-paths bounds a run to a requested error: give --target-se, --target-rse, --target-error or --mlmc with it" --max-paths 100000
refused "max-seconds alone" "--max-seconds bounds a run to a requested error: give --target-se, --target-rse, --target-error or --mlmc with it" --max-seconds 3
refused "target-on alone" "--target-on names the observables of a run to a standard error" \
  --observe moments --target-on moments
refused "max-paths too large" "--max-paths '99999999999999999999': too large" \
  --target-se 0.1 --max-paths 99999999999999999999
refused "--mlmc: too many paths" "--paths 20000000000: --mlmc runs at most 17179869184 paths on each level of a grid point" \
  --observe moments --mlmc 0.01 --paths 20000000000
refused "--target-error: an odd number of steps" "^sdekit: error: --target-error runs the path at 2 dt of --dt-check: the run is 5 steps" \
  --observe moments --dt 0.02 --target-error 0.01
refused "--target-error --extrapolate" "(it runs --dt-check, which may be given): leave out --extrapolate$" \
  --observe moments --target-error 0.01 --extrapolate
refused "--mlmc --dt-check" "--mlmc measures the time-step bias itself: leave out --dt-check$" \
  --observe moments --mlmc 0.01 --dt-check
refused "--paths with --target-se" "--paths and --target-se: .* bound the paths of a grid point with --max-paths N" \
  --target-se 0.1 --paths 5000
refused "--paths with --target-rse" "--paths and --target-rse" --target-rse 0.1 --paths 5000
refused "max-seconds 0" "--max-seconds '0': expected seconds > 0" --target-se 0.1 --max-seconds 0
echo "cli_target: $npass passed, $nfail failed"
[ $nfail -eq 0 ]
