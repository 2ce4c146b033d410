#!/usr/bin/env bash
# Build dependencies (inih, HDF5, pkg-config) for a machine that lacks them
# and has no network, e.g. the lent GPU machine.
#
# Here (Debian 12, with network), fetch the packages once into .debs/ (listed
# in .git/info/exclude, so it travels only when named in the device tool's
# `carry`):
#
#   scripts/device-deps.sh --fetch            # apt-get download into .debs/
#
# There, before configuring:
#
#   eval "$(scripts/device-deps.sh .debs)"    # prints export lines
#   cmake -S . -B build-gpu $SDK_CMAKE_ARGS && cmake --build build-gpu -j16
#
# When the machine already has inih and HDF5 (headers and pkg-config), this
# prints nothing and changes nothing (SDK_DEPS_FORCE=1 unpacks anyway).  Otherwise it unpacks the packages
# into PREFIX (default .deps/, also ignored), rewrites inih's pkg-config file
# for that prefix, and makes a library folder holding only those shared
# libraries (and their dependencies) that the system's loader cannot find;
# it prints exports of PKG_CONFIG_PATH, LD_LIBRARY_PATH and SDK_CMAKE_ARGS
# (-DHDF5_ROOT, and -DPKG_CONFIG_EXECUTABLE when pkg-config is missing).
set -euo pipefail

PKGS="libinih-dev libinih1 libhdf5-dev libhdf5-103-1 hdf5-tools libhdf5-hl-100 libaec0 libsz2 libcurl4 libbrotli1
libcom-err2 libdb5.3 libffi8 libgmp10 libgnutls30 libgssapi-krb5-2 libhogweed6 libidn2-0
libk5crypto3 libkeyutils1 libkrb5-3 libkrb5support0 libldap-2.5-0 libnettle8 libnghttp2-14
libp11-kit0 libpsl5 librtmp1 libsasl2-2 libsasl2-modules-db libssh2-1 libssl3 libtasn1-6
libunistring2 libzstd1 zlib1g pkgconf-bin libpkgconf3"

if [ "${1:-}" = "--fetch" ]; then
  dir=${2:-.debs}
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  (cd "$dir" && apt-get download $PKGS)
  du -sh "$dir" >&2
  exit 0
fi

DEBS=$(cd "${1:-.debs}" && pwd)
PREFIX=${2:-$PWD/.deps}
say() { echo "device-deps: $*" >&2; }

have_inih=0 have_hdf5=0 have_pc=0
command -v pkg-config >/dev/null 2>&1 && have_pc=1
if [ $have_pc = 1 ] && pkg-config --exists inih 2>/dev/null; then have_inih=1; fi
for h in /usr/include/hdf5/serial/hdf5.h /usr/include/hdf5.h /usr/local/include/hdf5.h; do
  [ -f "$h" ] && have_hdf5=1
done
if [ $have_inih = 1 ] && [ $have_hdf5 = 1 ] && [ -z "${SDK_DEPS_FORCE:-}" ]; then
  say "system has inih and HDF5; nothing to do"
  exit 0
fi

ROOT=$PREFIX/root
LIB=$PREFIX/lib
mkdir -p "$ROOT" "$LIB"
for d in "$DEBS"/*.deb; do
  if command -v dpkg-deb >/dev/null 2>&1; then
    dpkg-deb -x "$d" "$ROOT"
  else # ar + tar, as dpkg-deb does
    t=$(mktemp -d)
    (cd "$t" && ar x "$d" && tar -xf data.tar.* -C "$ROOT")
    rm -rf "$t"
  fi
done
MA=x86_64-linux-gnu
# inih.pc says prefix=/usr: point it at the unpacked tree
for pc in "$ROOT"/usr/lib/$MA/pkgconfig/*.pc; do
  sed -i "s|^prefix=/usr\$|prefix=$ROOT/usr|" "$pc"
done

# Libraries the loader cannot find on this machine come from the unpacked
# tree; everything else stays the system's own.
find_unpacked() {
  for dir in "$ROOT/usr/lib/$MA" "$ROOT/lib/$MA" "$ROOT/usr/lib/$MA/hdf5/serial"; do
    if [ -e "$dir/$1" ]; then
      echo "$dir/$1"
      return 0
    fi
  done
  return 1
}
for so in libhdf5_serial.so.103 libinih.so.1 libpkgconf.so.3; do
  f=$(find_unpacked "$so") && ln -sf "$f" "$LIB/$so"
done
for round in 1 2 3 4 5 6 7 8; do
  added=0
  for so in "$LIB"/*; do
    while read -r missing; do
      [ -e "$LIB/$missing" ] && continue
      if f=$(find_unpacked "$missing"); then
        ln -sf "$f" "$LIB/$missing"
        say "using the packaged $missing"
        added=1
      else
        say "warning: $missing (needed by $(basename "$so")) is neither here nor packaged"
      fi
    done < <(LD_LIBRARY_PATH=$LIB ldd "$so" 2>/dev/null | awk '/=> not found/ {print $1}')
  done
  [ $added = 0 ] && break
done

args="-DHDF5_ROOT=$ROOT/usr/lib/$MA/hdf5/serial"
if [ $have_pc = 0 ]; then
  args="$args -DPKG_CONFIG_EXECUTABLE=$ROOT/usr/bin/pkgconf"
fi
say "unpacked into $ROOT; runtime libraries in $LIB"
echo "export PKG_CONFIG_PATH=$ROOT/usr/lib/$MA/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
echo "export LD_LIBRARY_PATH=$LIB\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
echo "export SDK_CMAKE_ARGS=\"$args\""
