#!/usr/bin/env bash
# cli_demo.sh: `make demo` (scripts/demo.sh) ends with a picture drawn on a
# machine without a display: run at a small size with DISPLAY and
# WAYLAND_DISPLAY unset, it must write its HDF5, TSV and a PNG (by `sdekit
# plot`, not a gnuplot window), and say where the picture is.
#
# Environment (set by CTest): SDK_BIN, SDK_SOURCE_DIR, SDK_CACHE_DIR.
set -u
BIN=${SDK_BIN:-}
SRC=${SDK_SOURCE_DIR:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ] || [ -z "$SRC" ]; then
  echo "cli_demo: SDK_BIN and SDK_SOURCE_DIR must be set" >&2
  exit 77
fi
if ! command -v gnuplot > /dev/null 2>&1; then
  echo "cli_demo: gnuplot is not installed; skipped" >&2
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/cli_demo.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export SDK_CACHE_DIR=${SDK_CACHE_DIR:-$T/cache}
nfail=0
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }

# `make demo` is this script
grep -qE '^demo:.*' "$SRC/Makefile" && grep -A1 -E '^demo:' "$SRC/Makefile" | grep -q 'scripts/demo.sh' ||
  fail "the Makefile's demo target does not run scripts/demo.sh"

out=$(env -u DISPLAY -u WAYLAND_DISPLAY SDK_BIN="$BIN" DEMO_OUT="$T/out" DEMO_PATHS=64 \
  DEMO_PERIODS=20 bash "$SRC/scripts/demo.sh" 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "scripts/demo.sh exited with $rc without a display: $out"
for f in josephson-drift.h5 josephson-drift.tsv; do
  [ -s "$T/out/$f" ] || fail "the demo wrote no $f"
done
png=$T/out/josephson-drift.png
if [ -s "$png" ]; then
  sig=$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')
  [ "$sig" = 89504e470d0a1a0a ] || fail "$png is not a PNG (starts with $sig)"
  size=$(wc -c < "$png")
  [ "$size" -gt 5000 ] || fail "$png has only $size bytes"
else
  fail "the demo drew no picture ($png)"
fi
printf '%s\n' "$out" | grep -qF "$png" || fail "the demo does not say where the picture is"
printf '%s\n' "$out" | grep -q 'gnuplot -p' && fail "the demo still asks for a gnuplot window"
echo "cli_demo: $nfail failed"
[ $nfail -eq 0 ]
