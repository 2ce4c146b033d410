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

# the hostile files: tests/hostile/craft_h5.py (shared with tests/test_image.c)
craft=$SRC/tests/hostile/craft_h5.py

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
  /usr/bin/python3 "$craft" "$kind" "$T/base.h5" "$h" "$T/fifo.h5" 2>"$T/err" ||
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
