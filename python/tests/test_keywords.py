"""Issue 29, Interface: one rule for run()'s keywords (the C API's option
names with '_' for '-', booleans as NAME=False, dicts for NAME=VALUE lists),
a TypeError naming an unknown keyword and the one it probably meant, and the
model a Model object's results record."""
import os
import warnings

import pytest

import sdekit

KW = dict(paths=64, t_end=0.5, seed=3, progress=False)


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match=r"run\(\) got an unexpected keyword argument 'tend'; "
                                        r"did you mean 't_end'\?"):
        sdekit.run("ou", tend=1, **KW)
    with pytest.raises(TypeError, match=r"codegen\(\) got an unexpected keyword argument "
                                        r"'obsrve'; did you mean 'observe'\?"):
        sdekit.codegen("ou", obsrve="moments")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'progres'; did you mean "
                                        r"'progress'\?"):
        sdekit.run("ou", progres=False, paths=64)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'zzzz'$"):
        sdekit.run("ou", zzzz=1, **KW)
    # -o is run()'s output= (it was taken and silently dropped)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'o'"):
        sdekit.run("ou", o="x.h5", **KW)


def test_booleans_by_their_name():
    a = sdekit.run("ou", fast_math=False, compensation=False, **KW)
    line = a.attrs["command_line"]
    assert "--no-fast-math" in line and "--no-compensation" in line
    b = sdekit.run("ou", fast_math=True, compensation=True, **KW)
    assert "fast-math" not in b.attrs["command_line"]
    c = sdekit.run("ou", bridge_correction=False, **KW)
    assert "--no-bridge-correction" in c.attrs["command_line"]
    with pytest.raises(TypeError, match="fast_math= is True or False"):
        sdekit.run("ou", fast_math="no", **KW)
    # None is "not given", for a switch as for any option (adaptive=None ran adaptive steps)
    d = sdekit.run("ou", adaptive=None, dt_check=None, **KW)
    assert "--adaptive" not in d.attrs["command_line"]
    assert "--dt-check" not in d.attrs["command_line"]


def test_old_negative_spelling_is_deprecated():
    """no_fast_math=True, the spelling before fast_math=False: still taken, for one
    release, with a DeprecationWarning pointing at the caller."""
    with pytest.warns(DeprecationWarning, match=r"no_fast_math=True\) is deprecated.*"
                                                r"fast_math=False") as w:
        a = sdekit.run("ou", no_fast_math=True, **KW)
    assert w[0].filename == __file__
    assert "--no-fast-math" in a.attrs["command_line"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = sdekit.run("ou", fast_math=False, **KW)
    assert b.attrs["command_line"] == a.attrs["command_line"]


def test_name_value_lists_as_dicts():
    a = sdekit.run("ou", observe="expr", observe_expr={"E": "x*x/2", "Q": "x"}, **KW)
    b = sdekit.run("ou", observe="expr", observe_expr=["E=x*x/2", "Q=x"], **KW)
    for r in (a, b):
        assert "--observe-expr=E=x*x/2 --observe-expr=Q=x" in r.attrs["command_line"]
    assert (a["expr/mean_E"] == b["expr/mean_E"]).all()
    c = sdekit.run("ou", observe="expr", observe_expr="E=x*x/2", **KW)
    assert (c["expr/mean_E"] == a["expr/mean_E"]).all()


def test_model_object_records_text_and_absolute_path(workdir, monkeypatch):
    """README ('Where a model comes from'): the results record the file used as a
    resolved absolute path, and its text -- also for a Model read from a
    relative path."""
    builtin = sdekit.Model.load("ou")
    d = os.path.join(workdir, "relmodel")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "mine.sde"), "w", encoding="utf-8") as f:
        f.write(builtin.text)
    monkeypatch.chdir(d)
    m = sdekit.Model.from_file("mine.sde")
    want = os.path.realpath(os.path.join(d, "mine.sde"))
    assert m.path == want
    r = sdekit.run(m, **KW)
    assert r.attrs["model_path"] == want and r.attrs["model_text"] == builtin.text
    r.save("r.tsv")
    with open("r.tsv", encoding="utf-8") as f:
        assert "# model: ou (%s)\n" % want in f.read()
    # from text: the label is all there is
    s = sdekit.run(sdekit.Model.from_string(builtin.text, label="mine"), **KW)
    assert s.attrs["model_path"] == "mine" and s.attrs["model_text"] == builtin.text


def _same(a, b, name):
    import numpy as np
    return np.array_equal(a[name], b[name], equal_nan=True)


def test_set_as_texts_and_none_as_not_given():
    """set= as a list of "NAME=VALUE" texts or one such text (PYTHON.md) is
    set={...}; None for any option is "not given" (a review: a list raised
    an unpacking error; sample_times=None became NaN times, hist_range,
    observe_expr and set None a TypeError)."""
    ref = sdekit.run("ou", set={"k": 0.3, "D": 0.2}, observe="moments", **KW)
    for form in (["k=0.3", "D=0.2"], ("k=0.3", "D=0.2")):
        assert _same(sdekit.run("ou", set=form, observe="moments", **KW), ref, "moments/mean_x")
    one = sdekit.run("ou", set="k=0.3", params={"D": 0.2}, observe="moments", **KW)
    assert _same(one, ref, "moments/mean_x")
    with pytest.raises(sdekit.UsageError, match=r"--set 'k=abc'"):
        sdekit.run("ou", set=["k=abc"], **KW)
    with pytest.raises(sdekit.UsageError, match=r"--set 'k0\.3': expected NAME=VALUE"):
        sdekit.run("ou", set=["k0.3"], **KW)
    plain = sdekit.run("ou", observe="moments", **KW)
    none = sdekit.run("ou", observe="moments", sample_times=None, hist_range=None,
                      observe_expr=None, set=None, **KW)
    assert _same(none, plain, "moments/mean_x")


def test_values_refused_not_cut():
    """Complex values are refused where NumPy would keep their real part with
    a warning (scan=, sample_times=, params=); a text value goes through the
    CLI's parser; an empty list of sample times is refused as the CLI's
    empty --sample-times is."""
    import numpy as np
    with pytest.raises(sdekit.UsageError, match=r"--scan k: expected real numbers, not dtype "
                                                r"complex128"):
        sdekit.run("ou", scan={"k": np.array([1 + 2j, 2])}, **KW)
    with pytest.raises(sdekit.UsageError, match=r"--sample-times: expected real numbers"):
        sdekit.run("ou", sample_times=np.array([0.5 + 1j, 0.5]), observe="moments", **KW)
    with pytest.raises(sdekit.UsageError, match=r"--set k: expected real numbers"):
        sdekit.run("ou", params={"k": np.complex128(2 + 3j)}, **KW)
    with pytest.raises(sdekit.UsageError, match=r"--set 'k=abc': the value must be a number"):
        sdekit.run("ou", params={"k": "abc"}, **KW)
    with pytest.raises(sdekit.UsageError, match=r"--sample-times: no times given"):
        sdekit.run("ou", sample_times=[], observe="moments", **KW)
    with pytest.raises(sdekit.UsageError, match=r"--set k: None is no value"):
        sdekit.run("ou", params={"k": None}, **KW)


def test_numpy_bools_ranges_and_range_texts():
    """dt_check=np.True_ is dt_check=True; save_paths=range(3) a list;
    hist_range={"x": "-2:2"} the CLI's text (each was refused or raised)."""
    import numpy as np
    a = sdekit.run("ou", dt_check=np.True_, observe="moments", **KW)
    b = sdekit.run("ou", dt_check=True, observe="moments", **KW)
    assert _same(a, b, "moments/bias_mean_x")
    r = sdekit.run("ou", save_paths=range(3), **KW)
    assert r["paths/x"].shape[0] == 3
    h1 = sdekit.run("ou", observe="hist", hist_range={"x": "-2:2"}, **KW)
    h2 = sdekit.run("ou", observe="hist", hist_range={"x": (-2, 2)}, **KW)
    assert _same(h1, h2, "hist/x/density")


def test_init_per_particle_not_divisible():
    """2-D init= of 100 values per grid point with particles=64: the run says
    the values are not whole systems (paths were invented from the data)."""
    import numpy as np
    with pytest.raises(sdekit.UsageError, match=r"not a whole number of systems of --particles "
                                                r"64"):
        sdekit.run("kuramoto", t_end=0.1, particles=64, scan={"K": [1, 2]},
                   init={"x": np.zeros((2, 100))}, progress=False)
