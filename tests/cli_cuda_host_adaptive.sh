#!/usr/bin/env bash
# cli_cuda_host_adaptive.sh: the CUDA kernels of --adaptive runs (time
# slices, the periodic phase time, the single-precision root kept in
# registers) run on the host as C++ give the CPU backend's bits
# (scripts/cuda-host-adaptive.sh); skipped without c++ or h5py.
# Environment (set by CTest): SDK_BIN, SDK_SOURCE_DIR.
set -u
BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_cuda_host_adaptive: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
if ! command -v c++ > /dev/null || ! ${PYTHON:-/usr/bin/python3} -c 'import h5py' 2> /dev/null; then
  echo "cli_cuda_host_adaptive: skipped (needs c++ and python3 with h5py)"
  exit 77
fi
exec "${SDK_SOURCE_DIR:-$(dirname "$0")/..}/scripts/cuda-host-adaptive.sh" "$(dirname "$BIN")"
