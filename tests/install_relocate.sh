#!/usr/bin/env bash
# install_relocate.sh BUILD SRC CMAKE: the installed tree is complete and
# relocatable.  `cmake --install BUILD --prefix P1`, then P1 moved to P2:
#   (a) every file of the layout is there (bin, lib, include, share/sdekit/
#       models, pkg-config, CMake package, man page);
#   (b) no installed file names the source tree, the build tree or P1 (the
#       strings of the binaries included); not in a sanitizer build
#       (SANITIZED=1), whose objects name their sources for the reports;
#   (c) from P2, with the source and build trees hidden (a private mount
#       namespace over them, where unshare allows it; else (b) stands
#       alone): `sdekit models` lists the built-ins, `sdekit run ou ... -o -`
#       gives the same numbers as the build tree's binary, and --version is
#       the header's version;
#   (d) there too, two programs built against P2 (with sdekit.pc: one on
#       libsdekit.so, one on libsdekit.a with `pkg-config --static`) and put
#       in P2/bin find the built-in models through the library: the shared
#       one relative to libsdekit.so, the static one to itself.
# Everything goes in a directory under $TMPDIR, removed at the end.
set -u
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
CMAKE=$3
T=$(mktemp -d "${TMPDIR:-/tmp}/install_relocate.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export SDEKIT_CACHE_DIR=${SDEKIT_CACHE_DIR:-$T/cache}
unset SDEKIT_MODEL_PATH
nfail=0
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }

"$CMAKE" --install "$BUILD" --prefix "$T/p1" > "$T/install.log" 2>&1 ||
  { cat "$T/install.log"; echo "FAIL: cmake --install"; exit 1; }
mv "$T/p1" "$T/p2"
P=$T/p2

# (a)
major=$(sed -nE 's/^#define SDEKIT_VERSION_MAJOR +([0-9]+)$/\1/p' "$SRC/include/sdekit.h")
version=$(sed -nE 's/^#define SDEKIT_VERSION_STRING +"(.*)"$/\1/p' "$SRC/include/sdekit.h")
for f in bin/sdekit lib/libsdekit.so lib/libsdekit.so.$major lib/libsdekit.so.$version \
  lib/libsdekit.a include/sdekit.h lib/pkgconfig/sdekit.pc lib/cmake/sdekit/sdekitConfig.cmake \
  lib/cmake/sdekit/sdekitConfigVersion.cmake lib/cmake/sdekit/sdekitTargets.cmake \
  share/man/man1/sdekit.1 share/man/man5/sdekit-model.5; do
  [ -e "$P/$f" ] || fail "not installed: $f"
done
for m in "$SRC"/models/*.sde; do
  cmp -s "$m" "$P/share/sdekit/models/${m##*/}" || fail "model not installed: ${m##*/}"
done

# (b)
if [ "${SANITIZED:-0}" = 1 ]; then
  echo "note: sanitizer build: its objects name their sources; (b) not checked"
else
  for path in "$SRC" "$BUILD" "$(realpath "$SRC")" "$(realpath "$BUILD")" "$T/p1"; do
    if [ ${#path} -lt 8 ]; then
      echo "note: '$path' is too short to search for"
      continue
    fi
    hits=$(grep -rlF -- "$path" "$P")
    [ -z "$hits" ] || fail "installed files name $path: $hits"
  done
fi

# (d) the programs
cat > "$T/cat.c" << 'EOC'
#include <sdekit.h>
#include <stdio.h>
int main(void) {
  sdekit_catalog *c = NULL;
  sdekit_model *m = NULL;
  sdekit_error e;
  if (sdekit_catalog_create(NULL, &c, &e) || sdekit_model_load("ou", NULL, &m, &e)) {
    printf("error: %s\n", e.message);
    return 1;
  }
  for (int i = 0; i < sdekit_catalog_count(c); i++) printf("%s\n", sdekit_catalog_path(c, i));
  printf("loaded %s (%s) %s\n", sdekit_model_name(m), sdekit_model_path(m), sdekit_version());
  sdekit_model_destroy(&m);
  sdekit_catalog_destroy(&c);
  return 0;
}
EOC
export PKG_CONFIG_PATH=$P/lib/pkgconfig
cc=${CC:-cc}
# a sanitizer build's library calls the sanitizer runtimes: its programs link them too
san=""
[ "${SANITIZED:-0}" = 1 ] && san="-fsanitize=address,undefined"
# shellcheck disable=SC2046,SC2016
"$cc" $san $(pkg-config --cflags sdekit) -o "$P/bin/cat-shared" "$T/cat.c" $(pkg-config --libs sdekit) \
  -Wl,-rpath,'$ORIGIN/../lib' > "$T/cc.log" 2>&1 || { cat "$T/cc.log"; fail "cc with sdekit.pc"; }
static_libs=$(pkg-config --static --libs sdekit | sed "s|-lsdekit|$P/lib/libsdekit.a|")
# shellcheck disable=SC2046
"$cc" $san $(pkg-config --cflags sdekit) -o "$P/bin/cat-static" "$T/cat.c" $static_libs \
  > "$T/cc.log" 2>&1 || { cat "$T/cc.log"; fail "cc with sdekit.pc --static"; }
readelf -d "$P/bin/cat-static" | grep -q 'libsdekit' && fail "cat-static needs libsdekit.so"
unset PKG_CONFIG_PATH

# (c) the commands, in a script run where the trees are hidden (or not)
cat > "$T/run.sh" << 'EOS'
set -u
P=$1
O=$2
export HOME=$O/home SDEKIT_CACHE_DIR=$O/cache TMPDIR=$O
unset SDEKIT_MODEL_PATH
mkdir -p "$HOME"
cd "$O" || exit 1
"$P/bin/sdekit" --version > "$O/version" 2>&1
"$P/bin/sdekit" models > "$O/models" 2>&1
"$P/bin/sdekit" run ou --paths 100 --t-end 1 --seed 3 --threads 2 --observe moments --quiet -o - > "$O/ou.tsv" 2> "$O/ou.err"
echo $? > "$O/ou.rc"
for k in shared static; do
  "$P/bin/cat-$k" > "$O/cat-$k" 2>&1
  echo "$P" > "$O/prefix"
done
EOS
mkdir -p "$T/out"
under() { case "$1/" in "$2"/*) return 0 ;; esac; return 1; } # is $1 in $2?
hidden=0
if unshare -rm true 2> /dev/null; then
  # The source and the build tree become empty tmpfs.  When $T is in one of
  # them (under CTest), P2 is first copied to a private tmpfs over /tmp (P3)
  # and the outputs come back once the trees are visible again.
  stage=0
  if under "$T" "$SRC" || under "$T" "$BUILD"; then stage=1; fi
  if [ $stage = 0 ] || ! { under "$SRC" /tmp || under "$BUILD" /tmp; }; then
    unshare -rm bash -c '
      set -e
      P=$1 SRC=$2 BUILD=$3 T=$4 stage=$5
      R=$P O=$T/out S=$T/run.sh
      if [ "$stage" = 1 ]; then
        mount -t tmpfs sdekit-test /tmp
        cp -a "$P" /tmp/p3
        cp "$S" /tmp/run.sh
        mkdir /tmp/out
        R=/tmp/p3 O=/tmp/out S=/tmp/run.sh
      fi
      mount -t tmpfs sdekit-test "$SRC"
      [ -d "$BUILD" ] && mount -t tmpfs sdekit-test "$BUILD"
      if [ -z "$(ls -A "$SRC")" ] && { [ ! -d "$BUILD" ] || [ -z "$(ls -A "$BUILD")" ]; }; then
        echo hidden > "$O/hidden"
      fi
      bash "$S" "$R" "$O" || true
      if [ "$stage" = 1 ]; then
        [ -d "$BUILD" ] && umount "$BUILD"
        umount "$SRC"
        rm -rf /tmp/out/cache /tmp/out/home
        cp -a /tmp/out/. "$T/out/"
      fi
    ' sh "$P" "$SRC" "$BUILD" "$T" $stage && [ -f "$T/out/hidden" ] && hidden=1
  fi
fi
if [ $hidden = 0 ]; then
  echo "note: the source and build trees stay visible (no mount namespace); (b) checks the paths"
  rm -rf "$T/out" && mkdir -p "$T/out"
  bash "$T/run.sh" "$P" "$T/out"
fi
O=$T/out
grep -qx "sdekit $version" "$O/version" || fail "--version: $(cat "$O/version")"
for m in "$SRC"/models/*.sde; do
  name=$(sed -nE 's/^name *= *//p' "$m")
  grep -qE "^  $name +" "$O/models" || fail "'sdekit models' from the moved tree lacks $name: $(cat "$O/models")"
done
[ "$(cat "$O/ou.rc" 2> /dev/null)" = 0 ] || fail "run ou from the moved tree: $(cat "$O/ou.err")"
R=$(cat "$O/prefix") # P2, or its copy where the trees were hidden
for k in shared static; do
  for m in "$SRC"/models/*.sde; do
    grep -qx "$R/share/sdekit/models/${m##*/}" "$O/cat-$k" ||
      fail "cat-$k does not list ${m##*/} in $R/share/sdekit/models: $(cat "$O/cat-$k")"
  done
  grep -qx "loaded ou ($R/share/sdekit/models/ou.sde) $version" "$O/cat-$k" ||
    fail "cat-$k: $(cat "$O/cat-$k")"
done
# the same numbers as the build tree's binary
"$BUILD/sdekit" run ou --paths 100 --t-end 1 --seed 3 --threads 2 --observe moments --quiet -o - > "$T/ref.tsv" 2>&1
if [ "$(grep -v '^#' "$O/ou.tsv")" != "$(grep -v '^#' "$T/ref.tsv")" ] ||
  [ "$(grep -vc '^#' "$O/ou.tsv")" -lt 10 ]; then
  fail "run ou from the moved tree: not the build tree's numbers"
  diff "$O/ou.tsv" "$T/ref.tsv" | head -10
fi
echo "install_relocate: trees hidden: $hidden; $nfail failed"
[ $nfail -eq 0 ]
