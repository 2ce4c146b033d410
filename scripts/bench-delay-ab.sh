#!/usr/bin/env bash
# scripts/bench-delay.sh for two builds in turn, ROUNDS times (default 2):
# REF's sdekit (another build directory, e.g. main's) and this tree's, so
# that the GPU's clocks and neighbours weigh on both alike.  Each round
# prints both builds' lines (ou, delay_ou with D = 1000, their ratio).
#   REF=BUILD_DIR [ROUNDS=N] [SDEKIT=BIN] scripts/bench-delay-ab.sh [RUN OPTIONS...]
# The lead's H200 lines:
#   REF=/tmp/main/build scripts/bench-delay-ab.sh --backend cuda --paths 1048576
#   REF=/tmp/main/build scripts/bench-delay-ab.sh --backend cuda --paths 1048576 --precision double
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
[ -n "${REF:-}" ] && [ -x "$REF/sdekit" ] || {
  echo "bench-delay-ab: REF must name a build directory with an sdekit" >&2
  exit 2
}
for r in $(seq "${ROUNDS:-2}"); do
  echo "== round $r: REF ($REF)"
  SDEKIT=$REF/sdekit "$src/scripts/bench-delay.sh" "$@"
  echo "== round $r: this tree (${SDEKIT:-$src/build/sdekit})"
  "$src/scripts/bench-delay.sh" "$@"
done
