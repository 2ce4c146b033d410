#!/usr/bin/env bash
# cli_info.sh: what 'sdekit info' (src/cli/info.c) says about a result file.
#   (a) interacting particles: the paths per grid point are systems of
#       particles, and info says how many of each ("2 systems of 256
#       particles"); runs of independent paths say nothing more;
#   (b) a scanned parameter is shown as scanned, with the range of its scan,
#       never with the number param_values holds for it: the scan's start in
#       the files of sdekit 0.2 and before, NaN in later ones (the file is
#       rewritten both ways with h5py; skipped without it) -- the summary of
#       either is the same; fixed parameters keep their values;
#   (c) the lines of a one-axis and a two-axis scan, exactly;
#   (d) which variables the compensated update covered (single precision):
#       the rule's (auto), every variable (--compensate all), none; no line
#       in double precision.
#
# Environment (set by CTest): SDK_BIN, SDK_SOURCE_DIR, SDEKIT_CACHE_DIR.
set -u

BIN=${SDK_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_info: SDK_BIN is not set to an executable sdekit" >&2
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/cli_info.XXXXXX") || exit 1
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

# info FILE: sdekit info FILE into $T/info; a failure is a failed check.
info() {
  if "$BIN" info "$1" >"$T/info" 2>"$T/err"; then return 0; fi
  failed "sdekit info $1 failed: $(head -c 300 "$T/err")"
  return 1
}

# has NAME LINE: $T/info holds LINE exactly.
has() {
  if grep -qxF -- "$2" "$T/info"; then pass; else
    failed "$1: no line '$2' in:"
    sed 's/^/    /' "$T/info"
  fi
}

# lacks NAME PATTERN: no line of $T/info matches PATTERN (grep -E).
lacks() {
  if grep -qE -- "$2" "$T/info"; then
    failed "$1: a line matches /$2/: $(grep -E -- "$2" "$T/info" | head -2)"
  else pass; fi
}

# (a) systems of particles
if run "meanfield" kuramoto-meanfield --particles 256 --paths 2 --t-end 0.2 --observe order \
  -o k.h5 && info k.h5; then
  has "2 systems" "paths:       512 per grid point (2 systems of 256 particles)"
fi
if run "all-pairs" kuramoto --particles 64 --t-end 0.1 --observe order -o kp.h5 && info kp.h5; then
  has "1 system" "paths:       64 per grid point (1 system of 64 particles)"
fi

# (d) the compensated update: josephson's x by the rule (periodic), v plain;
# ou's x relaxes with noise increments of many float spacings: plain
for how in "auto: x|" "all: x, v|--compensate all" "none|--no-compensation"; do
  want=${how%%|*} opt=${how#*|}
  # shellcheck disable=SC2086
  if run "josephson $opt" josephson --paths 16 --periods 1 $opt -o jc.h5 && info jc.h5; then
    has "josephson ${opt:-default}" "compensated: $want"
  fi
done
if run "ou single" ou --paths 16 --t-end 0.1 -o oc.h5 && info oc.h5; then
  has "ou default" "compensated: auto: none"
fi
# ou's k dt = 0.005 < 1/128: x compensated at dt 0.005, plain at 0.01 (--dt-check's
# coarse copy; --mlmc's level 0), so each level and copy is named
if run "ou dt-check" ou --paths 16 --t-end 0.1 --dt 0.005 --dt-check -o od.h5 && info od.h5; then
  has "--dt-check's coarse copy" "compensated: auto: x (the coarse copy at 2 dt: auto: none)"
fi
if run "ou mlmc" ou --t-end 1 --observe moments --mlmc 0.5 --paths 16 --max-paths 2048 -o om.h5 &&
  info om.h5; then
  if grep -qE "^compensated: level 0: auto: none; level 1: auto: x \(the coarse copy at 2 dt: auto: none\)(; level [2-9]: auto: x)*$" "$T/info"; then
    pass
  else
    failed "--mlmc: the levels' compensation: $(grep compensated "$T/info")"
  fi
fi
if run "josephson double" josephson --paths 16 --periods 1 --precision double -o jd.h5 &&
  info jd.h5; then
  lacks "double precision" "^compensated:"
fi

# (b), (c): scanned parameters, one and two axes
if run "ou scan" ou --scan k=0.5:2:4 --paths 200 --t-end 0.5 --observe drift,moments -o o1.h5 &&
  info o1.h5; then
  has "ou paths" "paths:       200 per grid point"
  has "ou parameters" "parameters:  k=(scanned 0.5 .. 2), D=0.5"
  has "ou scans" "scans:       k: 0.5 .. 2, n=4, linear"
  has "ou drift header" "    k           drift      error"
  lacks "ou: no systems" "system"
  cp "$T/info" o1.info
fi
if run "2-axis scan" josephson --scan a=4.2:14.1:3 --scan D=0.0001:0.01:2:log --paths 16 \
  --periods 2 -o j2.h5 && info j2.h5; then
  has "2-axis parameters" "parameters:  a=(scanned 4.2 .. 14.1), gamma=0.9, omega=4.9, D=(scanned 0.0001 .. 0.01), f=0.1"
  has "2-axis scans a" "scans:       a: 4.2 .. 14.1, n=3, linear"
  has "2-axis scans D" "             D: 0.0001 .. 0.01, n=2, log"
  has "2-axis drift header" "     a      D           drift      error"
  lacks "2-axis: no nan" "(^|[ =(])nan([ ,)]|$)"
  cp "$T/info" j2.info
fi
# (c') a spectrum: its segment, window and number of segments (/psd's
# attributes, which the summary did not show); none without psd
if run "psd" ou --paths 16 --t-end 2 --dt 0.01 --sample-every 1 --observe psd --psd-segment 64 \
  --psd-window rect -o psd.h5 && info psd.h5; then
  has "psd segment" "spectrum:    segments of 64 samples (--psd-segment), rect window, 5 per path"
fi
if [ -f o1.h5 ] && info o1.h5; then lacks "no psd: no spectrum line" "^spectrum:"; fi
# (c4) values per path: the parameters so given show no model value, and
# where the values came from is said (it printed k=0, the model's)
printf 'k\n' > kpp.tsv; for i in 1 2 3 4; do echo "0.$i" >> kpp.tsv; done
if run "per path" ou --paths 4 --t-end 0.1 --path-params kpp.tsv --observe moments -o pp.h5 \
  -o pp.tsv && info pp.h5; then
  has "per path: parameters" "parameters:  k=(per path), D=0.5"
  has "per path: from" "per path:    k, from kpp.tsv"
  if grep -qx "# param k: per path, from kpp.tsv" pp.tsv; then pass; else failed "per path: TSV"; fi
fi
# (c3) a scan given as values, zipped with another: no range describes
# it (it printed "1 .. 0.1, n=4, linear"), and the zipped parameter says so
# (it printed nan); the TSV header the same
if run "list" ou --scan k=1,0.5,5,0.1 --scan +D=1:2:4 --paths 8 --t-end 0.1 --observe moments \
  -o list.h5 -o list.tsv && info list.h5; then
  has "list scan" "scans:       k: n=4 values given: 1, 0.5, 5, 0.1"
  has "list scan: parameters" "parameters:  k=(scanned, 4 values), D=(scanned with k)"
  if grep -qx "# scan k: n=4 values given: 1, 0.5, 5, 0.1" list.tsv; then pass; else failed "list scan: TSV header"; fi
fi
# (c'') --adaptive: its tolerances and the range of its sub-steps (/adaptive's
# attributes; the defaults where none was given); none without it
if run "adaptive" gbm --paths 16 --t-end 1 --adaptive --scheme milstein --dt-max 0.25 --dt 0.0625 \
  --dt-min 0.001 -o ad.h5 && info ad.h5; then
  has "adaptive settings" "adaptive:    rtol 0.001, atol 1e-06; sub-steps from 0.0625 (first try) down to 0.001953125, dt above the largest (adaptive/ per grid point: the sub-steps taken)"
fi
if [ -f o1.h5 ] && info o1.h5; then lacks "no --adaptive: no adaptive line" "^adaptive:"; fi

# (d) a table of the values of every observable kind with standard errors
# (issue 29: it showed the drift alone): the series at their last sample
if run "every kind" ou --scan k=0.5:1:2 --paths 200 --t-end 0.5 --sample-every 25 \
  --observe drift,moments,expr,cov,diffusion,tavg --observe-expr E=x*x -o all.h5 && info all.h5; then
  has "cov table" "cov at the last sample (step 50):"
  has "cov header" "    k             cov      error"
  has "diffusion table" "diffusion of x (the series at the last sample, step 50):"
  has "diffusion header" "    k               D      D_err       diffusion      error"
  has "drift table" "drift of x:"
  has "expr table" "expr at the last sample (step 50):"
  has "expr header" "    k          mean_E      err_E"
  has "moments table" "moments at the last sample (step 50):"
  has "tavg table" "tavg:"
  has "tavg header" "    k          mean_E      err_E          mean_x      err_x"
  lacks "every kind: no nan" "(^|[ =(])nan([ ,)]|$)"
  [ "$(grep -cE '^ +(0\.5|1) ' "$T/info")" = 12 ] && pass ||
    failed "every kind: 6 tables of 2 rows: $(grep -cE '^ +(0\.5|1) ' "$T/info") rows"
fi
if run "fpt" "$SDK_SOURCE_DIR/examples/double-well.sde" --scan D=0.4:0.5:2 --paths 300 --dt 0.01 \
  --t-end 20 --observe fpt -o f.h5 && info f.h5; then
  has "fpt table" "fpt (the series at the last sample, step 2000):"
  has "fpt header" "    D       exit_mean   exit_err            mean   mean_err       overshoot overshoot_err           split  split_err"
fi
if run "order" kuramoto --particles 16 --paths 16 --t-end 0.2 --observe order -o ko.h5 &&
  info ko.h5; then
  has "order table" "order of x at the last sample (step 20):"
  has "order header" "                r      r_err"
fi
if run "no scan" ou --paths 100 --t-end 0.1 --set k=3 -o o0.h5 && info o0.h5; then
  has "no scan parameters" "parameters:  k=3, D=0.5"
  has "no scan scans" "scans:       none"
fi

# (b) param_values as sdekit 0.2 wrote it (the scan's start) and as later
# versions do (NaN): the same summary; and a fixed parameter's value shows
if /usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null && [ -f o1.h5 ] && [ -f j2.h5 ]; then
  cat >pv.py <<'PY'
# pv.py SRC DST HOW: copy SRC with param_values of the scanned parameters
# set to NaN (HOW = nan) or to the scan's first value (HOW = start).
import shutil, sys
import h5py
import numpy as np
src, dst, how = sys.argv[1:4]
shutil.copyfile(src, dst)
with h5py.File(dst, "r+") as f:
    names = [n.decode() if isinstance(n, bytes) else n for n in f.attrs["param_names"]]
    axes = [a.decode() if isinstance(a, bytes) else a for a in f["scan"].attrs["axes"]]
    pv = np.array(f.attrs["param_values"], dtype=float)
    for a in axes:
        pv[names.index(a)] = np.nan if how == "nan" else f["scan/" + a][0]
    f.attrs["param_values"] = pv
PY
  for src in o1 j2; do
    for how in nan start; do
      if ! /usr/bin/python3 pv.py $src.h5 $src-$how.h5 $how 2>"$T/err"; then
        failed "pv.py $src $how: $(tail -c 300 "$T/err")"
        continue
      fi
      if info $src-$how.h5; then
        sed "s/$src-$how\.h5/$src.h5/g" "$T/info" >$src-$how.info
        if cmp -s $src.info $src-$how.info; then pass; else
          failed "$src with param_values of the scan ($how): the summary differs:"
          diff $src.info $src-$how.info
        fi
        lacks "$src $how: no nan" "(^|[ =(])nan([ ,)]|$)"
      fi
    done
  done
else
  echo "cli_info: python3 with h5py not found; param_values rewritten as NaN not checked"
fi

echo "cli_info: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
