#!/usr/bin/env bash
# lib_exports.sh LIBSDEKIT_SO HEADER: libsdekit.so exports the public API of
# include/sdekit.h and nothing else (everything else is built with hidden
# visibility), under the soname libsdekit.so.MAJOR.
#   (a) no defined dynamic symbol outside sdekit_*;
#   (b) every exported symbol is declared in sdekit.h;
#   (c) once the API is there (any sdekit_* exported), every function the
#       header declares is exported;
#   (d) SONAME libsdekit.so.MAJOR with MAJOR = SDEKIT_VERSION_MAJOR.
set -u
LIB=$1
HDR=$2
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

echo "lib_exports: $(printf '%s\n' "$syms" | grep -c '^sdekit_') sdekit_* symbols," \
  "$(printf '%s\n' "$declared" | wc -l) declared, $nfail failed"
[ $nfail -eq 0 ]
