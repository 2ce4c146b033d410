#!/usr/bin/env bash
# docs_model.sh SRC MAN5 MAN1: the model-file reference says what the parser does.
#   (a) every section the parser accepts (SECTIONS in src/model/sections.c),
#       every [model] key (its "unknown key" message), every function of the
#       allowlist (FUNCS in src/model/expr.c), every reserved name (RESERVED)
#       and every limit of src/model/limits.h (and the Wiener processes'
#       MAX_WIENER) is named in docs/MODEL.md and in the page sdekit-model(5);
#   (b) every ```ini block of docs/MODEL.md is a whole model that passes
#       `sdekit codegen` (with --particles 2 where it couples particles);
#   (c) the page formats without a warning (groff, where installed), sdekit(1)
#       refers to it, and the README links docs/MODEL.md.
# The source is read, not copied: a section, key, function or limit added to
# the parser without its documentation fails here.
#
# Environment (set by CTest): SDK_BIN, SDK_CACHE_DIR.
set -u
SRC=$1
MAN5=$2
MAN1=$3
BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "docs_model: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/docs_model.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export SDK_CACHE_DIR=${SDK_CACHE_DIR:-$T/cache}
nfail=0
nchk=0
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }
DOC=$SRC/docs/MODEL.md
[ -s "$DOC" ] || { echo "FAIL: no $DOC"; exit 1; }
[ -s "$MAN5" ] || { echo "FAIL: no manual page at $MAN5"; exit 1; }
# the page's text with roff's escapes of '-' undone
man5=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN5")

# in_docs WHAT WORD: WORD (a whole word) is in MODEL.md and in the page
in_docs() {
  nchk=$((nchk + 1))
  grep -qwF -- "$2" "$DOC" || fail "docs/MODEL.md does not name the $1 $2"
  printf '%s\n' "$man5" | grep -qwF -- "$2" || fail "sdekit-model(5) does not name the $1 $2"
}

# (a) sections: the SECTIONS array, as headings of MODEL.md and named in the page
sections=$(sed -n '/^static const char \*const SECTIONS\[\]/,/};/p' "$SRC/src/model/sections.c" |
  grep -oE '"[a-z]+"' | tr -d '"')
[ "$(printf '%s\n' $sections | wc -l)" -ge 12 ] || fail "found only: $sections (SECTIONS in sections.c)"
for s in $sections; do
  nchk=$((nchk + 1))
  grep -qxF "## [$s]" "$DOC" || fail "docs/MODEL.md has no heading '## [$s]'"
  printf '%s\n' "$man5" | grep -qF "[$s]" || fail "sdekit-model(5) does not name [$s]"
done
# [model] keys: the list the parser gives in its error
keys=$(grep -A2 "unknown key '%s' in \\[model\\]" "$SRC/src/model/sections.c" | tr -d '\n' |
  sed -E 's/" +"//g; s/.*\(keys: ([a-z, ]+)\).*/\1/' | tr ',' ' ')
[ "$(printf '%s\n' $keys | wc -l)" -ge 8 ] || fail "found only these [model] keys: $keys"
for k in $keys; do
  nchk=$((nchk + 1))
  grep -qF "| \`$k\` |" "$DOC" || fail "docs/MODEL.md's [model] table has no key $k"
  printf '%s\n' "$man5" | grep -qw -- "$k" || fail "sdekit-model(5) does not name the [model] key $k"
done
# functions: FUNCS of expr.c
funcs=$(sed -n '/^static const fn_info FUNCS\[\]/,/};/p' "$SRC/src/model/expr.c" |
  grep -oE '\{"[a-z0-9]+"' | tr -d '{"')
[ "$(printf '%s\n' $funcs | wc -l)" -ge 30 ] || fail "found only these functions: $funcs"
for f in $funcs; do
  nchk=$((nchk + 1))
  grep -qF "\`$f\`" "$DOC" || grep -qF "\`$f(" "$DOC" || fail "docs/MODEL.md's functions lack $f"
  printf '%s\n' "$man5" | grep -qw -- "$f" || fail "sdekit-model(5) does not name the function $f"
done
# reserved names: RESERVED of expr.c
for r in $(grep -E '^static const char \*const RESERVED\[\]' "$SRC/src/model/expr.c" |
  grep -oE '"[A-Za-z_]+"' | tr -d '"'); do
  in_docs "reserved name" "$r"
done
# limits: every #define of limits.h (and MAX_WIENER), its value as the tables print it
doc_limits=$(sed -n '/^## Limits/,/^## /p' "$DOC")
man_limits=$(printf '%s\n' "$man5" | sed -n '/^\.SH LIMITS/,/^\.SH /p')
while read -r name value; do
  v=$(printf '%s\n' "$value" | sed -E 's/\(1 << ([0-9]+)\)/2^\1/; s/\(([0-9]+) << 20\)/\1*1048576/')
  case $v in
  2^*) v=$((1 << ${v#2^})) ;;
  *\**) v=$((${v%\**} * ${v#*\*})) ;;
  esac
  nchk=$((nchk + 1))
  printf '%s\n' "$doc_limits" | grep -qw -- "$v" || fail "docs/MODEL.md's Limits lack $name ($v)"
  printf '%s\n' "$man_limits" | grep -qw -- "$v" || fail "sdekit-model(5)'s LIMITS lack $name ($v)"
done < <(grep -hE '^#define (SDK_[A-Z_]*MAX[A-Z_]*|MAX_WIENER) ' "$SRC/src/model/limits.h" \
  "$SRC/src/model/noises.c" | awk '{name=$2; $1=""; $2=""; sub(/\/\*.*/, ""); gsub(/^ +| +$/, ""); print name, $0}')

# (b) every ```ini block is a model that passes codegen
awk -v dir="$T" '
  /^```ini$/ { n++; f = sprintf("%s/example%02d.sde", dir, n); inblock = 1; next }
  /^```$/ && inblock { inblock = 0; close(f); next }
  inblock { print > f }' "$DOC"
nex=0
for f in "$T"/example*.sde; do
  [ -e "$f" ] || break
  nex=$((nex + 1))
  extra=
  grep -qE '^\[(meanfield|pair)\]' "$f" && extra="--particles 2"
  # shellcheck disable=SC2086
  if ! err=$("$BIN" codegen "$f" --backend cpu $extra 2>&1 > /dev/null); then
    fail "the example $(basename "$f") of docs/MODEL.md does not pass sdekit codegen: $err"
    sed 's/^/    /' "$f"
  fi
done
[ $nex -ge 12 ] || fail "only $nex ini examples in docs/MODEL.md (one per section expected)"

# (c) the page, the main page's reference, the README's link
if command -v groff > /dev/null; then
  warn=$(groff -man -Tutf8 -ww -z "$MAN5" 2>&1)
  [ -z "$warn" ] || fail "groff warns on sdekit-model(5): $warn"
fi
sed -e 's/\\-/-/g' "$MAN1" | grep -qF 'sdekit-model (5)' || fail "sdekit(1) does not refer to sdekit-model(5)"
grep -qF '(docs/MODEL.md)' "$SRC/README.md" || fail "README.md does not link docs/MODEL.md"
echo "docs_model: $nchk names checked, $nex examples parsed, $nfail failed"
[ $nfail -eq 0 ]
