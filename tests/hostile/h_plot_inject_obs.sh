#!/usr/bin/env bash
# Issue 13: the pictures of expr, cov, diffusion, fpt and tavg and --show
# take names from the file (the user observables' names and datasets, the
# covariance's variables, the diffusion's variable, the boundary names, the
# time averages' datasets); they reach the gnuplot script only through
# sdk_gp_text.  Each hostile payload is put into all of them; every picture
# and --show of the hostile dataset must draw, run no command, and leave no
# backquote in a script.
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null || { echo "h5py missing: skipped"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || { echo "gnuplot missing: skipped"; exit 77; }
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
"$BIN" run ou --scan k=0.5:2:3 --observe moments,expr,cov,diffusion --observe-expr E=x*x \
  --paths 64 --t-end 1 --quiet -o "$T/b.h5" 2>"$T/err" || { fail "run: $(head -c 300 "$T/err")"; finish; exit; }

cat >"$T/taint.py" <<'PY'
# taint.py SRC DST PAYLOAD: SRC with PAYLOAD as the user observable's name
# (attribute and datasets), the covariance's and the diffusion's variable,
# the boundary names of an added fpt group and the name of an added time
# average ('/' in link names replaced: refused as a dataset name elsewhere).
import os, shutil, sys
import h5py
import numpy as np
src, dst, pay = sys.argv[1], sys.argv[2], os.fsencode(sys.argv[3])
shutil.copy(src, dst)
link = pay.replace(b"/", b"|")
vs = h5py.string_dtype()
with h5py.File(dst, "r+") as f:
    e = f["expr"]
    e.attrs.create("names", [link], dtype=vs)
    for pre in (b"mean_", b"err_"):
        e.id.links.move(pre + b"E", e.id, pre + link)
    e[b"mean_" + link].attrs.create("standard_error", b"err_" + link, dtype=vs)
    f["cov"].attrs.create("vars", [pay], dtype=vs)
    f["diffusion"].attrs.create("var", pay, dtype=vs)
    grid = f["scan/dt"].shape
    g = f.create_group("fpt")
    g.attrs.create("boundaries", pay + b"," + pay, dtype=vs)
    g.create_dataset("split", data=np.full(grid + (2,), 0.5)).attrs["standard_error"] = "split_err"
    g.create_dataset("split_err", data=np.full(grid + (2,), 0.01))
    g.create_dataset("hist", data=np.ones(grid + (2, 4), dtype=np.uint64))
    g.create_dataset("hist_edges", data=np.linspace(0, 1, 5))
    g.create_dataset("t", data=np.linspace(0, 1, 6))
    g.create_dataset("survival", data=np.ones(grid + (6,)))
    t = f.create_group("tavg")
    t.create_dataset(b"mean_" + link, data=np.ones(grid)).attrs.create("standard_error", b"err_" + link, dtype=vs)
    t.create_dataset(b"err_" + link, data=np.full(grid, 0.1))
PY

payloads=(
  '`touch PWNED`'
  'system("touch PWNED")'
  '"; system("touch PWNED"); print "'
  $'a\n!touch PWNED\n'
  '@macro {/Symbol a}^{2}_{x} &{x} ~a{.8-}'
  'back\slash\"quote\\`touch PWNED`'
  'tail backslash\'
  $'esc\e]0;title\a and \xff\xfe bad utf8'
)
n=0
for pay in "${payloads[@]}"; do
  n=$((n + 1))
  h=$T/t$n.h5
  /usr/bin/python3 "$T/taint.py" "$T/b.h5" "$h" "$pay" || { fail "taint $n"; continue; }
  link=${pay//\//|}
  for mode in all grid show; do
    args=()
    [ $mode = grid ] && args=(--grid 1)
    [ $mode = show ] && args=(--show "expr/mean_$link")
    rm -f "$W"/*.png
    run_sdk plot "$h" -o "$W/fig$n.png" --keep "${args[@]}"
    check "payload $n ($mode): no command ran" test -z "$(find "$T" -name 'PWNED*' | head -1)"
    npng=$(find "$W" -name '*.png' | wc -l)
    want=1
    [ $mode = show ] || want=6 # moments expr cov diffusion fpt tavg
    if [ "$rc" -eq 0 ] && [ "$npng" -eq "$want" ]; then
      pass "payload $n ($mode): drawn"
    else
      fail "payload $n ($mode): exit $rc, $npng PNGs (want $want): $(head -c 300 "$ERRF" | tr '\n' '|')"
    fi
    if grep -lq '`' "$TMPDIR"/sdekit-plot.*/*.gp 2>/dev/null; then
      fail "payload $n ($mode): a backquote reached a gnuplot script"
    fi
    rm -rf "$TMPDIR"/sdekit-plot.*
    rm -f "$W"/PWNED*
  done
done
finish
