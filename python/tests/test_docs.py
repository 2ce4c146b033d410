"""The two five-line scripts of docs/PYTHON.md run and do what the text says:
the OU variance agrees with the exact value, the PROG1 script draws the
drift curve (at a smaller size here) with the CLI's numbers."""
import contextlib
import io
import os
import re

import numpy as np
import pytest

import sdekit
from conftest import run_cli

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "PYTHON.md")


def script(name):
    if not os.path.exists(DOC):
        pytest.skip("no docs/PYTHON.md beside these tests")
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- script: %s -->\n```python\n(.*?)```" % re.escape(name), text, re.S)
    assert m, "no script %r in docs/PYTHON.md" % name
    code = m.group(1)
    assert len(code.splitlines()) <= 5, "the %s script has more than five lines" % name
    return code


def run_script(code, cwd, monkeypatch):
    monkeypatch.chdir(cwd)
    ns = {"__name__": "__main__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/PYTHON.md", "exec"), ns)
    return ns, out.getvalue()


def test_ou_variance_script(workdir, monkeypatch):
    ns, out = run_script(script("ou-variance"), workdir, monkeypatch)
    k, var, exact = ns["k"], ns["var"], ns["exact"]
    assert list(k) == [0.5, 1, 2, 4] and out.startswith("k, variance, exact, standard error")
    se = var * np.sqrt(2 / 10 ** 6)
    assert np.all(np.abs(var - exact) < 5 * se), (var, exact, se)


def test_prog1_drift_script(workdir, monkeypatch, cli):
    pytest.importorskip("matplotlib").use("Agg")
    code = script("prog1-drift")
    small = code.replace("paths=1024, periods=2000", "paths=32, periods=40").replace(
        "transient_periods=200", "transient_periods=4")
    assert small != code
    ns, out = run_script(small, workdir, monkeypatch)
    assert os.path.getsize(os.path.join(workdir, "prog1-drift.png")) > 10000
    lines = out.splitlines()
    assert len(lines) == 100 and lines[0].startswith("(4.2, ")
    r = ns["r"]
    h5 = os.path.join(workdir, "prog1-small.h5")
    run_cli(cli, ["run", "josephson", "--scan", "a=4.2:14.1:100", "--paths", "32", "--periods",
                  "40", "--transient-periods", "4", "--spp", "100", "--scheme", "srk2", "--seed",
                  "2010", "--observe", "drift", "-o", h5])
    c = sdekit.load(h5)
    for name in ("scan/a", "drift/value", "drift/error"):
        assert np.array_equal(r[name], c[name]), name
