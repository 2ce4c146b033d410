#!/usr/bin/env bash
# Issue 10 item 8: a checkpoint that cannot be written costs nothing but the
# checkpoint: one "sdekit: warning:" line, the run goes on, the output is
# complete and identical to a run without --checkpoint, no temporary file is
# left.  The failure is made certain (we may be root, so permissions would not
# stop us): the checkpoint's name is 250 bytes, a valid name, but its temporary
# (name + ".tmp.XXXXXX", core/atomicfile.h) is longer than any file name may be.
. "$(dirname "$0")/lib.sh"
D=$T/d
mkdir -p "$D/a" "$D/b"
ARGS=(run josephson --scan a=4:8:2 --paths 256 --periods 40 --observe drift,moments --sample-every 500)
(cd "$D/a" && "$BIN" "${ARGS[@]}" -o r.h5 -o r.tsv --quiet) || fail "run without checkpoint"
CK=$(printf 'c%.0s' $(seq 250))
(cd "$D/b" && "$BIN" "${ARGS[@]}" --checkpoint "$CK" --checkpoint-every 0 -o r.h5 -o r.tsv \
  --quiet >"$T/out" 2>"$T/err")
rc=$?
check "the run succeeds although no checkpoint can be written (rc=$rc: $(head -c 300 "$T/err"))" test "$rc" = 0
check "exactly one warning line" test "$(grep -c '^sdekit: warning: cannot write checkpoint' "$T/err")" = 1
check "and nothing else on stderr" test "$(wc -l <"$T/err")" = 1
check "HDF5 output identical to the run without checkpoint" cmp -s "$D/a/r.h5" "$D/b/r.h5"
for f in r.drift.tsv r.moments.tsv; do
  check "$f identical" cmp -s "$D/a/$f" "$D/b/$f"
done
check "no checkpoint file" test ! -e "$D/b/$CK"
check "no temporary file left" test "$(find "$D/b" -name 'c*' -type f | wc -l)" = 0
finish
