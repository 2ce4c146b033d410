#!/usr/bin/env bash
# `sdekit resume` compares the model file a checkpoint names with the text it
# stores (issue 25 item 14).  That path comes from the checkpoint and may
# since be anything: it is read as any model file is (model/lookup.c), so a
# path that is not a regular file is never opened.  Opening is an action: a
# FIFO's waiting writer is released, a terminal can become the controlling
# one.  Here the model file became a FIFO with a writer waiting on it.
. "$(dirname "$0")/lib.sh"
cp "$SRC/models/ou.sde" "$W/m.sde"
"$BIN" run ./m.sde --paths 64 --t-end 1 --observe drift --checkpoint "$T/ck" -o r.tsv --quiet ||
  fail "checkpointed run"
rm -f "$W/m.sde" "$W/r.tsv"
mkfifo "$W/m.sde"
# the writer: its open returns only when someone opens the FIFO for reading
(exec 3>"$W/m.sde" && echo released >"$T/released") &
writer=$!
run_sdk resume "$T/ck" --quiet
sleep 0.5
check "resume with the stored text (rc=$rc: $(head -c 200 "$ERRF"))" test "$rc" -eq 0
check "the FIFO was not opened (its writer still waits)" test ! -e "$T/released"
# release the writer ourselves, and reap it
exec 4<>"$W/m.sde"  # (read-write: never blocks)
wait "$writer"
exec 4<&-
check "the writer was waiting (the test can fail)" test -e "$T/released"
finish
