#!/usr/bin/env python3
"""Repeated runs in one process (issue 32): DiffEqGPU's linear SDE workload (3 states,
du = 1.01 u dt + 0.87 u dW, Euler-Maruyama, dt = 1/256 to t = 1, 2^23 trajectories, single
precision; arXiv:2304.06835) run CALLS times from Python with other seeds, each call's wall
time against its kernel time (the run's seconds in the steps). --no-session runs without the
process's session (each call then makes and destroys the GPU's context), the baseline.

usage: scripts/bench-repeat.py [--paths N] [--calls K] [--backend B] [--no-session]"""
import argparse
import os
import sys
import tempfile
import time

MODEL = """[model]
name = linear3
vars = u1, u2, u3
[params]
a = 1.01
b = 0.87
[drift]
u1 = a * u1
u2 = a * u2
u3 = a * u3
[noise]
u1 = b * u1
u2 = b * u2
u3 = b * u3
[init]
u1 = 0.1
u2 = 0.1
u3 = 0.1
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--paths", type=int, default=1 << 23)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--no-session", action="store_true")
    a = ap.parse_args()
    t0 = time.perf_counter()
    import sdekit
    from sdekit import _run
    t_import = time.perf_counter() - t0
    if a.no_session:
        _run._Held.get = classmethod(lambda cls: None)
    with tempfile.NamedTemporaryFile("w", suffix=".sde", delete=False) as f:
        f.write(MODEL)
    try:
        for k in range(a.calls):
            t = time.perf_counter()
            r = sdekit.run(f.name, paths=a.paths, dt=1 / 256, t_end=1, scheme="euler",
                           precision="single", observe="moments", sample_every=256,
                           seed=k + 1, backend=a.backend, progress=False)
            wall = time.perf_counter() - t
            mean = float(r["moments/mean_u1"][-1])
            print("call %d: %.1f ms wall, %.1f ms in the steps (%.1fx), E u1(1) = %.5f (exact %.5f)"
                  % (k + 1, wall * 1e3, r.seconds * 1e3, wall / r.seconds, mean,
                     0.1 * 2.718281828459045 ** 1.01))
    finally:
        os.unlink(f.name)
    print("import sdekit: %.1f ms; session: %s" % (t_import * 1e3, "off" if a.no_session else "on"))


if __name__ == "__main__":
    sys.exit(main())
