"""Issue 13's observables from Python: user observables (expr) and the moments'
standard errors, cov, diffusion, first passage (fpt) and time averages (tavg):
the datasets, their standard errors as companion variables in to_xarray, and
result.plot() drawing their pictures (the ones `sdekit plot` draws)."""
import os

import numpy as np
import pytest

import sdekit


@pytest.fixture(scope="module")
def obs():
    return sdekit.run("ou", scan={"k": [0.5, 1.0, 2.0]}, params={"D": 0.4}, paths=1000,
                      t_end=1, dt=0.01, sample_every=20, precision="double",
                      observe="moments,expr,cov,diffusion", observe_expr="E=x*x", seed=9,
                      progress=False)


def test_moments_standard_errors(obs):
    se = obs["moments/mean_err_x"]
    assert obs.info("moments/mean_x").stderr == "moments/mean_err_x"
    assert se.shape == obs["moments/var_x"].shape == (3, 6)
    assert np.allclose(se, np.sqrt(obs["moments/var_x"] / 1000), rtol=1e-12, atol=0)
    assert se[0, 0] == 0 and np.all(se[:, 1:] > 0)


def test_expr_mean_and_error(obs):
    assert obs.info("expr/mean_E").stderr == "expr/err_E"
    assert obs.dims("expr/mean_E") == ("k", "sample")
    m, v, n = obs["moments/mean_x"], obs["moments/var_x"], 1000
    # <x^2> = var (n - 1) / n + <x>^2 over the same paths
    assert np.allclose(obs["expr/mean_E"], v * (n - 1) / n + m * m, rtol=1e-10, atol=1e-14)
    assert np.all(obs["expr/err_E"][:, 1:] > 0)


def test_to_xarray_companion_errors(obs):
    pytest.importorskip("xarray")
    ds = obs.to_xarray("expr")
    assert ds["mean_E"].attrs["standard_error"] == "err_E"
    assert ds["mean_E"].attrs["ancillary_variables"] == "err_E"
    assert np.array_equal(ds["err_E"].values, obs["expr/err_E"])
    full = obs.to_xarray()
    for name, err in (("expr/mean_E", "expr/err_E"), ("moments/mean_x", "moments/mean_err_x"),
                      ("diffusion/D", "diffusion/D_err"), ("diffusion/value", "diffusion/error"),
                      ("cov/value", "cov/error")):
        assert full[name].attrs["ancillary_variables"] == err, name
        assert err in full.data_vars
    assert full["cov/value"].dims == ("k", "cov/sample", "cov/var", "cov/var") or \
        full["cov/value"].shape == (3, 6, 1, 1)


def _mpl():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _bands(fig):
    from matplotlib.collections import PolyCollection

    return sum(isinstance(c, PolyCollection) for ax in fig.axes for c in ax.collections)


def _errorbars(fig):
    return sum(len(ax.containers) for ax in fig.axes)


def test_plot_pictures(obs):
    plt = _mpl()
    from sdekit import _plot

    assert _plot.pictures(obs) == ["moments", "expr", "cov", "diffusion"]
    # in a scan: the last values against k with error bars
    for name in ("expr", "cov", "diffusion"):
        fig = obs.plot(name)
        assert _errorbars(fig) == 1 and _bands(fig) == 0, name
        assert fig.axes[0].get_xlabel() == "$k$", name
        plt.close(fig)
    # at a grid point: over time with a band of +- one standard error
    for name in ("expr", "cov", "diffusion"):
        fig = obs.plot(name, grid=1)
        assert _bands(fig) == 1 and _errorbars(fig) == 0, name
        plt.close(fig)
    # moments: bands of +- s.d. and +- s.e. per grid point
    fig = obs.plot("moments")
    assert _bands(fig) == 2 * 3
    plt.close(fig)
    fig = obs.plot("moments", stat="variance")
    assert _bands(fig) == 0 and fig.axes[0].get_ylabel() == "var $x$"
    plt.close(fig)
    fig = obs.plot("cov", stat="variance", grid=0)
    assert fig.axes[0].get_ylabel() == "var $x$"
    plt.close(fig)
    with pytest.raises(ValueError, match="the expr picture has no variance"):
        obs.plot("expr", stat="variance")
    with pytest.raises(ValueError, match="stat 'sd'"):
        obs.plot("expr", stat="sd")


def _fpt_tavg_file(workdir, src):
    """A real result with fpt/ and tavg/ added in the layout of issue 13's shared
    design (until the run writes them itself)."""
    h5py = pytest.importorskip("h5py")
    path = os.path.join(workdir, "fpt-tavg.h5")
    src.save(path)
    with h5py.File(path, "r+") as f:
        g = f.create_group("fpt")
        g.attrs["boundaries"] = "left,right"
        split = np.array([[0.2, 0.8], [0.3, 0.7], [0.4, 0.6]])
        g.create_dataset("split", data=split).attrs["standard_error"] = "split_err"
        g.create_dataset("split_err", data=np.full((3, 2), 0.01))
        g.create_dataset("mean", data=np.full((3, 2), 1.5)).attrs["standard_error"] = "mean_err"
        g.create_dataset("mean_err", data=np.full((3, 2), 0.1))
        g.create_dataset("censored", data=np.array([0, 2, 5], dtype=np.int64))
        g.create_dataset("hist", data=np.ones((3, 2, 10), dtype=np.uint64))
        g.create_dataset("hist_edges", data=np.linspace(0, 2, 11))
        g.create_dataset("t", data=np.linspace(0, 2, 21))
        S = np.exp(-np.linspace(0, 2, 21))
        g.create_dataset("survival", data=np.tile(S, (3, 1))).attrs["standard_error"] = \
            "survival_err"
        g.create_dataset("survival_err", data=np.full((3, 21), 0.01))
        t = f.create_group("tavg")
        t.attrs["transient"] = 0.25
        t.attrs["t_end"] = 1.0
        t.create_dataset("mean_E", data=np.array([0.4, 0.2, 0.1])).attrs["standard_error"] = \
            "err_E"
        t.create_dataset("err_E", data=np.full(3, 0.01))
    return sdekit.load(path)


def test_fpt_and_tavg(obs, workdir):
    r = _fpt_tavg_file(workdir, obs)
    if "fpt/split" not in r:
        pytest.skip("no fpt datasets")
    assert r.stderr("fpt/split").shape == (3, 2)
    assert r.info("tavg/mean_E").stderr == "tavg/err_E"
    plt = _mpl()
    from sdekit import _plot

    assert _plot.pictures(r)[-2:] == ["fpt", "tavg"]
    fig = r.plot("fpt")  # one scan axis: split, mean tau against k, S(t) at grid point 0
    assert len(fig.axes) == 3 and _errorbars(fig) == 4 and _bands(fig) == 1
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["left", "right"]
    plt.close(fig)
    fig = r.plot("fpt", grid=2)  # histogram per boundary, S(t), split
    assert len(fig.axes) == 3 and fig.axes[0].get_xlabel() == "first-passage time $τ$"
    plt.close(fig)
    fig = r.plot("tavg")
    assert len(fig.axes) == 1 and _errorbars(fig) == 1
    plt.close(fig)
    if pytest.importorskip("xarray"):
        ds = r.to_xarray()
        assert ds["fpt/split"].attrs["ancillary_variables"] == "fpt/split_err"
        assert ds["tavg/mean_E"].attrs["ancillary_variables"] == "tavg/err_E"


BM = """[model]
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
"""


def test_fpt_real_run(workdir):
    """First passage from a run of a model with [boundaries] (when this sdekit has them)."""
    path = os.path.join(workdir, "bm.sde")
    with open(path, "w") as f:
        f.write(BM)
    try:
        r = sdekit.run(path, scan={"mu": [-0.5, 0.0, 0.5]}, paths=500, t_end=2, dt=0.01,
                       observe="fpt", seed=4, progress=False)
    except sdekit.Error as e:
        pytest.skip("this sdekit has no [boundaries]: %s" % e)
    assert r.info("fpt/split").stderr == "fpt/split_err"
    assert r.info("fpt/survival").stderr == "fpt/survival_err"
    split = r["fpt/split"]
    assert split.shape == (3, 2)
    # every path leaves [0, 1] by t = 2 here (almost surely): the fractions add up to 1
    assert np.allclose(split.sum(axis=1) + r["fpt/censored"] / 500, 1)
    plt = _mpl()
    fig = r.plot("fpt")
    assert len(fig.axes) == 3 and _errorbars(fig) == 4 and _bands(fig) == 1
    plt.close(fig)
    fig = r.plot("fpt", grid=1)
    assert fig.axes[0].get_xlabel() == "first-passage time $τ$"
    plt.close(fig)
    xr = pytest.importorskip("xarray")
    ds = r.to_xarray()
    assert isinstance(ds, xr.Dataset)
    assert ds["fpt/split"].attrs["ancillary_variables"] == "fpt/split_err"
    assert ds["fpt/survival"].attrs["ancillary_variables"] == "fpt/survival_err"


def test_hist_and_density_of_a_user_observable(workdir):
    """hist/NAME and density/NAME of a user observable (issue 13: runs that bin
    them write them; otherwise added in that layout with h5py) are drawn as the
    variables' are."""
    r = sdekit.run("ou", paths=400, t_end=1, observe="hist,expr", observe_expr="E=x*x", seed=2,
                   progress=False)
    if "hist/E/density" not in r:
        h5py = pytest.importorskip("h5py")
        path = os.path.join(workdir, "hist-E.h5")
        r.save(path)
        with h5py.File(path, "r+") as f:
            f["hist"].copy("x", "E")
            f["hist"].attrs["observables"] = ["E"]
        r = sdekit.load(path)
    plt = _mpl()
    fig = r.plot("hist")
    assert [ax.get_xlabel() for ax in fig.axes] == ["$x$", "$E$"]
    plt.close(fig)
    fig = r.plot("hist", var="E")
    assert [ax.get_xlabel() for ax in fig.axes] == ["$E$"]
    plt.close(fig)
