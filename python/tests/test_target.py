"""Runs to a requested standard error (issue 26): target_se=, target_rse=, target_on=,
max_paths= through run(); the Result shows paths_used and target_status."""
import numpy as np
import pytest

import sdekit


def test_target_se_per_grid_point():
    r = sdekit.run("ou", observe="moments", target_se=0.004, scan={"k": [0.5, 1.25, 2]},
                   max_paths=32768, t_end=1, progress=False)
    assert r.paths_used.shape == (3,)
    assert list(r.target_status) == [1, 0, 0]  # k = 0.5 needs more than --max-paths
    assert int(r.paths_used[0]) == 32768
    assert np.all(r["moments/mean_err_x"][1:] <= 0.004)
    assert "paths_used" in repr(r)


def test_target_rse_and_target_on():
    r = sdekit.run("ou", observe="moments,drift", target_rse=0.01, target_on="drift", t_end=1,
                   progress=False)
    assert abs(r["drift/error"]) <= 0.01 * abs(r["drift/value"])
    assert int(r.target_status) == 0


def test_a_plain_run_has_no_paths_used():
    r = sdekit.run("ou", paths=64, t_end=0.1, progress=False)
    assert r.paths_used is None and r.target_status is None


@pytest.mark.parametrize("kw, msg", [
    (dict(target_se=0), r"--target-se '0': expected a standard error > 0"),
    (dict(target_se=float("nan")), r"expected a standard error > 0"),
    (dict(target_se=0.1, target_rse=0.1), r"give one of them"),
    (dict(target_se=0.1, target_on="hist"), r"--target-on hist: the run does not observe it"),
    (dict(max_paths=100000), r"--max-paths bounds a run to a requested error: .*--mlmc"),
    (dict(target_se=0.1, paths=5000), r"--paths and --target-se: .*--max-paths N"),
    (dict(target_rse=0.1, paths=5000), r"--paths and --target-rse"),
])
def test_bad_values_are_refused(kw, msg):
    with pytest.raises(sdekit.UsageError, match=msg):
        sdekit.run("ou", observe="moments", t_end=0.1, progress=False, **kw)
