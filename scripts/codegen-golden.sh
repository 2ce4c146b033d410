#!/bin/sh
# Hashes of the generated kernels' identity for a fixed matrix of
# configurations: every built-in model (and examples/double-well.sde) x
# scheme (euler srk2 milstein weak2) x backend x precision, with and without
# --dt-check, first passages (--observe fpt), scans, compensation, fast-math,
# observables that change the kernel and systems of particles.  What is
# hashed is the normalised source (`sdekit codegen --normalised`: comments,
# whitespace and #line removed, codegen/identity.h), the kernel's identity
# that the kernel cache and checkpoints key on: a refactor of src/codegen
# may move, re-indent and comment kernel text, never change a token.  A
# configuration the generator refuses is recorded by its message.
#
#   scripts/codegen-golden.sh [BUILD_DIR]             print "sha256  name" lines
#   scripts/codegen-golden.sh --check FILE [BUILD]    compare; exit 1 on a difference
set -eu
check=
if [ "${1:-}" = "--check" ]; then
  check=$2
  shift 2
fi
bin=${1:-build}/sdekit
src=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
one() { # NAME ARGS...
  name=$1
  shift
  if "$bin" codegen "$@" --normalised > "$T/src" 2> "$T/err"; then
    echo "$(sha256sum < "$T/src" | cut -d' ' -f1)  $name"
  else
    echo "error:$(head -c 60 "$T/err" | tr '\n' ' ')  $name"
  fi
}
all() {
  for be in cpu cuda; do
    for p in single double; do
      for m in gbm josephson ou ou2_correlated shot_noise_ou telegraph_ou \
        "$src/examples/double-well.sde"; do
        mn=$(basename "$m" .sde)
        for s in euler srk2 milstein weak2; do
          one $mn-$s-$p-$be "$m" --backend $be --precision $p --scheme $s
          one $mn-$s-$p-$be-dtcheck "$m" --backend $be --precision $p --scheme $s --dt-check
        done
      done
      for s in euler srk2; do
        one josephson-scan-a-$s-$p-$be josephson --backend $be --scheme $s --precision $p \
          --scan a=4:6:3
        one josephson-scan-omega-$s-$p-$be josephson --backend $be --scheme $s --precision $p \
          --scan omega=4:6:3
        one ou-scan-$s-$p-$be ou --backend $be --scheme $s --precision $p --scan k=0.5:2:3 \
          --scan D=0.1:0.4:2
      done
      one josephson-nocomp-$p-$be josephson --backend $be --precision $p --no-compensation
      one josephson-nofast-$p-$be josephson --backend $be --precision $p --no-fast-math
      one josephson-compall-$p-$be josephson --backend $be --precision $p --compensate all
      one dw-fpt-$p-$be "$src/examples/double-well.sde" --backend $be --precision $p --observe fpt
      one dw-fpt-dtcheck-$p-$be "$src/examples/double-well.sde" --backend $be --precision $p \
        --observe fpt --dt-check
      one ou-hist-$p-$be ou --backend $be --precision $p --observe hist
      one ou-tavg-$p-$be ou --backend $be --precision $p --observe moments,drift,tavg,range,cov
      one kuramoto-$p-$be kuramoto --backend $be --precision $p --particles 64
      one kuramoto-order-$p-$be kuramoto --backend $be --precision $p --particles 4096 \
        --observe order
      one kuramoto-meanfield-$p-$be kuramoto-meanfield --backend $be --precision $p \
        --particles 256 --paths 2
      one kuramoto-meanfield-order-$p-$be kuramoto-meanfield --backend $be --precision $p \
        --particles 1048576 --observe order,density
      one kuramoto-meanfield-scan-$p-$be kuramoto-meanfield --backend $be --precision $p \
        --particles 128 --scan K=1:3:2 --observe order
      # the newer kernels: delays, Levy and coloured noise, resets, adaptive steps,
      # acf and psd in the kernel
      for s in euler srk2; do
        one delay_ou-$s-$p-$be delay_ou --backend $be --precision $p --scheme $s
        one josephson_levy-$s-$p-$be josephson_levy --backend $be --precision $p --scheme $s
        one josephson_colored-$s-$p-$be josephson_colored --backend $be --precision $p --scheme $s
      done
      one lif-events-$p-$be lif --backend $be --precision $p --observe events
      one reset_bm-events-$p-$be reset_bm --backend $be --precision $p --observe events
      one gbm-adaptive-$p-$be gbm --backend $be --precision $p --scheme milstein --adaptive \
        --dt-max 0.25 --rtol 1e-3
      one josephson-adaptive-$p-$be josephson --backend $be --precision $p --scheme srk2 \
        --adaptive --rtol 1e-3
      one dw-fpt-adaptive-$p-$be "$src/examples/double-well.sde" --backend $be --precision $p \
        --scheme srk2 --adaptive --dt-max 0.25 --rtol 0.03 --observe fpt
      one ou-acf-$p-$be ou --backend $be --precision $p --observe acf --max-lag 16
      one ou-acf-every-$p-$be ou --backend $be --precision $p --observe acf --max-lag 16 \
        --sample-every 1
      one ou-psd-$p-$be ou --backend $be --precision $p --observe psd
    done
  done
}
if [ -z "$check" ]; then
  all
else
  all > "$T/now"
  if diff "$check" "$T/now" > "$T/diff"; then
    echo "codegen golden: $(wc -l < "$T/now") kernel identities unchanged"
  else
    echo "codegen golden: differences (< recorded, > now):"
    cat "$T/diff"
    exit 1
  fi
fi
