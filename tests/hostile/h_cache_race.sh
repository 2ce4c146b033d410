#!/bin/bash
# Issue 25 items 1 and 14: the kernel cache directory is checked once and
# then used through its descriptor, so a directory swapped in under the same
# path later is never read, written or loaded from; a trailing "/" or "/."
# does not get a symbolic link past the check; a cache whose parent others
# may write (without the sticky bit) is refused; with no persistent cache, a
# compile error names a source that still exists.
#
# The tests run with one uid (CI runs them as root), so the swapped-in
# directory passes the ownership checks, as a directory of the attacker
# never would.  The race case therefore plants a module that a check refuses
# (it lacks the module key) and asserts that its constructor never runs: it
# can only run when the file loaded is not the file checked.
. "$(dirname "$0")/lib.sh"

RUN=(run ou --paths 64 --t-end 0.1)

# --- (a) a link named with a trailing "/" or "/." --------------------------
mkdir -p "$T/real" && chmod 700 "$T/real"
ln -s "$T/real" "$T/link"
SDEKIT_CACHE_DIR=$T/link/ expect_error "cache dir 'link/' refused" 1 \
  "cache directory '.*/link/' is a symbolic link" "${RUN[@]}" -o "$T/a1.tsv"
SDEKIT_CACHE_DIR=$T/link/. expect_error "cache dir 'link/.' refused" 1 \
  "cache directory '.*/link/\.' is a symbolic link" "${RUN[@]}" -o "$T/a2.tsv"
SDEKIT_CACHE_DIR=$T/link//./ expect_error "cache dir 'link//./' refused" 1 \
  "cache directory '.*/link//\./' is a symbolic link" "${RUN[@]}" -o "$T/a3.tsv"
check "link target: nothing written into it" test -z "$(ls -A "$T/real")"
SDEKIT_CACHE_DIR=$T/real/ run_sdk "${RUN[@]}" -o "$T/a4.tsv"
check "a real directory named 'real/' is accepted ($(head -c 200 "$ERRF" | tr '\n' '|'))" \
  test "$rc" -eq 0

# --- (b) parents others may write -------------------------------------------
mkdir -p "$T/grp" "$T/wor" "$T/sticky" "$T/deep/a"
chmod 2775 "$T/grp"
chmod 0777 "$T/wor"
chmod 1777 "$T/sticky"
chmod 0777 "$T/deep"
SDEKIT_CACHE_DIR=$T/grp/cache expect_error "cache under a group-writable parent refused" 1 \
  "cache directory '.*/grp/cache': its parent '.*/grp' is writable by its group" \
  "${RUN[@]}" -o "$T/b1.tsv"
SDEKIT_CACHE_DIR=$T/wor/cache expect_error "cache under a world-writable parent refused" 1 \
  "cache directory '.*/wor/cache': its parent '.*/wor' is writable by others" \
  "${RUN[@]}" -o "$T/b2.tsv"
SDEKIT_CACHE_DIR=$T/deep/a/cache expect_error "cache under a world-writable grandparent refused" 1 \
  "its parent '.*/deep' is writable by others" "${RUN[@]}" -o "$T/b3.tsv"
ln -s "$T/grp" "$T/grplink"
SDEKIT_CACHE_DIR=$T/grplink/cache expect_error "unsafe parent reached through a link refused" 1 \
  "its parent '.*/grp' is writable by its group" "${RUN[@]}" -o "$T/b4.tsv"
check "refused caches: no module written" \
  test -z "$(find "$T/grp" "$T/wor" "$T/deep" -name 'cpu-*')"
SDEKIT_CACHE_DIR=$T/sticky/cache run_sdk "${RUN[@]}" -o "$T/b5.tsv"
check "cache under a sticky world-writable parent accepted ($(head -c 200 "$ERRF" | tr '\n' '|'))" \
  test "$rc" -eq 0 -a -s "$T/b5.tsv"
mkdir -p "$T/tmpw" && chmod 0777 "$T/tmpw"
(
  unset HOME XDG_CACHE_HOME SDEKIT_CACHE_DIR
  TMPDIR=$T/tmpw "$BIN" "${RUN[@]}" -o "$T/b6.tsv" </dev/null >"$T/b6.out" 2>"$T/b6.err"
)
check "private cache under a non-sticky world-writable TMPDIR refused" \
  grep -q "^sdekit: error: cache directory '.*/tmpw/sdekit-run-.*': its parent '.*/tmpw' is writable by others" "$T/b6.err"
check "refused private cache: removed" test -z "$(ls -A "$T/tmpw")"

# --- (c) the swap race --------------------------------------------------------
# P/cache is the real cache (holding ou's module), P/evil a directory whose
# cpu-HASH.so, named as ou's module, has a constructor that creates $MARK.
# A loop exchanges the two (renameat2 RENAME_EXCHANGE) and re-plants the
# module whenever a run has replaced it, while sdekit runs ou again and again.
P=$T/par
mkdir -p "$P"
SDEKIT_CACHE_DIR=$P/cache run_sdk "${RUN[@]}" -o "$T/c0.tsv"
check "race: reference run" test "$rc" -eq 0
SO=$(find "$P/cache" -maxdepth 1 -name 'cpu-*.so' | head -1)
MARK=$T/CONSTRUCTOR_RAN
if [ -z "$SO" ] || ! command -v python3 >/dev/null; then
  fail "race: no module in the cache, or no python3"
else
  mkdir -m 700 "$P/evil"
  cat >"$T/planted.c" <<EOF
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void) {
  int fd = open("$MARK", O_WRONLY | O_CREAT, 0600);
  if (fd >= 0) close(fd);
}
int sdk_abi(void) { return -1; }
EOF
  cc -shared -fPIC -o "$T/planted.so" "$T/planted.c" || fail "race: cannot build the planted module"
  cp "$T/planted.so" "$P/evil/$(basename "$SO")"
  cat >"$T/swap.py" <<'EOF'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b, name, master, stop = sys.argv[1:6]
ab, bb = a.encode(), b.encode()
end = time.time() + float(sys.argv[6])
ino = os.stat(master).st_ino
n = 0
while time.time() < end and not os.path.exists(stop):
    for _ in range(500):  # an even count: the two names are back in place
        libc.renameat2(-100, ab, -100, bb, 2)
    n += 500
    try:  # a run may have rebuilt the module inside the planted directory
        if os.stat(os.path.join(b, name)).st_ino != ino:
            os.link(master, os.path.join(b, ".p"))
            os.rename(os.path.join(b, ".p"), os.path.join(b, name))
    except OSError:
        pass
print(n)
EOF
  python3 "$T/swap.py" "$P/cache" "$P/evil" "$(basename "$SO")" "$T/planted.so" "$T/stop" 70 \
    >"$T/swaps" 2>&1 &
  swapper=$!
  t0=$SECONDS runs=0 clean=0 ran_at=0 nfailed=0
  while [ "$runs" -lt 40 ] && [ $((SECONDS - t0)) -lt 60 ]; do
    runs=$((runs + 1))
    SDEKIT_CACHE_DIR=$P/cache run_sdk "${RUN[@]}" -o "$T/c.tsv"
    if [ -e "$MARK" ]; then
      ran_at=$runs
      break
    fi
    # a failure is fine if it is one clean error line
    [ "$rc" -eq 0 ] || nfailed=$((nfailed + 1))
    [ "$rc" -eq 0 ] || [ "$(grep -c '^sdekit: error: ' "$ERRF")" -eq 1 ] || clean=$((clean + 1))
    [ "$rc" -eq 0 ] || [ -z "${SDK_TEST_VERBOSE:-}" ] || head -c 300 "$ERRF"
  done
  touch "$T/stop"
  wait "$swapper"
  echo "h_cache_race: $runs runs ($nfailed failed cleanly), $(cat "$T/swaps") exchanges;" \
    "the planted constructor ran at run $ran_at (0: never)"
  check "race: the planted module's constructor never ran (it ran at run $ran_at of $runs)" \
    test "$ran_at" -eq 0
  check "race: every failed run ended with one error line ($clean did not)" test "$clean" -eq 0
  check "race: the swapper ran" test "$(cat "$T/swaps")" -gt 0
fi

# --- (d) no persistent cache: a compile error names a source that exists ----
mkdir -p "$T/tmpd"
(
  unset HOME XDG_CACHE_HOME SDEKIT_CACHE_DIR
  TMPDIR=$T/tmpd SDEKIT_CFLAGS='-std=gnu11 -O0 -fPIC -shared -Dsdk_init=(' \
    "$BIN" "${RUN[@]}" -o "$T/d.tsv" </dev/null >"$T/d.out" 2>"$T/d.err"
)
kept=$(sed -n 's/.*(source kept in \([^)]*\)).*/\1/p' "$T/d.err" | head -1)
check "compile error without a cache: one error line naming the source ($(head -c 300 "$T/d.err" | tr '\n' '|'))" \
  test "$(grep -c '^sdekit: error: ' "$T/d.err")" -eq 1 -a -n "$kept"
check "compile error without a cache: the source it names exists ($kept)" test -f "$kept"
check "compile error without a cache: only the source is left" \
  test "$(find "$T/tmpd" -type f | wc -l)" -eq 1

finish
