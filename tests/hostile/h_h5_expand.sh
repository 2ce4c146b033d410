#!/usr/bin/env bash
# A small HDF5 file that unpacks to a lot of memory (issue 25 item 14): a
# compressed dataset of zeros takes about a thousandth of its size, so a
# 4 MB file could make `sdekit info` allocate 4 GiB while staying within the
# total cap (SDK_H5_MAX_TOTAL).  What a file may unpack to is bounded by its
# size too (SDK_H5_MAX_EXPANSION times it plus SDK_H5_FREE_BYTES, io/image.h),
# checked before anything is allocated: one error line, little memory.
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null || { echo "h5py missing: skipped"; exit 77; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing: skipped"; exit 77; }
"$BIN" run ou --scan k=1:2:2 --observe drift,moments --paths 32 --t-end 1 -o "$T/base.h5" \
  --quiet 2>"$T/err" || { fail "base run: $(cat "$T/err")"; finish; exit; }
mkfifo "$T/fifo"
# (tests/hostile/craft_h5.py, shared with tests/test_image.c: 2 x 2^25 zeros, 512 MiB)
/usr/bin/python3 "$SRC/tests/hostile/craft_h5.py" expand "$T/base.h5" "$T/expand.h5" "$T/fifo" ||
  { fail "craft"; finish; exit; }
size=$(stat -c %s "$T/expand.h5")
echo "expand.h5: $size bytes"

# info: refused, naming the file and the limit, in less than 200 MB
/usr/bin/time -f '%M' -o "$T/rss" timeout 60 "$BIN" info "$T/expand.h5" >"$T/stdout" 2>"$T/stderr" </dev/null
rc=$?
rss=$(tail -1 "$T/rss")
echo "sdekit info: exit $rc, peak resident $((rss / 1024)) MiB"
check "info refuses (exit $rc)" test "$rc" -eq 2
check "one error line naming the file and the limit ($(head -c 300 "$T/stderr"))" \
  grep -q "^sdekit: error: '.*expand\.h5' unpacks to 512 MiB of values from .* (SDK_H5_MAX_EXPANSION" "$T/stderr"
check "one line" test "$(wc -l <"$T/stderr")" -eq 1
check "peak memory under 200 MiB (got $((rss / 1024)) MiB)" test "$rss" -lt 204800

# the same file's data, written plainly (as large in the file as in memory), is read
/usr/bin/python3 - "$T/expand.h5" "$T/plain.h5" <<'PY'
import shutil, sys, h5py
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    del f["zero0"], f["zero1"]
    f.create_dataset("zero0", shape=(2**22,), dtype="f8", data=None, fillvalue=0,
                     chunks=None)[...] = 0
PY
run_sdk info "$T/plain.h5"
check "an unpacked file of the size it holds is read (rc=$rc: $(head -c 200 "$ERRF"))" test "$rc" -eq 0
finish
