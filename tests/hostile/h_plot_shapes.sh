#!/usr/bin/env bash
# Issue 10 item 6 (HDF5 part): 'sdekit info' and 'sdekit plot' on result
# files whose shapes lie, that link or point elsewhere (soft and external
# links, external raw storage, virtual datasets, aimed at a FIFO that would
# block forever), or that are not regular files.  Each must give one clean
# "sdekit: error:" line naming the file and the problem, in bounded time and
# memory (timeout, ulimit -v), never a hang, crash or huge allocation.
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null || { echo "h5py missing: skipped"; exit 77; }
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
"$BIN" run josephson --scan a=4.2:14.1:2 --observe drift,moments,hist --paths 32 --periods 3 \
  -o "$T/base.h5" --quiet 2>"$T/err" || { fail "base run: $(cat "$T/err")"; finish; exit; }
mkfifo "$T/fifo" "$T/fifo.h5"

cat >"$T/craft.py" <<'PY'
import shutil, sys
import h5py, numpy as np
kind, src, dst, fifo = sys.argv[1:5]
shutil.copy(src, dst)
with h5py.File(dst, "r+") as f:
    if kind == "short_mean":      # moments/mean_x shorter than moments/t
        m = f["moments/mean_x"][:, :-2]
        del f["moments/mean_x"]
        f["moments/mean_x"] = m
    elif kind == "huge_axis":     # scan axis of 2^40 points, never written
        del f["scan/a"]
        f.create_dataset("scan/a", shape=(2**40,), dtype="f8", chunks=(1024,))
    elif kind == "huge_dims":     # moments/t with dimensions whose product overflows
        del f["moments/t"]
        f.create_dataset("moments/t", shape=(2, 2**62), dtype="f8", chunks=(1, 1024))
    elif kind == "unwritten":     # drift/value declared but never written (fill values)
        del f["drift/value"]
        f.create_dataset("drift/value", shape=(2,), dtype="f8", chunks=(2,))
    elif kind == "external_link": # an external link to an HDF5 "file" that is a FIFO
        f["elink"] = h5py.ExternalLink(fifo, "/x")
    elif kind == "external_moments":
        del f["moments/t"]
        f["moments/t"] = h5py.ExternalLink(fifo, "/t")
    elif kind == "soft_link":
        del f["drift/error"]
        f["drift/error"] = h5py.SoftLink("/drift/value")
    elif kind == "external_storage":  # scan/dt's raw data in an outside file (a FIFO)
        del f["scan/dt"]
        f.create_dataset("scan/dt", shape=(2,), dtype="f8", external=[(fifo, 0, 16)])
    elif kind == "virtual":       # scan/dt mapped from a dataset in another file (a FIFO)
        del f["scan/dt"]
        lay = h5py.VirtualLayout(shape=(2,), dtype="f8")
        lay[:] = h5py.VirtualSource(fifo, "dt", shape=(2,))
        f.create_virtual_dataset("scan/dt", lay, fillvalue=0.01)
PY

# hostile KIND EXPECT_RE [info] [plot]: craft KIND, run each command (both
# when none is named) on it with a time and memory limit; one clean error
# line matching EXPECT_RE, exit 2.
# 2 GB of address space as a backstop against a huge allocation.  AddressSanitizer
# reserves terabytes of shadow memory, so a sanitized binary gets the same bound
# from its allocator instead (an allocation above it is reported as an error).
if ldd "$BIN" 2>/dev/null | grep -q libasan; then
  bound_memory() { export ASAN_OPTIONS="${ASAN_OPTIONS:-}:max_allocation_size_mb=2000"; }
else
  bound_memory() { ulimit -v 2000000; }
fi
hostile() {
  local kind=$1 re=$2
  shift 2
  local cmds=("$@")
  [ ${#cmds[@]} -eq 0 ] && cmds=(info plot)
  local h=$T/$kind.h5
  /usr/bin/python3 "$T/craft.py" "$kind" "$T/base.h5" "$h" "$T/fifo.h5" 2>"$T/err" ||
    { fail "craft $kind: $(tail -1 "$T/err")"; return; }
  for cmd in "${cmds[@]}"; do
    local before after q=()
    [ "$cmd" = plot ] && q=(--quiet)
    before=$(find "$W" | LC_ALL=C sort)
    (bound_memory; timeout 20 "$BIN" $cmd "$h" "${q[@]}" >"$T/stdout" 2>"$T/stderr" </dev/null)
    rc=$?
    after=$(find "$W" | LC_ALL=C sort)
    local p=()
    [ "$rc" -eq 2 ] || p+=("exit $rc")
    [ "$(wc -l <"$T/stderr")" -eq 1 ] || p+=("stderr has $(wc -l <"$T/stderr") lines")
    grep -q "^sdekit: error: .*$kind\.h5.*" "$T/stderr" || p+=("no error line naming the file")
    grep -Eq -- "$re" "$T/stderr" || p+=("message does not match /$re/")
    [ "$before" = "$after" ] || p+=("files changed")
    if [ ${#p[@]} -eq 0 ]; then pass "$kind $cmd"; else
      fail "$kind $cmd: ${p[*]} (stderr: $(head -c 300 "$T/stderr" | tr '\n' '|'))"
    fi
  done
}

hostile short_mean 'differ in length' plot
hostile huge_axis 'larger than sdekit reads'
hostile huge_dims 'larger than sdekit reads' plot
hostile unwritten 'declares more data than the file holds' plot
hostile external_link '/elink is an external link'
hostile external_moments '/moments/t is an external link'
hostile soft_link '/drift/error is a soft link'
hostile external_storage 'external raw files'
hostile virtual 'virtual dataset'

# the file itself a FIFO: refused without opening it
for cmd in info plot; do
  (timeout 20 "$BIN" $cmd "$T/fifo" >"$T/stdout" 2>"$T/stderr" </dev/null)
  rc=$?
  if [ $rc -eq 2 ] && grep -q "^sdekit: error: .*fifo.* not a regular file" "$T/stderr" &&
    [ "$(wc -l <"$T/stderr")" -eq 1 ]; then pass "fifo $cmd"; else
    fail "fifo $cmd: exit $rc (stderr: $(head -c 300 "$T/stderr" | tr '\n' '|'))"
  fi
done
finish
