#!/usr/bin/env bash
# The paper's PROG1 job (Januszewski & Kostur 2010): the asymptotic mean
# velocity <<v>> of the Josephson junction (model josephson, paper Eq. 1,
# gamma = 0.9, omega = 4.9, D = 0.001, f = 0.1) against the amplitude of the
# ac drive, a = 4.2 .. 14.1 in 100 points; SRK2, 100 steps per period, the
# first tenth of the run discarded as transient.
# On a GPU (build/sdekit devices --count is not 0): 16384 paths per point over 2000
# periods; on the CPU it scales down (1024 paths, 500 periods) and says so.
# Override with PATHS=... PERIODS=... BACKEND=cpu|cuda.  RUN_ONLY=1 only computes;
# PLOT_ONLY=1 only draws from the results/ of an earlier run.
#
# Writes results/prog1-drift.{h5,tsv} and results/figures/prog1-drift-scan.png
# (docs/figures with --update-docs).
# Needs build/sdekit ('make') and gnuplot (Debian: gnuplot-nox).
set -euo pipefail
cd "$(dirname "$0")/.."
# Pictures go to results/figures (ignored by git); --update-docs refreshes
# the committed ones in docs/figures instead ('make figures').
FIG=results/figures
case "${1:-}" in
  --update-docs) FIG=docs/figures ;;
  "") ;;
  *) echo "usage: $0 [--update-docs]" >&2; exit 2 ;;
esac
mkdir -p results "$FIG"
SDK=build/sdekit
if [ ! -x "$SDK" ]; then
  echo "prog1: $SDK not found; run 'make' first" >&2
  exit 1
fi
if [ "${RUN_ONLY:-0}" != 1 ] && ! command -v gnuplot >/dev/null 2>&1; then
  echo "prog1: gnuplot is not installed (Debian: apt-get install gnuplot-nox)" >&2
  exit 1
fi
if [ "${PLOT_ONLY:-0}" != 1 ]; then
  if [ -z "${BACKEND:-}" ]; then
    if [ "$("$SDK" devices --count 2>/dev/null || echo 0)" != 0 ]; then BACKEND=cuda; else BACKEND=cpu; fi
  fi
  if [ "$BACKEND" = cuda ]; then
    PATHS=${PATHS:-16384} PERIODS=${PERIODS:-2000}
  else
    PATHS=${PATHS:-1024} PERIODS=${PERIODS:-500}
  fi
  echo "prog1: backend $BACKEND: 100 values of a, $PATHS paths each, $PERIODS periods" \
    "($((PERIODS / 10)) transient), 100 steps per period"

  "$SDK" run josephson --backend "$BACKEND" --scan a=4.2:14.1:100 --paths "$PATHS" \
    --periods "$PERIODS" --transient-periods $((PERIODS / 10)) --spp 100 --scheme srk2 \
    --seed 2010 --observe drift -o results/prog1-drift.h5 -o results/prog1-drift.tsv
fi
[ "${RUN_ONLY:-0}" = 1 ] && exit 0
"$SDK" plot results/prog1-drift.h5 -o "$FIG"/prog1-drift-scan.png
