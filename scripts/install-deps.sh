#!/usr/bin/env bash
# The Debian packages sdekit needs: the one list (the Makefile and .ci/run
# use it).
#
#   scripts/install-deps.sh [build|check|all]     (default: all)
#
#   build  make, make demo, make install: the compilers (gcc builds sdekit;
#          clang with libomp compiles the CPU kernels at run time), CMake,
#          pkg-config, libinih, libhdf5, Random123 (test_philox), Open MPI
#          (runs over ranks; optional for CMake, which builds without it)
#   check  build + make check: gnuplot (sdekit plot), h5dump, Python with
#          h5py (checkpoint and golden checks), groff (the manual page's lint)
#   all    check + what CI adds: clang-format (make format-check), the
#          libFuzzer runtime (make fuzz)
#
# Missing packages are installed with apt-get when run as root
# (non-interactive); otherwise nothing is changed and the one command to run
# is printed (exit 1).  On a system without dpkg the list is printed and the
# build goes on (exit 0): CMake says what it cannot find.
set -euo pipefail
BUILD=(cmake make pkg-config gcc libc6-dev clang libomp-dev libinih-dev libhdf5-dev librandom123-dev
  libopenmpi-dev openmpi-bin)
CHECK=(gnuplot-nox hdf5-tools python3 python3-h5py groff-base)
ALL=(clang-format libclang-rt-dev)
case "${1:-all}" in
  build) PKGS=("${BUILD[@]}") ;;
  check) PKGS=("${BUILD[@]}" "${CHECK[@]}") ;;
  all) PKGS=("${BUILD[@]}" "${CHECK[@]}" "${ALL[@]}") ;;
  *) echo "usage: $0 [build|check|all]" >&2; exit 2 ;;
esac
if ! command -v dpkg-query > /dev/null; then
  echo "install-deps: no dpkg (not Debian): make sure the equivalents of these are installed:" \
    "${PKGS[*]}" >&2
  exit 0
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
  exit 0
fi
# not root: the one command that does it
self=$0
[ "$(cd "$(dirname "$0")/.." && pwd)" = "$(pwd)" ] || self=$(cd "$(dirname "$0")" && pwd)/${0##*/}
echo "install-deps: missing Debian packages: ${missing[*]}" >&2
if command -v sudo > /dev/null; then
  echo "install-deps: install them with:  sudo $self ${1:-all}" >&2
elif command -v su > /dev/null; then
  echo "install-deps: install them with:  su -c '$self ${1:-all}'  (asks for the root password)" >&2
else
  echo "install-deps: install them as root with:  apt-get update && apt-get install -y" \
    "--no-install-recommends ${missing[*]}" >&2
fi
exit 1
