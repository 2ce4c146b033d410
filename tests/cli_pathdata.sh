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
# (the first Python with h5py and NumPy: the system's, or one on PATH)
PY3=
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import h5py, numpy' 2>/dev/null; then PY3=$p; break; fi
done
[ -n "$PY3" ] || { echo "h5py missing: skipped"; exit 77; }
BACKEND=${SDK_TEST_BACKEND:-cpu}
if [ "$BACKEND" = cuda ]; then [ "$("$B" devices --count 2>/dev/null || echo 0)" != 0 ] || { echo "no CUDA device: skipped"; exit 77; }; fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
npass=0 nfail=0
pass() { npass=$((npass + 1)); }
failed() { nfail=$((nfail + 1)); echo "FAIL: $*" >&2; }
check() { local name=$1; shift; if "$@"; then pass; else failed "$name"; fi; }
same() { "$PY3" - "$@" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
for k in sys.argv[3:]:
    x, y = (a[k][()] if "=" not in k else None), b[k.split("=")[-1]][()]
    if not np.array_equal(np.asarray(x).view(np.uint64), np.asarray(y).view(np.uint64)):
        sys.exit(1)
PY
}
"$PY3" - <<'PY'
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
# 2-D data have a shape, not only a count: [paths][grid points] or another
# grid is refused (it was read in the wrong order)
"$PY3" -c 'import numpy as np; g = np.arange(12.0).reshape(3, 4); np.savez("gt.npz", x=g.T)'
"$B" "${R[@]}" --scan k=1:3:3 --paths 4 --init-from gt.npz -o gt.h5 2> gt.err
check "a transposed [paths][grid points] file is refused" grep -q "\[4 grid points\]\[3 paths\].*transpose" gt.err
"$PY3" -c 'import numpy as np; g = np.arange(12.0).reshape(3, 4); np.savez("kt.npz", k=g.T)'
"$B" run ou --precision double --t-end 0.01 --dt 0.01 --backend "$BACKEND" --quiet --scan D=0:0:3 --paths 4 --path-params kt.npz -o kt.h5 2> kt.err
check "--path-params: a transposed file is refused too" grep -q "^sdekit: error: --path-params: the values are \[4 grid points\]\[3 paths\]" kt.err
"$B" "${R[@]}" --set k=0 --init-from x=x.npy -o a.h5 || failed "npy run"
"$B" "${R[@]}" --set k=0 --init-from x.tsv -o b.h5 || failed "TSV run"
"$B" "${R[@]}" --set k=0 --init-from x.npz -o f.h5 || failed "npz run"
"$B" "${R[@]}" --set k=0 --init-from x.h5 -o c.h5 || failed "HDF5 compound run"
# (a result's final states continue under another seed: below)
"$B" "${R[@]}" --set k=0 --seed 2 --init-from a.h5 -o d.h5 || failed "result run"
"$B" "${R[@]}" --set k=0 --init-from g.h5:group=g:grid=1 -o e.h5 || failed "HDF5 group, grid point"
"$PY3" -c '
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
# A run continued from a result (its final states and, with [particle], its
# paths' own parameters: final_params/) counts its steps from 0 again: under
# the seed that drove those paths it would repeat their noise, so that seed
# is refused; under another, quenched-disorder OU continued from t = 1 to
# t = 2 has the variance of one run to t = 2, E[D/k (1 - exp(-4k))] with k
# uniform on [0.5, 2] (within 4 SE), and each path keeps its k.
cat >q.sde <<'EOF2'
[model]
name = quenched-ou
vars = x
[params]
D = 0.4
[particle]
k = uniform(0.5, 2)
[drift]
x = -k*x
[noise]
x = sqrt(2*D)
[init]
x = 0
EOF2
Q=(run q.sde --paths 40000 --dt 0.005 --precision double --save-final --backend "$BACKEND" --quiet)
"$B" "${Q[@]}" --t-end 1 -o h1.h5 || failed "quenched, first half"
"$B" "${Q[@]}" --t-end 1 --init-from h1.h5 --path-params h1.h5:group=final_params -o h2.h5 \
  2>same_seed.txt
check "a continuation under the same seed is refused" \
  grep -q "driven by --seed 1.*give another --seed" same_seed.txt
"$B" "${Q[@]}" --t-end 1 --seed 2 --init-from h1.h5 --path-params h1.h5:group=final_params \
  -o h2.h5 || failed "quenched, second half"
check "continued: each path keeps its k, the variance of one run to t = 2" \
  "$PY3" - <<'PY'
import h5py, numpy as np, sys
a, b = h5py.File("h1.h5"), h5py.File("h2.h5")
if not np.array_equal(a["final_params/k"][:], b["final_params/k"][:]): sys.exit("k changed")
x = b["final/x"][:]
k = np.linspace(0.5, 2, 200001)
f = 0.4 / k * (1 - np.exp(-4 * k))
exact = (f[0] + f[-1] + 2 * f[1:-1].sum()) * (k[1] - k[0]) / 2 / 1.5
v = x.var()
se = np.sqrt(np.mean((x - x.mean()) ** 4) - v * v) / np.sqrt(len(x))
print("continued variance %.5f, exact %.5f, SE %.5f (%.2f SE)" % (v, exact, se, (v - exact) / se))
sys.exit(0 if abs(v - exact) < 4 * se else 1)
PY
# [boundaries]: the initial states from data take the place of [init] in the
# init kernel, which derives the boundary status from them: the same x = -1
# given as data gives bitwise the first passages of [init]'s x = -1; paths
# that start beyond an absorbing level are absorbed at t = 0
cat >w.sde <<'EOF2'
[model]
name = well
vars = x
[params]
D = 0.5
b = 1
[drift]
x = x - x*x*x
[noise]
x = sqrt(2*D)
[init]
x = -1
[boundaries]
over = absorb x >= b
EOF2
"$PY3" -c '
import numpy as np
np.save("m1.npy", np.full(2000, -1.0))
np.save("beyond.npy", np.where(np.arange(2000) % 2 == 0, 1.5, -1.0))'
W=(run w.sde --dt 0.01 --t-end 20 --observe fpt --backend "$BACKEND" --quiet)
"$B" "${W[@]}" --paths 2000 -o w0.h5 || failed "well from [init]"
"$B" "${W[@]}" --init-from x=m1.npy -o w1.h5 || failed "well from data"
"$B" "${W[@]}" --init-from x=beyond.npy -o w2.h5 || failed "well from data beyond the level"
check "[boundaries]: the first passages from data equal those from [init] bit for bit" \
  "$PY3" - <<'PY'
import h5py, numpy as np, sys
a, b = h5py.File("w0.h5", "r"), h5py.File("w1.h5", "r")
names = []
a["fpt"].visit(lambda n: names.append(n) if isinstance(a["fpt"][n], h5py.Dataset) else None)
if not names: sys.exit("no fpt datasets")
for n in names:
    x, y = np.asarray(a["fpt"][n][()]), np.asarray(b["fpt"][n][()])
    if x.shape != y.shape or x.tobytes() != y.tobytes():
        sys.exit("fpt/" + n + " differs")
PY
check "[boundaries]: paths from beyond the level absorbed at t = 0" "$PY3" - <<'PY'
import h5py, numpy as np, sys
f, g = h5py.File("w2.h5", "r"), h5py.File("w1.h5", "r")
# half the paths start beyond the level: their exit times are 0, the others'
# those of w1's paths of the same index, so the mean exit time halves exactly
# when every path is absorbed
m2, m1 = f["fpt/exit_mean"][()], g["fpt/exit_mean"][()]
print("mean exit time: all from -1 %s, half from 1.5 %s" % (m1, m2))
sys.exit(0 if np.all(m2 < 0.75 * m1) and np.all(m2 > 0) else 1)
PY
# a reflecting wall: data starts beyond it are refused (the first step would
# mirror them, folding the data's law), at the grid point whose wall they
# pass, with the path's index; starts on the wall run
printf '[model]\nname = r\nvars = x\n[params]\nL = 0\n[drift]\nx = 0\n[noise]\nx = 0.1\n[boundaries]\nwall = reflect x <= L\n' >r.sde
"$PY3" -c '
import numpy as np
np.save("r0.npy", np.array([0.5, 0.2, 0.1, 0.0]))'
"$B" run r.sde --init-from x=r0.npy --scan L=-1,0.15 --t-end 0.1 --backend "$BACKEND" --quiet \
  -o r.h5 2>r.err && failed "a data start beyond a reflecting wall ran"
check "a data start beyond a reflecting wall is refused with its path and grid point" \
  grep -q "^sdekit: error: x=r0.npy: path 2 of grid point 1 (L=0.15) starts x = 0.1, beyond the reflecting wall 'wall' (x <= 0.15, r.sde:11)" r.err
check "data starts on the reflecting wall run" \
  "$B" run r.sde --init-from x=r0.npy --scan L=-1,0 --t-end 0.1 --backend "$BACKEND" --quiet -o r.h5
# systems of particles: a value per particle (particle i of system s is value
# s * N + i), the systems following the data: r(0) of each system is that of
# its phases; the same in 2 in-process ranks bit for bit
"$PY3" -c '
import numpy as np
np.save("ph.npy", np.random.default_rng(5).uniform(0, 2 * np.pi, 4096))'
K=(run kuramoto-meanfield --particles 1024 --t-end 0.1 --dt 0.01 --observe order --sample-every 10
  --init-from x=ph.npy --backend "$BACKEND" --quiet)
"$B" "${K[@]}" -o k1.h5 2>k1.err || failed "kuramoto from data"
check "systems: the note counts systems" grep -q "4 systems of 1024 particles" k1.err
"$B" "${K[@]}" --ranks 2 -o k2.h5 2>/dev/null || failed "kuramoto from data, 2 ranks"
check "systems from data: 2 in-process ranks bit for bit" same k1.h5 k2.h5 order/r order/psi
check "systems from data: r(0) is that of the given phases" "$PY3" - <<'PY'
import h5py, numpy as np, sys
x = np.load("ph.npy").astype(np.float32).astype(float).reshape(4, 1024)
want = np.abs(np.exp(1j * x).mean(axis=1)).mean()
got = h5py.File("k1.h5", "r")["order/r"][0]
print("r(0) %.9f, of the data %.9f" % (got, want))
sys.exit(0 if abs(got - want) < 1e-6 else 1)
PY
# --save-final of systems: every particle's final phase (3 ranks the same),
# and a run continued from them starts where the first ended
S=(run kuramoto-meanfield --particles 1024 --paths 3 --t-end 1 --dt 0.01 --observe order
  --sample-every 10 --save-final --backend "$BACKEND" --quiet)
"$B" "${S[@]}" -o ks1.h5 || failed "kuramoto --save-final"
"$B" "${S[@]}" --ranks 3 -o ks3.h5 || failed "kuramoto --save-final, 3 ranks"
check "systems --save-final: 3 in-process ranks bit for bit" same ks1.h5 ks3.h5 final/x order/r
"$B" run kuramoto-meanfield --particles 1024 --t-end 0.1 --dt 0.01 --observe order \
  --init-from ks1.h5 --seed 5 --backend "$BACKEND" --quiet -o kc.h5 2>/dev/null ||
  failed "kuramoto continued"
check "systems continued from their final states: r(0) is the first run's last r" "$PY3" -c '
import h5py, sys
a, c = h5py.File("ks1.h5", "r"), h5py.File("kc.h5", "r")
sys.exit(0 if a["order/r"][-1] == c["order/r"][0] else 1)'
"$B" run kuramoto-meanfield --particles 1000 --t-end 0.1 --init-from x=ph.npy -o k3.h5 2>k3.err
check "systems: values not a whole number of systems refused" \
  grep -q "not a whole number of systems of --particles 1000" k3.err
# single precision: a value beyond float's range is one error naming the file,
# exit 2, no result written
printf 'k\n1\n2\n1e39\n4\n' >big.tsv
"$B" run ou --t-end 0.01 --dt 0.01 --precision single --path-params big.tsv \
  --backend "$BACKEND" -o big.h5 2>big.err
rc=$?
check "beyond float: exit 2 (got $rc)" test "$rc" = 2
check "beyond float: one error naming the file, the name, the path and the value" \
  grep -qx "sdekit: error: big.tsv: 'k' of path 2 is 1e+39, outside single precision's range (0, or 1.2e-38 to 3.4e38 in magnitude): give --precision double, or values in other units" big.err
check "beyond float: nothing written" test ! -e big.h5
# and one below it, which single precision would hold as 0: the same
printf 'k\n1\n1e-50\n' >tiny.tsv
"$B" run ou --t-end 0.01 --dt 0.01 --precision single --path-params tiny.tsv \
  --backend "$BACKEND" -o tiny.h5 2>tiny.err
rc=$?
check "below float: exit 2 (got $rc)" test "$rc" = 2
check "below float: one error naming the value" \
  grep -qx "sdekit: error: tiny.tsv: 'k' of path 1 is 1e-50, outside single precision's range (0, or 1.2e-38 to 3.4e38 in magnitude): give --precision double, or values in other units" tiny.err
check "below float: nothing written" test ! -e tiny.h5
echo "cli_pathdata: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
