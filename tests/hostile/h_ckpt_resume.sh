#!/usr/bin/env bash
# Issue 10 item 3: a checkpoint grants no more than the equivalent command
# line.  Checkpoints are crafted the way an attacker can (records edited, the
# unkeyed checksum recomputed, tests/hostile/ckpt_tool.py): output paths in
# it land in the checkpoint's own directory and are printed; its --checkpoint
# is ignored; existing results are not replaced without --force (also when a
# finished run is extended with --periods/--t-end, item 10); its model text
# goes through the model parser and allowlist, so code in it is refused.
. "$(dirname "$0")/lib.sh"
TOOL="python3 $SRC/tests/hostile/ckpt_tool.py"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
D=$T/d
mkdir -p "$D" "$T/x/y" "$T/abs" "$T/elsewhere"
"$BIN" run ou --paths 64 --t-end 1 --observe moments --checkpoint "$D/ck" -o "$D/r.tsv" --quiet ||
  fail "base run"

# outputs: relative escapes and absolute paths stay in the checkpoint's directory
$TOOL "$D/ck" "$D/paths.ck" "argv:ou|--paths|64|--t-end|1|--observe|moments|-o|../../evil.tsv|--output=$T/abs/abs.h5|--checkpoint=$T/elsewhere/ck" ||
  fail "crafting"
(cd "$T/x/y" && "$BIN" resume "$D/paths.ck" >"$T/out" 2>"$T/err")
rc=$?
check "resume of a crafted checkpoint runs (rc=$rc: $(head -c 300 "$T/err"))" test "$rc" = 0
check "no ../../evil.tsv relative to the working directory" test ! -e "$T/evil.tsv"
check "no file at the absolute path of the checkpoint" test ! -e "$T/abs/abs.h5"
check "no checkpoint at the path the checkpoint names" test ! -e "$T/elsewhere/ck"
check "the outputs are in the checkpoint's directory" test -s "$D/evil.tsv" -a -s "$D/abs.h5"
check "where they go is printed first" grep -q "^sdekit: resume: results go to $D/evil.tsv" "$T/err"
check "the absolute one too" grep -q "^sdekit: resume: results go to $D/abs.h5" "$T/err"
check "the same numbers as the run" cmp -s <(grep -v '^#' "$D/r.tsv") <(grep -v '^#' "$D/evil.tsv")

# existing files are not replaced without --force: not by a plain resume...
sum=$(md5sum <"$D/r.tsv")
expect_error "resume does not replace an existing output" 2 "exists: give --force" resume "$D/ck"
check "the existing output is unchanged" test "$sum" = "$(md5sum <"$D/r.tsv")"
# ... nor by an extension of the finished run (item 10)
expect_error "resume --t-end does not replace an existing output" 2 "r\.tsv' exists" resume "$D/ck" --t-end 2
check "the existing output is still unchanged" test "$sum" = "$(md5sum <"$D/r.tsv")"
run_sdk resume "$D/ck" --t-end 2 -o "$D/r2.tsv"
check "extension to a new -o file works (rc=$rc)" test "$rc" = 0 -a -s "$D/r2.tsv"
run_sdk resume "$D/ck" --t-end 2 --force
check "--force replaces it (rc=$rc)" test "$rc" = 0
check "replaced by the longer run" test "$sum" != "$(md5sum <"$D/r.tsv")"

# model text in the checkpoint is parsed like a model file: code is refused
"$BIN" run ou --paths 64 --t-end 1 --observe moments --checkpoint "$D/m.ck" -o "$D/m.tsv" --quiet
model() {
  printf '[model]\nname = ou\nvars = x\n[params]\nk = 1.0\nD = 0.5\n[drift]\nx = %s\n[noise]\nx = sqrt(2*D)\n[init]\nx = 1.0\n' "$1"
}
n=0
for expr in 'system("touch PWNED")' '-k*x); system("touch PWNED"); (0' \
            '-k*x; } __attribute__((constructor)) static void f(void) { system("touch PWNED"); } static double g() { return 0' \
            '-k*x /* */ + popen("touch PWNED", "r")' '__builtin_trap()' 'x[100000000]'; do
  n=$((n + 1))
  model "$expr" >"$T/evil$n.sde"
  $TOOL "$D/m.ck" "$D/evil$n.ck" "setfile:MTXT=$T/evil$n.sde" "set:MPTH=" || fail "crafting $n"
  expect_error "model text with code ($expr) is refused by the parser" 2 "drift|x|expression|unknown|expected|function" resume "$D/evil$n.ck" -o "$D/e$n.tsv"
  check "nothing ran for ($expr)" test ! -e PWNED -a ! -e "$D/PWNED" -a ! -e "$D/e$n.tsv"
done
finish
