#!/usr/bin/env bash
# On the GPU machine: the example scripts' runs at the paper's size
# (RUN_ONLY=1: the machine has no gnuplot); their data come back under $OUT
# (xz) and are drawn here with PLOT_ONLY=1.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}; mkdir -p "$OUT"
[ -d .debs ] && eval "$(scripts/device-deps.sh .debs 2>/dev/null)"
export SDEKIT_CACHE_DIR=$PWD/build/kcache PATH=/usr/local/cuda/bin:$PATH
make -j16 > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
for ex in prog1-drift-scan fig3-josephson-density fig4-kuramoto-density; do
  t0=$SECONDS; RUN_ONLY=1 bash examples/$ex.sh > "$OUT/$ex.log" 2>&1
  echo "$ex rc=$? $((SECONDS - t0)) s"; tail -4 "$OUT/$ex.log"
done
tar -C results -cf - prog1-drift.h5 prog1-drift.tsv fig4-kuramoto.h5 fig3-single.density.tsv \
  fig3-single.paths.tsv fig3-double.density.tsv fig3-double.paths.tsv | xz -T16 -6 > "$OUT/results.tar.xz"
ls -la results "$OUT"
