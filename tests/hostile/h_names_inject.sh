#!/usr/bin/env bash
# Issue 10 item 1: model data (name, description, the file's path) never
# becomes code in the generated kernel source.  The name, description and
# path below close the header comment and declare a constructor that would
# create PWNED when the module is loaded; the run must create no such file
# anywhere, and `sdekit codegen` must show the text only inside a C string
# literal (nothing of it survives once the comments are stripped).
. "$(dirname "$0")/lib.sh"

payload='*/ int creat(const char *, unsigned); __attribute__((constructor)) static void sdk_pwn(void) { creat("PWNED", 0644); } /*'
model() { # FILE NAME DESCRIPTION
  cat > "$1" <<EOT
[model]
name = $2
description = $3
vars = x
[params]
k = 1
[drift]
x = -k*x
[noise]
x = 0.1
[init]
x = 1
EOT
}
no_pwned() {
  [ -z "$(find "$T" / -maxdepth 0 -name 'PWNED*' 2>/dev/null)" ] &&
    [ -z "$(find "$T" -name 'PWNED*' 2>/dev/null)" ] && [ ! -e "$SRC/PWNED" ]
}
# the code of the source once the comments are removed (strings stay)
code_of() { gcc -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null; }

cr=$'\r'
mkdir -p "$T/m"
model "$T/m/inj.sde" "x $payload${cr}y" "d ${cr}$payload"
# (the parser joins continuation lines with a space: a name has no newline,
# but a carriage return passes)
# a path with a newline, a quote and a payload (a file name has no '/')
evil="$T/m/e\"v"$'\n''int creat(const char *, unsigned); __attribute__((constructor)) static void sdk_pwn2(void) { creat("PWNED2", 0644); }'$'\n''.sde'
model "$evil" "plain" "plain"

for be in cpu cuda; do
  for which in name path; do
    f=$T/m/inj.sde
    [ $which = path ] && f=$evil
    run_sdk codegen "$f" --backend $be
    check "codegen $be, hostile $which: runs" [ "$rc" -eq 0 ]
    cp "$OUTF" "$T/src.c"
    check "codegen $be: no raw payload in the source" bash -c "! grep -qF 'creat(\"PWNED' '$T/src.c'"
    check "codegen $be: no constructor outside comments and literals" \
      bash -c "! gcc -fpreprocessed -dD -E -P -x c '$T/src.c' 2>/dev/null | sed 's/\"[^\"]*\"//g' | grep -q 'constructor\|creat'"
  done
done
# the #line path as the compilers read it back is the file's path
run_sdk codegen "$evil" --backend cpu
check "#line names the model file (escaped)" grep -q '^#line [0-9]* "[^"]*\\042v\\012' "$OUTF"

for p in single double; do
  for which in name path; do
    f=$T/m/inj.sde
    [ $which = path ] && f=$evil
    run_sdk run "$f" --paths 64 --t-end 0.1 --precision $p -o "$T/out.h5" --quiet
    check "run $p, hostile $which: runs with the text escaped (rc $rc: $(head -c 200 "$ERRF"))" [ "$rc" -eq 0 ]
    check "run $p: no PWNED file anywhere" no_pwned
    rm -f "$T/out.h5"
  done
done
check "no PWNED in the working directory" bash -c "[ ! -e '$W/PWNED' ] && [ ! -e '$W/PWNED2' ]"
finish
