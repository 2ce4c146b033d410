"""Delayed values x(t - TAU) and [history] through Python: the same options
and errors as the CLI (tests/test_delay.c holds the exact answers)."""
import math

import pytest

import sdekit


def test_delay_ou_variance_and_refusal():
    r = sdekit.run("delay_ou", scheme="srk2", set={"tau": 0.5}, dt=0.01, t_end=100,
                   transient=20, paths=2000, precision="double", observe="tavg",
                   observe_expr=["x2=x*x"], seed=3)
    m, e = float(r["tavg/mean_x2"]), float(r["tavg/err_x2"])
    exact = (1 + math.sin(0.5)) / (2 * math.cos(0.5))  # Kuechler-Mensch
    assert abs(m - exact) <= 5 * e
    with pytest.raises(sdekit.Error, match=r"delay_ou\.sde:18: \[drift\] x: the delay TAU = 0.015 "
                       r"of x\(t - TAU\) is 1.5 time steps"):
        sdekit.run("delay_ou", set={"tau": 0.015}, dt=0.01, t_end=1, paths=10)
