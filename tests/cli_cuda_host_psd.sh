#!/usr/bin/env bash
# cli_cuda_host_psd.sh: the CUDA kernel's --observe psd (codegen/psd.h) run
# on the host as C++ gives the host's sums of periodograms bit for bit
# (scripts/cuda-host-psd.sh: double and single, every 1 and 3 steps, 1 and
# 3 launches; 2 s); skipped without c++.
# Environment (set by CTest): SDK_BIN, SDK_SOURCE_DIR.
set -u
BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_cuda_host_psd: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
if ! command -v c++ > /dev/null; then
  echo "cli_cuda_host_psd: skipped (needs c++)"
  exit 77
fi
exec "${SDK_SOURCE_DIR:-$(dirname "$0")/..}/scripts/cuda-host-psd.sh" "$(dirname "$BIN")"
