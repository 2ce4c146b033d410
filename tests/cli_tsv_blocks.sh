#!/usr/bin/env bash
# cli_tsv_blocks.sh: the TSV layout gnuplot reads.  Blocks (one per grid point
# of a time series, per variable and grid point of a histogram, the long-time
# values of the diffusion after its series) are separated by exactly two blank
# lines, so that gnuplot's `index N` picks one; inside a block a single blank
# line only separates the scan lines of a surface (two-parameter scans).
#   (a) a one-parameter scan of 3 points with a time axis: moments, expr, cov
#       and diffusion have one block per grid point (diffusion one more),
#       each of the same number of lines; hist one per grid point and
#       histogrammed quantity (the variable x and the user observable E);
#   (b) a 3 x 2 scan: the drift is one block of 3 scan lines of 2 points;
#   (c) gnuplot itself (when installed) counts the same blocks (STATS_blocks).
# Counting follows gnuplot's rules: '#' lines are skipped, a run of two or
# more blank lines ends a block, a single one ends a scan line.
#
# Environment (set by CTest): SDK_BIN.
set -u

BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_tsv_blocks: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/cli_tsv_blocks.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export SDEKIT_CACHE_DIR=${SDEKIT_CACHE_DIR:-$T/cache}
unset SDEKIT_MODEL_PATH
cd "$T" || exit 1

npass=0
nfail=0
check() { # NAME GOT WANT
  if [ "$2" = "$3" ]; then
    npass=$((npass + 1))
  else
    nfail=$((nfail + 1))
    echo "FAIL: $1: got '$2', expected '$3'"
  fi
}

# blocks FILE: "B L1,L2,... S" -- the number of blocks, the data lines of
# each, and the number of scan lines (single-blank separated) of the first.
blocks() {
  awk '
    /^#/ { next }
    /^[ \t]*$/ { blank++; next }
    {
      if (nb == 0 || blank >= 2) { nb++; lines[nb] = 0; scans[nb] = 1 }
      else if (blank == 1) scans[nb]++
      blank = 0
      lines[nb]++
    }
    END {
      s = ""
      for (i = 1; i <= nb; i++) s = s (i > 1 ? "," : "") lines[i]
      print nb, s, (nb ? scans[1] : 0)
    }' "$1"
}

# (a) one-parameter scan with a time axis
if "$BIN" run ou --paths 64 --t-end 1 --sample-every 10 --scan k=0.5:2:3 \
  --observe moments,hist,cov,diffusion,expr --observe-expr E=x*x --bins 8 --quiet \
  -o s.tsv 2>err; then
  read -r _ per _ < <(blocks s.moments.tsv)
  n1=${per%%,*}
  check "moments blocks" "$(blocks s.moments.tsv)" "3 $n1,$n1,$n1 1"
  [ "$n1" -gt 2 ] && check "moments samples per block" ok ok ||
    check "moments samples per block" "$n1" "more than 2"
  check "expr blocks" "$(blocks s.expr.tsv)" "3 $n1,$n1,$n1 1"
  check "cov blocks" "$(blocks s.cov.tsv)" "3 $n1,$n1,$n1 1"
  check "diffusion blocks" "$(blocks s.diffusion.tsv)" "4 $n1,$n1,$n1,3 1"
  check "hist blocks" "$(blocks s.hist.tsv)" "6 8,8,8,8,8,8 1"
  # exactly two blank lines between blocks, never three
  check "no triple blank lines" "$(awk '/^$/ { b++; if (b > m) m = b; next } { b = 0 } END { print m + 0 }' \
    s.moments.tsv s.expr.tsv s.cov.tsv s.diffusion.tsv s.hist.tsv)" 2
else
  check "1-parameter run" "failed: $(head -c 300 err)" ok
fi

# (b) two-parameter scan: one surface, one block
if "$BIN" run ou --paths 64 --t-end 1 --scan k=0.5:2:3 --scan D=0.1:0.2:2 --observe drift,moments \
  --quiet -o d.tsv 2>err; then
  check "2-D drift: one block of 3 scan lines" "$(blocks d.drift.tsv)" "1 6 3"
  read -r nb _ _ < <(blocks d.moments.tsv)
  check "2-D moments: one block per grid point" "$nb" 6
else
  check "2-parameter run" "failed: $(head -c 300 err)" ok
fi

# (b'') psd: one block per grid point, its header naming the segment, the
# window and the number of segments (the HDF5 file's /psd attributes)
if "$BIN" run ou --paths 16 --t-end 2 --dt 0.01 --sample-every 1 --scan k=1,2 --observe psd \
  --psd-segment 64 --psd-window rect --quiet -o p.tsv 2>err; then
  check "psd blocks" "$(blocks p.tsv)" "2 33,33 1"
  check "psd header" "$(grep '^# psd_' p.tsv | tr '\n' '|')" \
    "# psd_segment: 64 samples|# psd_window: rect|# psd_segments: 5 per path (overlapping by half)|"
else
  check "psd run" "failed: $(head -c 300 err)" ok
fi

# (b') first passage (when this sdekit has [boundaries]): the summary (one
# block; a surface of scan lines over two axes), the survival per grid point,
# the histogram per grid point and boundary
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
if "$BIN" run ./bm.sde --paths 64 --t-end 1 --sample-every 10 --bins 5 --scan mu=-0.5:0.5:3 \
  --observe fpt --quiet -o f1.tsv 2>/dev/null; then
  read -r nb per sc < <(blocks f1.tsv)
  check "fpt blocks (1 + 3 + 3 x 2)" "$nb" 10
  check "fpt summary: one line per grid point" "${per%%,*} $sc" "3 1"
  check "fpt histograms: 5 bins each" "$(echo "$per" | cut -d, -f5-)" "5,5,5,5,5,5"
  "$BIN" run ./bm.sde --paths 64 --t-end 1 --sample-every 10 --bins 5 --scan mu=-0.5:0.5:3 \
    --scan L=1:2:2 --observe fpt --quiet -o f2.tsv 2>err
  read -r nb per sc < <(blocks f2.tsv)
  check "fpt 2-D: blocks (1 + 6 + 6 x 2)" "$nb" 19
  check "fpt 2-D summary: 3 scan lines of 2" "${per%%,*} $sc" "6 3"
fi

# (c) gnuplot agrees
if command -v gnuplot >/dev/null 2>&1 && [ -f s.moments.tsv ] && [ -f d.drift.tsv ]; then
  for f in s.moments.tsv s.expr.tsv s.cov.tsv s.diffusion.tsv s.hist.tsv d.drift.tsv; do
    read -r want _ < <(blocks "$f")
    got=$(gnuplot -e "stats '$f' using 2 nooutput; print STATS_blocks" 2>&1 | tail -n 1)
    check "gnuplot blocks of $f" "$got" "$want"
  done
  got=$(gnuplot -e "stats 's.moments.tsv' index 2 using 2 nooutput; print STATS_records" 2>&1 | tail -n 1)
  read -r _ per _ < <(blocks s.moments.tsv)
  check "gnuplot index 2 of the moments" "$got" "${per%%,*}"
else
  echo "cli_tsv_blocks: gnuplot not installed; its own count skipped"
fi

echo "cli_tsv_blocks: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
