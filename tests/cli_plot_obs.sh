#!/usr/bin/env bash
# cli_plot_obs.sh: the pictures of issue 13's observables, checked in their
# gnuplot scripts (kept with --keep) and their PNGs.
#   (a) real runs of expr, cov, diffusion and moments without a scan, with a
#       one-parameter and a two-parameter scan: over time with s.e. bands
#       (filledcurves), in a scan the last values with error bars
#       (yerrorbars), maps (pm3d) for two axes; --grid goes back over time;
#   (b) --stat variance: moments and cov draw the variance, expr refuses
#       with the statistics it has; --stat bogus refused;
#   (c) first passage from real runs (a [boundaries] model, when this sdekit
#       has them), and first passage and time averages (fpt/, tavg/ in the
#       shared layout of issue 13) in synthetic files written with h5py;
#   (d) --show NAME: a series with its band, per-grid values with error
#       bars, an unknown name refused with the list of datasets;
#   (e) hist and density of a user observable drawn as a variable's.
# Every PNG must start with the PNG signature and be 1000x650.
#
# Environment (set by CTest): SDK_BIN.
set -u

BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_plot_obs: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "cli_plot_obs: gnuplot is not installed; skipped" >&2
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/cli_plot_obs.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export SDEKIT_CACHE_DIR=${SDEKIT_CACHE_DIR:-$T/cache}
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
unset SDEKIT_MODEL_PATH
cd "$T" || exit 1

npass=0
nfail=0
pass() { npass=$((npass + 1)); }
failed() {
  nfail=$((nfail + 1))
  echo "FAIL: $*"
}

png_ok() { # NAME FILE
  local sig w h
  if [ ! -f "$2" ]; then
    failed "$1: $2 was not written"
    return
  fi
  sig=$(head -c 8 "$2" | od -An -tx1 | tr -d ' \n')
  read -r w h < <(od -An -tu1 -j16 -N8 "$2" |
    awk '{ print $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8 }')
  if [ "$sig" = 89504e470d0a1a0a ] && [ "$w" = 1000 ] && [ "$h" = 650 ]; then
    pass
  else
    failed "$1: $2 is no 1000x650 PNG ($sig, ${w}x$h)"
  fi
}

# draw NAME PNG ARGS...: sdekit plot ARGS -o PNG --keep; the script of the
# one picture drawn goes to $T/last.gp, the PNG is checked.
draw() {
  local name=$1 png=$2
  shift 2
  rm -rf "$TMPDIR"/sdekit-plot.*
  if ! "$BIN" plot "$@" -o "$png" --keep --quiet 2>"$T/err"; then
    failed "$name: sdekit plot $* failed: $(head -c 400 "$T/err")"
    : >"$T/last.gp"
    return 1
  fi
  cat "$TMPDIR"/sdekit-plot.*/*.gp >"$T/last.gp" 2>/dev/null
  rm -rf "$TMPDIR"/sdekit-plot.*
  png_ok "$name" "$png"
}

# has NAME PATTERN COUNT: the last script holds PATTERN (grep -E) on COUNT lines
# (COUNT "+" : at least one, 0: none).
has() {
  local n
  n=$(grep -cE -- "$2" "$T/last.gp")
  if [ "$3" = + ] && [ "$n" -ge 1 ]; then
    pass
  elif [ "$3" = "$n" ]; then
    pass
  else
    failed "$1: '$2' on $n lines of the script, expected $3"
  fi
}

# bad NAME MESSAGE ARGS...: sdekit plot ARGS fails (exit 2) with one error
# line holding MESSAGE (grep -F).
bad() {
  local name=$1 msg=$2
  shift 2
  "$BIN" plot "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF -- "$msg" "$T/err" && [ ! -s "$T/out" ]; then
    pass
  else
    failed "$name: exit $rc, $(head -c 400 "$T/err")"
  fi
}

# spec NAME TEST ARGS...: sdekit plot --spec ARGS prints one figure
# description, valid JSON, for which the Python expression TEST holds (d: the
# figure), and which keeps the layout rule: no key over a plot area (keys sit
# right of every panel), no two panels overlapping, and below a panel that
# shows its x tick labels a gap of at least 0.09 of the height for them.
spec() {
  local name=$1 test=$2
  shift 2
  if ! "$BIN" plot --spec "$@" >"$T/spec.json" 2>"$T/err"; then
    failed "$name: sdekit plot --spec $* failed: $(head -c 300 "$T/err")"
  elif /usr/bin/python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["figures"]
d = f[0]
def layout_ok(d):
    ps = d["panels"]
    for p in ps:
        if p["key"] and any(p["key"][0] < q["box"][1] for q in ps):
            return False
        l, r, b, t = p["box"]
        # tick labels: about 20 across the width, 30 up the height at most
        for step, lo, hi, room in ((p["xstep"], "x", None, 20 * (r - l)),
                                   (p["ystep"] if not p["ylog"] else 0, "y", None, 30 * (t - b))):
            if step:
                v = [s[lo][k] for s in p["series"] for k in range(s["n"]) if s[lo][k] is not None]
                if v and (max(v) - min(v)) / step + 1 > room:
                    return False
    for i, p in enumerate(ps):
        for q in ps[i + 1:]:
            # side by side: room for the y tick labels of the right one; above
            # each other: for the x tick labels of the upper one
            apart_x = p["box"][1] + 0.08 <= q["box"][0] or q["box"][1] + 0.08 <= p["box"][0]
            up, lo = (p, q) if p["box"][3] > q["box"][3] else (q, p)
            room = 0.09 if up["xtics"] else 0
            apart_y = up["box"][2] - lo["box"][3] >= room - 1e-9
            if not (apart_x or apart_y):
                return False
    return True
sys.exit(not (len(f) == 1 and layout_ok(d) and ('"$test"')))' "$T/spec.json"; then
    pass
  else
    failed "$name: the description fails $test"
  fi
}

OBS=(--observe moments,expr,cov,diffusion --observe-expr E=x*x --observe-expr A=x+1)
run() { "$BIN" run "$@" --quiet 2>"$T/err" || { failed "sdekit run $*: $(head -c 300 "$T/err")"; return 1; }; }

# (a) real runs
if run ou --paths 256 --t-end 1 "${OBS[@]}" -o n0.h5; then
  draw "expr, no scan" e0.png n0.h5 --observable expr
  has "expr, no scan: a band per observable" "with filledcurves" 2
  has "expr, no scan: two panels" "^plot " 2
  has "expr, no scan: the s.e. band in the key" 'title "± standard error"' 2
  draw "diffusion, no scan" d0.png n0.h5 --observable diffusion
  has "diffusion, no scan: D_eff band" "using 1:3:4 with filledcurves" 1
  has "diffusion, no scan: label" 'D\}_\{eff\}' +
  draw "cov, no scan" c0.png n0.h5 --observable cov
  has "cov, no scan: band" "with filledcurves" 1
  has "cov, no scan: var x" 'var \{/:Italic x\}' +
  draw "moments, no scan" m0.png n0.h5 --observable moments
  has "moments: s.d. band" "using 1:3:4 with filledcurves" 1
  has "moments: s.e. band" "using 1:5:6 with filledcurves.*mean ± s.e." 1
fi
if run ou --paths 128 --t-end 1 --scan k=0.5:2:4 "${OBS[@]}" -o n1.h5; then
  draw "expr, 1 axis" e1.png n1.h5 --observable expr
  has "expr, 1 axis: error bars" "with yerrorbars" 2
  has "expr, 1 axis: no bands" "filledcurves" 0
  has "expr, 1 axis: x is k" 'set xlabel "\{/:Italic k\}"' 2
  has "expr, 1 axis: the last sample" "values at the last sample" 1
  draw "diffusion, 1 axis" d1.png n1.h5 --observable diffusion
  has "diffusion, 1 axis: long-time values with error bars" "with yerrorbars" 1
  draw "expr, 1 axis, --grid 2" e1g.png n1.h5 --observable expr --grid 2
  has "expr --grid: over time again" "with filledcurves" 2
  has "expr --grid: the grid point in the title" 'k\} = 1.5' +
  # --spec: the figure description as JSON, what gnuplot draws
  spec "spec expr, 1 axis" 'd["figure"] == "expr" and len(d["panels"]) == 2 and
    all(p["kind"] == "points" and p["xlabel"] == [["italic", "k"]] and len(p["series"][0]["x"]) == 4
        for p in d["panels"])' n1.h5 --observable expr
  spec "spec expr --grid: over time" 'd["panels"][0]["kind"] == "lines" and
    d["panels"][0]["series"][0]["lo"] is not None and ["italic", "k"] in d["subtitle"]' \
    n1.h5 --observable expr --grid 2
  spec "spec moments, 1 axis: curves with two bands" 'd["figure"] == "moments" and
    len(d["panels"][0]["series"]) == 4 and d["panels"][0]["series"][0]["lo2"] is not None' \
    n1.h5 --observable moments
fi
if run ou --paths 64 --t-end 1 --scan k=0.5:2:3 --scan D=0.1:0.4:2 "${OBS[@]}" -o n2.h5; then
  draw "expr, 2 axes" e2.png n2.h5 --observable expr
  has "expr, 2 axes: maps" "^splot .* with pm3d" 2
  draw "diffusion, 2 axes" d2.png n2.h5 --observable diffusion
  has "diffusion, 2 axes: a map" "^splot .* with pm3d" 1
  # (b) --stat variance
  draw "cov --stat variance" cv.png n2.h5 --observable cov --stat variance
  has "cov variance: a map of var x" 'cblabel "var \{/:Italic x\}"' 1
  draw "moments --stat variance" mv.png n2.h5 --observable moments --stat variance --grid 0
  has "moments variance: the variance drawn" 'ylabel "var \{/:Italic x\}"' 1
  has "moments variance: no bands" "filledcurves" 0
  bad "expr --stat variance" "--stat variance: the expr picture has no variance" \
    n2.h5 --observable expr --stat variance
  bad "--stat bogus" "--stat 'bogus': expected mean or variance" n2.h5 --stat bogus
  # --show of a series in a two-axis scan: a map of its last values; --stat
  # variance: of GROUP/var_X
  draw "--show moments/mean_x, 2 axes" sm2.png n2.h5 --show moments/mean_x
  has "--show, 2 axes: a map" "^splot .* with pm3d" 1
  has "--show, 2 axes: of the mean" 'cblabel "moments/mean\\\\_x"' 1
  draw "--show moments/mean_x --stat variance, 2 axes" sv2.png n2.h5 --show moments/mean_x \
    --stat variance
  has "--show --stat variance, 2 axes: of the variance" 'cblabel "moments/var\\\\_x"' 1
  # without --observable: only the pictures that have a variance
  rm -f all.*.png
  if "$BIN" plot n2.h5 --stat variance -o all.png --quiet 2>"$T/err"; then
    [ -f all.moments.png ] && [ -f all.cov.png ] && [ ! -e all.expr.png ] && pass ||
      failed "--stat variance drew: $(ls all.*.png | tr '\n' ' ')"
  else
    failed "--stat variance without --observable: $(head -c 300 "$T/err")"
  fi
fi

# (c) first passage from a real run, when this sdekit has [boundaries]
cat >bm.sde <<'EOF'
[model]
name = bm-interval
vars = x
[params]
L = 1
mu = 0.2
[drift]
x = mu
[noise]
x = 1
[init]
x = 0.3
[boundaries]
left = absorb x <= 0
right = absorb x >= L
EOF
if "$BIN" run ./bm.sde --paths 500 --t-end 2 --observe fpt --quiet -o r0.h5 2>/dev/null; then
  draw "real fpt, no scan" r0.png r0.h5 --observable fpt
  has "real fpt: histogram per boundary" "index 1 using 1:2:3 with boxes" 1
  has "real fpt: survival band" "using 1:3:4 with filledcurves" 1
  has "real fpt: the boundaries named" 'set xtics \("left" 1, "right" 2\)' 1
  if run ./bm.sde --paths 200 --t-end 2 --scan mu=-0.5:0.5:3 --observe fpt -o r1.h5; then
    draw "real fpt, 1 axis" r1.png r1.h5 --observable fpt
    has "real fpt, 1 axis: split and mean against mu" "with yerrorbars" 2
    draw "real fpt, 1 axis, --grid 1" r1g.png r1.h5 --observable fpt --grid 1
    has "real fpt --grid: the histogram of that grid point" "with boxes" 1
  fi
  if run ./bm.sde --paths 200 --t-end 2 --scan mu=-0.5:0.5:3 --scan L=1:2:2 --observe fpt -o r2.h5; then
    draw "real fpt, 2 axes" r2.png r2.h5 --observable fpt
    has "real fpt, 2 axes: a map per boundary" "^splot .* with pm3d" 2
  fi
  # one boundary: no splitting probability (identically 1)
  grep -v '^left' bm.sde >bm1.sde
  if run ./bm1.sde --paths 200 --t-end 2 --observe fpt -o q0.h5; then
    spec "one boundary: no splitting panel" 'all(p["ylabel"] != [["", "splitting prob."]]
      for p in d["panels"]) and len(d["panels"]) == 2' q0.h5 --observable fpt
  fi
  if run ./bm1.sde --paths 200 --t-end 2 --scan mu=-0.5:0.5:3 --observe fpt -o q1.h5; then
    spec "one boundary, 1 axis: the mean, no splitting" 'all(p["ylabel"] != [["", "splitting prob."]]
      for p in d["panels"]) and d["panels"][0]["ylabel"] == [["", "mean "], ["italic", "τ"]]' \
      q1.h5 --observable fpt
  fi
else
  echo "cli_plot_obs: this sdekit has no [boundaries]; the real fpt runs skipped"
fi

# (c') first passage and time averages: synthetic groups in the shared layout
if /usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null && [ -f n0.h5 ] && [ -f n1.h5 ]; then
  cat >gen.py <<'EOF'
# Copy a result file and add fpt/ and tavg/ in the layout of issue 13's
# shared design (boundaries left, right; 20 bins; 50 sample times).
import shutil, sys
import h5py
import numpy as np
src, dst = sys.argv[1:3]
shutil.copyfile(src, dst)
with h5py.File(dst, "r+") as f:
    axes = [a.decode() if isinstance(a, bytes) else a for a in f["scan"].attrs["axes"]]
    grid = tuple(f["scan/" + a].shape[0] for a in axes)
    nb, bins, ns = 2, 20, 50
    g = f.create_group("fpt")
    g.attrs["boundaries"] = "left,right"
    def ds(name, data, err=None):
        d = g.create_dataset(name, data=data)
        if err:
            d.attrs["standard_error"] = err
    ramp = np.linspace(0.2, 0.4, int(np.prod(grid))).reshape(grid)
    ds("split", np.stack([ramp, 1 - ramp], axis=-1), "split_err")
    ds("split_err", np.full(grid + (nb,), 0.02))
    ds("mean", np.full(grid + (nb,), 1.5), "mean_err")
    ds("mean_err", np.full(grid + (nb,), 0.1))
    ds("exit_mean", np.full(grid, 1.4), "exit_err")
    ds("exit_err", np.full(grid, 0.1))
    ds("censored", np.full(grid, 3, dtype=np.int64))
    ds("lower_bound", np.ones(grid, dtype=np.int64))
    edges = np.linspace(0, 4, bins + 1)
    c = 0.5 * (edges[1:] + edges[:-1])
    h = np.stack([1000 * np.exp(-c), 2000 * c * np.exp(-c)])
    ds("hist", np.broadcast_to(h, grid + h.shape).astype(np.uint64))
    ds("hist_edges", edges)
    t = np.linspace(0, 4, ns)
    ds("t", t)
    S = np.exp(-t)
    ds("survival", np.broadcast_to(S, grid + (ns,)).copy(), "survival_err")
    ds("survival_err", np.broadcast_to(0.05 * np.sqrt(S * (1 - S)), grid + (ns,)).copy())
    ta = f.create_group("tavg")
    ta.attrs["transient"] = 0.25
    ta.attrs["t_end"] = 1.0
    for n, v in (("x", 0.1), ("E", 0.5)):
        d = ta.create_dataset("mean_" + n, data=np.full(grid, v))
        d.attrs["standard_error"] = "err_" + n
        ta.create_dataset("err_" + n, data=np.full(grid, 0.03))
EOF
  for k in 0 1 2; do
    [ -f n$k.h5 ] && /usr/bin/python3 gen.py n$k.h5 f$k.h5 || failed "synthetic f$k.h5"
  done
  draw "fpt, no scan" f0.png f0.h5 --observable fpt
  has "fpt: histogram boxes per boundary" "with boxes" 1
  has "fpt: two boundaries in the histogram" "index 1 using 1:2:3 with boxes" 1
  has "fpt: survival with its band" "using 1:3:4 with filledcurves.*standard error" 1
  has "fpt: splitting probabilities with error bars" "with yerrorbars" 1
  has "fpt: boundary names on the x axis" 'set xtics \("left" 1, "right" 2\)' 1
  has "fpt: censored paths noted" "3 paths censored" 1
  draw "fpt, 1 axis" f1.png f1.h5 --observable fpt
  has "fpt, 1 axis: split and mean against k" "with yerrorbars" 2
  has "fpt, 1 axis: x is k" 'set xlabel "\{/:Italic k\}"' 2
  if [ -f f2.h5 ]; then
    draw "fpt, 2 axes" f2.png f2.h5 --observable fpt
    has "fpt, 2 axes: a map per boundary" "^splot .* with pm3d" 2
  fi
  draw "tavg, 1 axis" t1.png f1.h5 --observable tavg
  has "tavg: a panel per time average" "with yerrorbars" 2
  has "tavg: the interval" "time averages over \[0.25, 1\]" 1
  draw "tavg, no scan" t0.png f0.h5 --observable tavg
  has "tavg, no scan: the values written" 'set label 1 "0.500 ± 0.030"' 1
  # (d) --show
  draw "--show fpt/survival" s1.png f0.h5 --show fpt/survival
  has "--show survival: band from standard_error" "with filledcurves" 1
  has "--show survival: over time" 'set xlabel "time' 1
  draw "--show fpt/split, 1 axis" s2.png f1.h5 --show fpt/split
  has "--show split: an entry per boundary" "index 1 using 1:2:3 with yerrorbars" 1
  draw "--show expr/mean_E, 1 axis" s3.png n1.h5 --show expr/mean_E
  # a series in a scan of one axis: a curve per grid point over time (its
  # last value against k said nothing about it)
  has "--show expr/mean_E, 1 axis: a curve per k" "index 3 using 1:3:4 with filledcurves" 1
  has "--show expr/mean_E, 1 axis: named by k" 'title "\{/:Italic k\} = 2"' 1
  draw "--show moments/mean_x --stat variance" s4.png n0.h5 --show moments/mean_x --stat variance
  has "--show variance: var_x drawn" 'ylabel "moments/var\\\\_x"' 1
  bad "--show unknown" "--show 'nosuch': 'f0.h5' has no such dataset (it has: cov/error, " \
    f0.h5 --show nosuch
  bad "--show and --observable" "--observable and --show: give one of them" \
    f0.h5 --show fpt/t --observable fpt
  bad "--show too many dimensions" "--show 'cov/value': cannot draw a dataset of 3 dimensions" \
    n0.h5 --show cov/value
  bad "--show expr variance" "--stat variance: /expr/mean_E has no variance beside it" \
    n0.h5 --show expr/mean_E --stat variance
  # (f) issue 29's fixes, checked in the figure descriptions (--spec)
  # a scan's fpt figure: the scanned k is on the x axis, not in the subtitle;
  # S(t) at one grid point says which, on a log axis (it spans decades)
  spec "fpt in a scan: k not named fixed" '["italic", "k"] not in d["subtitle"] and
    ["italic", "k"] in d["panels"][-1]["series"][0]["title"] and d["panels"][-1]["ylog"]' \
    f1.h5 --observable fpt
  spec "fpt: keys outside the plot areas, each once" 'd["panels"][0]["key"] and
    not d["panels"][1]["key"] and all(not p["key"] or p["key"][0] > p["box"][1]
    for p in d["panels"])' f1.h5 --observable fpt
  spec "fpt: S(t) on a log axis" 'any(p["ylog"] for p in d["panels"]) and
    d["panels"][1]["ylabel"][0] == ["", "survival "]' f0.h5 --observable fpt
  # --show of a series in a scan: over time, a curve per grid point (not its
  # last value against the parameter)
  spec "--show fpt/survival in a scan: curves over time" 'len(d["panels"]) == 1 and
    d["panels"][0]["kind"] == "lines" and len(d["panels"][0]["series"]) == 4 and
    ["italic", "k"] not in d["subtitle"]' f1.h5 --show fpt/survival
  # time averages without a scan: one panel, a named point each
  spec "tavg, no scan: one panel" 'len(d["panels"]) == 1 and len(d["panels"][0]["categories"]) == 2' \
    f0.h5 --observable tavg
  # histograms of three or more quantities: two columns, few tick labels
  if run ou2_correlated --paths 500 --t-end 1 --observe hist --observe-expr E=x*x -o h3.h5; then
    spec "hist of 3+: two columns" 'len(d["panels"]) >= 3 and
      len(set(p["box"][0] for p in d["panels"])) == 2 and all(p["xstep"] > 0 for p in d["panels"])' \
      h3.h5 --observable hist
  fi
  # saved paths beside a density: in a panel of their own on the same axes,
  # not over the map (they hid it)
  if run ou --paths 200 --t-end 1 --observe density --save-paths 0,1 -o dp.h5; then
    spec "density and paths: the paths below the map" 'd["panels"][0]["kind"] == "map" and
      d["panels"][0]["series"] == [] and d["panels"][1]["kind"] == "lines" and
      len(d["panels"][1]["series"]) == 2 and
      d["panels"][1]["xrange"] == [d["panels"][0]["xe"][0], d["panels"][0]["xe"][-1]] and
      d["panels"][1]["yrange"] == d["panels"][0]["yrange"]' dp.h5 --observable density
    spec "paths alone" 'd["figure"] == "paths" and len(d["panels"][0]["series"]) == 2' \
      dp.h5 --observable paths
  fi
  # --adaptive: the step in the title is dt-max, the largest a step may be
  if run ou --paths 200 --t-end 1 --adaptive --dt-max 0.25 --observe moments -o ad.h5; then
    spec "--adaptive: dt-max in the title" '["", "-max"] in d["title"] and
      ["", "0.25"] in d["title"]' ad.h5 --observable moments
    spec "fixed steps: dt in the title" '["italic", "dt"] in d["title"] and
      ["", "-max"] not in d["title"]' dp.h5 --observable paths
  fi
  # every kind of this file as PDF and SVG too (cli_plot: the others)
  for f in n1 f0 f1; do
    for fmt in pdf svg; do
      rm -f vo.*
      if "$BIN" plot $f.h5 -o vo.$fmt --quiet 2>"$T/err"; then
        for v in vo.*; do
          if [ $fmt = pdf ] && [ "$(head -c 4 "$v")" = "%PDF" ]; then
            pass
          elif [ $fmt = svg ] && grep -q '</svg>' "$v"; then
            pass
          else
            failed "$f as $fmt: $v is no $fmt file"
          fi
        done
      else
        failed "$f as $fmt: $(head -c 300 "$T/err")"
      fi
    done
  done
  # --log
  spec "--log x" 'all(p["xlog"] and not p["ylog"] for p in d["panels"])' n0.h5 --observable expr \
    --log x
  spec "--log xy" 'all(p["xlog"] and p["ylog"] and p["yrange"][0] > 0 for p in d["panels"])' \
    n0.h5 --observable expr --log xy
  draw "--log y drawn" ly.png n0.h5 --observable expr --log y
  has "--log y: in the script" "set logscale y" 2
  bad "--log z" "--log 'z': expected x, y or xy" n0.h5 --log z
  # log-spaced samples (issue 29): time on a log axis; the mean-square
  # displacement of Brownian motion (its variance, spanning decades) on log-log
  # axes; a mean that crosses zero stays linear; evenly spaced samples stay linear
  printf '[model]\nname = bm\nvars = x\n[params]\nD = 0.5\n[drift]\nx = 0\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0\n' >bm.sde
  if run bm.sde --paths 512 --t-end 10 --dt 0.001 --sample-times log:0.01:10:31:round \
    --observe moments,diffusion -o msd.h5; then
    spec "log-spaced samples: log time, the mean linear" 'd["panels"][0]["xlog"] and
      not d["panels"][0]["ylog"]' msd.h5 --observable moments
    spec "log-spaced samples: the MSD on log-log axes" 'd["panels"][0]["xlog"] and
      d["panels"][0]["ylog"]' msd.h5 --observable moments --stat variance
    spec "log-spaced samples: D_eff over log time" 'd["panels"][0]["xlog"]' msd.h5 \
      --observable diffusion
    spec "--log y overrides the choice" 'not d["panels"][0]["xlog"] and d["panels"][0]["ylog"]' \
      msd.h5 --observable moments --stat variance --log y
  fi
  # the power spectral density on log-log axes (issue 29, issue 31's psd)
  if run ou --paths 256 --t-end 20 --dt 0.01 --sample-every 1 --observe psd --psd-segment 256 \
    -o psd.h5; then
    spec "psd: log-log axes" 'd["figure"] == "psd" and d["panels"][0]["xlog"] and
      d["panels"][0]["ylog"]' psd.h5 --observable psd
  fi
  if run bm.sde --paths 512 --t-end 10 --dt 0.01 --sample-every 10 --observe moments -o msdl.h5; then
    spec "evenly spaced samples: linear axes" 'not d["panels"][0]["xlog"] and
      not d["panels"][0]["ylog"]' msdl.h5 --observable moments --stat variance
  fi
  # (e) hist and density of a user observable (hist/E, density/E beside the
  # variables', as runs that bin them write them): drawn as a variable's,
  # --var E picks it
  if run ou --paths 300 --t-end 1 --scan k=0.5:2:3 --observe hist,density,expr \
    --observe-expr E=x*x -o hq.h5; then
    /usr/bin/python3 - <<'EOF' || failed "synthetic hist/E"
import h5py
with h5py.File("hq.h5", "r+") as f:
    if "hist/E" not in f:
        f["hist"].copy("x", "E")
        f["hist"].attrs["observables"] = ["E"]
    if "density/E" not in f:
        f["density"].copy("x", "E")
        del f["density/x"]
EOF
    draw "hist of x and E" hq.png hq.h5 --observable hist
    has "hist: a panel of E" 'xlabel "\{/:Italic E\}"' 1
    draw "hist --var E" hqe.png hq.h5 --observable hist --var E
    has "hist --var E: only E" "^plot " 1
    draw "density of E" hqd.png hq.h5 --observable density --var E
    has "density of E" 'ylabel "\{/:Italic E\}"' 1
    bad "moments --var E" "'hq.h5' has no moments results" hq.h5 --observable moments --var E
  fi
else
  echo "cli_plot_obs: python3 with h5py not found; synthetic fpt/tavg files skipped"
fi

# one path: its variances and standard errors are NaN; the pictures of them
# are drawn empty on fixed ranges (gnuplot cannot scale an axis to no points)
if run ou --paths 1 --t-end 1 --observe moments,cov,diffusion --sample-every 10 -o one.h5; then
  draw "one path: cov" one-cov.png one.h5 --observable cov && has "one path: cov's fixed range" "set yrange \[-1:1\]" +
  draw "one path: variance" one-var.png one.h5 --observable moments --stat variance
  draw "one path: diffusion" one-dif.png one.h5 --observable diffusion
fi

echo "cli_plot_obs: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
