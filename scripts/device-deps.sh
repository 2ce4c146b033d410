#!/usr/bin/env bash
# Build dependencies (inih, HDF5, pkg-config, Open MPI) for a machine that
# lacks them and has no network, e.g. the lent GPU machine.
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
# When the machine already has inih and HDF5 (headers and pkg-config) and a
# working mpicc and mpirun, this prints nothing and changes nothing
# (SDK_DEPS_FORCE=1 unpacks anyway).  Otherwise it unpacks the packages into
# PREFIX (default .deps/, also ignored), rewrites inih's pkg-config file for
# that prefix, and makes a library folder holding only those shared libraries
# (and their dependencies) that the system's loader cannot find; it prints
# exports of PKG_CONFIG_PATH, LD_LIBRARY_PATH and SDK_CMAKE_ARGS (-DHDF5_ROOT,
# and -DPKG_CONFIG_EXECUTABLE when pkg-config is missing).
#
# Open MPI (only when mpicc or mpirun is missing or broken) runs from the
# unpacked tree: Debian's build is relocatable through OPAL_PREFIX (its PMIx
# through PMIX_SYSCONFDIR and PMIX_PKGDATADIR), PREFIX/mpi/bin holds mpicc,
# mpirun, ... linked to the real binaries (Debian's own names go through
# /etc/alternatives), and the exports add PATH, those variables and
# -DMPI_C_COMPILER, -DMPIEXEC_EXECUTABLE for CMake's FindMPI.
set -euo pipefail

PKGS="libinih-dev libinih1 libhdf5-dev libhdf5-103-1 hdf5-tools libhdf5-hl-100 libaec0 libsz2 libcurl4 libbrotli1
libcom-err2 libdb5.3 libffi8 libgmp10 libgnutls30 libgssapi-krb5-2 libhogweed6 libidn2-0
libk5crypto3 libkeyutils1 libkrb5-3 libkrb5support0 libldap-2.5-0 libnettle8 libnghttp2-14
libp11-kit0 libpsl5 librtmp1 libsasl2-2 libsasl2-modules-db libssh2-1 libssl3 libtasn1-6
libunistring2 libzstd1 zlib1g pkgconf-bin libpkgconf3"
# Open MPI 4.1 and what its libraries, plugins and binaries load (ldd over
# all of them).  Left out on purpose: libhwloc-plugins (hwloc runs without
# them; they pull X11, OpenCL, libxml2 and ICU, ~12 MB) and the Fortran,
# C++ and Java bindings' compilers; libc, libgcc and libstdc++ come with gcc.
MPI_PKGS="openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2 libhwloc15
libevent-core-2.1-7 libevent-pthreads-2.1-7 libfabric1 libucx0 libpsm2-2 libpsm-infinipath1
librdmacm1 libibverbs1 ibverbs-providers libnl-3-200 libnl-route-3-200 libnuma1 libmunge2
libudev1 libuuid1 libatomic1"

if [ "${1:-}" = "--fetch" ]; then
  dir=${2:-.debs}
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  (cd "$dir" && apt-get download $PKGS $MPI_PKGS)
  du -sh "$dir" >&2
  exit 0
fi

DEBS=$(cd "${1:-.debs}" && pwd)
PREFIX=${2:-$PWD/.deps}
say() { echo "device-deps: $*" >&2; }

have_inih=0 have_hdf5=0 have_pc=0 have_mpi=0
command -v pkg-config >/dev/null 2>&1 && have_pc=1
if [ $have_pc = 1 ] && pkg-config --exists inih 2>/dev/null; then have_inih=1; fi
for h in /usr/include/hdf5/serial/hdf5.h /usr/include/hdf5.h /usr/local/include/hdf5.h; do
  [ -f "$h" ] && have_hdf5=1
done
# A dangling alternatives link or a wrapper without its libraries counts as
# missing: both must answer --version (Open MPI and MPICH alike).
if mpicc --version >/dev/null 2>&1 && mpirun --version >/dev/null 2>&1; then have_mpi=1; fi
need_base=1 need_mpi=1
if [ -z "${SDK_DEPS_FORCE:-}" ]; then
  [ $have_inih = 1 ] && [ $have_hdf5 = 1 ] && need_base=0
  [ $have_mpi = 1 ] && need_mpi=0
fi
if [ $need_base = 0 ] && [ $need_mpi = 0 ]; then
  say "system has inih, HDF5 and MPI; nothing to do"
  exit 0
fi
if [ $need_mpi = 1 ] && ! ls "$DEBS"/libopenmpi3_*.deb >/dev/null 2>&1; then
  say "warning: no Open MPI in $DEBS (fetch again); building without MPI"
  need_mpi=0
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
# libpsm_infinipath.so.1 (needed by libfabric and Open MPI's PSM/OFI plugins)
# is made by the package's postinst, through /etc/alternatives: make it here.
for psm in "$ROOT"/usr/lib/libpsm1/libpsm_infinipath.so.1.*; do
  [ -e "$psm" ] && ln -sfn "../libpsm1/${psm##*/}" "$ROOT/usr/lib/$MA/libpsm_infinipath.so.1"
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
# The libraries we build against come from the tree even where the system
# has another copy; the rest only where missing.
seeds=""
[ $need_base = 1 ] && seeds="libhdf5_serial.so.103 libinih.so.1 libpkgconf.so.3"
# (PMIx too: its plugins and params file must match the library.)
[ $need_mpi = 1 ] && seeds="$seeds libmpi.so.40 libopen-rte.so.40 libopen-pal.so.40 libpmix.so.2"
for so in $seeds; do
  f=$(find_unpacked "$so") && ln -sf "$f" "$LIB/$so"
done
# Besides the linked libraries, what Open MPI runs or loads itself: its
# binaries and its plugins (dlopen'ed, so their needs show only here).
extra=()
if [ $need_mpi = 1 ]; then
  extra=("$ROOT"/usr/bin/{orterun,orted,opal_wrapper,ompi_info}
         "$ROOT/usr/lib/$MA"/openmpi/lib/openmpi3/*.so
         "$ROOT/usr/lib/$MA"/pmix2/lib/pmix/*.so)
fi
for round in 1 2 3 4 5 6 7 8; do
  added=0
  for so in "$LIB"/* "${extra[@]}"; do
    [ -f "$so" ] || continue
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
# The packages are Debian 12's, built against glibc 2.36 (libevent_core
# needs arc4random from 2.36): on an older system the loader refuses them.
for so in "$LIB"/* "${extra[@]}"; do
  [ -f "$so" ] || continue
  while read -r v; do
    say "warning: $(basename "$so"): $v (system too old?)"
  done < <(LD_LIBRARY_PATH=$LIB ldd "$so" 2>&1 | grep -o "version \`[^']*' not found" | sort -u || true)
done
# UCX looks for its transport modules in ucx/ next to libucs.so.0 as the
# loader found it, i.e. in $LIB when it came from the tree.
if [ -e "$LIB/libucs.so.0" ] && [ ! -e "$LIB/ucx" ]; then
  ln -s "$ROOT/usr/lib/$MA/ucx" "$LIB/ucx"
fi

args=""
if [ $need_base = 1 ]; then
  args="-DHDF5_ROOT=$ROOT/usr/lib/$MA/hdf5/serial"
  if [ $have_pc = 0 ]; then
    args="$args -DPKG_CONFIG_EXECUTABLE=$ROOT/usr/bin/pkgconf"
  fi
fi
if [ $need_mpi = 1 ]; then
  # Debian's mpicc, mpirun, ... are links through /etc/alternatives, which
  # the tree lacks: link the names to the tree's own binaries (opal_wrapper
  # picks its language from the name it was called by).
  BIN=$PREFIX/mpi/bin
  mkdir -p "$BIN"
  for n in mpicc mpicxx mpic++ mpirun mpiexec; do
    ln -sfn "$ROOT/usr/bin/$n.openmpi" "$BIN/$n"
  done
  for n in orterun orted opal_wrapper ompi_info; do
    ln -sfn "$ROOT/usr/bin/$n" "$BIN/$n"
  done
  # With OPAL_PREFIX set, the wrappers' -I/-L, the help texts (share/openmpi)
  # and the plugins (lib/$MA/openmpi/lib/openmpi3) are found in the tree;
  # the sysconfdir is absolute (/etc/openmpi) and its params file turns
  # off UCX and OFI, which Debian's build relies on: use the tree's.
  # PMIx was configured with absolute directories, so PMIX_PREFIX moves
  # nothing: name its sysconfdir (whose params file names the plugin folder:
  # rewritten for the tree) and its help texts.
  OMPI=$ROOT/usr
  PMIX=$ROOT/usr/lib/$MA/pmix2
  sed -i "s|= /usr/lib/$MA/pmix2/|= $PMIX/|" "$PMIX/share/pmix-mca-params.conf"
  if ! OPAL_PREFIX=$OMPI LD_LIBRARY_PATH=$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
       "$BIN/mpicc" -showme:incdirs 2>/dev/null | grep -q "^$OMPI/"; then
    say "warning: the unpacked mpicc does not point into $OMPI"
  fi
  args="${args:+$args }-DMPI_C_COMPILER=$BIN/mpicc -DMPIEXEC_EXECUTABLE=$BIN/mpiexec"
fi
say "unpacked into $ROOT; runtime libraries in $LIB"
if [ $need_base = 1 ]; then
  echo "export PKG_CONFIG_PATH=$ROOT/usr/lib/$MA/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
  # h5dump and the other tools of hdf5-tools, after the system's own (the
  # bitwise comparisons of cli_scan_axes skip without h5dump)
  echo "export PATH=\$PATH:$ROOT/usr/bin"
fi
echo "export LD_LIBRARY_PATH=$LIB\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
if [ $need_mpi = 1 ]; then
  echo "export PATH=$BIN:\$PATH"
  echo "export OPAL_PREFIX=$OMPI OPAL_SYSCONFDIR=$ROOT/etc/openmpi"
  echo "export PMIX_SYSCONFDIR=$PMIX/share PMIX_PKGDATADIR=$PMIX/share/pmix"
fi
echo "export SDK_CMAKE_ARGS=\"$args\""
