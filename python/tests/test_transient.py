"""Issue 29: --transient t_tr opens the one window of every time average:
drift and tavg over [t_tr, t_end], diffusion's D_eff(t) over [t_tr, t]
(var(x(t) - x(t_tr)) / 2(t - t_tr)); checked against the exact values of the
Ornstein-Uhlenbeck process dx = -k x dt + sqrt(2 D) dW, x(0) = 1 (ou.sde)."""
import numpy as np
import pytest

import sdekit

K, D, T, TR = 1.0, 0.5, 2.0, 1.0
KW = dict(paths=1 << 16, t_end=T, sample_every=25, seed=5, precision="double", progress=False)


def _deff(t, tr):
    """var(x(t) - x(tr)) / 2(t - tr) for x(0) = 1: x(t) = x(tr) e^(-k tau) + noise."""
    tau = t - tr
    var_tr = D / K * (1 - np.exp(-2 * K * tr))
    return (var_tr * (1 - np.exp(-K * tau)) ** 2 + D / K * (1 - np.exp(-2 * K * tau))) / (2 * tau)


def _close(value, err, exact, what):
    value, err, exact = np.broadcast_arrays(value, err, exact)
    assert np.all(np.abs(value - exact) <= 5 * err), (what, value, err, exact)


def test_every_time_average_over_the_window():
    r = sdekit.run("ou", transient=TR, observe="diffusion,tavg,drift", **KW)
    t, d, e = r["diffusion/t"], r["diffusion/D"], r["diffusion/D_err"]
    after = t > TR + 1e-12
    assert np.isnan(d[~after]).all() and np.isnan(e[~after]).all()
    assert after.sum() == 4
    _close(d[after], e[after], _deff(t[after], TR), "D_eff over [t_tr, t]")
    # (the estimator from t = 0 is far from these: var(x(2)) / 4 = 0.123 against 0.303)
    assert abs(_deff(T, TR) - D / K * (1 - np.exp(-2 * K * T)) / (2 * T)) > 50 * e[-1]
    _close(r["diffusion/value"], r["diffusion/error"], _deff(T, TR), "long-time D_eff")
    # <x> = e^(-k t): its time average over [t_tr, T] and the drift (x(T) - x(t_tr)) / (T - t_tr)
    mean = (np.exp(-K * TR) - np.exp(-K * T)) / (K * (T - TR))
    # (right-point rule over the window's steps: O(dt) from the integral)
    dt = 0.01
    right = np.mean(np.exp(-K * (TR + dt * np.arange(1, round((T - TR) / dt) + 1))))
    assert abs(right - mean) < 1e-2
    _close(r["tavg/mean_x"], r["tavg/err_x"], right, "tavg of x")
    _close(r["drift/value"], r["drift/error"], (np.exp(-K * T) - np.exp(-K * TR)) / (T - TR), "drift")


def test_without_a_transient_unchanged():
    r = sdekit.run("ou", observe="diffusion", **KW)
    t, d, e = r["diffusion/t"][1:], r["diffusion/D"][1:], r["diffusion/D_err"][1:]
    _close(d, e, D / K * (1 - np.exp(-2 * K * t)) / (2 * t), "D_eff from t = 0")


def test_diffusion_var_must_be_the_drift_one():
    kw = dict(paths=64, periods=4, transient_periods=2, progress=False)
    with pytest.raises(sdekit.UsageError, match=r"--drift's variable \(x\) alone: give --drift v"):
        sdekit.run("josephson", observe="diffusion", diffusion_var="v", **kw)
    sdekit.run("josephson", observe="diffusion", diffusion_var="v", drift="v", **kw)
    sdekit.run("josephson", observe="diffusion", diffusion_var="v",
               **dict(kw, transient_periods=0))
