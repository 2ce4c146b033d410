"""Published workloads side by side (issue 32): `python3 -m sdekit.bench --published NAME`
(`sdekit bench --published NAME` runs this).

Each workload prints the published figure with its hardware and source, our figure (whole
sdekit.run calls in this process: the first call warms up, compiles and creates the
context; the median of --repeats calls after it, each with another seed), and, when JAX is
installed, the figure of the hand-written JAX version (bench/peers/published_jax.py: its
jitted function's first call compiles, the median of the calls after it), with the JAX
result checked against ours within K standard errors.

One process: sdekit through its C library (ctypes) and JAX are called from the same
Python process, so no shell, no second program and no path from the environment is
involved; the peer script is loaded from this package's own source tree
(python/sdekit -> ../../bench/peers), never from a path given at run time.

usage: python3 -m sdekit.bench --published NAME|list|all [--size small|full]
           [--backend B] [--repeats R] [--no-jax] [--k K]
"""
import argparse
import importlib.util
import math
import os
import statistics
import sys
import time

import numpy as np

from . import _errors

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PUBLISHED = os.path.join(ROOT, "bench", "published")
PEER = os.path.join(ROOT, "bench", "peers", "published_jax.py")

# The published figure of every workload: (figure, hardware, source).  Where the
# source gives no number for this exact workload, the figure says so.
FIGURES = {
    "linear": ("715.9 ms per solve (2^23 trajectories, GPUEM, dt 1/256, Float32; "
               "minimum of @benchmark)",
               "an NVIDIA GPU (the artifact's cluster scripts name Volta V100s; the paper's "
               "own statement of it not re-checked here)",
               "arXiv:2304.06835; data/SDE/Julia_times_unadaptive.txt of "
               "github.com/utkarsh530/GPUODEBenchmarks"),
    "cle": ("GPU: no number found in the artifact's data; CPU (EM, EnsembleThreads): "
            "116.7 s for the 1,720,320 trajectories",
            "CPU figure: the paper's CPU (not re-checked here)",
            "arXiv:2304.06835; sde_examples/bench_crn_model.jl and "
            "data/CPU/SDE/MTK/Julia_times_unadaptive.txt of GPUODEBenchmarks"),
    "prog1": ("no absolute time taken from the paper for this job size",
              "Tesla C1060 / GTX 280 era GPUs (paper)",
              "Januszewski & Kostur, Comput. Phys. Commun. 181 (2010) 183, PROG1"),
    "prog2": ("no absolute time taken from the paper for this job size", "as prog1",
              "Januszewski & Kostur 2010, PROG2 (all pairs)"),
    "prog3": ("no absolute time taken from the paper for this job size", "as prog1",
              "Januszewski & Kostur 2010, PROG3 (mean field)"),
    "switching": ("about 400x a multicore CPU (abstract); no absolute time for this "
                  "setup", "NVIDIA GTX 980",
                  "Pierro, Troiano, Mejuto, Filatrella, J. Comput. Phys. 361 (2018) 136"),
}
NAMES = tuple(FIGURES)


def _grid_cle(n_sd):
    """The published parameter grid (S, D log-spaced with n_sd points each; 10 tau, 8 v0,
    3 n, 7 eta): n_sd = 32 gives 1,720,320 trajectories.  Row-major with S slowest."""
    S = 10.0 ** np.linspace(-1, 2, n_sd)
    D = 10.0 ** np.linspace(-1, 2, n_sd)
    tau = np.array([0.1, 0.15, 0.20, 0.30, 0.50, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 7.50, 10.0,
                    15.0, 20.0, 30.0, 50.0, 75.0, 100.0])[0:19:2]
    v0 = np.array([0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.20])
    n = np.array([2.0, 3.0, 4.0])
    eta = np.array([0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1])
    axes = np.meshgrid(S, D, tau, v0, n, eta, indexing="ij")
    g = {k: a.ravel().astype(np.float32).astype(np.float64)
         for k, a in zip(("S", "D", "tau", "v0", "n", "eta"), axes)}
    return g


# Every workload: its sdekit.run keywords at each size, and a function of the Result giving
# (name of the value, value, standard error, a check against an exact value or None).
def _spec(name, size):
    full = size == "full"
    if name == "linear":
        return dict(model=os.path.join(PUBLISHED, "linear.sde"), paths=1 << 23 if full else 4096,
                    dt=1 / 256, t_end=1, scheme="euler",
                    precision="single" if full else "double", observe="moments",
                    sample_every=256)
    if name == "cle":
        g = _grid_cle(32 if full else 1)
        # the moments of the state at t_end on the device, what the JAX version computes
        # (the mean and spread of sigma); the check of E(sigma - A1) takes the final states
        # of one more call, untimed (_check_cle)
        return dict(model=os.path.join(PUBLISHED, "cle.sde"), dt=0.1,
                    t_end=1000 if full else 200, scheme="euler", precision="single",
                    path_params=g, observe="moments", sample_every=10000 if full else 2000,
                    init={v: g["v0"] for v in ("sigma", "A1", "A2", "A3")})
    if name == "prog1":
        return dict(model="josephson", paths=1 << 21 if full else 256, spp=100,
                    periods=2000 if full else 20, scheme="srk2", precision="single",
                    observe="drift", transient_periods=0)
    if name == "prog3":
        return dict(model="kuramoto-meanfield", paths=1, particles=1 << 24 if full else 4096,
                    dt=0.01, t_end=5 if full else 0.5, scheme="euler", precision="single",
                    observe="order")
    if name == "prog2":
        return dict(model="kuramoto", paths=1, particles=65536 if full else 512, dt=0.01,
                    t_end=0.2 if full else 0.1, scheme="euler", precision="single",
                    observe="order")
    if name == "switching":
        return dict(model=os.path.join(PUBLISHED, "switching.sde"),
                    paths=1 << 20 if full else 512, dt=0.05, t_end=2000, scheme="euler",
                    precision="single" if full else "double", observe="fpt")
    raise KeyError(name)


def linear_exact(spec):
    """E u(1) and E u(1)^2 of the Euler-Maruyama recursion u <- u (1 + a dt + b dW)
    itself (exact for the scheme, so the check has no bias term), and the variance of u^2
    (from E u^4) for the standard error of the second moment."""
    a, b, u0, dt = 1.5, 0.01, 0.1, spec["dt"]
    n = round(spec["t_end"] / dt)
    c = 1 + a * dt
    m1 = u0 * c ** n
    m2 = u0 ** 2 * (c * c + b * b * dt) ** n
    m4 = u0 ** 4 * (c ** 4 + 6 * c * c * b * b * dt + 3 * b ** 4 * dt * dt) ** n
    return m1, m2, m4


def _value(name, spec, r):
    """(what, value, se, exact or None): the number that is compared with the peer."""
    if name == "linear":
        m = float(r["moments/mean_u1"][-1])
        var = float(r["moments/var_u1"][-1])
        n = spec["paths"]
        m1, m2, m4 = linear_exact(spec)
        # the checks' standard errors from the exact moments (a sample variance of this
        # heavy-tailed u underestimates its own spread)
        return "E u1(1)", m, math.sqrt((m2 - m1 * m1) / n), m1, ("E u1(1)^2", var + m * m,
                                                      math.sqrt((m4 - m2 * m2) / n), m2)
    if name == "cle":
        n = spec["path_params"]["S"].size
        m = float(r["moments/mean_sigma"][-1])
        return "E sigma(t)", m, math.sqrt(float(r["moments/var_sigma"][-1]) / n), None, None
    if name == "prog1":
        return "<<v>>", float(np.ravel(r["drift/value"])[0]), \
            float(np.ravel(r["drift/error"])[0]), None, None
    if name in ("prog2", "prog3"):
        rr = np.asarray(r["order/r"], dtype=np.float64).ravel()
        return "r(t_end)", float(rr[-1]), float("nan"), None, None
    if name == "switching":
        # the ramp r t: the mean switching current is r times the mean first-passage time
        # (every path switches before t_end: the censored count is checked)
        rate = 0.001
        if float(np.ravel(r["fpt/censored"])[0]) != 0:
            raise RuntimeError("switching: paths did not switch before t_end")
        return "mean switching current", rate * float(np.ravel(r["fpt/mean"])[0]), \
            rate * float(np.ravel(r["fpt/mean_err"])[0]), None, None
    raise KeyError(name)


def _check_cle(spec, backend, seed, mean):
    """The exact check of `cle` on the final states of one more call with the timed last
    call's seed (the same paths): at stationarity E sigma = E A1 at every grid point (the
    mean of A1's linear Euler recursion follows sigma's), exact for the paths whose tau has
    relaxed.  Their sigma averages to the timed call's moment (else RuntimeError)."""
    import sdekit
    kw = dict(spec)
    model = kw.pop("model")
    kw.pop("observe")
    r = sdekit.run(model, seed=seed, backend=backend, progress=False, save_final=True, **kw)
    s = np.asarray(r["final/sigma"], dtype=np.float64).ravel()
    a1 = np.asarray(r["final/A1"], dtype=np.float64).ravel()
    if abs(s.mean() - mean) > 1e-9 * max(1.0, abs(mean)):
        raise RuntimeError("cle: the final states' mean sigma %.17g is not the timed call's "
                           "moment %.17g (another seed's paths?)" % (s.mean(), mean))
    keep = spec["path_params"]["tau"] * 10 <= spec["t_end"] / 10
    d = (s - a1)[keep]
    return ("E(sigma - A1), tau <= t/100 (final states, the same seed)", float(d.mean()),
            float(d.std() / math.sqrt(d.size)), 0.0)


def _time_ours(spec, repeats, backend):
    """Whole sdekit.run calls: the first warms up, then `repeats` timed calls, each with
    another seed.  Returns (median seconds, the last Result)."""
    import sdekit
    kw = dict(spec)
    model = kw.pop("model")
    walls, r = [], None
    for k in range(repeats + 1):
        t = time.perf_counter()
        r = sdekit.run(model, seed=k + 1, backend=backend, progress=False, **kw)
        if k:
            walls.append(time.perf_counter() - t)
    return statistics.median(walls), r


def _peer():
    """The JAX peers, or (None, why)."""
    # JAX would otherwise take 75% of the GPU's memory at its first use, before sdekit's
    # next workload allocates
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    try:
        import jax  # noqa: F401
    except ImportError:
        return None, "JAX is not installed: the JAX column is skipped"
    if not os.path.isfile(PEER):
        return None, "bench/peers/published_jax.py is not next to this package: skipped"
    spec = importlib.util.spec_from_file_location("sdekit_published_jax", PEER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, None


def _fmt_s(s):
    return "%.1f ms" % (s * 1e3) if s < 10 else "%.2f s" % s


def run_one(name, size, backend, repeats, use_jax, k):
    """Runs one workload, prints its lines; returns 0, or 1 when a check failed."""
    fig, hw, src = FIGURES[name]
    spec = _spec(name, size)
    print("== %s (%s size, backend %s)" % (name, size, backend))
    print("  published: %s; hardware: %s; source: %s" % (fig, hw, src))
    sec, r = _time_ours(spec, repeats, backend)
    what, val, se, exact, extra = _value(name, spec, r)
    if name == "cle":
        extra = _check_cle(spec, backend, repeats + 1, val)
    print("  ours: %s per call (median of %d whole calls after the first); %s = %.6g +- %.2g"
          % (_fmt_s(sec), repeats, what, val, se))
    bad = 0
    checks = [(what, val, se, exact)] + ([extra] if extra else [])
    for w, v, e, x in checks:
        if x is None:
            continue
        ok = abs(v - x) <= k * e
        bad |= not ok
        print("  check: %s = %.6g, exact %.6g, |diff| = %.2f SE (%s %g SE)"
              % (w, v, x, abs(v - x) / e, "ok within" if ok else "FAILS", k))
    if not use_jax:
        print("  jax: skipped (--no-jax)")
        return bad
    peer, why = _peer()
    if peer is None:
        print("  jax: " + why)
        return bad
    if name not in peer.BUILDERS:
        print("  jax: no hand-written JAX version of %s yet" % name)
        return bad
    jsec, jval, jse = peer.timed(name, spec, repeats)
    tol = k * math.sqrt(se * se + jse * jse) if se == se and jse == jse else float("nan")
    agree = "within %g SE of ours" % k if abs(jval - val) <= tol else (
        "NOT within %g SE" % k if tol == tol else "not compared: no SE")
    bad |= agree.startswith("NOT")
    import jax
    dev = jax.devices()[0]
    print("  jax (%s %s): %s per call; %s = %.6g +- %.2g (%s); ours/jax speed %.2fx"
          % (dev.platform, getattr(dev, "device_kind", ""), _fmt_s(jsec), what, jval, jse,
             agree, jsec / sec))
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(prog="sdekit bench --published",
                                 description="published workloads, side by side")
    ap.add_argument("--published", required=True, metavar="NAME",
                    help="list, all, or one of: " + ", ".join(NAMES))
    ap.add_argument("--size", choices=("small", "full"), default="full")
    ap.add_argument("--backend", default=None, help="default: cuda if found, else cpu")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--k", type=float, default=4.0, help="checks within K standard errors")
    a = ap.parse_args(argv)
    if a.published == "list":
        for n in NAMES:
            print("%-10s %s" % (n, FIGURES[n][2]))
        return 0
    names = NAMES if a.published == "all" else (a.published,)
    if names[0] not in FIGURES:
        print("sdekit bench: unknown published workload %s (one of: list, all, %s)"
              % (ascii(a.published), ", ".join(NAMES)),
              file=sys.stderr)
        return 2
    if a.repeats < 1:
        print("sdekit bench: --repeats must be at least 1", file=sys.stderr)
        return 2
    if not os.path.isdir(PUBLISHED):
        print("sdekit bench: --published needs the source tree's bench/ next to this package "
              "(%s is not there)" % ascii(PUBLISHED), file=sys.stderr)
        return 2
    backend = a.backend or _default_backend()
    bad = 0
    for n in names:
        try:
            bad |= run_one(n, a.size, backend, a.repeats, not a.no_jax, a.k)
        except _errors.Error as e:  # (the next workloads still run; the exit status says it)
            print("  %s: error: %s" % (n, e))
            bad = 1
    return 1 if bad else 0


def _default_backend():
    """cuda when the library finds a GPU (sdekit_cuda_info_get), else cpu."""
    import ctypes
    from . import _run
    from ._lib import lib, sdekit_cuda_info, sdekit_error
    info, err = sdekit_cuda_info(), sdekit_error()
    cfg = _run._Config()
    st = lib.sdekit_cuda_info_get(cfg.p, ctypes.byref(info), ctypes.byref(err))
    return "cuda" if st == 0 and info.ndevices > 0 else "cpu"


if __name__ == "__main__":
    sys.exit(main())
