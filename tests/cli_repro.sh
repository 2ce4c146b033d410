#!/usr/bin/env bash
# cli_repro.sh: reproducibility and output conventions of 'sdekit run'.
#   (a) the same seed twice gives byte-identical .h5 and .tsv files;
#   (b) --threads 1 and --threads 2 give byte-identical results;
#   (c) different seeds give different drift values;
#   (d) single and double precision agree within the statistical error;
#   (f) -o - (stdout), BASE.OBS.tsv for several observables, 'sdekit info';
#   (g) 'sdekit models', 'sdekit --help', 'sdekit run --help'.
#
# Environment (set by CTest): SDK_BIN (the sdekit binary), SDK_SOURCE_DIR,
# SDEKIT_CACHE_DIR (kernel cache; a private one is used when unset).
set -u

BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_repro: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/cli_repro.XXXXXX") || exit 1
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
# check NAME COMMAND...: passes when COMMAND succeeds.
check() {
  local name=$1
  shift
  if "$@"; then pass; else failed "$name"; fi
}

# sdk DIR ARGS...: run "sdekit run ARGS..." inside $T/DIR (created); a non-zero
# exit status is a failed check, with stderr shown.  The command line is
# stored in the .h5 file, so runs that are compared use the same relative
# output names in different directories.
sdk() {
  local dir=$1
  shift
  mkdir -p "$T/$dir"
  (cd "$T/$dir" && "$BIN" run "$@" 2>"$T/stderr")
  local rc=$?
  [ "$rc" -eq 0 ] && return 0
  failed "sdekit run $* (in $dir) exited with status $rc: $(head -c 400 "$T/stderr")"
  return 1
}

# same_files NAME DIR1 DIR2 FILE...: each FILE byte-identical in both dirs.
same_files() {
  local name=$1 d1=$2 d2=$3 f
  shift 3
  for f in "$@"; do
    if [ ! -f "$T/$d1/$f" ] || [ ! -f "$T/$d2/$f" ]; then
      failed "$name: $f missing ($(ls "$T/$d1" "$T/$d2" | tr '\n' ' '))"
    elif cmp -s "$T/$d1/$f" "$T/$d2/$f"; then
      pass
    else
      failed "$name: $d1/$f and $d2/$f differ ($(cmp "$T/$d1/$f" "$T/$d2/$f" 2>&1 | head -1))"
    fi
  done
}

# data FILE: the data lines of a TSV file (no '#' lines)
data() { grep -v '^#' "$1"; }

JS=(josephson --scan a=4.2:5.2:2 --paths 257 --periods 20 --transient-periods 5 --quiet)
OU=(ou --paths 301 --t-end 2 --quiet)

# ---------------- (a) same seed twice ----------------
for d in a1 a2; do
  sdk $d "${JS[@]}" --observe drift,moments,hist --seed 7 -o r.h5
  sdk $d "${JS[@]}" --observe drift,moments,hist --seed 7 -o r.tsv
  sdk $d "${JS[@]}" --seed 7 -o d.tsv
  sdk $d "${OU[@]}" --observe drift,moments,hist --seed 7 -o ou.h5
done
same_files "(a) same seed twice" a1 a2 r.h5 r.drift.tsv r.moments.tsv r.hist.tsv d.tsv ou.h5

# ---------------- (b) --threads 1 vs --threads 2 ----------------
for n in 1 2; do
  sdk b$n "${JS[@]}" --observe drift,moments,hist --threads $n -o r.h5
  sdk b$n "${JS[@]}" --observe drift,moments,hist --threads $n -o r.tsv
  sdk b$n "${OU[@]}" --observe drift,moments,hist --threads $n -o ou.h5
  sdk b$n "${OU[@]}" --observe drift,moments,hist --threads $n -o ou.tsv
  sdk b$n "${JS[@]}" --precision double --threads $n -o dd.tsv
done
same_files "(b) --threads 1 vs 2" b1 b2 r.drift.tsv r.moments.tsv r.hist.tsv \
  ou.drift.tsv ou.moments.tsv ou.hist.tsv dd.tsv
# The .h5 files record the command line less the options that cannot change
# the results (--threads among them), so they are byte-identical too.
same_files "(b) --threads 1 vs 2, HDF5" b1 b2 r.h5 ou.h5
# and the same default (all cores) run equals both
sdk b0 "${JS[@]}" --observe drift,moments,hist -o r.tsv
same_files "(b) default threads vs --threads 1" b0 b1 r.drift.tsv r.moments.tsv r.hist.tsv

# ---------------- (c) different seeds ----------------
sdk c1 "${JS[@]}" --seed 1 -o d.tsv
sdk c2 "${JS[@]}" --seed 2 -o d.tsv
if [ -f "$T/c1/d.tsv" ] && [ -f "$T/c2/d.tsv" ]; then
  # same grid, different drift at every grid point
  check "(c) same grid for both seeds" test "$(data "$T/c1/d.tsv" | cut -f1)" = "$(data "$T/c2/d.tsv" | cut -f1)"
  nsame=$(paste <(data "$T/c1/d.tsv") <(data "$T/c2/d.tsv") | awk -F'\t' '$2 == $5' | wc -l)
  npts=$(data "$T/c1/d.tsv" | wc -l)
  check "(c) two grid points" test "$npts" -eq 2
  check "(c) different seeds give different drift values ($nsame of $npts equal)" test "$nsame" -eq 0
fi

# ---------------- (d) single vs double precision ----------------
DS=(josephson --scan a=4.2:14.1:5 --paths 512 --periods 60 --transient-periods 10 --quiet --seed 3)
sdk d "${DS[@]}" --precision single -o single.tsv
sdk d "${DS[@]}" --precision double -o double.tsv
if [ -f "$T/d/single.tsv" ] && [ -f "$T/d/double.tsv" ]; then
  hdr_s=$(grep '^#' "$T/d/single.tsv" | tail -1)
  check "(d) TSV columns a, drift_x, drift_x_err" test "$hdr_s" = "$(printf '# a\tdrift_x\tdrift_x_err')"
  res=$(paste <(data "$T/d/single.tsv") <(data "$T/d/double.tsv") | awk -F'\t' '
    { n++
      if ($1 != $4) { bad++; print "grid mismatch " $1 " vs " $4; next }
      d = $2 - $5; if (d < 0) d = -d
      tol = 5 * sqrt($3 * $3 + $6 * $6)
      if (!(d <= tol)) { bad++; printf "a=%s single %s+-%s double %s+-%s\n", $1, $2, $3, $5, $6 } }
    END { if (n != 5) print "expected 5 grid points, got " n + 0; else if (bad) print bad " bad" }')
  check "(d) single and double drift agree within 5 sigma at every grid point: $res" test -z "$res"
fi

# ---------------- (f) output conventions ----------------
mkdir -p "$T/f"
if (cd "$T/f" && "$BIN" run josephson --scan a=4.2:5.2:3 --paths 64 --periods 10 --quiet -o - >stdout.tsv 2>stderr); then
  pass
  lasthash=$(grep '^#' "$T/f/stdout.tsv" | tail -1)
  check "(f) -o -: last '#' line is the column header (got '$lasthash')" \
    test "$lasthash" = "$(printf '# a\tdrift_x\tdrift_x_err')"
  # the header comes right before the data
  check "(f) -o -: header line directly precedes the data" \
    test "$(awk '/^#/ { h = NR } !/^#/ && !f { f = NR } END { print f - h }' "$T/f/stdout.tsv")" = 1
  check "(f) -o -: three data lines of three columns" \
    test "$(data "$T/f/stdout.tsv" | awk -F'\t' 'NF == 3' | wc -l)" -eq 3
  check "(f) -o -: nothing on stderr with --quiet" test ! -s "$T/f/stderr"
else
  failed "(f) sdekit run ... -o - failed: $(head -c 400 "$T/f/stderr")"
fi
# stdout equals the file written with -o FILE.tsv
sdk f josephson --scan a=4.2:5.2:3 --paths 64 --periods 10 --quiet -o same.tsv &&
  check "(f) -o - gives the same text as -o FILE.tsv" cmp -s "$T/f/stdout.tsv" "$T/f/same.tsv"
sdk f ou --paths 64 --t-end 1 --quiet --observe drift,moments -o base.tsv
check "(f) --observe drift,moments -o base.tsv writes base.drift.tsv" test -s "$T/f/base.drift.tsv"
check "(f) --observe drift,moments -o base.tsv writes base.moments.tsv" test -s "$T/f/base.moments.tsv"
check "(f) ... and not base.tsv nor base.hist.tsv" test ! -e "$T/f/base.tsv" -a ! -e "$T/f/base.hist.tsv"
check "(f) no temporaries left" test -z "$(find "$T" -name '*.tmp.*')"
sdk f josephson --paths 16 --periods 2 --quiet -o j.h5
if info=$("$BIN" info "$T/f/j.h5" 2>"$T/stderr"); then
  pass
  check "(f) sdekit info names the model" grep -q 'josephson' <<<"$info"
else
  failed "(f) sdekit info j.h5: $(cat "$T/stderr")"
fi
# the .h5 has the documented groups
if command -v h5dump >/dev/null 2>&1 && [ -f "$T/f/j.h5" ]; then
  check "(f) j.h5 has model_name attribute josephson" \
    grep -q '"josephson"' <(h5dump -a /model_name "$T/f/j.h5" 2>/dev/null)
  check "(f) j.h5 has /drift/value" h5dump -H -d /drift/value "$T/f/j.h5" >/dev/null 2>&1
fi

# ---------------- (g) models and help ----------------
if models=$("$BIN" models 2>"$T/stderr"); then
  pass
  for m in ou josephson gbm; do
    check "(g) 'sdekit models' lists $m" grep -Eq "^[[:space:]]+$m[[:space:]]" <<<"$models"
  done
else
  failed "(g) sdekit models exited non-zero: $(cat "$T/stderr")"
fi
check "(g) sdekit --help exits 0" "$BIN" --help >"$T/help.txt" 2>/dev/null
check "(g) sdekit --help mentions run" grep -q 'run' "$T/help.txt"
check "(g) sdekit run --help exits 0" "$BIN" run --help >"$T/runhelp.txt" 2>/dev/null
for o in --set --scan --paths --dt --spp --t-end --periods --transient --transient-periods \
  --scheme --seed --backend --precision --threads --observe --drift --sample-every --bins \
  --hist-range -o --quiet; do
  check "(g) run --help mentions $o" grep -Eq -- "(^|[[:space:]])$o([[:space:]=]|$)" "$T/runhelp.txt"
done

# (h) --verbose says where the time went (issue 32): the library's stages and
# the process's; the parts add up to no more than the whole
"$BIN" run ou --paths 2000 --t-end 1 --verbose -o "$T/v.h5" 2>"$T/verbose.txt"
check "--verbose: the stages of the run ($(grep -c 'times: plan' "$T/verbose.txt"))" \
  test "$(grep -c '^sdekit: times: plan [0-9.]* s, backend open [0-9.]* s, source [0-9.]* s (generate, identity), kernel' "$T/verbose.txt")" = 1
line=$(grep '^sdekit: process times:' "$T/verbose.txt")
check "--verbose: the process's times ($line)" awk -v l="$line" 'BEGIN {
  n = split(l, w, " "); all = w[4]; before = w[8]; run = -1; wr = -1
  for (i = 1; i <= n; i++) { if (w[i] == "run," ) run = w[i - 3]; if (w[i] == "writing") wr = w[i - 2] }
  exit !(all > 0 && before >= -0.011 && run > 0 && wr >= 0 && before + run + wr <= all + 0.002) }'
# (i) the chunks' ends do not move a bit, whichever C compiler builds the
# kernels: the run cuts its chunks at every sample (and paces them by the
# clock in between), so the states at t_end (step 200) of --sample-every 1,
# 10 (chunks that end inside a block of four noise values) and 100 are the
# same (gcc's reassociation of the fast-math step loop once made
# them depend on a chunk's length: backend/cpu.c)
for cc in gcc clang; do
  command -v $cc > /dev/null 2>&1 || { echo "cli_repro: no $cc: (i) skipped for it"; continue; }
  for m in ou josephson; do
    len=(--t-end 2)
    [ $m = josephson ] && len=(--periods 2)
    for se in 1 10 100; do
      # (each path's row at t_end: the single-precision state printed in full)
      CC=$cc sdk i-$cc-$se $m --paths 96 "${len[@]}" --save-paths "$(seq -s, 0 95)" \
        --sample-every $se --observe moments -o $m.tsv &&
        awk '!/^#/ && NF { last[$1] = $0 } END { for (p in last) print last[p] }' \
          "$T/i-$cc-$se/$m.paths.tsv" | sort -n > "$T/i-$cc-$se/$m.final"
    done
    same_files "(i) $cc, $m: --sample-every 1 vs 10" i-$cc-1 i-$cc-10 $m.final
    same_files "(i) $cc, $m: --sample-every 1 vs 100" i-$cc-1 i-$cc-100 $m.final
  done
done

echo "cli_repro: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
