"""Options given twice, one-point scans and the time grid (issue 25, items 7-9): the rules
of the command line hold through run()."""
import pytest

import sdekit


def test_a_parameter_in_params_and_set_is_refused():
    with pytest.raises(sdekit.UsageError, match=r"--set k given twice \(k=1, then k=2\)"):
        sdekit.run("ou", params={"k": 1}, set={"k": 2}, paths=8, t_end=0.1, progress=False)


def test_a_hist_range_given_twice_is_refused():
    with pytest.raises(sdekit.UsageError, match=r"--hist-range x given twice"):
        sdekit.run("ou", observe="hist", hist_range=["x=0:1", "x=-1:2"], paths=8, t_end=0.1,
                   progress=False)


def test_a_one_point_scan_from_start_to_stop_is_refused():
    with pytest.raises(sdekit.UsageError, match=r"N = 1 gives one point"):
        sdekit.run("ou", scan={"k": (1, 2, 1)}, paths=8, t_end=0.1, progress=False)


def test_a_scan_range_that_overflows_is_refused():
    with pytest.raises(sdekit.UsageError, match=r"STOP - START overflows"):
        sdekit.run("ou", scan={"k": (-1e308, 1e308, 3)}, paths=8, t_end=0.1, progress=False)


def test_t_end_not_a_whole_number_of_steps_is_refused():
    with pytest.raises(sdekit.UsageError, match=r"--t-end 1.2 is not a whole number of steps"):
        sdekit.run("ou", dt=0.5, t_end=1.2, paths=8, progress=False)


def test_the_default_t_end_rounded_is_said_and_recorded(caplog):
    with caplog.at_level("INFO", logger="sdekit"):
        r = sdekit.run("ou", dt=0.3, paths=8, observe="moments", progress=False)
    assert any("the run ends at t = 9.9 (33 steps)" in m for m in caplog.messages)
    assert r.attrs["t_end"] == pytest.approx(9.9, rel=1e-15)
    assert r.attrs["t_end_asked"] == 10


CLASH = """[model]
name = clash
vars = a_b, c, a, b_c
[drift]
a_b = -a_b
c = -c
a = -a
b_c = -b_c
[noise]
a_b = 1
c = 1
a = 1
b_c = 1
"""


def test_a_tsv_header_collision_is_refused_before_the_run(tmp_path):
    # (issue 25 item 9) run() writes its outputs after the run; the header of
    # a TSV among them is still checked before the first step
    steps = []
    out = tmp_path / "clash.tsv"
    model = sdekit.Model.from_string(CLASH)
    with pytest.raises(sdekit.UsageError, match=r"TSV output of --observe cov: .*'cov_a_b_c'"):
        sdekit.run(model, observe="cov", paths=8, dt=0.01, t_end=1, output=str(out),
                   progress=lambda f, s: steps.append(f))
    assert steps == [] and not out.exists()
    # the same run with an HDF5 output is fine (the names stay apart there)
    r = sdekit.run(model, observe="cov", paths=8, dt=0.01, t_end=0.1,
                   output=str(tmp_path / "clash.h5"), progress=False)
    assert (tmp_path / "clash.h5").exists() and r is not None


def test_numpy_scalars_and_0d_arrays_are_numbers():
    # a 0-d array is what arithmetic on NumPy scalars and arrays often gives
    # (np.mean(a), a[()] of a file's attribute): it raised "iteration over a
    # 0-d array" before
    import numpy as np
    want = sdekit.run("ou", paths=64, dt=0.01, t_end=0.1, seed=5, progress=False)
    for kw in ({"paths": np.array(64)}, {"dt": np.array(0.01)}, {"t_end": np.array(0.1)},
               {"paths": np.int64(64), "dt": np.float64(0.01)}):
        a = dict(paths=64, dt=0.01, t_end=0.1, seed=5, progress=False)
        a.update(kw)
        r = sdekit.run("ou", **a)
        assert np.array_equal(r["drift/value"], want["drift/value"]), kw
    with pytest.raises(TypeError, match="expected a number"):
        sdekit.run("ou", paths=np.array(True), t_end=0.1, progress=False)
    # a masked value is refused, not read under its mask (a review: t_end and
    # seed ran with the hidden data)
    for kw in ({"t_end": np.ma.array(0.1, mask=True)}, {"seed": np.ma.array(99, mask=True)},
               {"dt": np.ma.masked}):
        a = dict(paths=8, t_end=0.1, progress=False)
        a.update(kw)
        with pytest.raises(sdekit.UsageError, match="masked array with masked values"):
            sdekit.run("ou", **a)
