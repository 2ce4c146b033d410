#!/usr/bin/env bash
# Fig. 3 of the paper (Januszewski & Kostur 2010): the Josephson junction
# (model josephson, paper Eq. 1, the paper's parameters a = 4.2, gamma = 0.9,
# omega = 4.9, D = 0.001, f = 0.1) with 2^19 paths over 2000 periods of the
# driving, 100 steps per period, SRK2.
#   left:  the coarse-grained density P(x, t) (bins one potential period
#          wide) over time, with five sample paths on top;
#   right: the final coarse-grained distribution from the same run in single
#          and in double precision, overlaid.
# On a GPU (build/sdekit devices --count is not 0) it runs at the paper's size; on the
# CPU it scales down (2^14 paths, 400 periods) and says so.  Override with
# PATHS=... PERIODS=... BACKEND=cpu|cuda.  RUN_ONLY=1 only computes (say on a
# GPU machine without gnuplot); PLOT_ONLY=1 only draws from the results/ of
# an earlier run (the title then comes from the data's own header).
#
# Writes results/fig3-{single,double}.{h5,density.tsv,paths.tsv} and
# results/figures/fig3-josephson-density.png (docs/figures with
# --update-docs).  Needs build/sdekit ('make') and gnuplot (Debian: gnuplot-nox).
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
  echo "fig3: $SDK not found; run 'make' first" >&2
  exit 1
fi
if [ "${RUN_ONLY:-0}" != 1 ] && ! command -v gnuplot >/dev/null 2>&1; then
  echo "fig3: gnuplot is not installed (Debian: apt-get install gnuplot-nox)" >&2
  exit 1
fi
if [ "${PLOT_ONLY:-0}" != 1 ]; then
  if [ -z "${BACKEND:-}" ]; then
    if [ "$("$SDK" devices --count 2>/dev/null || echo 0)" != 0 ]; then BACKEND=cuda; else BACKEND=cpu; fi
  fi
  if [ "$BACKEND" = cuda ]; then
    PATHS=${PATHS:-524288} PERIODS=${PERIODS:-2000} BINS=${BINS:-600}
  else
    PATHS=${PATHS:-16384} PERIODS=${PERIODS:-400} BINS=${BINS:-300}
  fi
  echo "fig3: backend $BACKEND: $PATHS paths, $PERIODS periods, 100 steps per period" \
    "(the paper: 524288 paths, 2000 periods, on a GPU)"

  # The same run (same seed) in single and in double precision.  Density and
  # saved paths are sampled once per period (every 100 steps).
  # (Both save the sample paths, so that each writes BASE.density.tsv and
  # BASE.paths.tsv.)
  for prec in single double; do
    "$SDK" run josephson --backend "$BACKEND" --precision "$prec" --paths "$PATHS" \
      --periods "$PERIODS" --spp 100 --scheme srk2 --seed 2010 --observe density --coarse-grain \
      --bins "$BINS" --save-paths 0,1,2,3,4 --sample-every 100 \
      -o "results/fig3-$prec.h5" -o "results/fig3-$prec.tsv"
  done
fi
[ "${RUN_ONLY:-0}" = 1 ] && exit 0
for f in results/fig3-{single,double}.{density,paths}.tsv; do
  if [ ! -f "$f" ]; then
    echo "fig3: $f not found: PLOT_ONLY=1 draws the data of an earlier run of this script" >&2
    exit 1
  fi
done
# what the data says about itself (header lines '# key: value')
hdr() { awk -v k="# $1:" 'index($0, k) == 1 { print $(NF); exit } !/^#/ { exit }' "$2"; }
PATHS=$(hdr paths results/fig3-single.density.tsv)
BACKEND=$(hdr backend results/fig3-single.density.tsv)
PERIODS=$(($(hdr steps results/fig3-single.density.tsv) / 100))

T=$(mktemp -d "${TMPDIR:-/tmp}/fig3.XXXXXX")
trap 'rm -rf "$T"' EXIT

# density.tsv: blocks "t x_lo x_hi density", one per sample, each with its own
# range of bins one period wide.  Put them on one grid (at most 500 columns)
# for 'with image'; empty bins become NaN (drawn white).
awk -v out="$T/grid.dat" '
  /^# period:/ { T = $3 }
  /^#/ || NF < 4 { next }
  {
    if (!($1 in si)) { si[$1] = ns; ts[ns++] = $1 }
    w = $3 - $2
    b = int(($2 < 0 ? $2 / w - 0.5 : $2 / w + 0.5))   # bin index on one global grid
    P[si[$1], b] = $4
    if ($4 > 0) {                                    # rows: where the density is
      if (n == 0 || b < bmin) bmin = b
      if (n == 0 || b > bmax) bmax = b
      n++
    }
  }
  END {
    k = int((ns + 499) / 500)
    for (s = 0; s < ns; s += k) {
      for (b = bmin; b <= bmax; b++) {
        v = ((s, b) in P) && P[s, b] > 0 ? P[s, b] : "NaN"
        printf "%.8g %.8g %s\n", ts[s] / T, (b + 0.5) * w, v > out
      }
      print "" > out
    }
    printf "%.10g\n", T
  }' results/fig3-single.density.tsv >"$T/period"
PERIOD=$(cat "$T/period")

# The final distribution of each run, with its mean and standard deviation.
final() {
  awk -v out="$2" '
    /^#/ || NF < 4 { next }
    { t[NR] = $1; lo[NR] = $2; hi[NR] = $3; p[NR] = $4; if ($1 + 0 > tmax) tmax = $1 + 0 }
    END {
      for (i = 1; i <= NR; i++) if ((i in t) && t[i] + 0 == tmax) {
        x = (lo[i] + hi[i]) / 2; w = hi[i] - lo[i]
        printf "%.8g %.8g\n", x, p[i] > out
        m0 += p[i] * w; m1 += p[i] * w * x; m2 += p[i] * w * x * x
        if (p[i] > 0) { if (xlo == "" || lo[i] < xlo) xlo = lo[i]; if (xhi == "" || hi[i] > xhi) xhi = hi[i] }
      }
      m = m1 / m0; printf "%.2f %.2f %g %g\n", m, sqrt(m2 / m0 - m * m), xlo, xhi
    }' "$1"
}
read -r MEAN_S SD_S XLO_S XHI_S < <(final results/fig3-single.density.tsv "$T/single.dat")
read -r MEAN_D SD_D XLO_D XHI_D < <(final results/fig3-double.density.tsv "$T/double.dat")
XLO=$(awk -v a="$XLO_S" -v b="$XLO_D" 'BEGIN { print (a < b ? a : b) - 2 }')
XHI=$(awk -v a="$XHI_S" -v b="$XHI_D" 'BEGIN { print (a > b ? a : b) + 2 }')

pow2() { # 524288 -> 2^{19}
  local n=$1 k=0
  while [ $((1 << k)) -lt "$n" ]; do k=$((k + 1)); done
  if [ $((1 << k)) -eq "$n" ] && [ "$n" -ge 1024 ]; then echo "2^{$k}"; else echo "$n"; fi
}
cp results/fig3-single.paths.tsv "$T/paths.tsv"
cat >"$T/fig3.gp" <<EOF
set terminal pngcairo size 1400,620 enhanced font 'DejaVu Sans,14' linewidth 1.5
set encoding utf8
set output 'fig3.png'
set multiplot title "Josephson junction (paper Fig. 3): $(pow2 "$PATHS") paths, $PERIODS periods, 100 steps per period, SRK2, $BACKEND\n{/*0.8 {/:Italic a} = 4.2, {/:Italic γ} = 0.9, {/:Italic ω} = 4.9, {/:Italic D} = 0.001, {/:Italic f} = 0.1}" font ',15'
# left: coarse-grained density over time, sample paths on top
set lmargin at screen 0.065
set rmargin at screen 0.47
set tmargin at screen 0.84
set bmargin at screen 0.13
set title "coarse-grained density and five sample paths (single precision)" font ',14'
set xlabel "time {/:Italic t} / {/:Italic T}  (periods of the driving)"
set ylabel "{/:Italic x}"
set cblabel "{/:Italic P}({/:Italic x}, {/:Italic t})" offset 0.5,0
set logscale cb
set format cb '10^{%L}'
unset mcbtics
set palette defined (0 '#ffffff', 0.12 '#fff3b0', 0.35 '#fec44f', 0.6 '#f46d43', 0.82 '#c2185b', 1 '#4a0a50')
set colorbox user origin screen 0.48, screen 0.13 size screen 0.012, screen 0.71
set autoscale fix
set tics front
set mxtics
set mytics
set key top left opaque box font ',12'
plot '$T/grid.dat' using 1:2:3 with image notitle, \
     '$T/paths.tsv' using (\$2/$PERIOD):3 with lines lw 1.2 lc rgb 'black' title 'sample paths'
# right: final distributions, single and double precision
unset logscale cb
unset colorbox
set autoscale
set lmargin at screen 0.665
set rmargin at screen 0.98
set xrange [$XLO:$XHI]
set title "final distribution at {/:Italic t} = $PERIODS {/:Italic T}" font ',14'
set xlabel "{/:Italic x}"
set ylabel "coarse-grained {/:Italic P}({/:Italic x})"
set grid lc rgb '#d8d8d8' lw 0.7
set key top right box opaque font ',12' spacing 1.2
set offsets 0, 0, graph 0.22, 0
plot '$T/single.dat' using 1:2 with histeps lw 2.5 lc rgb '#0072B2' \
       title "single: ⟨{/:Italic x}⟩ = $MEAN_S, σ = $SD_S", \
     '$T/double.dat' using 1:2 with histeps lw 1.5 dt (6,4) lc rgb '#D55E00' \
       title "double: ⟨{/:Italic x}⟩ = $MEAN_D, σ = $SD_D"
unset multiplot
EOF
(cd "$T" && gnuplot fig3.gp)
[ -n "${FIG3_KEEP:-}" ] && cp -r "$T" "$FIG3_KEEP"
cp "$T/fig3.png" "$FIG"/fig3-josephson-density.png
echo "fig3: wrote $FIG/fig3-josephson-density.png" \
  "(data: results/fig3-single.h5, results/fig3-double.h5)"
