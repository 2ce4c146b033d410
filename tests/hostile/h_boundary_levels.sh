#!/usr/bin/env bash
# Boundary levels a run cannot honour (issue 25, item 5): two reflecting
# boundaries of one variable with no room between them mirrored the path
# past each other, further every step (x about 200 at t = 1, exit 0), and a
# level that is NaN or infinite (absorb x >= z/z with z = 0) was accepted and
# never absorbed anything.  Both are refused with the file and line, at every
# grid point (a --set value, a scanned or derived parameter).
. "$(dirname "$0")/lib.sh"

R="--paths 16 --t-end 1 --dt 0.01 --seed 1"
# model NAME BOUNDARY-LINES...: a Brownian motion with [params] lo = 0,
# hi = 1, z = 0 and the given [boundaries] (from line 14 on), from x = mid
model() {
  sde_file "$1" '[model]' 'name = b' 'vars = x' '[params]' 'lo = 0' 'hi = 1' 'z = 0' \
    'mid = (lo + hi)/2' '[drift]' 'x = 0' '[noise]' 'x = 1' '[boundaries]' "${@:2}" \
    '[init]' 'x = mid'
}
NOROOM="leave no room for x between them \(the lower level must be below the upper\)"

f=$(model crossed 'low = reflect x <= 1' 'high = reflect x >= 0')
expect_error crossed 2 "crossed\.sde:15: \[boundaries\] high: reflect x >= 0 and low \(line 14\): reflect x <= 1 $NOROOM" \
  run "$f" $R -o "$T/a.tsv"
f=$(model equal 'high = reflect x >= hi' 'low = reflect x <= hi')
expect_error equal-levels 2 "equal\.sde:15: \[boundaries\] low: reflect x <= 1 and high \(line 14\): reflect x >= 1 $NOROOM" \
  run "$f" $R -o "$T/a.tsv"
f=$(model strict 'low = reflect x < 1' 'high = reflect x > 1')
expect_error equal-strict 2 "strict\.sde:15: .*reflect x > 1 and low \(line 14\): reflect x < 1 $NOROOM" \
  run "$f" $R -o "$T/a.tsv"

# with room: runs, and the path stays between the walls
f=$(model room 'low = reflect x <= lo' 'high = reflect x >= hi')
run_sdk run "$f" $R --observe moments -o "$T/room.tsv"
check room-runs [ "$rc" -eq 0 ]
check room-inside awk '!/^#/ && NF >= 2 { if ($2 < 0 || $2 > 1) bad = 1; n++ } END { exit bad || !n }' \
  "$T/room.tsv"

# the levels at every grid point
expect_error set-no-room 2 "room\.sde:15: \[boundaries\] high: .*$NOROOM \(at grid point 0\)" \
  run "$f" $R --set hi=0 -o "$T/a.tsv"
expect_error scan-no-room 2 "room\.sde:15: \[boundaries\] high: reflect x >= 0 and low \(line 14\): reflect x <= 0 $NOROOM \(at grid point 1 \(hi=0\)\)" \
  run "$f" $R --scan hi=0.5:-0.5:3 -o "$T/a.tsv"
f=$(model derived 'low = reflect x <= mid' 'high = reflect x >= hi')
expect_error derived-no-room 2 "derived\.sde:15: .*reflect x >= 1 and low \(line 14\): reflect x <= 1 $NOROOM \(at grid point 1 \(lo=1\)\)" \
  run "$f" $R --scan lo=0:1:2 -o "$T/a.tsv"

# NaN and infinite levels
f=$(model nan 'over = absorb x >= z/z')
expect_error nan-level 2 "nan\.sde:14: \[boundaries\] over: the level of x is nan \(must be finite\)" \
  run "$f" $R --observe fpt -o "$T/a.tsv"
run_sdk run "$f" $R --set z=2 --observe fpt -o "$T/nan-set.tsv"
check nan-level-set-finite-runs [ "$rc" -eq 0 ]
expect_error nan-level-scanned 2 "nan\.sde:14: \[boundaries\] over: the level of x is nan \(must be finite\) \(at grid point 1 \(z=0\)\)" \
  run "$f" $R --scan z=1:0:2 --observe fpt -o "$T/a.tsv"
f=$(model inf 'over = absorb x <= -1/z')
expect_error inf-level 2 "inf\.sde:14: \[boundaries\] over: the level of x is -inf \(must be finite\)" \
  run "$f" $R --observe fpt -o "$T/a.tsv"
f=$(model nanrefl 'wall = reflect x <= log(z - 1)')
expect_error nan-reflect 2 "nanrefl\.sde:14: \[boundaries\] wall: the level of x is nan \(must be finite\)" \
  run "$f" $R -o "$T/a.tsv"

# two absorbing boundaries without room: every start is past one of them,
# which would count every path as hit at t = 0 (split 1, times 0, no word):
# refused with the start (a start on a level alone is a hit at 0)
f=$(model absorbs 'a = absorb x >= 0' 'b = absorb x <= 1')
expect_error absorbing-without-room 2 "absorbs\.sde:17: \[init\] x starts at 0\.5, past the absorbing level of 'a' \(x >= 0, line 14\)" \
  run "$f" $R --observe fpt -o "$T/absorbs.tsv"
finish
