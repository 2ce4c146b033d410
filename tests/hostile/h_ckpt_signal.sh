#!/usr/bin/env bash
# Issue 10 item 10: SIGINT/SIGTERM without --checkpoint is not silent: the run
# says at which step it stopped and how to make it resumable (exit 128+sig,
# no output written); with --checkpoint it names the file to resume.
. "$(dirname "$0")/lib.sh"
ARGS=(run josephson --paths 4096 --periods 100000 -o "$T/r.tsv")
"$BIN" run josephson --paths 16 --periods 2 -o "$T/warm.tsv" --quiet # compile once
for sig in INT TERM; do
  # the signal after 3 s (the run is well under way even on a loaded machine);
  # KILL 20 s later if it is not obeyed
  timeout --preserve-status -s $sig -k 20 3 "$BIN" "${ARGS[@]}" 2>"$T/err.$sig"
  rc=$?
  want=$((128 + $(kill -l $sig)))
  check "SIG$sig: exit $want (got $rc)" test "$rc" = "$want"
  check "SIG$sig: says the step" grep -Eq '^sdekit: interrupted at step [0-9]+ of 10000000 \(t = [0-9.e+]+\)' "$T/err.$sig"
  check "SIG$sig: says how to make it resumable" grep -q 'nothing was saved: run with --checkpoint FILE' "$T/err.$sig"
  check "SIG$sig: no output" test ! -e "$T/r.tsv"
  [ -n "$(grep -E '^sdekit: interrupted' "$T/err.$sig")" ] || echo "  (stderr of SIG$sig: $(head -c 400 "$T/err.$sig"))" >&2
done
# with --checkpoint: the file to resume.  The signal comes once the first
# checkpoint exists, so the run is surely in its loop however loaded the machine.
"$BIN" "${ARGS[@]}" --checkpoint "$T/ck" --checkpoint-every 0 2>"$T/err.ck" &
pid=$!
for i in $(seq 600); do [ -e "$T/ck" ] && break; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
check "with --checkpoint: exit 130 (got $rc)" test "$rc" = 130
check "with --checkpoint: names the file" grep -q "checkpoint saved to $T/ck; continue with: sdekit resume $T/ck" "$T/err.ck"
finish
