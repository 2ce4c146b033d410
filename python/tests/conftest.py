"""Shared fixtures: a scratch directory removed at the end (nothing is left in
/tmp), the sdekit command that goes with the library, and running it."""
import os
import shutil
import subprocess
import tempfile

import pytest

import sdekit


@pytest.fixture(scope="session")
def workdir():
    d = tempfile.mkdtemp(prefix="sdekit-pytest-")
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def cli():
    """The CLI: $SDEKIT_CLI, else the one beside the library (bundled in the
    package, or PREFIX/bin of an installed sdekit)."""
    path = sdekit.cli_path()
    if not path:
        pytest.fail("no sdekit command found: set SDEKIT_CLI (the bitwise comparisons need it)")
    return path


def run_cli(cli, args, check=True):
    """`sdekit ARGS` in this process's environment: (returncode, stdout, stderr)."""
    p = subprocess.run([cli] + [str(a) for a in args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError("sdekit %s: exit %d\n%s" % (" ".join(map(str, args)), p.returncode,
                                                         p.stderr))
    return p.returncode, p.stdout, p.stderr


def assert_same_results(a, b):
    """Every dataset of a and b bitwise equal (values, shapes, types, dims)."""
    assert sorted(a.datasets) == sorted(b.datasets)
    for name in a.datasets:
        x, y = a[name], b[name]
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), "dataset %s differs" % name
        assert a.dims(name) == b.dims(name), name


import numpy as np  # noqa: E402  (used by assert_same_results)
