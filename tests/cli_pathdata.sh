#!/usr/bin/env bash
# Your data in and out (issue 28): --init-from from .npy, TSV, HDF5 tables
# and an sdekit result (its grid point K), --save-final, and checkpoints: a
# run from data interrupted and resumed, or extended by `sdekit resume`,
# writes the same bytes as the run done in one go, and the resumed run does
# not read the data again (the file is gone by then).  Backend from
# $SDK_TEST_BACKEND (default cpu).
set -u
B=${SDK_BIN:?}
[ -x "$B" ] || exit 77
/usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null || { echo "h5py missing: skipped"; exit 77; }
BACKEND=${SDK_TEST_BACKEND:-cpu}
if [ "$BACKEND" = cuda ]; then "$B" devices >/dev/null 2>&1 || { echo "no CUDA device: skipped"; exit 77; }; fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
npass=0 nfail=0
pass() { npass=$((npass + 1)); }
failed() { nfail=$((nfail + 1)); echo "FAIL: $*" >&2; }
check() { local name=$1; shift; if "$@"; then pass; else failed "$name"; fi; }
same() { /usr/bin/python3 - "$@" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
for k in sys.argv[3:]:
    x, y = (a[k][()] if "=" not in k else None), b[k.split("=")[-1]][()]
    if not np.array_equal(np.asarray(x).view(np.uint64), np.asarray(y).view(np.uint64)):
        sys.exit(1)
PY
}
/usr/bin/python3 - <<'PY'
import numpy as np, h5py
rng = np.random.default_rng(7)
x = rng.normal(size=3000) * 10 ** rng.uniform(-8, 8, 3000)
np.save("x.npy", x)
with open("x.tsv", "w") as f:
    f.write("# initial states\nx\n" + "".join(repr(float(v)) + "\n" for v in x))
np.savez_compressed("x.npz", x=x)
with h5py.File("x.h5", "w") as f:
    f["t"] = np.array(list(zip(x)), dtype=[("x", "<f4")]).astype([("x", "<f8")])
    f["t"][...] = np.array(list(zip(x)), dtype=[("x", "<f8")])
with h5py.File("g.h5", "w") as f:
    f.create_group("g")["x"] = np.stack([x, -x, 2 * x])
PY
R=(run ou --set D=0 --precision double --t-end 0.01 --dt 0.01 --save-final --backend "$BACKEND" --quiet)
"$B" "${R[@]}" --set k=0 --init-from x=x.npy -o a.h5 || failed "npy run"
"$B" "${R[@]}" --set k=0 --init-from x.tsv -o b.h5 || failed "TSV run"
"$B" "${R[@]}" --set k=0 --init-from x.npz -o f.h5 || failed "npz run"
"$B" "${R[@]}" --set k=0 --init-from x.h5 -o c.h5 || failed "HDF5 compound run"
"$B" "${R[@]}" --set k=0 --init-from a.h5 -o d.h5 || failed "result run"
"$B" "${R[@]}" --set k=0 --init-from g.h5:group=g:grid=1 -o e.h5 || failed "HDF5 group, grid point"
/usr/bin/python3 -c '
import h5py, numpy as np, sys
x = np.load("x.npy")
for f, w in (("a", x), ("b", x), ("c", x), ("d", x), ("e", -x), ("f", x)):
    got = h5py.File(f + ".h5", "r")["final/x"][()]
    if got.shape != x.shape or not np.array_equal(got.view(np.uint64), w.view(np.uint64)):
        sys.exit(f + " differs")
' && pass || failed "final states equal the data bit for bit (npy, npz, TSV, HDF5, result, grid point)"
check "the paths follow the data" grep -q . <("$B" info a.h5 | grep "paths: *3000 per grid point")

# checkpoints: interrupted and resumed == one go; the data are not read again
A=(run ou --t-end 2000 --dt 0.01 --observe drift,moments --save-final --backend "$BACKEND")
mkdir one two
cp x.tsv y.tsv
(cd one && "$B" "${A[@]}" --init-from ../y.tsv -o r.h5 --quiet) || failed "one go"
cd two
"$B" "${A[@]}" --init-from ../y.tsv -o r.h5 --checkpoint ck --checkpoint-every 0 2>err.txt &
pid=$!
for i in $(seq 400); do [ -f ck ] && break; sleep 0.02; done
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
check "interrupted (exit $rc)" test "$rc" = 130
rm -f ../y.tsv
"$B" resume ck --quiet || failed "resume without the data file"
cd ..
check "resumed result equals the one-go result byte for byte" cmp -s one/r.h5 two/r.h5
echo "cli_pathdata: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
