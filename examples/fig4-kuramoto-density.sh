#!/usr/bin/env bash
# Fig. 4 of the paper (Januszewski & Kostur 2010): the noisy Kuramoto model in
# mean-field form (model kuramoto-meanfield, paper Eq. 2 with Eq. 3; the
# paper's PROG3) with N = 2^24 identical oscillators, K = 4, T = 1, phases
# initially uniform on [0, 2 pi).  The density of the phases P(x mod 2 pi; t)
# over time shows the spontaneous synchronisation; the order parameter r(t)
# goes from O(1/sqrt(N)) to the stationary r = 0.8315 of r = I1(Kr/T)/I0(Kr/T).
# Euler, dt = 0.01, 2000 steps, P(x; t) and r(t) every 10 steps.
# On a GPU (build/sdekit devices --count is not 0) it runs at the paper's size; on the
# CPU it scales down (2^18 particles) and says so.  Override with
# PARTICLES=... BACKEND=cpu|cuda.  RUN_ONLY=1 only computes; PLOT_ONLY=1 only
# draws from the results/ of an earlier run.
#
# Writes results/fig4-kuramoto.h5, results/figures/fig4-kuramoto-density.png
# (P(x; t)) and results/figures/fig4-kuramoto-order.png (r(t), psi(t));
# with --update-docs the pictures go to docs/figures.
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
  echo "fig4: $SDK not found; run 'make' first" >&2
  exit 1
fi
# (whole outputs first: under pipefail, grep -q leaving early is a failure
# of the pipe when the writer gets SIGPIPE)
models=$("$SDK" models 2>/dev/null || true)
runhelp=$("$SDK" run --help 2>/dev/null || true)
if ! grep -q '^  kuramoto-meanfield ' <<<"$models" || ! grep -q -- '--particles' <<<"$runhelp"; then
  echo "fig4: this sdekit has no kuramoto-meanfield model or no --particles option" \
    "(interacting particles, issue 4); nothing done" >&2
  exit 1
fi
if [ "${RUN_ONLY:-0}" != 1 ] && ! command -v gnuplot >/dev/null 2>&1; then
  echo "fig4: gnuplot is not installed (Debian: apt-get install gnuplot-nox)" >&2
  exit 1
fi
if [ "${PLOT_ONLY:-0}" != 1 ]; then
  if [ -z "${BACKEND:-}" ]; then
    if [ "$("$SDK" devices --count 2>/dev/null || echo 0)" != 0 ]; then BACKEND=cuda; else BACKEND=cpu; fi
  fi
  if [ "$BACKEND" = cuda ]; then
    PARTICLES=${PARTICLES:-16777216}
  else
    PARTICLES=${PARTICLES:-262144}
  fi
  echo "fig4: backend $BACKEND: N = $PARTICLES particles, one system, 2000 Euler steps of 0.01" \
    "(the paper: N = 16777216 on a GPU)"

  "$SDK" run kuramoto-meanfield --backend "$BACKEND" --particles "$PARTICLES" --paths 1 \
    --dt 0.01 --t-end 20 --scheme euler --seed 2010 --observe density,order --bins 100 \
    --sample-every 10 -o results/fig4-kuramoto.h5
fi
[ "${RUN_ONLY:-0}" = 1 ] && exit 0
"$SDK" plot results/fig4-kuramoto.h5 --observable density -o "$FIG"/fig4-kuramoto-density.png
"$SDK" plot results/fig4-kuramoto.h5 --observable order -o "$FIG"/fig4-kuramoto-order.png
