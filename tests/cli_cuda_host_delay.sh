#!/usr/bin/env bash
# cli_cuda_host_delay.sh: the CUDA driver's delays (step by step, at a
# group's start, one group ahead; two rings of three delays) run on the host
# as C++ give the CPU backend's bits in double precision, in 1 and 3
# launches (scripts/cuda-host-delay.sh's double-precision cases; its
# single-precision ones compare with REF, another build's kernels, only);
# skipped without c++ or h5py.
# Environment (set by CTest): SDK_BIN, SDK_SOURCE_DIR.
set -u
BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_cuda_host_delay: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
if ! command -v c++ > /dev/null || ! ${PYTHON:-/usr/bin/python3} -c 'import h5py' 2> /dev/null; then
  echo "cli_cuda_host_delay: skipped (needs c++ and python3 with h5py)"
  exit 77
fi
ONLY=${ONLY:-double} \
  exec "${SDK_SOURCE_DIR:-$(dirname "$0")/..}/scripts/cuda-host-delay.sh" "$(dirname "$BIN")"
