#!/bin/sh
# The CUDA kernel of an --adaptive run (kernels/adapt_step.h with
# SDK_ADAPT_SLICES: a launch's steps in one loop per lane) run on the host
# as C++ (scripts/cuda-host/run.cpp) against the CPU backend's final states,
# bit for bit (--no-fast-math: the same C math on both; double precision, and
# single for the tree's single-precision root kept in registers),
# with the steps in 1 and in 3 launches.  No GPU needed; the device's own
# math is not checked (test_adaptive_gpu).  Needs c++ and python3 with h5py.
#   scripts/cuda-host-adaptive.sh [BUILD_DIR]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$src/build}/sdekit
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
one() { # NAME STEPS MODEL ARGS... (VAR=the model's first variable, if not first by name)
  name=$1 steps=$2 model=$3
  shift 3
  "$bin" codegen "$model" --backend cuda --precision "${PREC:-double}" --no-fast-math "$@" > "$T/k.cu"
  c++ -std=c++17 -O2 -ffp-contract=off -w -DKERNEL="\"$T/k.cu\"" \
    -I"$src/scripts/cuda-host" "$src/scripts/cuda-host/run.cpp" -o "$T/run"
  "$bin" run "$model" --precision "${PREC:-double}" --no-fast-math --paths 300 --seed 7 "$@" \
    --save-final --observe none --quiet -o "$T/cpu.h5"
  # whole steps four at a time (SDK_ADAPT_WHOLE): every row of every path's
  # state (the controller's counts and level too) as the general loop alone's
  if grep -q '^#define SDK_ADAPT_WHOLE 1' "$T/k.cu"; then
    grep -v '^#define SDK_ADAPT_WHOLE 1' "$T/k.cu" > "$T/k1.cu"
    c++ -std=c++17 -O2 -ffp-contract=off -w -DKERNEL="\"$T/k1.cu\"" \
      -I"$src/scripts/cuda-host" "$src/scripts/cuda-host/run.cpp" -o "$T/run1"
    for l in 1 3; do
      ROWS=all "$T/run" 300 $l "$steps" 7 > "$T/w$l.txt"
      ROWS=all "$T/run1" 300 $l "$steps" 7 > "$T/g$l.txt"
      if cmp -s "$T/w$l.txt" "$T/g$l.txt"; then
        echo "same bits: $name, whole steps, all rows, $l launch(es)"
      else
        echo "DIFFERENT: $name, whole steps, all rows, $l launch(es)"
        fail=1
      fi
    done
  fi
  for l in 1 3; do
    "$T/run" 300 $l "$steps" 7 > "$T/gpu$l.txt"
    if ${PYTHON:-/usr/bin/python3} -c "
import sys, h5py
f = h5py.File('$T/cpu.h5')
v = f['final/' + ('${VAR:-}' or sorted(f['final'])[0])][()].ravel()
g = [float.fromhex(x) for x in open('$T/gpu$l.txt')]
sys.exit(0 if list(v) == g else 1)"; then
      echo "same bits: $name, $l launch(es)"
    else
      echo "DIFFERENT: $name, $l launch(es)"
      fail=1
    fi
  done
}
m=$src/models
one "gbm milstein rtol 1e-3" 16 "$m/gbm.sde" --scheme milstein --t-end 1 --dt-max 0.0625 \
  --adaptive --rtol 1e-3
one "gbm milstein dt-min" 4 "$m/gbm.sde" --scheme milstein --t-end 2 --dt-max 0.5 --adaptive \
  --rtol 1e-4 --dt-min 0.002
one "ou2_correlated srk2" 8 "$m/ou2_correlated.sde" --scheme srk2 --t-end 2 --dt-max 0.25 \
  --adaptive --rtol 1e-4 --atol 1e-5
# a periodic drive: the phase time of each step (hook restart) as the driver's
VAR=x one "josephson srk2 periodic" 47 "$m/josephson.sde" --scheme srk2 --spp 16 --t-end 3.8 \
  --adaptive --rtol 1e-3 --atol 1e-4
# single precision: the tree's root from single-precision Gaussians, four
# base intervals per block kept by the CUDA lane (rng/btree.h SDK_BTREE_ROOT_F),
# and the whole steps taken four at a time from it (SDK_ADAPT_WHOLE)
PREC=single one "gbm milstein single loose" 16 "$m/gbm.sde" --scheme milstein --t-end 1 \
  --dt-max 0.0625 --adaptive --rtol 1e6 --atol 1e6
PREC=single one "gbm milstein single rtol 1e-3" 16 "$m/gbm.sde" --scheme milstein --t-end 1 \
  --dt-max 0.0625 --adaptive --rtol 1e-3
# whole steps four at a time (SDK_ADAPT_WHOLE) with some rejected: the
# general loop takes those again
PREC=single one "gbm milstein single rtol 3e-2" 16 "$m/gbm.sde" --scheme milstein --t-end 1 \
  --dt-max 0.0625 --adaptive --rtol 3e-2
PREC=single VAR=x one "josephson srk2 single rtol 1e-1" 47 "$m/josephson.sde" --scheme srk2 \
  --spp 16 --t-end 3.8 --adaptive --rtol 1e-1 --atol 1e-1
# every whole step accepted: their drive from the per-phase table (adaptive.c)
PREC=single VAR=x one "josephson srk2 single loose" 47 "$m/josephson.sde" --scheme srk2 \
  --spp 16 --t-end 3.8 --adaptive --rtol 1e6 --atol 1e6
PREC=single VAR=x one "josephson srk2 single spp 12" 36 "$m/josephson.sde" --scheme srk2 --spp 12 \
  --t-end 3.8 --adaptive --rtol 1e-3 --atol 1e-4
# spp not a multiple of 4: the whole steps' phase counted step by step (a
# block of four may wrap the period), the table's rows at that count
PREC=single VAR=x one "josephson srk2 single spp 18" 53 "$m/josephson.sde" --scheme srk2 --spp 18 \
  --t-end 3.8 --adaptive --rtol 1e-1 --atol 1e-1
exit $fail
