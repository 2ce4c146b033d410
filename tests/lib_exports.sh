#!/usr/bin/env bash
# lib_exports.sh LIBSDEKIT_SO HEADER: libsdekit.so exports the public API of
# include/sdekit.h and nothing else (everything else is built with hidden
# visibility), under the soname libsdekit.so.MAJOR.
#   (a) no defined dynamic symbol outside sdekit_*;
#   (b) every exported symbol is declared in sdekit.h;
#   (c) once the API is there (any sdekit_* exported), every function the
#       header declares is exported;
#   (d) SONAME libsdekit.so.MAJOR with MAJOR = SDEKIT_VERSION_MAJOR.
# With a third argument, the sdekit executable:
#   (e) it uses the public API alone: it needs libsdekit.so.MAJOR, and every
#       symbol it takes from there is an sdekit_* function (the CLI's own
#       copies of the string utilities aside, nothing of the internals is in
#       it: no sdk_run_*, sdk_model_*, sdk_backend_*, sdk_h5_* symbol).
set -u
LIB=$1
HDR=$2
EXE=${3:-}
command -v nm > /dev/null || { echo "lib_exports: needs nm (binutils)" >&2; exit 77; }
nfail=0
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }

syms=$(nm -D --defined-only "$LIB" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u)
other=$(printf '%s\n' "$syms" | grep -v '^sdekit_' | grep -v '^$')
[ -z "$other" ] || fail "exported outside sdekit_*: $(echo $other | head -c 2000)"

declared=$(grep -oE '^SDEKIT_API [^(]*\(' "$HDR" | sed -E 's/.*[ *]([A-Za-z_][A-Za-z0-9_]*)\($/\1/' |
  sort -u)
for s in $(printf '%s\n' "$syms" | grep '^sdekit_'); do
  printf '%s\n' "$declared" | grep -qx "$s" || fail "exported but not declared in sdekit.h: $s"
done
if printf '%s\n' "$syms" | grep -q '^sdekit_'; then
  for d in $declared; do
    printf '%s\n' "$syms" | grep -qx "$d" || fail "declared in sdekit.h but not exported: $d"
  done
fi

major=$(sed -nE 's/^#define SDEKIT_VERSION_MAJOR +([0-9]+)$/\1/p' "$HDR")
soname=$(readelf -d "$LIB" | sed -nE 's/.*\(SONAME\).*\[(.*)\]/\1/p')
[ "$soname" = "libsdekit.so.$major" ] || fail "SONAME '$soname', expected libsdekit.so.$major"

if [ -n "$EXE" ]; then
  readelf -d "$EXE" | grep -q "NEEDED.*\[libsdekit.so.$major\]" ||
    fail "$EXE does not link libsdekit.so.$major"
  need=$(nm -D --undefined-only "$EXE" | awk '{ print $2 }' | sed 's/@.*//' | grep -E '^sdk_' | sort -u)
  [ -z "$need" ] || fail "$EXE takes internal symbols: $(echo $need | head -c 2000)"
  inside=$(nm --defined-only "$EXE" | awk '{ print $3 }' |
    grep -E '^sdk_(run|model|backend|h5|plan|obs|cg|codegen|ckpt|cuda|cpu)_' | sort -u)
  [ -z "$inside" ] || fail "$EXE holds library internals: $(echo $inside | head -c 2000)"
  api=$(nm -D --undefined-only "$EXE" | awk '{ print $2 }' | sed 's/@.*//' | grep -c '^sdekit_')
  echo "lib_exports: $EXE takes $api sdekit_* functions from libsdekit.so.$major and nothing else of it"
fi

echo "lib_exports: $(printf '%s\n' "$syms" | grep -c '^sdekit_') sdekit_* symbols," \
  "$(printf '%s\n' "$declared" | wc -l) declared, $nfail failed"
[ $nfail -eq 0 ]
