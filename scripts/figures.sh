#!/usr/bin/env bash
# Every figure of docs/figures redrawn by one script ('make figures'): the
# paper's three examples (examples/*.sh --update-docs: at the paper's size on
# a GPU, scaled down on the CPU, as each says) and the README's escape-time
# figure (examples/double-well.sde).  Beside each figure its description,
# the figure as sdekit decides it (sdekit plot --spec), goes to
# results/figures/NAME.json, to be looked at with the picture.  Stops with
# the list of any file in docs/figures that no step redrew.
#   PLOT_ONLY=1  redraw from the results/ of an earlier run (computed on the
#                GPU machine: scripts/gpu-figures.sh)
#   ONLY=NAME    one step: prog1-drift-scan, fig3-josephson-density,
#                fig4-kuramoto-density, escape-times or escape-adaptive
# Needs build/sdekit ('make') and gnuplot.
set -euo pipefail
cd "$(dirname "$0")/.."
SDK=build/sdekit
[ -x "$SDK" ] || { echo "figures: $SDK not found; run 'make' first" >&2; exit 1; }
mkdir -p results/figures docs/figures
stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
want() { [ -z "${ONLY:-}" ] || [ "$ONLY" = "$1" ]; }

for ex in prog1-drift-scan fig3-josephson-density fig4-kuramoto-density; do
  want $ex && ./examples/$ex.sh --update-docs
done

# README, "Escape times": one boundary, a scan of D
if want escape-times; then
  if [ "${PLOT_ONLY:-0}" != 1 ]; then
    "$SDK" run examples/double-well.sde --scan D=0.25:0.5:6 --paths "${ESC_PATHS:-10000}" \
      --dt 0.005 --t-end 200 --observe fpt -o results/escape.h5
  fi
  "$SDK" plot results/escape.h5 --observable fpt -o docs/figures/escape-times.png
fi

# README, "Adaptive time steps": the escape over 4 kT with adaptive steps
if want escape-adaptive; then
  if [ "${PLOT_ONLY:-0}" != 1 ]; then
    "$SDK" run examples/double-well.sde --set D=0.0625 --set b=0 --adaptive --scheme srk2 \
      --precision double --dt-max 0.25 --rtol 0.03 --atol 0.03 --t-end 2000 --paths 20000 \
      --observe fpt -o results/escape-adaptive.h5
  fi
  "$SDK" plot results/escape-adaptive.h5 --observable fpt -o docs/figures/escape-adaptive.png
fi

# the descriptions beside the pictures, for looking at them together
spec() { "$SDK" plot --spec "$1" "${@:3}" >results/figures/"$2".json; }
want prog1-drift-scan && spec results/prog1-drift.h5 prog1-drift-scan
want fig4-kuramoto-density && spec results/fig4-kuramoto.h5 fig4-kuramoto-density \
  --observable density && spec results/fig4-kuramoto.h5 fig4-kuramoto-order --observable order
want escape-times && spec results/escape.h5 escape-times --observable fpt
want escape-adaptive && spec results/escape-adaptive.h5 escape-adaptive --observable fpt

# every committed figure redrawn (a full run only)
if [ -z "${ONLY:-}" ]; then
  old=$(find docs/figures -name '*.png' ! -newer "$stamp")
  if [ -n "$old" ]; then
    echo "figures: not redrawn by any step: $old" >&2
    exit 1
  fi
fi
echo "figures: docs/figures redrawn; their descriptions are in results/figures/*.json"
