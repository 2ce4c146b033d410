#!/usr/bin/env bash
# The paper's PROG1 job: asymptotic drift velocity <<v>> of the Josephson
# junction (Stewart-McCumber model, Eq. 1) against the drive amplitude a over
# 4.2..14.1 in 100 points, as in the paper's default setup.  Sized to take
# about a minute on two CPU cores; on a GPU use --backend cuda and more paths.
# It ends by drawing the result to a PNG with `sdekit plot` (gnuplot's
# pngcairo terminal: no display needed, so it works on a headless machine;
# test cli_demo).
#   DEMO_PATHS, DEMO_PERIODS, DEMO_BACKEND: the run's size and backend
#   DEMO_OUT: where the results go (default results/ of the source tree)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SDK_BIN:-build/sdekit}
PATHS=${DEMO_PATHS:-1024}
PERIODS=${DEMO_PERIODS:-2000}
OUT=${DEMO_OUT:-results}
mkdir -p "$OUT"
"$BIN" run josephson --scan a=4.2:14.1:100 --paths "$PATHS" --periods "$PERIODS" \
  --transient-periods $((PERIODS / 10)) --spp 100 --scheme srk2 --seed 2010 \
  --observe drift --backend "${DEMO_BACKEND:-cpu}" \
  -o "$OUT/josephson-drift.h5" -o "$OUT/josephson-drift.tsv"
"$BIN" plot "$OUT/josephson-drift.h5" -o "$OUT/josephson-drift.png"
OUT=$(cd "$OUT" && pwd)
echo
echo "results: $OUT/josephson-drift.h5 (HDF5: drift and all settings)"
echo "         $OUT/josephson-drift.tsv (text; columns a, drift_x, drift_x_err)"
echo "picture: $OUT/josephson-drift.png (<<v>> against a, with error bars)"
echo "summary: $BIN info $OUT/josephson-drift.h5"
