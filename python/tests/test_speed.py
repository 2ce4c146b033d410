"""Issue 29: the speed line (Result.path_steps, the CLI's "N path-steps in S s")
counts the steps actually integrated: an absorbed path stops at its hitting
step (it claimed paths x steps: 9e9 for 2.9e8 integrated)."""
import os

import sdekit

HERE = os.path.dirname(os.path.abspath(__file__))
WELL = os.path.join(HERE, "..", "..", "examples", "double-well.sde")


def test_absorbed_paths_stop_counting():
    paths, dt, t_end = 2000, 0.005, 50.0
    r = sdekit.run(WELL, params={"D": 0.5}, paths=paths, dt=dt, t_end=t_end, observe="fpt",
                   seed=3, progress=False)
    nsteps = round(t_end / dt)
    assert r["fpt/censored"] == 0  # every path absorbed: far fewer steps than paths x steps
    # exit_mean = the mean over the paths of min(m, nsteps) dt, m the hitting step
    integrated = float(r["fpt/exit_mean"]) * paths / dt
    assert abs(r.path_steps - integrated) <= 1e-6 * integrated
    assert r.path_steps == round(r.path_steps) and r.path_steps < paths * nsteps / 5


def test_without_boundaries_every_step():
    r = sdekit.run("ou", paths=1000, t_end=1, observe="moments", progress=False)
    assert r.path_steps == 1000 * 100
