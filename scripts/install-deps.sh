#!/usr/bin/env bash
# Install the Debian packages sdekit needs to build, test and plot.
# Runs apt-get when root (CI, containers); otherwise prints the command.
set -euo pipefail
PKGS=(cmake make pkg-config gcc clang libclang-rt-dev clang-format libomp-dev libinih-dev libhdf5-dev hdf5-tools
      librandom123-dev gnuplot-nox python3-h5py)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: run as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
