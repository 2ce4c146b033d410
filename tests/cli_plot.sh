#!/usr/bin/env bash
# cli_plot.sh: 'sdekit plot' draws a valid PNG for every kind of observable.
#   (a) real runs: ou moments+hist (one PNG per observable), josephson drift
#       over a 2-point scan, a 2x2 scan (heat map), no scan (single point);
#   (b) real density + saved paths and Kuramoto order runs (when this sdekit
#       has them), and synthetic files with density/, paths/ and order/ groups
#       written with h5py in the documented layout (skipped without h5py);
#   (c) bad input: missing file, non-HDF5 file, unknown observable, an
#       observable the file lacks, --grid out of range: one error line, exit 2;
#       gnuplot missing: one error line, exit 1.
# Every PNG must start with the PNG signature, be larger than 5 kB and be
# 1000x650 according to its IHDR chunk; every picture drawn as PDF and SVG
# (-o FIG.pdf, FIG.svg) must be one.
#
# Environment (set by CTest): SDK_BIN, SDK_SOURCE_DIR, SDEKIT_CACHE_DIR.
set -u

BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_plot: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "cli_plot: gnuplot is not installed; skipped" >&2
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/cli_plot.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export SDEKIT_CACHE_DIR=${SDEKIT_CACHE_DIR:-$T/cache}
unset SDEKIT_MODEL_PATH
cd "$T" || exit 1

npass=0
nfail=0
pass() { npass=$((npass + 1)); }
failed() {
  nfail=$((nfail + 1))
  echo "FAIL: $*"
}

# run NAME ARGS...: sdekit run ARGS (quiet); a failure is a failed check.
run() {
  local name=$1
  shift
  if "$BIN" run "$@" --quiet 2>"$T/err"; then return 0; fi
  failed "$name: sdekit run $* failed: $(head -c 300 "$T/err")"
  return 1
}

# png_ok NAME FILE: a PNG of sensible size, 1000x650.
png_ok() {
  local name=$1 f=$2
  if [ ! -f "$f" ]; then
    failed "$name: $f was not written"
    return
  fi
  local size sig w h
  size=$(wc -c <"$f")
  sig=$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')
  # IHDR: width and height are big-endian 32-bit at bytes 16..23
  read -r w h < <(od -An -tu1 -j16 -N8 "$f" |
    awk '{ print $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8 }')
  if [ "$sig" != "89504e470d0a1a0a" ]; then
    failed "$name: $f is not a PNG (starts with $sig)"
  elif [ "$size" -le 5000 ]; then
    failed "$name: $f is only $size bytes"
  elif [ "$w" != 1000 ] || [ "$h" != 650 ]; then
    failed "$name: $f is ${w}x${h}, expected 1000x650"
  else
    pass
  fi
}

# plot NAME ARGS...: sdekit plot ARGS must succeed.
plot() {
  local name=$1
  shift
  if "$BIN" plot "$@" 2>"$T/err"; then return 0; fi
  failed "$name: sdekit plot $* failed: $(head -c 400 "$T/err")"
  return 1
}

# bad NAME STATUS ARGS...: sdekit plot ARGS fails with STATUS and one line
# "sdekit: error: ..." on stderr, nothing on stdout.
bad() {
  local name=$1 want=$2
  shift 2
  "$BIN" plot "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$T/err")
  if [ "$rc" != "$want" ]; then
    failed "$name: exit status $rc, expected $want ($(head -c 300 "$T/err"))"
  elif [ "$lines" != 1 ] || ! grep -q '^sdekit: error: ' "$T/err"; then
    failed "$name: expected one error line, got: $(head -c 300 "$T/err")"
  elif [ -s "$T/out" ]; then
    failed "$name: wrote to stdout: $(head -c 200 "$T/out")"
  else
    pass
  fi
}

# (a) real runs
if run ou ou --paths 2000 --t-end 2 --observe moments,hist -o ou.h5; then
  if plot ou ou.h5; then
    png_ok "ou moments" ou.moments.png
    png_ok "ou hist" ou.hist.png
  fi
  if plot "ou -o" ou.h5 -o fig.png --observable hist; then png_ok "ou -o" fig.png; fi
  [ ! -e fig.hist.png ] && pass || failed "--observable hist wrote fig.hist.png, expected fig.png"
fi
if run josephson josephson --scan a=4.2:14.1:2 --paths 128 --periods 20 -o j1.h5; then
  if plot "drift scan" j1.h5; then png_ok "drift scan" j1.png; fi
fi
if run josephson josephson --scan a=4.2:14.1:2 --scan f=0:0.2:2 --paths 64 --periods 10 \
  --observe drift,moments,hist -o j2.h5; then
  if plot "2x2 scan" j2.h5 --grid 3; then
    png_ok "2x2 drift" j2.drift.png
    png_ok "2x2 moments" j2.moments.png
    png_ok "2x2 hist" j2.hist.png
  fi
fi
# a scan axis out of order: its map lost cells and its curves zigzagged (a
# review); refused with one line, a descending axis drawn
if run "unordered scan" ou --scan k=1,0.5,2 --scan D=0.1,0.4 --paths 64 --t-end 0.5 \
  --observe drift -o ku.h5; then
  bad "unordered scan axis" 2 ku.h5 -o ku.png
  grep -q "scan axis k are not in order" "$T/err" && pass || failed "unordered: $(cat "$T/err")"
fi
if run "descending scan" ou --scan k=2,1,0.5 --paths 64 --t-end 0.5 --observe drift -o kd.h5; then
  if plot "descending scan" kd.h5 -o kd.png; then png_ok "descending scan" kd.png; fi
fi
if run "no scan" josephson --paths 128 --periods 10 -o j0.h5; then
  if plot "no scan" j0.h5 -o j0fig.png; then png_ok "no scan" j0fig.png; fi
fi
# many grid points: heat maps of the moments and histograms
if run "20-point scan" josephson --scan a=4.2:14.1:20 --paths 64 --periods 5 \
  --observe moments,hist -o j20.h5; then
  if plot "20-point scan" j20.h5 --var x; then
    png_ok "20-point moments" j20.moments.png
    png_ok "20-point hist" j20.hist.png
  fi
fi

# real density with saved paths (issue 5) and order parameter (issue 4), when
# this sdekit has them
if "$BIN" run --help | grep -q -- '--save-paths'; then
  if run "density" josephson --scan a=4.2:14.1:2 --observe density --coarse-grain \
    --save-paths 0,1,2 --paths 256 --periods 20 -o rd.h5; then
    if plot "density" rd.h5 --grid 1; then png_ok "density" rd.png; fi
    if plot "paths" rd.h5 --observable paths -o rdp.png; then png_ok "paths" rdp.png; fi
  fi
fi
if "$BIN" models 2>/dev/null | grep -q '^  kuramoto-meanfield '; then
  if run "kuramoto" kuramoto-meanfield --particles 4096 --paths 2 --t-end 2 \
    --observe order,density --sample-every 10 -o k.h5; then
    if plot "kuramoto" k.h5; then
      png_ok "kuramoto order" k.order.png
      png_ok "kuramoto density" k.density.png
    fi
  fi
fi

# (b) synthetic density, paths and order groups
if /usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null && [ -f j1.h5 ] && [ -f j0.h5 ]; then
  cat >gen.py <<'EOF'
# Copy a real result file and add density/, paths/ or order/ in the layout
# of issue 5 (density, saved paths) and issue 4 (order parameter).
import shutil, sys
import h5py
import numpy as np
src, dst, kind = sys.argv[1:4]
shutil.copyfile(src, dst)
rng = np.random.default_rng(1)
with h5py.File(dst, "r+") as f:
    axes = [a.decode() if isinstance(a, bytes) else a for a in f["scan"].attrs["axes"]]
    grid = tuple(f["scan/" + a].shape[0] for a in axes)
    dt = np.asarray(f["scan/dt"][()], dtype=float).reshape(grid)
    ns, nb = 201, 60
    step = np.arange(ns, dtype=np.int64) * 100
    t = dt[..., None] * step                       # [grid..., ns]
    if kind in ("density", "both"):
        g = f.create_group("density")
        g.create_dataset("step", data=step)
        g.create_dataset("t", data=t)
        vg = g.create_group("x")
        vg.attrs["coarse_grain"] = np.int64(1)
        lo, hi = -20.0, 40.0
        x = lo + (np.arange(nb) + 0.5) * (hi - lo) / nb
        tt = np.arange(ns)[:, None] / ns
        P = np.exp(-(x[None, :] - 20 * tt) ** 2 / (2 * (0.3 + 40 * tt)))
        P[P < 1e-6] = 0
        P /= P.sum(axis=1, keepdims=True) * (hi - lo) / nb
        vg.create_dataset("P", data=np.broadcast_to(P, grid + P.shape).copy())  # [grid..., ns, bins]
        vg.create_dataset("lo", data=np.full(grid, lo))
        vg.create_dataset("hi", data=np.full(grid, hi))
    if kind in ("paths", "both"):
        g = f.create_group("paths")
        g.create_dataset("index", data=np.arange(5, dtype=np.int64))
        g.create_dataset("step", data=step)
        g.create_dataset("t", data=t)                  # [grid..., nsp]
        for v in ("x", "v"):                           # [grid..., nsaved, nsp]
            g.create_dataset(v, data=np.cumsum(rng.normal(0.1, 0.8, grid + (5, ns)), axis=-1))
    if kind == "order":
        g = f.create_group("order")
        g.create_dataset("t", data=t)
        g.create_dataset("r", data=np.clip(0.83 * (1 - np.exp(-t / 20)) + 0.02 * rng.normal(size=t.shape), 0, 1))
        g.create_dataset("psi", data=np.angle(np.exp(1j * (0.05 * t + 0.03 * rng.normal(size=t.shape).cumsum(axis=-1)))))
EOF
  for src in j1 j0; do
    for kind in density paths both order; do
      if ! /usr/bin/python3 gen.py $src.h5 s-$src-$kind.h5 $kind 2>"$T/err"; then
        failed "synthetic $src $kind: $(tail -c 300 "$T/err")"
        continue
      fi
      obs=$kind
      [ "$kind" = both ] && obs=density
      if plot "synthetic $src $kind" s-$src-$kind.h5 --observable $obs -o s-$src-$kind.png; then
        png_ok "synthetic $src $kind" s-$src-$kind.png
      fi
    done
  done
  # without --observable: drift and density (with the paths on top), no paths picture
  if plot "synthetic all" s-j1-both.h5 --grid 1; then
    png_ok "synthetic all: drift" s-j1-both.drift.png
    png_ok "synthetic all: density" s-j1-both.density.png
    [ ! -e s-j1-both.paths.png ] && pass || failed "paths drawn separately although on the density"
  fi
else
  echo "cli_plot: python3 with h5py not found; synthetic density/paths/order files skipped"
fi

# (b') vector output: every picture of every file above as PDF and SVG
for h in ou j1 j2 j0 j20 rd k; do
  [ -f $h.h5 ] || continue
  for fmt in pdf svg; do
    rm -f vec.*
    if plot "$h as $fmt" $h.h5 -o vec.$fmt; then
      n=0
      for v in vec.*; do
        n=$((n + 1))
        if [ $fmt = pdf ] && [ "$(head -c 4 "$v")" = "%PDF" ]; then
          pass
        elif [ $fmt = svg ] && grep -q '<svg' "$v" && grep -q '</svg>' "$v"; then
          pass
        else
          failed "$h as $fmt: $v is no $fmt file ($(head -c 20 "$v" | od -c | head -1))"
        fi
      done
      [ $n -ge 1 ] || failed "$h as $fmt: nothing written"
    fi
  done
done

# (c) bad input
bad "missing file" 2 nosuch.h5
echo "not hdf5" >text.h5
bad "not HDF5" 2 text.h5
# a TSV result (or any text table): says that plots come from the .h5 result
printf '# sdekit\n' >res.tsv
bad "tsv" 2 res.tsv
if ! grep -q 'plots are drawn from the .h5 result' "$T/err"; then failed "tsv: $(cat "$T/err")"; fi
if [ -f j1.h5 ]; then
  bad "unknown observable" 2 j1.h5 --observable nonsense
  bad "observable not in file" 2 j1.h5 --observable moments
  bad "grid out of range" 2 j1.h5 --grid 2
  bad "unknown variable" 2 j1.h5 --var nosuch
  bad "not .png, .pdf or .svg" 2 j1.h5 -o fig.jpg
  grep -q "expected a name ending in .png, .pdf or .svg" "$T/err" || failed "-o fig.jpg: $(cat "$T/err")"
  bad "no directory" 2 j1.h5 -o nodir/fig.png
  # gnuplot not on PATH: a clear message, exit 1
  PATH=/nonexistent "$BIN" plot j1.h5 -o nognuplot.png >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$rc" = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q '^sdekit: error: gnuplot is not installed' "$T/err" &&
    [ ! -e nognuplot.png ]; then
    pass
  else
    failed "gnuplot missing: exit status $rc, $(head -c 300 "$T/err")"
  fi
fi
bad "no arguments" 2

echo "cli_plot: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
