#!/usr/bin/env python3
"""Where a repeated call's time goes (issue 32): the published workloads of `sdekit bench
--published` (python/sdekit/bench.py) called CALLS times each in one Python process with
other seeds, each call's wall time and the library's `times:` message (verbose=True) split
into its parts: plan, backend open, source (generate and identity), kernel (compile, cache
or kept), paths (allocate, initialise), steps and samples (with the advances' own device
time where the backend times them), the rest of execute, record, free; "python" is the
wall less all of them (configuration, the call, the Result).  The first call warms up
(context, compile); the calls after it are what the 5x goal counts.

Checks on every call: fpt's survival at t_end is the censored fraction bit for bit (the
survival is counted where the paths live, the censored paths by the host's final fold).

usage: SDEKIT_LIBRARY=build/libsdekit.so.0 PYTHONPATH=python \\
         python3 scripts/bench-percall.py [--calls K] [--size full|small] [--backend B] [NAME...]
(default: linear prog2 prog3 switching, 4 calls, full, cuda)"""
import argparse
import logging
import logging.handlers
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import sdekit  # noqa: E402
from sdekit import bench  # noqa: E402

PARTS = ("plan", "backend open", "source", "kernel", "paths", "ranks agree",
         "steps and samples", "the rest of execute", "record", "free")


def parse(msg):
    """{part: seconds} of a times: message, and the device time of the advances or None"""
    out = {}
    for p in PARTS:
        m = re.search(re.escape(p) + r" ([0-9.]+) s", msg)
        if m:
            out[p] = float(m.group(1))
    m = re.search(r"advances on the device ([0-9.]+) s", msg)
    return out, (float(m.group(1)) if m else None)


def check(name, r, spec):
    if "fpt/survival" not in r:
        return ""
    S = r["fpt/survival"]
    cen = int(r["fpt/censored"].reshape(-1)[0])
    n = spec["paths"]
    last = float(S.reshape(-1)[-1])
    ok = last == cen / n
    return " | S(t_end) %s censored/n (%d/%d)" % ("==" if ok else "!= (WRONG)", cen, n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*", default=["linear", "prog2", "prog3", "switching"])
    ap.add_argument("--calls", type=int, default=4)
    ap.add_argument("--size", default="full")
    ap.add_argument("--backend", default="cuda")
    a = ap.parse_args()
    h = logging.handlers.BufferingHandler(1 << 20)  # (keeps the records)
    lg = logging.getLogger("sdekit")
    lg.setLevel(logging.DEBUG)
    lg.addHandler(h)
    lg.propagate = False
    for name in a.names:
        spec = bench._spec(name, a.size)
        kw = dict(spec)
        model = kw.pop("model")
        walls = []
        for k in range(a.calls):
            h.buffer.clear()
            t = time.perf_counter()
            r = sdekit.run(model, seed=k + 1, backend=a.backend, progress=False, verbose=True,
                           **kw)
            w = time.perf_counter() - t
            walls.append(w)
            tl = [m for m in (r.getMessage() for r in h.buffer) if "times:" in m]
            parts, dev = parse(tl[0]) if tl else ({}, None)
            py = w - sum(parts.values())
            line = ", ".join("%s %.3f" % (p.split()[0] if p != "the rest of execute" else "rest",
                                          parts[p] * 1e3) for p in PARTS if p in parts)
            print("%-9s call %d: %8.2f ms = %s, python %.2f ms%s%s" % (
                name, k, w * 1e3, line, py * 1e3,
                "" if dev is None else " (device steps %.2f ms)" % (dev * 1e3),
                check(name, r, spec)), flush=True)
            del r
        later = sorted(walls[1:])
        if later:
            print("%-9s calls after the first: median %.2f ms, min %.2f ms" % (
                name, later[len(later) // 2] * 1e3, later[0] * 1e3), flush=True)


if __name__ == "__main__":
    main()
