"""Multilevel Monte Carlo and a requested total error (issue 26) through run(): mlmc= gives
the estimates and the mlmc/ datasets, target_error= the dt it chose."""
import math

import numpy as np
import pytest

import sdekit

# GBM, dS = mu S dt + sigma S dW: E S(1)^2 = exp(2 mu + sigma^2)
GBM = dict(params={"mu": 0.05, "sigma": 0.2}, t_end=1, dt=0.25, observe="moments,expr",
           observe_expr="S2=S*S", progress=False)
EXACT_S2 = math.exp(2 * 0.05 + 0.2 ** 2)


def test_mlmc_milstein():
    r = sdekit.run("gbm", mlmc=1e-3, scheme="milstein", seed=7, **GBM)
    levels = int(r["mlmc/levels"])
    assert levels >= 3
    paths, cost, dt = r["mlmc/paths"], r["mlmc/cost"], r["mlmc/dt"]
    assert paths.shape == cost.shape == dt.shape == (levels,)
    # paths_used counts every level's paths, as max_paths= does
    assert int(r.paths_used) == paths.sum() == r.attrs["paths"]
    assert np.all(paths > 0) and np.all(np.diff(dt) < 0)
    value, rms = float(r["mlmc/value_expr_mean_S2"]), float(r["mlmc/rms_error_expr_mean_S2"])
    # the observable's value at t_end is the estimate, its error the RMS error
    assert float(np.ravel(r["expr/mean_S2"])[-1]) == value
    assert float(np.ravel(r["expr/err_S2"])[-1]) == rms
    assert 0 < rms <= 1e-3
    assert abs(value - EXACT_S2) <= 1e-3
    assert r["mlmc/mean_expr_mean_S2"].shape == (levels,)


def test_target_error():
    r = sdekit.run("gbm", target_error=4e-3, scheme="euler", seed=3, **GBM)
    dt = float(r["target/dt"])
    assert 0 < dt < 0.25 and int(r["target/status"]) == 0
    assert abs(float(np.ravel(r["expr/mean_S2"])[-1]) - EXACT_S2) <= 2 * 4e-3
    assert float(np.ravel(r["expr/err_S2"])[-1]) <= 4e-3 / 2


def test_target_error_records():
    """The seed given (not a dt's derived one); each grid point's steps at its own dt."""
    r = sdekit.run("ou", target_error=3e-3, scheme="euler", seed=5, t_end=1, dt=0.1,
                   scan={"k": (0.5, 4, 3)}, observe="moments", progress=False)
    assert r.attrs["seed"] == 5
    dt, steps = r["target/dt"], r["target/steps"]
    assert np.all(steps * dt == 1) and len(set(steps)) > 1
    assert r.attrs["nsteps"] == steps.max() == r["moments/step"][-1]
    assert "target/steps" in r.info("moments/step").attrs["meaning"]


def test_bounds():
    """max_paths= and max_seconds= bound both; the status says which bound stopped them."""
    r = sdekit.run("gbm", target_error=2e-4, scheme="euler", seed=3, max_paths=40000, **GBM)
    assert int(r["target/status"]) == 3 and int(r.paths_used) <= 40000
    a = r.group_attrs("target")
    assert a["max_paths"] == 40000 and a["timing_dependent"] == 0 and a["target_error"] == 2e-4
    with pytest.raises(KeyError):
        r.group_attrs("no/such/group")
    r = sdekit.run("gbm", mlmc=1e-5, scheme="euler", seed=3, max_seconds=0.05, **GBM)
    assert int(r["mlmc/status"]) == 4
    assert "4 --max-seconds" in r.info("mlmc/status").attrs["meaning"]
    assert r.group_attrs("mlmc")["timing_dependent"] == 1
    assert abs(float(np.ravel(r["moments/mean_S"])[-1]) - math.exp(0.05)) < 0.05
    with pytest.raises(sdekit.UsageError, match="below the paths of its first round"):
        sdekit.run("gbm", mlmc=1e-3, max_paths=100, **GBM)


def test_mlmc_refuses_dt_check():
    with pytest.raises(sdekit.UsageError, match="leave out --dt-check"):
        sdekit.run("gbm", mlmc=1e-3, dt_check=True, **GBM)
