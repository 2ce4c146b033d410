#!/bin/sh
# The cost of --observe acf sampled every step against the plain run (issue 31:
# at most 30% slower): josephson, 2^18 paths, 400 steps (--spp 100 --periods 4),
# alternated, best of 3 each; acf of x and v at lags 0..16 (the kernel sums
# them: codegen/acf.h), of x alone, and of x at lags 0..31.
#   scripts/bench-acf.sh [SDEKIT [RUN OPTIONS...]]
#   e.g. scripts/bench-acf.sh build/sdekit --backend cuda
#   PERIODS=40 scripts/bench-acf.sh ...: 4000 steps (400 take ~0.3 ms on an H100); PATHS=N paths
#   MODE=psd PERIODS=40 scripts/bench-acf.sh build/sdekit --backend cuda: --observe psd instead
#   (segments of 256 and 64 samples; HOST=1 adds --psd-on-host)
set -u
B=${1:-build/sdekit}
N=${PERIODS:-4}
[ $# -gt 0 ] && shift
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-acf.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
rate() { # best steps/s of 3 runs of OPTIONS
  best=0
  for i in 1 2 3; do
    r=$("$B" run josephson --paths "${PATHS:-262144}" --spp 100 --periods "$N" "$@" -o "$T/r.h5" 2>&1 |
      sed -n 's/.*(\([0-9.e+-]*\) steps\/s).*/\1/p')
    [ -n "$r" ] || echo "bench-acf: no rate from: $B run josephson ... $*" >&2
    best=$(awk -v a="${r:-0}" -v b="$best" 'BEGIN { x = (a + 0 > b + 0) ? a : b; print x }')
  done
  echo "$best"
}
p=$(rate --observe drift "$@")
printf '%-48s %12s steps/s\n' "plain (--observe drift)" "$p"
if [ "${MODE:-acf}" = psd ]; then
  # psd computed by the kernel (codegen/psd.h): the ring write at every step and every M/2
  # steps the path's transform of M doubles in local memory; HOST=1 adds the host's sampling
  # (--psd-on-host: every path's values to the host at every step; slow: PERIODS=1 there).
  # Measured on an H200 before the register-blocked transform (one pass over the path's 2 KiB
  # of local memory per radix-2 stage: 356 B a path-step at M = 256, x alone, LDL/STL of the
  # SASS counted): 9.44e9 steps/s, a ratio of 0.018 to the plain 5.33e11 (x and v 0.009,
  # M = 64 0.031); the host's sampling 2.54e6 (a ratio of 5e-6).  Since kernels/psd_fft.h
  # does 3 stages per pass in registers (the window and bit reversal in the first; 128
  # registers, 512 threads an SM), measured on an H200 (2026-11-28, docs/BENCHMARKS.md):
  # x 0.042-0.043, x and v 0.016, M = 64 0.060-0.061 (4 stages a pass: 168 registers, x 0.034).
  # The floor of this design: the ring and the sums alone move ~28 B a path-step through
  # DRAM, a ratio of at most ~0.2 at M = 256
  for o in "--psd-segment 256 --corr-vars x" "--psd-segment 256" "--psd-segment 64 --corr-vars x"; do
    # shellcheck disable=SC2086
    a=$(rate --observe psd --sample-every 1 $o "$@")
    printf '%-48s %12s steps/s  ratio %.3f\n' "psd $o, every step" "$a" \
      "$(awk -v a="$a" -v p="$p" 'BEGIN { x = (p + 0 > 0) ? a / p : 0; print x }')"
  done
  if [ "${HOST:-0}" = 1 ]; then
    a=$(rate --observe psd --sample-every 1 --psd-segment 256 --corr-vars x --psd-on-host "$@")
    printf '%-48s %12s steps/s  ratio %.3g\n' "psd on the host, every step" "$a" \
      "$(awk -v a="$a" -v p="$p" 'BEGIN { x = (p + 0 > 0) ? a / p : 0; print x }')"
  fi
  exit 0
fi
for o in "--max-lag 16" "--max-lag 16 --corr-vars x" "--max-lag 31 --corr-vars x"; do
  # shellcheck disable=SC2086
  a=$(rate --observe acf --sample-every 1 $o "$@")
  printf '%-48s %12s steps/s  ratio %.3f\n' "acf $o, every step" "$a" \
    "$(awk -v a="$a" -v p="$p" 'BEGIN { x = (p + 0 > 0) ? a / p : 0; print x }')"
done
