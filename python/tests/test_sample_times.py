"""--sample-times from Python (issue 28): sample_times= a list or NumPy array
(any float dtype) or the CLI's text; the results hold the times as given, and
the same times as --sample-every's give bitwise the same values."""
import numpy as np
import pytest

import sdekit

BM = sdekit.Model.from_string("[model]\nname = bm\nvars = x\n[params]\nD = 0.5\n[drift]\n"
                              "x = 0\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0\n")


def test_array_of_times_msd():
    r = sdekit.run(BM, paths=1 << 14, observe="expr", observe_expr="x2=x*x",
                   sample_times=np.array([0.01, 0.1, 1, 10]), precision="double", seed=3,
                   progress=False)
    t = r["expr/t"]
    assert np.array_equal(t, [0.01, 0.1, 1, 10])
    assert r.attrs["sample_times"] == "list"
    m, e = r["expr/mean_x2"], r["expr/err_x2"]
    assert np.all(np.abs(m - 2 * 0.5 * t) <= 4 * e), (m, e)
    # float32: its values as doubles (exact here; 0.1f would be 0.10000000149011612)
    r32 = sdekit.run(BM, paths=1024, observe="moments",
                     sample_times=np.array([0.5, 1.0, 2.0], dtype=np.float32), progress=False)
    assert np.array_equal(r32["moments/t"], [0.5, 1, 2])


def test_text_forms_and_same_as_sample_every():
    a = sdekit.run("ou", paths=2000, dt=0.01, t_end=1, sample_every=25, observe="moments",
                   precision="double", seed=5, progress=False)
    b = sdekit.run("ou", paths=2000, dt=0.01, t_end=1, sample_times="lin:0:1:5",
                   observe="moments", precision="double", seed=5, progress=False)
    c = sdekit.run("ou", paths=2000, dt=0.01, t_end=1, sample_times=list(a["moments/t"]),
                   observe="moments", precision="double", seed=5, progress=False)
    for r in (b, c):
        for k in ("moments/mean_x", "moments/var_x", "moments/step"):
            assert np.array_equal(a[k], r[k]), k
    assert np.array_equal(b["moments/t"], [0, 0.25, 0.5, 0.75, 1])
    assert b.attrs["sample_times"] == "lin"


def test_bad_times():
    with pytest.raises(sdekit.UsageError, match="not a step boundary"):
        sdekit.run("ou", paths=8, dt=0.01, observe="moments", sample_times=[0.1, 0.125],
                   progress=False)
    with pytest.raises(sdekit.UsageError, match="1-d"):
        sdekit.run("ou", paths=8, observe="moments", sample_times=np.ones((2, 2)),
                   progress=False)
    with pytest.raises(sdekit.UsageError, match="not a finite number"):
        sdekit.run("ou", paths=8, observe="moments", sample_times=[0.1, float("nan")],
                   progress=False)
