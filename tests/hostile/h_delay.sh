#!/usr/bin/env bash
# Delayed values x(t - TAU) and [history] (issue 31) a run cannot honour, each
# one clear error with the file and line, exit 2, nothing written: a negative
# or zero TAU, a delay shorter than dt or not a whole number of steps, a delay
# of an unknown variable, a TAU that uses the state or t, a [history] of an
# undelayed or unknown variable, a huge TAU (past the rows' limit, and
# buffers past the machine's memory), a scanned TAU, and the schemes and
# options delays do not go with (milstein, --adaptive, --dt-check).
. "$(dirname "$0")/lib.sh"

R="--paths 16 --t-end 1 --dt 0.01 --seed 1"
# model NAME DRIFT [LINES...]: dx = DRIFT dt + dW, dy = -y dt, [params]
# tau = 0.5, then the given lines (from line 12 on)
model() {
  sde_file "$1" '[model]' 'name = d' 'vars = x, y' '[params]' 'tau = 0.5' '[drift]' "x = $2" \
    'y = -y' '[noise]' 'x = 1' '[init]' "${@:3}"
}
f=$(model ok '-x(t - tau)' 'x = 1' '[history]' 'x = cos(t)')
expect_error negative 2 "ok\.sde:7: \[drift\] x: the delay TAU of x\(t - TAU\) is -1: it must be > 0" \
  run "$f" $R --set tau=-1 -o "$T/a.tsv"
expect_error zero 2 "ok\.sde:7: \[drift\] x: the delay TAU of x\(t - TAU\) is 0: it must be > 0" \
  run "$f" $R --set tau=0 -o "$T/a.tsv"
expect_error shorter-than-dt 2 "ok\.sde:7: \[drift\] x: the delay TAU = 0.005 of x\(t - TAU\) is shorter than the time step dt = 0.01" \
  run "$f" $R --set tau=0.005 -o "$T/a.tsv"
expect_error not-whole-steps 2 "ok\.sde:7: \[drift\] x: the delay TAU = 0.555 of x\(t - TAU\) is 55.5 time steps of dt = 0.01: it must be a whole number of steps" \
  run "$f" $R --set tau=0.555 -o "$T/a.tsv"
expect_error huge-rows 2 "ok\.sde:7: \[drift\] x: the delay of x\(t - TAU\) is 1e\+14 steps \(TAU/dt\): its ring buffer would need more than 16777216 rows per path" \
  run "$f" $R --set tau=1e12 -o "$T/a.tsv"
expect_error huge-memory 2 "ok\.sde:7: \[drift\] x: the ring buffers of the delays \(10000000 rows per path: x: 10000000 steps\) need .* GiB for 1e\+06 paths, and this machine has .* GiB" \
  run "$f" --paths 1000000 --t-end 0.01 --dt 0.01 --set tau=1e5 -o "$T/a.tsv"
expect_error scanned-tau 2 "ok\.sde:7: \[drift\] x: the delay of x\(t - TAU\) uses a parameter that is scanned" \
  run "$f" $R --scan tau=0.1:0.2:2 -o "$T/a.tsv"
expect_error milstein 2 "ok\.sde:7: \[drift\] x: scheme milstein does not integrate delayed values x\(t - TAU\).*use --scheme euler or srk2" \
  run "$f" $R --scheme milstein -o "$T/a.tsv"
expect_error adaptive 2 "ok\.sde:7: \[drift\] x: delayed values are not supported with --adaptive" \
  run "$f" $R --scheme srk2 --adaptive -o "$T/a.tsv"
expect_error dt-check 2 "ok\.sde:7: \[drift\] x: delayed values are not supported with --dt-check" \
  run "$f" $R --dt-check --sample-every 2 -o "$T/a.tsv"
f=$(model unk '-z(t - tau)')
expect_error unknown-variable 2 "unk\.sde:7: \[drift\] x: unknown function 'z'" run "$f" $R -o "$T/a.tsv"
f=$(model st '-x(t - x)')
expect_error tau-with-state 2 "st\.sde:7: \[drift\] x: a delayed value is written x\(t - TAU\), TAU an expression in the parameters alone" \
  run "$f" $R -o "$T/a.tsv"
f=$(model tt '-x(t - t)')
expect_error tau-with-t 2 "tt\.sde:7: \[drift\] x: a delayed value is written x\(t - TAU\)" \
  run "$f" $R -o "$T/a.tsv"
f=$(model two '-x(t - tau, 1)')
expect_error two-arguments 2 "two\.sde:7: \[drift\] x: a delayed variable is written VAR\(t - TAU\), one argument" \
  run "$f" $R -o "$T/a.tsv"
f=$(model hy '-x(t - tau)' 'x = 1' '[history]' 'y = 1')
expect_error history-undelayed 2 "hy\.sde:14: \[history\] y: 'y' is not delayed anywhere" \
  run "$f" $R -o "$T/a.tsv"
f=$(model hq '-x(t - tau)' 'x = 1' '[history]' 'q = 1')
expect_error history-unknown 2 "hq\.sde:14: \[history\] names unknown variable 'q'" \
  run "$f" $R -o "$T/a.tsv"
f=$(model hs '-x(t - tau)' 'x = 1' '[history]' 'x = y')
expect_error history-state 2 "hs\.sde:14: \[history\] x: unknown name 'y'" run "$f" $R -o "$T/a.tsv"
check nothing-written [ ! -e "$T/a.tsv" ]
# the good model runs
run_sdk run "$W/ok.sde" $R -o "$T/ok.tsv"
check ok-runs [ "$rc" -eq 0 ]
finish
