"""Scans of more than two axes and zipped scans from Python (issue 28): the same grid
given as three axes, as zipped arrays and as a zipped group of ranges, bit for bit."""
import os

import numpy as np
import pytest

import sdekit

OU3 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                   "scan-ou3.sde")
RUN = dict(paths=256, t_end=0.5, seed=3, precision="double", observe="drift", progress=False)


@pytest.fixture
def ou3():
    if not os.path.exists(OU3):
        pytest.skip("no tests/scan-ou3.sde beside these tests")
    return OU3


def test_three_axes_shape_and_zipped_equal(ou3):
    r3 = sdekit.run(ou3, scan={"k": (0.5, 1.5, 3), "D": [0.25, 0.5], "m": (0, 1, 2)}, **RUN)
    assert r3["drift/value"].shape == (3, 2, 2)
    assert list(r3.scan) == ["k", "D", "m"]
    # the same 12 points as (k, D) zipped into one axis of 6, then m: same grid order
    k = np.repeat([0.5, 1.0, 1.5], 2)
    d = np.tile(np.array([0.25, 0.5], dtype=np.float32), 3)  # any float dtype, converted once
    rz = sdekit.run(ou3, scan={("k", "D"): (k, d), "m": (0, 1, 2)}, **RUN)
    assert rz["drift/value"].shape == (6, 2)
    np.testing.assert_array_equal(rz["drift/value"].ravel(), r3["drift/value"].ravel())
    np.testing.assert_array_equal(rz["scan/D"], d.astype(np.float64))
    assert "D" not in rz.params and "k" not in rz.params


def test_zipped_ranges_equal_zipped_arrays(ou3):
    a = sdekit.run(ou3, scan={"k,D": ((0.5, 1.5, 3), (0.25, 0.75, 3))}, **RUN)
    b = sdekit.run(ou3, scan={("k", "D"): ([0.5, 1, 1.5], [0.25, 0.5, 0.75])}, **RUN)
    np.testing.assert_array_equal(a["drift/value"], b["drift/value"])
    assert a.info("scan/D").attrs["zipped_with"] == "k"


def test_zipped_errors(ou3):
    with pytest.raises(sdekit.UsageError, match="same N"):
        sdekit.run(ou3, scan={("k", "D"): ((0.5, 1.5, 3), (0.25, 0.75, 4))}, **RUN)
    with pytest.raises(sdekit.UsageError, match="same number of values"):
        sdekit.run(ou3, scan={("k", "D"): ([1, 2], [1, 2, 3])}, **RUN)
    with pytest.raises(sdekit.UsageError, match="one range or array per name"):
        sdekit.run(ou3, scan={("k", "D"): ([1, 2],)}, **RUN)
    with pytest.raises(sdekit.UsageError, match="not a finite number"):
        sdekit.run(ou3, scan={("k", "D"): ([1, 2], [1, np.nan])}, **RUN)


def test_plot_refuses_three_axes(ou3):
    pytest.importorskip("matplotlib")
    r3 = sdekit.run(ou3, scan={"k": (0.5, 1.5, 2), "D": [0.25, 0.5], "m": (0, 1, 2)}, **RUN)
    with pytest.raises(sdekit.UsageError, match="3 scan axes"):
        r3.plot()


def test_xarray_has_zipped_coordinates(ou3):
    pytest.importorskip("xarray")
    r = sdekit.run(ou3, scan={("k", "D"): ((0.5, 1.5, 3), (0.25, 0.75, 3)), "m": (0, 1, 2)}, **RUN)
    x = r.to_xarray("drift")
    assert x["value"].dims == ("k", "m")
    assert x.coords["D"].dims == ("k",)
    np.testing.assert_array_equal(x.coords["D"].values, [0.25, 0.5, 0.75])
