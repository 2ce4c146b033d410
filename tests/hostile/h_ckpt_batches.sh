#!/usr/bin/env bash
# Issue 26: the checkpoints of runs in batches (--target-se, --mlmc) carry
# two more records, the carried reductions (CARY) and the driver's state
# (TGTS), untrusted like the rest: missing, foreign, garbled or out-of-range
# records give one clean error on resume and no output.
. "$(dirname "$0")/lib.sh"
TOOL="python3 $SRC/tests/hostile/ckpt_tool.py"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
D=$T/d
mkdir -p "$D"
"$BIN" run ou --t-end 1 --observe moments --target-se 0.004 --checkpoint "$D/ck" -o "$D/r.h5" \
  --quiet || fail "base run to a standard error"
"$BIN" run gbm --set mu=0.05 --set sigma=0.2 --t-end 1 --dt 0.25 --scheme milstein \
  --observe expr --observe-expr S2=S*S --mlmc 1e-2 --checkpoint "$D/mk" -o "$D/m.h5" --quiet ||
  fail "base --mlmc run"
bad() { # NAME CHECKPOINT REGEX OPS...
  local name=$1 ck=$2 re=$3
  shift 3
  $TOOL "$ck" "$D/bad.ck" "$@" || fail "crafting $name"
  expect_error "$name" 2 "$re" resume "$D/bad.ck" -o "$D/never.h5"
  check "$name: no output" test ! -e "$D/never.h5"
}
for k in ck mk; do
  bad "$k: no carried reductions" "$D/$k" "holds no state of a run" drop:CARY
  bad "$k: no driver state" "$D/$k" "holds no state of a run" drop:TGTS
  bad "$k: a driver state of one byte" "$D/$k" "holds no state of a run" set:TGTS=x
  bad "$k: carried reductions of one byte" "$D/$k" "corrupt \(carried reductions\)" set:CARY=x
  bad "$k: carried reductions cut after their head" "$D/$k" "corrupt \(carried reductions\)" \
    "set:CARY=SDKCARY1xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
done
# the batch driver's state with the right magic and size, but a key of 2^62
# paths per grid point and a window past it
python3 -c 'import struct,sys; sys.stdout.buffer.write(b"SDKTGT01" + struct.pack("<4q", 1, 1, 1 << 62, 100) + bytes(8) + struct.pack("<3q", 0, 16384, -1))' >"$T/tg"
bad "a driver state out of range" "$D/ck" "corrupt \(state of the batches\)" setfile:TGTS=$T/tg
finish
