"""Issue 25 items 4 and 9: strings and numbers crossing into libsdekit.

A NUL byte ends a C string: C saw "k" for params={"k\\0x": 5}, "ou" for
run("ou\\0evil").  Every string handed to the library is refused with a
NUL in it, as Python's own open() does, naming the argument.  And the
library reads and writes numbers in the C locale whatever LC_NUMERIC the
Python program set: the results and the TSV are those of the C locale.
"""
import ctypes
import locale
import os
import shutil
import subprocess

import numpy as np
import pytest

import sdekit
from sdekit._lib import lib

Q = dict(paths=16, t_end=0.05, dt=0.01, progress=False)


def _nul(call):
    with pytest.raises(ValueError) as ei:
        call()
    assert "embedded null character" in str(ei.value)
    return str(ei.value)


@pytest.fixture(scope="module")
def result():
    return sdekit.run("ou", observe="moments", **Q)


def test_nul_in_params():
    assert "params" in _nul(lambda: sdekit.run("ou", params={"k\0x": 5}, **Q))


def test_nul_in_model_name():
    assert "model" in _nul(lambda: sdekit.run("ou\0evil", **Q))
    _nul(lambda: sdekit.Model.load("ou\0evil"))
    _nul(lambda: sdekit.Model.from_string("[model]\nname = a\0b\nvars = x\n[drift]\nx = 0\n"))


def test_nul_in_option_values():
    assert "--paths" in _nul(lambda: sdekit.run("ou", paths="10\0junk", t_end=0.05,
                                                progress=False))
    _nul(lambda: sdekit.run("ou", observe="moments\0drift", **Q))
    _nul(lambda: sdekit.run("ou", scan={"k\0x": [1, 2]}, **Q))
    _nul(lambda: sdekit.codegen("ou", backend="cpu\0cuda"))


def test_nul_in_paths(workdir, result):
    _nul(lambda: sdekit.load(os.path.join(workdir, "a.h5\0x")))
    _nul(lambda: result.save(os.path.join(workdir, "r.h5\0x")))
    _nul(lambda: sdekit.resume(os.path.join(workdir, "ck\0x")))
    assert not os.path.exists(os.path.join(workdir, "r.h5"))
    with pytest.raises(KeyError):  # (looked up among the names first: never truncated)
        result["moments/mean_x\0junk"]


def test_nul_in_environment(workdir):
    cache = os.path.join(workdir, "nulcache")
    msg = _nul(lambda: sdekit.run("ou", environment={"SDEKIT_CACHE_DIR": cache + "\0b"}, **Q))
    assert "SDEKIT_CACHE_DIR" in msg
    assert not os.path.exists(cache)
    _nul(lambda: sdekit.run("ou", environment={"SDK\0_CACHE_DIR": cache}, **Q))


def test_nul_refused_by_the_argument_types_too():
    # a call that does not come through the package's encoder
    with pytest.raises(ctypes.ArgumentError):
        lib.sdekit_config_option_arity(b"paths\0x")
    assert lib.sdekit_config_option_arity(b"paths") == 1


# ------------------------------------------------------------------ locale


@pytest.fixture(scope="module")
def comma_locale(workdir):
    """A German locale: the system's, else one made with localedef under
    LOCPATH (Debian's `locales` ships its sources)."""
    old = locale.setlocale(locale.LC_NUMERIC)
    saved_locpath = os.environ.get("LOCPATH")
    try:
        for name in ("de_DE.UTF-8", "de_DE.utf8"):
            try:
                locale.setlocale(locale.LC_NUMERIC, name)
                yield name
                return
            except locale.Error:
                pass
        d = os.path.join(workdir, "locales")
        os.makedirs(d, exist_ok=True)
        if shutil.which("localedef"):
            subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8",
                            os.path.join(d, "de_DE.UTF-8")], capture_output=True)
        os.environ["LOCPATH"] = d
        try:
            locale.setlocale(locale.LC_NUMERIC, "de_DE.UTF-8")
        except locale.Error:
            pytest.skip("no comma-decimal locale can be made here (localedef -i de_DE)")
        yield "de_DE.UTF-8"
    finally:
        locale.setlocale(locale.LC_NUMERIC, old)
        if saved_locpath is None:
            os.environ.pop("LOCPATH", None)
        else:
            os.environ["LOCPATH"] = saved_locpath


def test_numbers_in_a_comma_locale(comma_locale, workdir):
    model = ("[model]\nname = loc\nvars = x\n[params]\nk = 2.5\nD = 0.125\n[drift]\n"
             "x = -0.5*k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 1.5\n")
    args = dict(observe="moments", paths=64, t_end=0.5, dt=0.03125, seed=7,
                scan={"D": [0.125, 0.375]}, progress=False)
    c_locale = locale.setlocale(locale.LC_NUMERIC)
    locale.setlocale(locale.LC_NUMERIC, "C")
    try:
        ref = sdekit.run(sdekit.Model.from_string(model), **args)
        ref_files = ref.save(os.path.join(workdir, "c.tsv"))
    finally:
        locale.setlocale(locale.LC_NUMERIC, c_locale)
    assert locale.localeconv()["decimal_point"] == ","
    m = sdekit.Model.from_string(model)
    assert m.params["k"] == 2.5
    r = sdekit.run(m, **args)
    for name in ref.datasets:
        x, y = ref[name], r[name]
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), name
    files = r.save(os.path.join(workdir, "de.tsv"))
    assert len(files) == len(ref_files) == 1
    with open(files[0]) as f:
        text = f.read()
    with open(ref_files[0]) as f:
        assert f.read() == text
    assert not any("," in line for line in text.splitlines() if not line.startswith("#"))
    with pytest.raises(sdekit.UsageError) as ei:
        sdekit.run("ou", dt=-0.25, **{k: v for k, v in Q.items() if k != "dt"})
    assert "0.25" in str(ei.value) and "0,25" not in str(ei.value)
    # the caller's locale is untouched
    assert locale.localeconv()["decimal_point"] == ","
