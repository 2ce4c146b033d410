"""The same statistics from Python as from the CLI, bit for bit for the same
seed, and the OU variance against the exact value of the Euler recursion."""
import os

import numpy as np

import sdekit
from conftest import assert_same_results, run_cli

K_SIGMA = 5.0


def euler_var(k, D, dt, n):
    """Var(x_n) of x' = a x + sqrt(2 D dt) w with a = 1 - k dt, x_0 fixed."""
    a = 1 - k * dt
    return 2 * D * dt * (1 - a ** (2 * n)) / (1 - a * a)


OU_ARGS = ["--set", "D=0.4", "--paths", "65536", "--dt", "0.01", "--t-end", "2",
           "--scheme", "euler", "--precision", "double", "--sample-every", "50",
           "--observe", "moments,drift", "--seed", "4242"]
OU_KW = dict(params={"D": 0.4}, paths=65536, dt=0.01, t_end=2, scheme="euler",
             precision="double", sample_every=50, observe=["moments", "drift"], seed=4242,
             progress=False)


def with_values(args, **values):
    """args with the values of some options replaced (an option given twice is refused)."""
    out = list(args)
    for name, v in values.items():
        out[out.index("--" + name.replace("_", "-")) + 1] = str(v)
    return out


def test_ou_variance_bitwise_and_exact(cli, workdir):
    out = os.path.join(workdir, "ou-cli.h5")
    run_cli(cli, ["run", "ou", "--scan", "k=0.5,1,2"] + OU_ARGS + ["-o", out])
    c = sdekit.load(out)
    r = sdekit.run("ou", scan={"k": np.array([0.5, 1.0, 2.0])}, **OU_KW)
    assert_same_results(r, c)
    assert list(r.scan) == ["k"] and np.array_equal(r.scan["k"], [0.5, 1, 2])
    var, t = r["moments/var_x"], r["moments/t"]
    assert var.shape == (3, 5) and r.dims("moments/var_x") == ("k", "sample")
    n = 65536
    for g, k in enumerate(r.scan["k"]):
        for s in range(1, var.shape[1]):
            steps = np.floor(t[g, s] / 0.01 + 0.5)
            want = euler_var(k, 0.4, 0.01, steps)
            se = var[g, s] * np.sqrt(2.0 / (n - 1))
            assert abs(var[g, s] - want) <= K_SIGMA * se, (k, t[g, s], var[g, s], want, se)
    assert r.params == {"D": 0.4}


def test_ou_grid_scan_is_the_cli_grid(cli, workdir):
    """A tuple (start, stop, n) is the CLI's START:STOP:N grid: the same values."""
    out = os.path.join(workdir, "ou-grid.h5")
    run_cli(cli, ["run", "ou", "--scan", "k=0.3:2.9:7"] + with_values(OU_ARGS, paths=4096)
            + ["-o", out])
    c = sdekit.load(out)
    r = sdekit.run("ou", scan={"k": (0.3, 2.9, 7)}, **dict(OU_KW, paths=4096))
    assert_same_results(r, c)
    assert np.array_equal(r.scan["k"], c.scan["k"]) and len(r.scan["k"]) == 7


JOSEPHSON = ["--paths", "256", "--periods", "60", "--transient-periods", "6", "--spp", "100",
             "--scheme", "srk2", "--seed", "2010", "--observe", "drift"]
JOSEPHSON_KW = dict(paths=256, periods=60, transient_periods=6, spp=100, scheme="srk2",
                    seed=2010, observe=["drift"], progress=False)


def test_josephson_drift_bitwise(cli, workdir):
    """PROG1's scan (a over 4.2..14.1 in 100 points, as scripts/demo.sh), smaller."""
    out = os.path.join(workdir, "drift-cli.h5")
    run_cli(cli, ["run", "josephson", "--scan", "a=4.2:14.1:100"] + JOSEPHSON + ["-o", out])
    c = sdekit.load(out)
    r = sdekit.run("josephson", scan={"a": (4.2, 14.1, 100)}, **JOSEPHSON_KW)
    assert_same_results(r, c)
    v, e = r["drift/value"], r.stderr("drift/value")
    assert v.shape == (100,) and r.dims("drift/value") == ("a",)
    assert np.array_equal(e, c["drift/error"])
    assert np.all(np.isfinite(v)) and np.all(e > 0)
    # the curve is not noise: <<v>> varies with a by many standard errors
    assert np.ptp(v) > 10 * np.median(e)


def test_scan_values_as_given(cli, workdir):
    """An array is scanned at exactly its values (the CLI's V1,V2,... list)."""
    a = np.linspace(4.2, 14.1, 12)
    out = os.path.join(workdir, "drift-values.h5")
    run_cli(cli, ["run", "josephson", "--scan", "a=" + ",".join(repr(float(x)) for x in a)]
            + with_values(JOSEPHSON, periods=10, transient_periods=1) + ["-o", out])
    c = sdekit.load(out)
    r = sdekit.run("josephson", scan={"a": a}, **dict(JOSEPHSON_KW, periods=10,
                                                     transient_periods=1))
    assert np.array_equal(r.scan["a"], a)
    assert_same_results(r, c)


def test_model_object_and_path_give_the_same(workdir):
    m = sdekit.Model.load("ou")
    kw = dict(OU_KW, paths=2048)
    a = sdekit.run(m, scan={"k": [1.0]}, **kw)
    b = sdekit.run(m.path, scan={"k": [1.0]}, **kw)
    assert_same_results(a, b)


def test_release_keeps_results():
    """sdekit.release() drops what the process's runs keep (contexts, kernels, device
    memory); the next run makes them again and gives the same bits."""
    kw = dict(OU_KW, paths=4096)
    first = sdekit.run("ou", **kw)
    sdekit.release()
    again = sdekit.run("ou", **kw)
    for name in first.datasets:
        np.testing.assert_array_equal(first[name], again[name], err_msg=name)
