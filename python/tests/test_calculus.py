"""The calculus of state-dependent noise from Python: calculus= is --calculus,
and the results say which one they were integrated in."""
import math

import numpy as np

import sdekit


def _mean_at_end(calculus):
    r = sdekit.run("gbm", paths=20000, t_end=1, dt=0.01, precision="double", seed=3,
                   observe="moments", calculus=calculus, progress=False)
    return r, r["moments/mean_S"][-1], r["moments/mean_err_S"][-1]


def test_gbm_in_both_calculi():
    ri, mi, ei = _mean_at_end("ito")
    rs, ms, es = _mean_at_end("stratonovich")
    # E S(1) = exp(mu) (Ito) and exp(mu + sigma^2/2) (Stratonovich), mu = 0.5, sigma = 0.4;
    # euler's recursion gives (1 + m dt)^100 exactly
    assert abs(mi - (1 + 0.5 * 0.01) ** 100) < 4 * ei
    assert abs(ms - (1 + 0.58 * 0.01) ** 100) < 4 * es
    assert ms - mi > 20 * max(ei, es)
    assert math.isclose((1 + 0.58 * 0.01) ** 100, math.exp(0.58), rel_tol=3e-3)
    assert ri.attrs.get("calculus") == "ito"
    assert rs.attrs.get("calculus") == "stratonovich"
    assert np.isfinite(ms)
