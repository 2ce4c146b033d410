#!/usr/bin/env bash
# A full disk while writing (issue 25 item 10): every writer reports one
# error, leaves neither the final name nor a temporary behind, and the
# process ends with its normal error status; libhdf5's exit handler never
# crashes it (it did: exit 139 after the error line, from Python the
# interpreter died at exit).  A full disk is simulated without mounts:
# RLIMIT_FSIZE with SIGXFSZ ignored makes a write past the limit fail with
# EFBIG, as ENOSPC would.
. "$(dirname "$0")/lib.sh"

LIMIT_KB=64
# full ARGS...: sdekit under the limit; sets rc, ERRF
full() {
  bash -c 'trap "" XFSZ; ulimit -f '$LIMIT_KB'; exec "$@"' sh "$BIN" "$@" \
    >"$T/stdout" 2>"$T/stderr" </dev/null
  rc=$?
  ERRF=$T/stderr
}
# leftovers: the files under $W (none may be left by a failed write)
leftovers() { find "$W" -mindepth 1 | LC_ALL=C sort | tr '\n' ' '; }

# a result far larger than the limit: 10001 samples of the moments
BIG=(run ou --paths 100 --t-end 10 --dt 0.001 --sample-every 1 --observe moments --quiet)

for out in out.h5 out.tsv; do
  rm -rf "${W:?}"/*
  full "${BIG[@]}" -o "$out"
  problems=()
  [ "$rc" -eq 1 ] || problems+=("exit $rc, expected 1")
  [ "$(wc -l <"$ERRF")" -eq 1 ] || problems+=("stderr has $(wc -l <"$ERRF") lines")
  grep -Eq "^sdekit: error: cannot write '$out': File too large$" "$ERRF" ||
    problems+=("message is not the write error of $out")
  [ -z "$(leftovers)" ] || problems+=("left behind: $(leftovers)")
  if [ ${#problems[@]} -eq 0 ]; then pass "full disk $out"; else
    fail "full disk $out: ${problems[*]} (stderr: $(head -c 300 "$ERRF" | tr '\n' '|'))"
  fi
done

# the checkpoint: a warning, the run goes on (the documented behaviour), the
# small result written, no temporary of the checkpoint left
rm -rf "${W:?}"/*
full run ou --paths 100000 --t-end 1 --observe drift --quiet --checkpoint ck.sdkc -o small.h5
check "full disk checkpoint: run goes on" test "$rc" -eq 0
check "full disk checkpoint: warned" grep -q "warning: cannot write checkpoint 'ck.sdkc': File too large" "$ERRF"
check "full disk checkpoint: only the result left" test "$(leftovers)" = "$W/small.h5 "

# Python: sdekit.run(..., output=) raises FileError and the interpreter
# ends normally (a libsdekit beside the sdekit tested, the package of the tree)
PY=/usr/bin/python3
LIB=$(dirname "$BIN")/libsdekit.so.0
# (not under ASan: Python would have to preload its runtime; the regular
# build runs these cases)
if [ "${SANITIZED:-0}" = 1 ]; then
  echo "the library is sanitized: the Python cases run in the regular build only"
elif [ -f "$LIB" ] && "$PY" -c 'import numpy' 2>/dev/null; then
  rm -rf "${W:?}"/*
  cat >"$T/full.py" <<'PY'
import sdekit
try:
    sdekit.run("ou", paths=100, t_end=10, dt=0.001, sample_every=1, observe="moments",
               output="out.h5", progress=False)
    print("no error")
except sdekit.FileError as e:
    print("FileError:", e)
PY
  SDEKIT_LIBRARY=$LIB PYTHONPATH=$SRC/python \
    bash -c 'trap "" XFSZ; ulimit -f '$LIMIT_KB'; cd "$1" && exec "$2" "$3"' sh "$W" "$PY" "$T/full.py" \
    >"$T/stdout" 2>"$T/stderr" </dev/null
  rc=$?
  check "python full disk: interpreter exits 0 (got $rc)" test "$rc" -eq 0
  check "python full disk: FileError raised" grep -q "^FileError: cannot write 'out.h5': File too large" "$T/stdout"
  check "python full disk: nothing left" test -z "$(leftovers)"
else
  echo "python3 with numpy or $LIB missing: the Python case skipped"
fi

finish
