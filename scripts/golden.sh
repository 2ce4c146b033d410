#!/bin/sh
# Golden results of the built-in models: runs a fixed set of configurations
# (fixed seeds) and prints one "sha256  name" line per run, hashing every
# dataset of the HDF5 result at full precision, every attribute except those
# that hold paths, the command line and the version (scripts/h5attrs.py, when
# a Python with h5py is found) and the data lines of the TSV output (its '#'
# header holds paths and the version).
#
#   scripts/golden.sh [BUILD_DIR]            print the hashes
#   scripts/golden.sh --check FILE [BUILD]   compare with FILE; exit 1 on a difference
#   GOLDEN_EXTRA="--no-compensation" ...     extra options for every run
#   GOLDEN_ATTRS=0 ...                       datasets and TSV data lines only (the
#                                            numbers: tests/golden/cpu-data.sha256),
#                                            for a change that adds or fixes attributes
#
# The hashes depend on the C compiler and the CPU (fast-math kernels): record
# a baseline before a change and compare after it on the same machine
# (tests/golden/cpu.sha256 was recorded on the development machine).
set -eu
check=
if [ "${1:-}" = "--check" ]; then
  check=$2
  shift 2
fi
build=${1:-build}
bin=$build/sdekit
command -v h5dump > /dev/null || { echo "golden.sh: needs h5dump" >&2; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
# the attributes (the file's layout) too, where a Python with h5py is at hand
py=
for p in ${GOLDEN_PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c "import h5py" 2> /dev/null; then py=$p; break; fi
done
[ "${GOLDEN_ATTRS:-1}" = 0 ] && py=none
[ -n "$py" ] || echo "golden.sh: no Python with h5py: attributes are not compared" >&2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

one() { # NAME ARGS...
  name=$1
  shift
  rm -rf "$T/o"
  mkdir "$T/o"
  "$bin" run "$@" ${GOLDEN_EXTRA:-} --seed 7 --threads 2 --quiet -o "$T/o/r.h5" -o "$T/o/r.tsv"
  h=$( (h5dump -A 0 -m %.17g "$T/o/r.h5" | tail -n +2
    for f in "$T"/o/*.tsv; do echo "${f##*/}"; grep -v '^#' "$f"; done
    [ -z "$py" ] || [ "$py" = none ] || "$py" "$here/h5attrs.py" "$T/o/r.h5") | sha256sum | cut -d' ' -f1)
  echo "$h  $name"
}

all() {
  for p in single double; do
    for s in euler srk2; do
      one josephson-$s-$p josephson --scheme $s --precision $p --paths 256 --periods 5 \
        --observe moments,drift,hist --save-paths 0,1,2
      one josephson-scan-a-$s-$p josephson --scheme $s --precision $p --paths 128 --periods 4 \
        --scan a=4:6:3 --observe drift,moments
      one josephson-scan-omega-$s-$p josephson --scheme $s --precision $p --paths 128 \
        --periods 4 --scan omega=4:6:3 --observe drift,moments
      one ou-$s-$p ou --scheme $s --precision $p --paths 256 --t-end 2 --observe moments,hist \
        --save-paths 0,5
      one ou-scan-$s-$p ou --scheme $s --precision $p --paths 128 --t-end 1 \
        --scan k=0.5:2:3 --scan D=0.1:0.4:2 --observe moments
    done
    one gbm-euler-$p gbm --scheme euler --precision $p --paths 256 --t-end 1 \
      --observe moments --save-paths 0,1
    one gbm-scan-euler-$p gbm --scheme euler --precision $p --paths 128 --t-end 1 \
      --scan sigma=0.1:0.5:3 --observe moments
    one kuramoto-$p kuramoto --precision $p --particles 64 --paths 2 --t-end 2 \
      --observe order,moments --set sigma=0.5
    one kuramoto-meanfield-$p kuramoto-meanfield --precision $p --particles 256 --paths 2 \
      --t-end 2 --observe order,moments --set sigma=0.5
    one kuramoto-meanfield-scan-$p kuramoto-meanfield --precision $p --particles 128 \
      --paths 1 --t-end 1 --scan K=1:3:2 --observe order
    one josephson-density-$p josephson --precision $p --paths 256 --periods 6 --observe density \
      --coarse-grain --bins 20 --sample-every 50
    one ou-density-scan-$p ou --scheme euler --precision $p --paths 256 --t-end 1 \
      --scan D=0.1:0.4:2 --observe density,drift --bins 16
    one kuramoto-meanfield-density-$p kuramoto-meanfield --precision $p --particles 256 --paths 2 \
      --t-end 2 --observe order,density --bins 24 --set sigma=0.5
  done
}

if [ -z "$check" ]; then
  all
else
  all > "$T/now"
  if diff "$check" "$T/now" > "$T/diff"; then
    echo "golden: $(wc -l < "$T/now") runs identical"
  else
    echo "golden: differences (< recorded, > now):"
    cat "$T/diff"
    exit 1
  fi
fi
