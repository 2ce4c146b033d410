#!/usr/bin/env bash
# The paper's PROG1 job: asymptotic drift velocity <<v>> of the Josephson
# junction (Stewart-McCumber model, Eq. 1) against the drive amplitude a over
# 4.2..14.1 in 100 points, as in the paper's default setup.  Sized to take
# about a minute on two CPU cores; on a GPU use --backend cuda and more paths.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SDK_BIN:-build/sdekit}
PATHS=${DEMO_PATHS:-1024}
PERIODS=${DEMO_PERIODS:-2000}
mkdir -p results
"$BIN" run josephson --scan a=4.2:14.1:100 --paths "$PATHS" --periods "$PERIODS" \
  --transient-periods $((PERIODS / 10)) --spp 100 --scheme srk2 --seed 2010 \
  --observe drift --backend "${DEMO_BACKEND:-cpu}" \
  -o results/josephson-drift.h5 -o results/josephson-drift.tsv
echo
echo "results: $(pwd)/results/josephson-drift.h5 (HDF5: drift and all settings)"
echo "         $(pwd)/results/josephson-drift.tsv (text; columns a, drift_x, drift_x_err)"
echo "plot:    gnuplot -p -e \"set xlabel 'a'; set ylabel '<<v>>'; plot 'results/josephson-drift.tsv' u 1:2:3 w yerr\""
echo "summary: $BIN info results/josephson-drift.h5"
