"""Your data in and out (issue 28): init= and path_params= as NumPy arrays
(any real dtype, converted to float64 once, handed over by pointer) or file
names, save_final=True, and the final states read back as arrays by
sdekit.load and given to the next run, bit for bit."""
import numpy as np
import pytest

import sdekit

FROZEN = """[model]
name = frozen
vars = x, v
[params]
k = 1
[drift]
x = 0
v = 0
[noise]
x = 0
v = 0
[init]
x = 0
v = 0
"""

KW = dict(precision="double", t_end=0.01, dt=0.01, save_final=True, progress=False, quiet=True)


@pytest.fixture
def frozen(tmp_path):
    p = tmp_path / "frozen.sde"
    p.write_text(FROZEN)
    return str(p)


def test_round_trip_arrays_and_files(frozen, tmp_path):
    rng = np.random.default_rng(3)
    x = rng.normal(size=100000)
    v = rng.normal(size=100000).astype(np.float32)  # converted once
    r = sdekit.run(frozen, init={"x": x, "v": v}, **KW)
    assert r["final/x"].shape == (100000,)
    assert np.array_equal(r["final/x"].view(np.uint64), x.view(np.uint64))
    assert np.array_equal(r["final/v"], v.astype(np.float64))
    out = str(tmp_path / "r.h5")
    r.save(out)
    back = sdekit.load(out)
    assert np.array_equal(back["final/x"].view(np.uint64), x.view(np.uint64))
    # the result file as the next run's initial states (under another seed:
    # its own would repeat the noise that drove those paths, and is refused)
    with pytest.raises(sdekit.UsageError, match="give another --seed"):
        sdekit.run(frozen, init=out, **KW)
    r2 = sdekit.run(frozen, init=out, seed=2, **KW)
    assert np.array_equal(r2["final/x"].view(np.uint64), x.view(np.uint64))
    # an .npy file of a structured array
    a = np.zeros(100000, dtype=[("x", "<f8"), ("v", "<i4")])
    a["x"], a["v"] = x, np.arange(100000)
    np.save(tmp_path / "a.npy", a)
    r3 = sdekit.run(frozen, init=str(tmp_path / "a.npy"), **KW)
    assert np.array_equal(r3["final/v"], np.arange(100000.0))


def test_per_grid_point(frozen):
    g = np.arange(12.0).reshape(3, 4)
    r = sdekit.run(frozen, scan={"k": (1, 2, 3)}, init={"x": g, "v": -g}, **KW)
    assert r["final/x"].shape == (3, 4)
    assert np.array_equal(r["final/v"], -g)


def test_grid_shape_checked(frozen):
    # a [paths][grid points] array has the right count but the wrong shape:
    # refused, not read in the wrong order (it was: path p of grid point g
    # got row 4 g + p of the transposed data)
    g = np.arange(12.0).reshape(3, 4)
    with pytest.raises(sdekit.UsageError, match=r"\[4 grid points\]\[3 paths\].*transpose"):
        sdekit.run(frozen, scan={"k": (1, 2, 3)}, paths=4, init={"x": g.T, "v": g.T}, **KW)
    with pytest.raises(sdekit.UsageError, match=r"\[3 grid points\]\[4 paths\]"):
        sdekit.run(frozen, scan={"k": (1, 2, 3)}, paths=12, init={"x": g, "v": g}, **KW)


def test_refusals(frozen):
    x = np.zeros(10)
    with pytest.raises(sdekit.UsageError, match="no values for variable 'v'"):
        sdekit.run(frozen, init={"x": x}, **KW)
    with pytest.raises(sdekit.UsageError, match="NaN and Inf are refused"):
        sdekit.run(frozen, init={"x": np.array([1.0, np.nan]), "v": np.zeros(2)}, **KW)
    with pytest.raises(sdekit.UsageError, match="expected real numbers"):
        sdekit.run(frozen, init={"x": np.zeros(2, complex), "v": np.zeros(2)}, **KW)
    with pytest.raises(sdekit.UsageError, match="10 values per name, but the run has 12 paths"):
        sdekit.run(frozen, init={"x": x, "v": x}, paths=12, **KW)
    with pytest.raises(sdekit.UsageError, match="'nope' is no parameter"):
        sdekit.run(frozen, init={"x": x, "v": x}, path_params={"nope": x}, **KW)


def test_checkpoint_with_arrays_refused_files_resume(frozen, tmp_path):
    # a checkpoint holds the run's arguments, not the caller's arrays: its
    # resume could not rebuild the kernel (it failed "written for another
    # kernel" and the work was lost), so such a run is refused before any
    # step; the same values from a file checkpoint and resume
    x = np.linspace(-1.0, 1.0, 64)
    ck = str(tmp_path / "a.ckpt")
    for kw in (dict(init={"x": x, "v": x}), dict(path_params={"k": x})):
        with pytest.raises(sdekit.UsageError, match="given as arrays are not stored in a checkpoint"):
            sdekit.run(frozen, checkpoint=ck, **kw, **KW)
        assert not (tmp_path / "a.ckpt").exists()
    np.savez(tmp_path / "x0.npz", x=x, v=-x)
    r = sdekit.run(frozen, init=str(tmp_path / "x0.npz"), checkpoint=ck, **KW)
    again = sdekit.resume(ck, force=True)
    assert np.array_equal(again["final/v"], r["final/v"])


def test_masked_arrays(frozen):
    # np.asarray drops a mask: the hidden values were used in silence
    m = np.ma.masked_invalid([0.5, np.nan, 2.0])
    m.data[1] = 99.0
    with pytest.raises(sdekit.UsageError, match="masked values"):
        sdekit.run(frozen, scan={"k": m}, **KW)
    with pytest.raises(sdekit.UsageError, match="masked values"):
        sdekit.run(frozen, params={"k": np.ma.masked}, **KW)
    x = np.ma.array(np.linspace(-1, 1, 16), mask=np.linspace(-1, 1, 16) > 0.5)
    with pytest.raises(sdekit.UsageError, match=r"init\['x'\]: a masked array"):
        sdekit.run(frozen, init={"x": x, "v": x.data}, **KW)
    with pytest.raises(sdekit.UsageError, match="masked values"):
        sdekit.run(frozen, sample_times=np.ma.array([0.0, 0.01], mask=[0, 1]), **KW)
    # without masked values a masked array is its data
    r = sdekit.run(frozen, init={"x": np.ma.array(x.data), "v": x.data}, **KW)
    assert np.array_equal(r["final/x"], x.data)
