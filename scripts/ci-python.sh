#!/usr/bin/env bash
# CI for the Python package (issue 12): on Debian 12 as root, install what it
# needs with apt-get (nothing from PyPI), make a virtual environment that sees
# Debian's packages, pip-install python/ offline, run its pytest suite and the
# example notebook.  From a fresh clone it builds sdekit first when build/ is
# not there (make all).  About 1-2 minutes on 2 cores once the packages are in.
#
#   scripts/ci-python.sh            # everything
#   CI_PYTHON_APT=0 scripts/ci-python.sh   # no apt-get (the packages are there)
#
# The venv goes to $SDEKIT_VENV (default build/python-venv, removed and made
# again), the kernel cache to build/python-cache (kept: later runs reuse the
# kernels); everything temporary (pip's build, the tests' files, the executed
# notebook) to a directory under build/ removed at the end: nothing in /tmp.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=${SDEKIT_VENV:-$ROOT/build/python-venv}
PY=/usr/bin/python3
# required, then optional extras (features and tests skip without them)
NEED="python3-venv python3-numpy python3-pytest python3-setuptools python3-wheel"
EXTRA="python3-h5py python3-matplotlib python3-tqdm python3-xarray python3-mpi4py"

missing=""
for p in $NEED $EXTRA; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "${CI_PYTHON_APT:-1}" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "ci-python: apt-get install$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    echo "ci-python: missing Debian packages:$missing"
    for p in $NEED; do
      case " $missing " in *" $p "*)
        echo "ci-python: $p is required: apt-get install$missing" >&2; exit 1 ;;
      esac
    done
    echo "ci-python: going on without the optional ones (their tests skip)"
  fi
fi

# sdekit itself: pip builds libsdekit from build/ (cmake --build, nothing to do
# when make has built it); a fresh clone gets build/ from make
if [ ! -f build/CMakeCache.txt ]; then
  make all
fi

t0=$(date +%s)
SCRATCH=$(mktemp -d "$ROOT/build/ci-python.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
export TMPDIR="$SCRATCH" SDEKIT_CACHE_DIR="$ROOT/build/python-cache"
rm -rf "$VENV"
"$PY" -m venv --system-site-packages "$VENV"
export PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
"$VENV/bin/python" -m pip install -q --no-build-isolation --no-index ./python
echo "ci-python: installed $("$VENV/bin/python" -c 'import sdekit; print("sdekit", sdekit.__version__, "with", sdekit.library_path)')"

export MPLBACKEND=Agg MPLCONFIGDIR="$SCRATCH/mpl"
# from the root, so that the installed package is tested, not python/sdekit
"$VENV/bin/python" -m pytest -q python/tests

# the notebook, at a CI size: with Jupyter when it is there, else its code
# cells run by python/run_notebook.py, which writes the notebook with its
# outputs as nbconvert does; either way the drift curve must be there inline
NB=examples/prog1_drift.ipynb
NB_PARAMS=(-p paths=128 -p periods=200)
if "$VENV/bin/python" -c 'import nbconvert, nbclient, ipykernel' 2>/dev/null; then
  "$VENV/bin/python" python/run_notebook.py "$NB" "${NB_PARAMS[@]}" --write "$SCRATCH/nb.ipynb"
  "$VENV/bin/python" -m jupyter nbconvert --to notebook --execute --output-dir "$SCRATCH" \
    --output nb-run.ipynb "$SCRATCH/nb.ipynb"
  how="executed with nbconvert"
else
  "$VENV/bin/python" python/run_notebook.py "$NB" "${NB_PARAMS[@]}" --execute "$SCRATCH/nb-run.ipynb"
  how="run as a script (python/run_notebook.py; no nbconvert)"
fi
"$VENV/bin/python" - "$SCRATCH/nb-run.ipynb" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1], encoding="utf-8"))
images = [o for c in nb["cells"] for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o["output_type"] == "error"]
if errors or len(images) < 2:
    sys.exit("ci-python: the executed notebook has %d figures and %d errors" % (len(images), len(errors)))
PY
echo "ci-python: $NB $how: its figures are inline"
echo "ci-python: passed in $(($(date +%s) - t0)) s"
