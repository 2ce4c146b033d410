"""Results: views, shapes and names, save/load round trip, `sdekit info`,
h5py, to_xarray, plot."""
import gc
import os

import numpy as np
import pytest

import sdekit
from conftest import assert_same_results, run_cli


@pytest.fixture(scope="module")
def ou():
    return sdekit.run("ou", scan={"k": [0.5, 1.0, 2.0]}, params={"D": 0.4}, paths=4096,
                      t_end=2, dt=0.01, sample_every=50, observe=["moments", "drift", "hist"],
                      seed=5, progress=False)


@pytest.fixture(scope="module")
def grid2():
    """Two scan axes (a grid) with every observable of paths, saved paths too."""
    return sdekit.run("josephson", scan={"a": [4.2, 8.0, 12.0], "D": (0.001, 0.01, 3, "log")},
                      paths=128, periods=20, transient_periods=2,
                      observe="drift,moments,hist,density", save_paths=[0, 1],
                      coarse_grain=True, sample_every=100, seed=3, progress=False)


def test_shapes_names_views(ou):
    assert ou.observables == ("drift", "moments", "hist")
    v = ou["moments/var_x"]
    assert v.shape == (3, 5) and v.dtype == np.float64
    assert not v.flags.writeable
    assert ou.dims("moments/var_x") == ("k", "sample")
    assert ou.info("moments/var_x").sample_axis == 1
    assert ou.info("moments/t").coordinate and not ou.info("moments/var_x").coordinate
    assert ou.dims("hist/x/density") == ("k", "bin")
    assert ou["hist/x/overflow"].dtype == np.uint64
    assert ou.info("drift/value").stderr == "drift/error"
    assert np.array_equal(ou.stderr("drift/value"), ou["drift/error"])
    with pytest.raises(KeyError):
        ou.stderr("moments/t")
    with pytest.raises(KeyError):
        ou["no/such"]
    assert "drift/value" in ou and "/drift/value" in ou and len(ou) == len(ou.datasets)
    assert ou["/drift/value"] is ou["drift/value"]
    assert ou.params == {"D": 0.4}
    assert ou.attrs["model_name"] == "ou" and ou.attrs["seed"] == 5
    assert ou.attrs["var_names"] == ["x"]
    assert ou.seconds > 0 and ou.path_steps == 3 * 4096 * 200 and ou.problem is None


def test_views_keep_the_result_alive():
    r = sdekit.run("ou", scan={"k": [1.0, 2.0]}, paths=256, t_end=0.5, observe="moments",
                   progress=False)
    v = r["moments/mean_x"]
    k = r.scan["k"]
    want = v.copy()
    base = v.base
    assert base is not None and base.owner is r._h  # a view on the library's memory
    del r
    gc.collect()
    assert np.array_equal(v, want) and np.array_equal(k, [1.0, 2.0])


def test_save_load_round_trip(ou, workdir, cli):
    path = os.path.join(workdir, "round.h5")
    assert ou.save(path) == [path]
    back = sdekit.load(path)
    assert_same_results(ou, back)
    assert back.observables == ou.observables
    assert list(back.scan) == ["k"] and np.array_equal(back.scan["k"], ou.scan["k"])
    for name in ou.datasets:
        assert back.info(name).stderr == ou.info(name).stderr
        assert back.info(name).sample_axis == ou.info(name).sample_axis
    a, b = dict(ou.attrs), dict(back.attrs)
    assert a.keys() == b.keys()
    for key in a:
        # param_values holds NaN for the scanned parameters
        assert np.array_equal(a[key], b[key], equal_nan=a[key].dtype.kind == "f") \
            if isinstance(a[key], np.ndarray) else a[key] == b[key], key
    rc, out, _ = run_cli(cli, ["info", path])
    assert "model:       ou" in out and "/moments/var_x" in out and "k: n=3 values given: 0.5, 1, 2" in out


def test_save_tsv(ou, workdir):
    files = ou.save(os.path.join(workdir, "ou.tsv"))
    assert [os.path.basename(f) for f in files] == ["ou.drift.tsv", "ou.moments.tsv",
                                                    "ou.hist.tsv"]
    with open(files[0]) as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    assert len(lines) == 3
    assert lines[0].split()[:2] == ["0.5", "%.10g" % ou["drift/value"][0]]


def test_h5py_reads_what_save_writes(ou, workdir):
    h5py = pytest.importorskip("h5py")
    path = os.path.join(workdir, "h5py.h5")
    ou.save(path)
    with h5py.File(path, "r") as f:
        assert np.array_equal(f["drift/value"][...], ou["drift/value"])
        assert np.array_equal(f["moments/var_x"][...], ou["moments/var_x"])
        assert f.attrs["format"] == "sdekit"


def test_to_xarray(ou, grid2):
    pytest.importorskip("xarray")
    ds = ou.to_xarray("moments")
    assert ds["var_x"].dims == ("k", "sample")
    assert np.array_equal(ds["k"].values, [0.5, 1.0, 2.0])
    assert ds["t"].dims == ("sample",)  # the same times at every k
    assert np.array_equal(ds["var_x"].sel(k=1.0).values, ou["moments/var_x"][1])
    full = ou.to_xarray()
    assert full["drift/value"].dims == ("k",)
    assert full["drift/value"].attrs["standard_error"] == "drift/error"
    assert full["hist/x/density"].dims == ("k", "hist/bin")
    assert full["moments/mean_x"].dims == ("k", "moments/sample")
    assert full.attrs["model_name"] == "ou"
    g = grid2.to_xarray("density")
    assert g["x/P"].dims == ("a", "D", "sample", "bin")
    assert list(g["D"].values) == list(grid2.scan["D"])
    with pytest.raises(KeyError):
        ou.to_xarray("order")


def test_plot_headless(ou, grid2, workdir):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    fig = ou.plot()
    assert len(fig.subfigs) == 3  # drift, moments, hist
    fig.savefig(os.path.join(workdir, "ou.png"))
    plt.close(fig)
    for what in ("drift", "moments", "hist", "density", "paths"):
        f = grid2.plot(what)
        assert f.axes, what
        f.savefig(os.path.join(workdir, "g-%s.png" % what))
        plt.close(f)
    assert sdekit._plot.pictures(grid2) == ["drift", "moments", "hist", "density"]
    # one scan axis with many points: drift curve; moments and hist as heat maps
    many = sdekit.run("ou", scan={"k": (0.5, 3, 12)}, paths=512, t_end=1,
                      observe="drift,moments,hist", progress=False)
    f = many.plot()
    f.savefig(os.path.join(workdir, "many.png"))
    plt.close(f)
    order = sdekit.run("kuramoto-meanfield", particles=256, t_end=1, dt=0.01, observe="order",
                       scan={"K": [1.0, 4.0]}, progress=False)
    f = order.plot()
    assert len(f.axes) == 2
    plt.close(f)
    with pytest.raises(ValueError):
        ou.plot("order-of-nothing")


def test_the_process_keeps_its_subnormal_numbers():
    """A fast-math CPU kernel turns on flush-to-zero in the thread that loads
    it; the caller's floating-point mode is back after the run."""
    tiny = np.float64(5e-324)
    assert tiny * 1.0 != 0
    for fast in (True, False):
        sdekit.run("ou", paths=256, t_end=0.1, fast_math=fast, progress=False)
        assert tiny * 1.0 != 0 and np.nextafter(0.0, 1.0) > 0, "fast_math=%s" % fast


def test_a_result_pickles_whole(ou, grid2):
    # multiprocessing and joblib pickle what a worker returns: the arrays are
    # views on the library's memory, which ctypes refused to pickle before
    import pickle
    final = sdekit.run("ou", paths=32, t_end=0.2, save_final=True, seed=4, progress=False)
    # (target/: the run's paths per grid point, no observable of it)
    target = sdekit.run("ou", t_end=0.5, target_se=0.05, seed=4, progress=False)
    for r in (ou, grid2, final, target):
        q = pickle.loads(pickle.dumps(r))
        assert type(q) is sdekit.Result and sorted(q) == sorted(r)
        assert_same_results(r, q)
        assert q.observables == r.observables and list(q.scan) == list(r.scan)
        for name in r:
            assert q.dims(name) == r.dims(name), name
            # (final/: coordinates, as written; the reader lost the mark before)
            assert q.info(name).coordinate == r.info(name).coordinate, name
        a, b = dict(r.attrs), dict(q.attrs)
        assert a.keys() == b.keys()
        for key in a:
            assert np.array_equal(a[key], b[key], equal_nan=a[key].dtype.kind == "f") \
                if isinstance(a[key], np.ndarray) else a[key] == b[key], key
        assert pickle.loads(pickle.dumps(q))["drift/value"].tobytes() == \
            r["drift/value"].tobytes()
