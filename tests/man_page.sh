#!/usr/bin/env bash
# man_page.sh MAN SDEKIT SRC: the generated manual page sdekit.1 says what
# the tool says.
#   (a) every option of 'sdekit run --help' (and of the other commands'
#       --help) is in the page;
#   (b) ENVIRONMENT lists every variable the CLI reads (getenv in src/cli and
#       the helpers of src/api/environment.c), SDEKIT_MODEL_PATH among them;
#   (c) FILES says where the built-in models are;
#   (d) groff, where installed, formats it without a warning.
set -u
MAN=$1
BIN=$2
SRC=$3
nfail=0
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }
[ -s "$MAN" ] || { echo "FAIL: no manual page at $MAN"; exit 1; }
# the page's text with the roff escapes of the help texts undone
text=$(sed -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\f[BIRP]//g' -e 's/\\e/\\/g' "$MAN")

nopt=0
for cmd in run resume plot bench cache info codegen compile devices; do
  for o in $("$BIN" $cmd --help | grep -oE '(^|[ [(|,])--?[a-z][a-z-]*' | grep -oE -- '--?[a-z][a-z-]*' |
    sort -u); do
    nopt=$((nopt + 1))
    printf '%s\n' "$text" | grep -qF -- "$o" || fail "'sdekit $cmd --help' has $o, the page does not"
  done
done
# every line of the run help, verbatim
while IFS= read -r line; do
  printf '%s\n' "$text" | grep -qxF -- "$line" || fail "run --help line not in the page: $line"
done < <("$BIN" run --help | grep -v '^$')

env_section=$(printf '%s\n' "$text" | sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p')
# (sdekit's own variables by their name less SDEKIT_ where the old SDK_ name
# is still taken: env_int, renamed)
vars=$({
  grep -ohE '(getenv|env_get|nonempty)\((envp, )?"[A-Z_][A-Z0-9_]*"' "$SRC"/src/cli/*.c \
    "$SRC"/src/api/environment.c | grep -oE '"[A-Z0-9_]+"' | tr -d '"'
  grep -ohE '(env_int|renamed)\(envp, "[A-Z_][A-Z0-9_]*"' "$SRC"/src/api/environment.c |
    grep -oE '"[A-Z0-9_]+"' | tr -d '"' | sed 's/^/SDEKIT_/'
} | sort -u)
nvars=0
for v in $vars SDEKIT_MODEL_PATH; do
  nvars=$((nvars + 1))
  printf '%s\n' "$env_section" | grep -qw -- "$v" || fail "ENVIRONMENT does not list $v"
done
[ "$nvars" -ge 20 ] || fail "found only $nvars variables read in src/cli and src/api/environment.c (expected 20 or more)"

files_section=$(printf '%s\n' "$text" | sed -n '/^\.SH FILES/,/^\.SH /p')
printf '%s\n' "$files_section" | grep -qF 'share/sdekit/models' ||
  fail "FILES does not say where the built-in models are"

if command -v groff > /dev/null; then
  warn=$(groff -man -Tutf8 -ww -z "$MAN" 2>&1)
  [ -z "$warn" ] || fail "groff warns: $warn"
fi
echo "man_page: $nopt options, $nvars variables checked, $nfail failed"
[ $nfail -eq 0 ]
