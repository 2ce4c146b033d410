"""Repeated runs in one process (issue 32): a session remembers the identity of the
kernel source of each run (sim/session.h, sdk_session_identity), compared as the whole
text.  A repeated call gives the bits of a fresh process, and a changed input that
reaches the kernel (a baked parameter value, the scheme, the precision, the model text)
gives another kernel, the one a fresh process gives it: never a false hit."""
import json
import logging
import logging.handlers
import os
import re
import subprocess
import sys

import numpy as np

import sdekit

HERE = os.path.dirname(os.path.abspath(__file__))
LINEAR = os.path.join(HERE, "..", "..", "bench", "published", "linear.sde")
KW = dict(paths=512, dt=1 / 64, t_end=0.5, scheme="euler", precision="double",
          observe="moments", sample_every=8, backend="cpu", progress=False)


def kernel_of(model, **over):
    """the run's results and the cache entry of its kernel (its identity's file name)"""
    h = logging.handlers.BufferingHandler(1 << 20)  # (keeps the records)
    lg = logging.getLogger("sdekit")
    old = lg.level
    lg.setLevel(logging.DEBUG)
    lg.addHandler(h)
    try:
        kw = dict(KW)
        kw.update(over)
        r = sdekit.run(model, verbose=True, **kw)
    finally:
        lg.removeHandler(h)
        lg.setLevel(old)
    msgs = [rec.getMessage() for rec in h.buffer]
    names = [m for msg in msgs for m in re.findall(r"cpu-[0-9a-f]{32}", msg)]
    assert names, msgs
    return r, names[0]


def values(r):
    """the means and variances of the run, as a list of floats (exact in JSON)"""
    return [float(x) for v in ("u1", "u2", "u3") for d in ("mean", "var")
            for x in np.asarray(r["moments/%s_%s" % (d, v)]).reshape(-1)]


FRESH = r"""
import json, sys, re, logging
sys.path.insert(0, %r)
import test_repeat as t
out = {}
for key, (model, over) in json.loads(sys.argv[1]).items():
    r, name = t.kernel_of(model, **over)
    out[key] = [name, t.values(r)]
print(json.dumps(out))
"""


def fresh(cases):
    """each case run by a fresh process of its own: its kernel's name and means"""
    out = {}
    for key, case in cases.items():
        p = subprocess.run([sys.executable, "-c", FRESH % HERE, json.dumps({key: case})],
                           capture_output=True, text=True, env=os.environ, check=True)
        out.update(json.loads(p.stdout.strip().splitlines()[-1]))
    return out


def test_repeat_same_bits_and_no_false_hit(tmp_path):
    other = tmp_path / "linear_b.sde"
    # the same model with one drift term written otherwise: another kernel text
    other.write_text(open(LINEAR).read().replace("u3 = a * u3", "u3 = u3 * a"))
    cases = {
        "base": (LINEAR, {"seed": 1}),
        "seed2": (LINEAR, {"seed": 2}),
        "param": (LINEAR, {"seed": 2, "params": {"a": 1.25}}),
        "scheme": (LINEAR, {"seed": 2, "scheme": "milstein"}),
        "single": (LINEAR, {"seed": 2, "precision": "single"}),
        "text": (str(other), {"seed": 2}),
    }
    # all in this process, one after another (the base's kernel remembered first)
    here = {}
    for key, (model, over) in cases.items():
        r, name = kernel_of(model, **over)
        here[key] = [name, values(r)]
    again, name = kernel_of(LINEAR, seed=2)
    assert name == here["base"][0]
    assert values(again) == here["seed2"][1]
    assert here["seed2"][0] == here["base"][0]
    for key in ("param", "scheme", "single", "text"):
        assert here[key][0] != here["base"][0], key
    assert len({here[k][0] for k in ("base", "param", "scheme", "single", "text")}) == 5
    # bit for bit what a fresh process gives, kernel and results
    ref = fresh(cases)
    for key in cases:
        assert here[key][0] == ref[key][0], key
        assert here[key][1] == ref[key][1], key


def test_many_runs_keep_the_cpu_module():
    """Issue 32: the process's session keeps the loaded CPU module, so a run of the
    same kernel loads nothing; a thousand and more runs in one process pass under the
    usual limit of 1024 descriptors (each run loaded its module again before, each
    load taking a name with the dynamic loader: near the 1016th run there was none
    left, and every load asked for all the names before it)."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = 1024 if soft == resource.RLIM_INFINITY or soft > 1024 else soft
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
    kw = dict(KW, paths=4, t_end=1 / 16)
    try:
        for k in range(1100):
            sdekit.run(LINEAR, seed=k + 1, **kw)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    h = logging.handlers.BufferingHandler(1 << 16)
    lg = logging.getLogger("sdekit")
    old = lg.level
    lg.setLevel(logging.DEBUG)
    lg.addHandler(h)
    try:
        sdekit.run(LINEAR, seed=1, verbose=True, **kw)
    finally:
        lg.removeHandler(h)
        lg.setLevel(old)
    assert any("kept from an earlier run of this session: cpu-" in r.getMessage()
               for r in h.buffer), [r.getMessage() for r in h.buffer]
