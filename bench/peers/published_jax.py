#!/usr/bin/env python3
"""Hand-written JAX versions of the published workloads (issue 32), loaded by
`python3 -m sdekit.bench --published NAME` (python/sdekit/bench.py) in its own process.

What a careful JAX user would write: the same model, scheme, dt, paths and precision as
sdekit's run (the spec dict sdekit.bench passes), jit over the whole integration with
lax.fori_loop over the steps, arrays over all paths (no vmap of a per-path solver, which
is slower), jax.random keyed per step by fold_in.  timed(NAME, spec, repeats) calls the
jitted function once (compiles), then `repeats` times with other keys, each call waited
for (block_until_ready), and returns (median seconds, value, standard error): the same
value sdekit.bench compares (see its _value).

Standalone: published_jax.py NAME [--size small|full] prints the same three numbers.
"""
import math
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np


def _dtype(spec):
    if spec.get("precision") == "double":
        jax.config.update("jax_enable_x64", True)
        return jnp.float64
    return jnp.float32


def _steps(spec):
    return int(round(spec["t_end"] / spec["dt"]))


# ------------------------------------------------------------------ the workloads
# Each builder returns (f, post): f(key) -> device arrays (jitted), post(arrays) ->
# (value, se) on the host.


def linear(spec):
    dt_ = _dtype(spec)
    n, steps, dt = spec["paths"], _steps(spec), spec["dt"]
    a, b, u0 = 1.5, 0.01, 0.1

    @jax.jit
    def f(key):
        def body(i, u):
            z = jax.random.normal(jax.random.fold_in(key, i), (3, n), dt_)
            return u + a * u * dt + b * u * (math.sqrt(dt) * z)

        u = jax.lax.fori_loop(0, steps, body, jnp.full((3, n), u0, dt_))
        return u[0].mean(), u[0].var()

    def post(out):
        m, v = (float(x) for x in out)
        return m, math.sqrt(v / n)

    return f, post


def cle(spec):
    dt_ = _dtype(spec)
    g = spec["path_params"]
    p = {k: jnp.asarray(v, dt_) for k, v in g.items()}
    steps, dt = _steps(spec), spec["dt"]
    n = g["S"].size
    sq = math.sqrt(dt)

    @jax.jit
    def f(key):
        S, D, tau, v0, nn, eta = (p[k] for k in ("S", "D", "tau", "v0", "n", "eta"))

        def body(i, u):
            s, a1, a2, a3 = u
            hs = jnp.power(jnp.abs(S * s), nn)
            prod = v0 + hs / (hs + jnp.power(jnp.abs(D * a3), nn) + 1)
            w = jax.random.normal(jax.random.fold_in(key, i), (8, n), dt_) * sq
            r = (prod, s, s / tau, a1 / tau, a1 / tau, a2 / tau, a2 / tau, a3 / tau)
            g_ = [eta * jnp.sqrt(jnp.abs(x)) * w[j] for j, x in enumerate(r)]
            return (s + (prod - s) * dt + g_[0] - g_[1],
                    a1 + (s - a1) / tau * dt + g_[2] - g_[3],
                    a2 + (a1 - a2) / tau * dt + g_[4] - g_[5],
                    a3 + (a2 - a3) / tau * dt + g_[6] - g_[7])

        u = jax.lax.fori_loop(0, steps, body, tuple(v0 for _ in range(4)))
        return u[0].mean(), u[0].std()

    def post(out):
        m, sd = (float(x) for x in out)
        return m, sd / math.sqrt(n)

    return f, post


def switching(spec):
    dt_ = _dtype(spec)
    n, steps, dt = spec["paths"], _steps(spec), spec["dt"]
    alpha, D, r = 0.1, 0.01, 0.001
    g = math.sqrt(2 * alpha * D * dt)

    @jax.jit
    def f(key):
        # Euler with absorption at phi >= pi; the time recorded is the end of the step.
        def body(i, c):
            phi, v, alive, tau = c
            t = i * dt
            z = jax.random.normal(jax.random.fold_in(key, i), (n,), dt_)
            phin = phi + v * dt
            vn = v + (-alpha * v - jnp.sin(phi) + r * t) * dt + g * z
            hit = alive & (phin >= math.pi)
            return (jnp.where(alive, phin, phi), jnp.where(alive, vn, v), alive & ~hit,
                    jnp.where(hit, (i + 1) * dt, tau))

        z0 = jnp.zeros((n,), dt_)
        c = jax.lax.fori_loop(0, steps, body,
                              (z0, z0, jnp.ones((n,), bool), jnp.full((n,), jnp.nan, dt_)))
        cur = r * c[3]
        ok = jnp.isfinite(cur)
        m = jnp.where(ok, cur, 0).sum() / ok.sum()
        var = jnp.where(ok, (cur - m) ** 2, 0).sum() / ok.sum()
        return m, var, ok.sum()

    def post(out):
        m, var, k = (float(x) for x in out)
        return m, math.sqrt(var / max(k, 1))

    return f, post


def prog1(spec):
    """The paper's PROG1 (models/josephson.sde): stochastic Heun (srk2) on
    x' = v, v' = -gamma v - 2 pi cos(2 pi x) + a cos(omega t) + f + sqrt(2 gamma D) xi;
    <<v>> = (x(T) - x(0)) / T over all paths (no transient), its SE from the paths."""
    dt_ = _dtype(spec)
    a, gamma, omega, D, f0 = 4.2, 0.9, 4.9, 0.001, 0.1
    n = spec["paths"]
    period = 2 * math.pi / omega
    dt = period / spec["spp"]
    steps = spec["spp"] * spec["periods"]
    g = math.sqrt(2 * gamma * D * dt)

    def acc(x, v, t):
        return -gamma * v - 2 * math.pi * jnp.cos(2 * math.pi * x) + a * jnp.cos(omega * t) + f0

    @jax.jit
    def f(key):
        k0, k1, k2 = jax.random.split(key, 3)
        x0 = jax.random.uniform(k0, (n,), dt_)
        v0 = jax.random.uniform(k1, (n,), dt_, -2.0, 2.0)

        def body(i, c):
            x, v = c
            t = i * dt
            gw = g * jax.random.normal(jax.random.fold_in(k2, i), (n,), dt_)
            xp = x + v * dt
            vp = v + acc(x, v, t) * dt + gw
            return (x + 0.5 * (v + vp) * dt,
                    v + 0.5 * (acc(x, v, t) + acc(xp, vp, t + dt)) * dt + gw)

        x, _ = jax.lax.fori_loop(0, steps, body, (x0, v0))
        d = (x - x0) / (steps * dt)
        return d.mean(), d.std()

    def post(out):
        m, sd = (float(x) for x in out)
        return m, sd / math.sqrt(n)

    return f, post


def _kuramoto(spec, pairs):
    """The paper's PROG3 (mean field, models/kuramoto-meanfield.sde) or PROG2 (all pairs,
    models/kuramoto.sde): Euler on dx_i = K (1/N) sum_j sin(x_j - x_i) dt + sqrt(2T) dW_i,
    K 4, T 1, x uniform on [0, 2 pi); r(t_end) = |<exp(i x)>|.  PROG2 sums every pair
    in tiles of rows (no mean-field shortcut: the workload is the pairs)."""
    dt_ = _dtype(spec)
    n, steps, dt = spec["particles"], _steps(spec), spec["dt"]
    K, T = 4.0, 1.0
    g = math.sqrt(2 * T * dt)
    tile = min(n, 2048)

    def coupling(x):
        if not pairs:
            S, C = jnp.sin(x).mean(), jnp.cos(x).mean()
            return S * jnp.cos(x) - C * jnp.sin(x)
        rows = x.reshape(n // tile, tile)
        return jax.lax.map(lambda xi: jnp.sin(x[None, :] - xi[:, None]).mean(1),
                           rows).reshape(n)

    @jax.jit
    def f(key):
        k0, k1 = jax.random.split(key)
        x0 = jax.random.uniform(k0, (n,), dt_, 0, 2 * math.pi)

        def body(i, x):
            z = jax.random.normal(jax.random.fold_in(k1, i), (n,), dt_)
            return x + K * coupling(x) * dt + g * z

        x = jax.lax.fori_loop(0, steps, body, x0)
        return jnp.hypot(jnp.cos(x).mean(), jnp.sin(x).mean())

    def post(out):
        return float(out), float("nan")

    return f, post


def prog3(spec):
    return _kuramoto(spec, False)


def prog2(spec):
    return _kuramoto(spec, True)


BUILDERS = {"linear": linear, "cle": cle, "switching": switching, "prog1": prog1,
            "prog2": prog2, "prog3": prog3}


def timed(name, spec, repeats):
    f, post = BUILDERS[name](spec)
    jax.block_until_ready(f(jax.random.PRNGKey(0)))  # compiles
    walls, out = [], None
    for k in range(repeats):
        t = time.perf_counter()
        out = jax.block_until_ready(f(jax.random.PRNGKey(k + 1)))
        walls.append(time.perf_counter() - t)
    value, se = post(out)
    return statistics.median(walls), value, se


if __name__ == "__main__":
    sys.path.insert(0, __file__.rsplit("/bench/", 1)[0] + "/python")
    from sdekit import bench  # noqa: E402

    nm = sys.argv[1]
    size = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--size" else "full"
    print("%.6g s, %.8g +- %.3g" % timed(nm, bench._spec(nm, size), 3))
