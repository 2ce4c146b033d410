#!/usr/bin/env bash
# Issue 25, items 6-9: options that changed a run without a word.
#   6  --coarse-grain with a period that depends on a scanned parameter: bins
#      one period of each grid point wide (not grid point 0's everywhere)
#   7  an option given twice, or a --scan of one point from START to STOP:
#      refused (the last value won silently; STOP was ignored)
#   8  the time grid: a --t-end or --transient that is not a whole number of
#      steps of the --dt given is refused; a default t_end, a --dt on a
#      periodic model and a --t-end/--transient there end at the nearest step
#      and say so (stderr note, result attributes, TSV header); --dt longer
#      than the period, or so small that the steps per period overflow,
#      refused before any integer is made of it
#   9  a --scan whose range overflows: refused at the option, naming it
. "$(dirname "$0")/lib.sh"

# a variable periodic with a parameter's period, and a parameter no path uses
cat >"$T/per.sde" <<'EOF'
[model]
name = per
vars = x
periodic = x : L
[params]
L = 1
D = 0.5
c = 0
[drift]
x = 0
[noise]
x = sqrt(2*D)
[init]
x = 0
EOF

# ---- 6: --coarse-grain, the period scanned
run_sdk run "$T/per.sde" --observe density --coarse-grain --scan L=1,10 --paths 64 --t-end 0.1 \
  --bins 4 --quiet -o "$T/cg.tsv"
# columns: L t x_lo x_hi density; every bin of L = 10 is 10 wide
check coarse_scan_rc [ "$rc" -eq 0 ]
check coarse_scan_width_L10 awk '!/^#/ && NF == 5 && $1 == 10 { n++; if ($4 - $3 != 10) bad++ }
  END { exit !(n > 0 && !bad) }' "$T/cg.tsv"
check coarse_scan_width_L1 awk '!/^#/ && NF == 5 && $1 == 1 { n++; if ($4 - $3 != 1) bad++ }
  END { exit !(n > 0 && !bad) }' "$T/cg.tsv"
run_sdk run "$T/per.sde" --observe density --coarse-grain --scan L=1,10 --paths 64 --t-end 0.1 \
  --bins 4 --quiet -o "$T/cg.h5"
run_sdk info "$T/cg.h5"
check coarse_scan_width_dataset grep -Eq '/density/x/bin_width +float64 +\[2\]' "$OUTF"

# ---- 7: an option given twice
expect_error set_twice 2 '--set k given twice \(k=1, then k=2\)' run ou --set k=1 --set k=2
expect_error set_twice_same 2 '--set k given twice' run ou --set k=1 --set D=1 --set=k=1
expect_error hist_range_twice 2 '--hist-range x given twice \(x=0:1, then x=-1:2\)' \
  run ou --observe hist --hist-range x=0:1 --hist-range x=-1:2
for opt in "paths 8 16" "dt 0.1 0.2" "t-end 1 2" "seed 1 2" "scheme euler srk2" \
  "observe drift moments" "bins 10 20" "sample-every 1 2" "precision single double" \
  "drift x x" "transient 0 0.5" "threads 1 2" "checkpoint-every 1 2"; do
  set -- $opt
  expect_error "twice_$1" 2 "--$1 given twice \\($2, then $3\\)" run ou "--$1" "$2" "--$1=$3"
done
expect_error coarse_twice 2 '--coarse-grain given twice' \
  run josephson --observe density --coarse-grain --coarse-grain=2
expect_error scan_one_point 2 "--scan 'k=1:2:1': N = 1 gives one point, but START and STOP" \
  run ou --scan k=1:2:1
expect_error arch_twice 2 '--arch given twice' compile ou --backend cuda --arch sm_80 --arch sm_90
run_sdk run ou --paths 8 --t-end 0.5 --quiet -o "$W/r.h5" --checkpoint "$W/ck"
check resume_setup [ "$rc" -eq 0 ]
expect_error resume_tend_twice 2 '--t-end given twice' resume "$W/ck" --t-end 1 --t-end 2
expect_error resume_periods_and_tend 2 'give --periods or --t-end, not both' \
  resume "$W/ck" --periods 3 --t-end 2
expect_error plot_twice 2 '--grid given twice' plot "$W/r.h5" --grid 0 --grid 1
expect_error bench_twice 2 '--paths given twice' bench --sampling --model ou --paths 64 \
  --paths 128 --steps 10 --repeats 1

# ---- 8: the time grid
expect_error tend_not_whole 2 '--t-end 1.2 is not a whole number of steps of --dt 0.5 \(2.4 steps\): give --t-end 1 or 1.5' \
  run ou --dt 0.5 --t-end 1.2
expect_error tend_not_whole_up 2 '--t-end 1 is not a whole number of steps of --dt 0.4 .*give --t-end 0.8 or 1.2' \
  run ou --dt 0.4 --t-end 1
expect_error tend_default_dt 2 '--t-end 1.005 is not a whole number of steps of the default dt 0.01' \
  run ou --t-end 1.005
expect_error transient_not_whole 2 '--transient 0.25 is not a whole number of steps of --dt 0.1' \
  run ou --dt 0.1 --t-end 1 --transient 0.25
expect_error periodic_dt_longer 2 '--dt 1000 is longer than the period' run josephson --dt 1000
expect_error periodic_dt_tiny 2 '--dt 1e-300 gives .* steps per period.*SDK_MAX_STEPS' \
  run josephson --dt 1e-300 --periods 1

# the default t_end (10) in steps of --dt 0.3: 33 steps, t = 9.9, said and recorded
run_sdk run ou --paths 8 --dt 0.3 --observe moments --sample-every 1 -o "$T/d.h5" -o "$T/d.tsv"
check default_tend_rc [ "$rc" -eq 0 ]
check default_tend_note grep -q '^sdekit: note: the default t_end 10 is not a whole number of steps of dt 0.3: the run ends at t = 9.9 (33 steps)$' "$ERRF"
check default_tend_tsv grep -q '^# t_end: 9.9 (asked: 10)$' "$T/d.tsv"
check default_tend_last_t awk '!/^#/ && NF { t = $1 } END { exit !(t + 0 == 9.9) }' "$T/d.tsv"
run_sdk info "$T/d.h5"
check default_tend_info grep -Eq '^t_end: +9.9 \(asked: 10;' "$OUTF"

# a --sample-every past the end of the run: t = 0 alone is sampled, said
run_sdk run ou --paths 8 --dt 0.1 --t-end 5 --observe range --sample-every 100 -o "$T/s.tsv"
check sample_every_past_rc [ "$rc" -eq 0 ]
check sample_every_past_note grep -q "^sdekit: note: --sample-every 100 is more than the run's 50 steps: t = 0 is its only sample (give at most 50, or a longer --t-end)$" "$ERRF"
run_sdk run ou --paths 8 --dt 0.1 --t-end 5 --observe range --sample-every 50 -o "$T/s.tsv"
check sample_every_end_no_note [ "$(grep -c 'note: --sample-every' "$ERRF")" -eq 0 ]

# a --dt that does not divide the period: period/103, said and recorded
run_sdk run josephson --paths 8 --dt 0.0125 --periods 1 -o "$T/j.h5" -o "$T/j.tsv"
check periodic_dt_rc [ "$rc" -eq 0 ]
check periodic_dt_note grep -q '^sdekit: note: --dt 0.0125 does not divide the period 1.28228271575094 .*: the step is period/103 = 0.0124493467548635$' "$ERRF"
check periodic_dt_tsv grep -q '^# dt_asked: 0.0125$' "$T/j.tsv"
run_sdk info "$T/j.h5"
check periodic_dt_info grep -Eq '^dt asked: +0.0125 ' "$OUTF"

# --t-end and --transient on a periodic model: the nearest steps of period/100
run_sdk run josephson --paths 8 --t-end 1 --transient 0.5 --observe moments --sample-every 1 \
  -o "$T/k.h5" -o "$T/k.tsv"
check periodic_tend_rc [ "$rc" -eq 0 ]
check periodic_tend_note grep -q '^sdekit: note: --t-end 1 is not a whole number of steps of dt 0.0128228271575094: the run ends at t = 1.00018051828573 (78 steps)$' "$ERRF"
check periodic_transient_note grep -q '^sdekit: note: --transient 0.5 .*the transient ends at t = 0.500090259142865 (39 steps)$' "$ERRF"
check periodic_tend_tsv grep -q '^# t_end: 1.00018051828573[0-9]* (asked: 1)$' "$T/k.tsv"
check periodic_transient_tsv grep -q '^# transient_asked: 0.5$' "$T/k.tsv"
check periodic_tend_last_t awk '!/^#/ && NF { t = $1 } END { exit !(t > 1.00018 && t < 1.000181) }' "$T/k.tsv"
run_sdk info "$T/k.h5"
check periodic_tend_info grep -Eq '^t_end: +1.00018051828573[0-9]* \(asked: 1;' "$OUTF"

# ---- 9: a scan range that overflows, or values that do
expect_error scan_overflow 2 "--scan 'k=-1e308:1e308:3': the range STOP - START overflows" \
  run ou --scan k=-1e308:1e308:3
# near the largest double the grid's rounding to 15 digits overflowed: the
# values stay the finite ones computed (in double precision: single refuses
# a parameter beyond float's range)
run_sdk run "$T/per.sde" --paths 4 --t-end 0.1 --quiet -o "$T/s.tsv" --precision double \
  --scan c=1.797693134862315e308:1.7976931348623157e308:3
check scan_top_rc [ "$rc" -eq 0 ]
check scan_top_finite awk '!/^#/ && NF { n++; if ($1 ~ /inf|nan/) bad++ } END { exit !(n == 3 && !bad) }' "$T/s.tsv"

finish
