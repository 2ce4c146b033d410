#!/usr/bin/env bash
# Issue 10 items 3 and 6: a checkpoint is untrusted data.  Each record is
# checked before use: another format, version, kernel ABI, build or kernel is
# refused with a clear message; missing, repeated, unknown, oversized or
# truncated records and impossible dimensions give one clean error (no crash,
# no NULL dereference, no huge allocation); a FIFO is not waited on.
. "$(dirname "$0")/lib.sh"
TOOL="python3 $SRC/tests/hostile/ckpt_tool.py"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
D=$T/d
mkdir -p "$D"
"$BIN" run ou --paths 64 --t-end 1 --observe moments,hist --save-paths 0,1 --checkpoint "$D/ck" \
  -o "$D/r.h5" --quiet || fail "base run"
bad() { # NAME REGEX OPS...
  local name=$1 re=$2
  shift 2
  $TOOL "$D/ck" "$D/bad.ck" "$@" || fail "crafting $name"
  expect_error "$name" 2 "$re" resume "$D/bad.ck" -o "$D/never.h5"
  check "$name: no output" test ! -e "$D/never.h5"
}
bad "another format" "has format 1" u32fmt:1
bad "another version" "written by sdekit 9\.9\.9" set:VERS=9.9.9
bad "another build" "another build of sdekit" "set:BILD=sdekit 0.1.0 abi 3 ckpt 3 cc 1.0 build evil"
bad "another kernel" "written for another kernel" set:KHSH=0123456789abcdef0123456789abcdef
bad "a kernel hash that is no hash" "corrupt \(kernel hash\)" "set:KHSH=../../x"
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<q", 99))' >"$T/abi"
bad "another ABI" "kernel ABI 99" setfile:ABI=$T/abi
# the sample interval (SEVR): 8 bytes, 1 .. 2^53; another one than the
# samples taken were taken at is refused with the interval to give
for v in 0 -5 9007199254740993; do
  python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<q", int(sys.argv[1])))' "$v" >"$T/sevr"
  bad "sample interval $v" "corrupt \(sample interval\)" setfile:SEVR=$T/sevr
done
bad "sample interval of 7 bytes" "corrupt \(sample interval\)" set:SEVR=1234567
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<q", 3))' >"$T/sevr"
bad "another sample interval" "this run.s layout|were not taken every 3 steps" setfile:SEVR=$T/sevr
for rec in VERS ABI BILD KHSH ARGV MTXT MPTH DIMS STAT SSTP; do
  bad "missing record $rec" "truncated or corrupt|corrupt" drop:$rec
done
bad "no checksum" "truncated or corrupt" nohash
bad "unknown record" "record 'EVIL' this sdekit does not know" set:EVIL=x
bad "NUL inside the model path" "corrupt \(model text or path\)" 'set:MPTH=a\0b'
bad "arguments not NUL-terminated" "corrupt \(arguments\)" 'set:ARGV=run\0ou'
bad "huge grid" "wrong size|bad dimensions" dims:2=4611686018427387904
bad "negative paths" "bad dimensions" dims:3=-1
bad "overflowing product" "wrong size|bad dimensions" dims:2=4294967296 dims:3=4294967296
bad "more samples than stored" "wrong size" dims:4=1000000
bad "mark flag not 0/1" "bad dimensions" dims:5=7
bad "step beyond the run" "does not match this run" dims:0=100000000
bad "another variable count" "wrong size|does not match" dims:1=2
bad "saved paths without their records" "corrupt|does not match" dropds:paths/
bad "moments without their records" "corrupt|does not match" dropds:moments/
bad "one of the moments' datasets missing" "does not match" dropds:moments/var_x
bad "a dataset record cut short" "wrong size|corrupt" cutds:moments/mean_x
bad "observables' sample counts missing" "does not match" drop:OBSN
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<H", 7) + b"moments" + struct.pack("<q", -5))' >"$T/obsn"
bad "a negative sample count" "bad dimensions|corrupt" setfile:OBSN=$T/obsn
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<H", 9) + b"../../etc" + struct.pack("<q", 1))' >"$T/obsn2"
bad "an observable name that is a path" "corrupt|does not match" setfile:OBSN=$T/obsn2
# truncated at many places: never a crash
size=$(stat -c %s "$D/ck")
for cut in 7 11 12 20 40 100 $((size / 3)) $((size / 2)) $((size - 33)) $((size - 1)); do
  head -c "$cut" "$D/ck" >"$D/cut.ck"
  expect_error "truncated to $cut bytes" 2 "truncated or corrupt|not an sdekit checkpoint" resume "$D/cut.ck"
done
# a FIFO or a device is not read (it would block or never end)
mkfifo "$D/fifo.ck"
expect_error "a FIFO" 2 "not a regular file" resume "$D/fifo.ck"
expect_error "a device" 2 "not a regular file" resume /dev/zero
# a model path naming a FIFO is not waited on either (it is data); the path
# is no part of the kernel's identity (only its #line directives name it), so
# the run continues from the stored model text
$TOOL "$D/ck" "$D/mfifo.ck" "set:MPTH=$D/fifo.ck"
run_sdk resume "$D/mfifo.ck" -o "$D/mf.h5" --quiet
check "model path naming a FIFO does not block: resumed from the stored text" \
  test "$rc" -eq 0 -a -s "$D/mf.h5"
# Issue 27: the kernel hash is the kernel's identity, the hash of its
# normalised source (`sdekit codegen --normalised`: comments, whitespace and
# #line removed); checkpoints of format 3 hashed the raw source and are
# refused with a message that says so
bad "a format-3 checkpoint (kernel hash over the raw source)" \
  "format 3, from an earlier kernel identity.*rerun it" u32fmt:3
"$BIN" run ou --backend cpu --paths 64 --t-end 1 --checkpoint "$D/cpu.ck" -o "$D/cpu.h5" --quiet ||
  fail "cpu run"
"$BIN" codegen ou --backend cpu --paths 64 --t-end 1 --normalised >"$T/norm" || fail "codegen"
"$BIN" codegen ou --backend cpu --paths 64 --t-end 1 >"$T/raw" || fail "codegen"
khsh() { # CHECKPOINT: its KHSH record; FILE: sdk_hash_hex of a file
  python3 - "$@" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
from ckpt_tool import sdk_hash
b = open(sys.argv[2], "rb").read()
if sys.argv[3] == "ckpt":
    pos = 12
    while pos < len(b):
        (n,) = struct.unpack("<Q", b[pos + 4:pos + 12])
        if b[pos:pos + 4] == b"KHSH":
            print(b[pos + 12:pos + 12 + n].decode())
        pos += 12 + n
else:
    print(sdk_hash(b).decode())
PY
}
# the kernel as built (backend.h build_hash): the normalised source's
# identity with the compiler, its flags and the processor; other flags,
# another hash (a resume there would mix two kernels' bits)
k=$(khsh "$SRC/tests/hostile" "$D/cpu.ck" ckpt)
check "the kernel hash: 32 hex digits" sh -c 'printf %s "$1" | grep -Eqx "[0-9a-f]{32}"' sh "$k"
check "(not that of the raw source)" test "$k" != "$(khsh "$SRC/tests/hostile" "$T/raw" file)"
"$BIN" run ou --backend cpu --paths 64 --t-end 1 --checkpoint "$D/cpu2.ck" -o "$D/cpu2.h5" --quiet --force ||
  fail "cpu run again"
check "the same kernel, the same hash" test "$k" = "$(khsh "$SRC/tests/hostile" "$D/cpu2.ck" ckpt)"
CFLAGS=-fno-tree-vectorize "$BIN" run ou --backend cpu --paths 64 --t-end 1 \
  --checkpoint "$D/cpu3.ck" -o "$D/cpu3.h5" --quiet || fail "cpu run with other flags"
check "other compiler flags, another hash" \
  test "$k" != "$(khsh "$SRC/tests/hostile" "$D/cpu3.ck" ckpt)"
check "the normalised source has no comment, #line or indentation" \
  sh -c '! grep -Eq "^[[:space:]]|/\*|#line" "$1"' sh "$T/norm"
finish
