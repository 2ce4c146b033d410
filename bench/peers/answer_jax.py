#!/usr/bin/env python3
"""The hand-written JAX peers of the time-to-answer benchmark (issue 26).

What a careful user would write in JAX for the three questions of
scripts/bench-answer.sh, with the same scheme, time step and number of paths
as sdekit's hand-chosen fixed run (so the same bias and the same variance:
the same error):

  gbm         E S(1)^2 of dS = mu S dt + sigma S dW (Ito), mu 0.05, sigma 0.2,
              S0 1: euler or milstein
  doublewell  mean first-passage time of dx = (x - x^3) dt + sqrt(2D) dW,
              D 0.5, from x = -1 to x >= 1: stochastic Heun (srk2) with the
              Brownian-bridge crossing probability exp(-2 d0 d1 / (2D dt))
  josephson   <<v>> = (x(t_end) - x(t_tr)) / (t_end - t_tr) of the paper's
              Eq. 1 (models/josephson.sde, a = 4.2): stochastic Heun

jit + vmap-free array code over all paths, lax.scan / lax.while_loop over the
steps, jax.random keyed per step by fold_in (no Philox).  Paths go in batches
of --batch; the sums are accumulated in float64 on the host, so the standard
error is that of all paths.  The timed call is the second one (the first
compiles).  --backend numpy runs the same arithmetic with NumPy and Python
loops (small sizes only: it checks the peers' logic where JAX is absent).

Prints one line: value  standard_error  seconds  paths
"""
import argparse
import math
import sys
import time

P = {
    "gbm": dict(mu=0.05, sigma=0.2, s0=1.0, t_end=1.0),
    "doublewell": dict(D=0.5, b=1.0, x0=-1.0, t_end=200.0),
    "josephson": dict(a=4.2, gamma=0.9, omega=4.9, D=0.001, f=0.1),
}


# ---------------------------------------------------------------- the steps
# Written once over an array module xp (jax.numpy or numpy).


def gbm_step(xp, s, dw, dt, scheme):
    p = P["gbm"]
    if scheme == "milstein":
        # b b' / 2 (dW^2 - dt) with b = sigma S
        return s * (1 + p["mu"] * dt + p["sigma"] * dw
                    + 0.5 * p["sigma"] ** 2 * (dw * dw - dt))
    return s * (1 + p["mu"] * dt + p["sigma"] * dw)


def dw_drift(x):
    return x - x * x * x


def dw_step(xp, x, alive, tau, z, u, t1, dt):
    """One srk2 step of the double well with absorption at x >= b; tau is
    the end of the step in which a path was absorbed."""
    p = P["doublewell"]
    g = math.sqrt(2 * p["D"])
    gdw = g * math.sqrt(dt) * z
    pred = x + dw_drift(x) * dt + gdw
    xn = x + 0.5 * (dw_drift(x) + dw_drift(pred)) * dt + gdw
    d0 = p["b"] - x
    d1 = p["b"] - xn
    # probability that the bridge crossed b inside the step (both ends below)
    pcross = xp.exp(-2 * d0 * xp.maximum(d1, 0) / (g * g * dt))
    hit = alive & ((xn >= p["b"]) | (u < pcross))
    x = xp.where(alive, xn, x)
    tau = xp.where(hit, t1, tau)
    return x, alive & ~hit, tau


def jj_drift(x, v, t):
    p = P["josephson"]
    return v, (-p["gamma"] * v - 2 * math.pi * xp_cos(2 * math.pi * x)
               + p["a"] * xp_cos(p["omega"] * t) + p["f"])


xp_cos = None  # set to the array module's cos by main()


def jj_step(x, v, z, t0, dt):
    p = P["josephson"]
    gdw = math.sqrt(2 * p["gamma"] * p["D"] * dt) * z
    fx, fv = jj_drift(x, v, t0)
    xp_, vp = x + fx * dt, v + fv * dt + gdw
    gx, gv = jj_drift(xp_, vp, t0 + dt)
    return x + 0.5 * (fx + gx) * dt, v + 0.5 * (fv + gv) * dt + gdw


# ---------------------------------------------------------------- JAX drivers


def jax_problem(args):
    import jax
    import jax.numpy as jnp
    from jax import lax

    global xp_cos
    xp_cos = jnp.cos
    dt = args.dt

    def partial_sums(q):
        # float32 sums of 1024 paths each; the host adds them in float64, so
        # a batch of 2^20 paths loses no digits to a long float32 sum
        q = q.reshape(-1, 1024)
        return jnp.sum(q, axis=1), jnp.sum(q * q, axis=1)

    if args.problem == "gbm":
        n = round(P["gbm"]["t_end"] / dt)

        @jax.jit
        def batch(key):
            def body(s, i):
                dw = math.sqrt(dt) * jax.random.normal(jax.random.fold_in(key, i),
                                                       s.shape, jnp.float32)
                return gbm_step(jnp, s, dw, dt, args.scheme), None
            s0 = jnp.full((args.batch,), P["gbm"]["s0"], jnp.float32)
            s, _ = lax.scan(body, s0, jnp.arange(n))
            return partial_sums(s * s)
        return batch

    if args.problem == "doublewell":
        p = P["doublewell"]
        nmax = round(p["t_end"] / dt)
        chunk = 64

        @jax.jit
        def batch(key):
            def chunk_body(c):
                i, x, alive, tau = c

                def step(c2, j):
                    x, alive, tau = c2
                    k = jax.random.fold_in(key, i + j)
                    kz, ku = jax.random.split(k)
                    z = jax.random.normal(kz, x.shape, jnp.float32)
                    u = jax.random.uniform(ku, x.shape, jnp.float32)
                    return dw_step(jnp, x, alive, tau, z, u, (i + j + 1) * dt, dt), None
                (x, alive, tau), _ = lax.scan(step, (x, alive, tau), jnp.arange(chunk))
                return i + chunk, x, alive, tau

            def more(c):
                return (c[0] < nmax) & jnp.any(c[2])
            x = jnp.full((args.batch,), p["x0"], jnp.float32)
            alive = jnp.ones((args.batch,), bool)
            tau = jnp.full((args.batch,), p["t_end"], jnp.float32)
            _, x, alive, tau = lax.while_loop(more, chunk_body, (0, x, alive, tau))
            tau = jnp.where(alive, p["t_end"], tau)
            return partial_sums(tau)
        return batch

    p = P["josephson"]
    period = 2 * math.pi / p["omega"]
    dt = period / args.spp
    ntr, n = args.transient_periods * args.spp, args.periods * args.spp

    @jax.jit
    def batch(key):
        k0, k1 = jax.random.split(jax.random.fold_in(key, 2**31 - 1))
        x = jax.random.uniform(k0, (args.batch,), jnp.float32, 0.0, 1.0)
        v = jax.random.uniform(k1, (args.batch,), jnp.float32, -2.0, 2.0)

        def body(c, i):
            x, v, xtr = c
            z = jax.random.normal(jax.random.fold_in(key, i), x.shape, jnp.float32)
            x, v = jj_step(x, v, z, i * dt, dt)
            xtr = jnp.where(i + 1 == ntr, x, xtr)
            return (x, v, xtr), None
        (x, v, xtr), _ = lax.scan(body, (x, v, x), jnp.arange(n))
        d = (x - xtr) / ((n - ntr) * dt)
        return partial_sums(d)
    return batch


def jax_run(args):
    import jax
    import numpy as np
    batch = jax_problem(args)
    nb = -(-args.paths // args.batch)

    def once(seed):
        s1 = s2 = 0.0
        for b in range(nb):
            a, q = batch(jax.random.fold_in(jax.random.PRNGKey(seed), b))
            s1 += float(np.sum(np.asarray(a, np.float64)))
            s2 += float(np.sum(np.asarray(q, np.float64)))
        return s1, s2
    once(args.seed + 1000003)  # compile (and warm up) on other numbers
    t0 = time.perf_counter()
    s1, s2 = once(args.seed)
    return s1, s2, nb * args.batch, time.perf_counter() - t0


# ---------------------------------------------------------------- NumPy check


def numpy_run(args):
    import numpy as np
    global xp_cos
    xp_cos = np.cos
    rng = np.random.default_rng(args.seed)
    n_paths = args.paths
    t0 = time.perf_counter()
    dt = args.dt
    if args.problem == "gbm":
        s = np.full(n_paths, P["gbm"]["s0"])
        for _ in range(round(P["gbm"]["t_end"] / dt)):
            s = gbm_step(np, s, math.sqrt(dt) * rng.standard_normal(n_paths), dt, args.scheme)
        q = s * s
    elif args.problem == "doublewell":
        p = P["doublewell"]
        x = np.full(n_paths, p["x0"])
        alive = np.ones(n_paths, bool)
        tau = np.full(n_paths, p["t_end"])
        i = 0
        while i < round(p["t_end"] / dt) and alive.any():
            z, u = rng.standard_normal(n_paths), rng.random(n_paths)
            x, alive, tau = dw_step(np, x, alive, tau, z, u, (i + 1) * dt, dt)
            i += 1
        q = np.where(alive, p["t_end"], tau)
    else:
        p = P["josephson"]
        dt = 2 * math.pi / p["omega"] / args.spp
        ntr, n = args.transient_periods * args.spp, args.periods * args.spp
        x = rng.random(n_paths)
        v = rng.uniform(-2, 2, n_paths)
        xtr = x
        for i in range(n):
            x, v = jj_step(x, v, rng.standard_normal(n_paths), i * dt, dt)
            if i + 1 == ntr:
                xtr = x
        q = (x - xtr) / ((n - ntr) * dt)
    return float(q.sum()), float((q * q).sum()), n_paths, time.perf_counter() - t0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("problem", choices=sorted(P))
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--spp", type=int, default=100, help="josephson: steps per period")
    ap.add_argument("--periods", type=int, default=50)
    ap.add_argument("--transient-periods", type=int, default=10)
    ap.add_argument("--paths", type=int, default=65536)
    ap.add_argument("--batch", type=int, default=1 << 20, help="paths per jitted call")
    ap.add_argument("--scheme", default="euler", choices=["euler", "milstein"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--backend", default="jax", choices=["jax", "numpy"])
    args = ap.parse_args(argv)
    args.batch = min(args.batch, args.paths)
    if args.backend == "jax" and (args.batch % 1024 or args.paths % args.batch):
        ap.error("--paths must be a multiple of --batch, and --batch of 1024")
    run = jax_run if args.backend == "jax" else numpy_run
    s1, s2, n, secs = run(args)
    mean = s1 / n
    var = max(s2 / n - mean * mean, 0.0) * n / (n - 1)
    print(f"{mean:.10g}\t{math.sqrt(var / n):.6g}\t{secs:.4f}\t{n}")


if __name__ == "__main__":
    main(sys.argv[1:])
