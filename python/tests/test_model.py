"""sdekit.Model: load by name (built-in, search path), from a file, from a
string; what a model says about itself; models()."""
import os
import shutil

import numpy as np
import pytest

import sdekit
from conftest import assert_same_results

BUILTIN = {"josephson", "ou", "gbm", "kuramoto", "kuramoto-meanfield"}


def test_load_builtin_josephson():
    m = sdekit.Model.load("josephson")
    assert m.name == "josephson"
    assert m.vars == ("x", "v")
    assert m.params == {"a": 4.2, "gamma": 0.9, "omega": 4.9, "D": 0.001, "f": 0.1}
    assert m.has_period and m.periodic_var == "x" and m.kind == "paths"
    assert os.path.basename(m.path) == "josephson.sde" and os.path.isabs(m.path)
    with open(m.path, encoding="utf-8") as f:
        assert m.text == f.read()
    assert "Stewart-McCumber" in m.description
    with pytest.raises(AttributeError):
        m.name = "other"
    with pytest.raises(TypeError):
        sdekit.Model()


def test_from_file_and_from_string(workdir):
    builtin = sdekit.Model.load("ou")
    path = os.path.join(workdir, "my-ou.sde")
    shutil.copyfile(builtin.path, path)
    f = sdekit.Model.from_file(path)
    assert f.path == path and f.text == builtin.text and f.params == builtin.params
    s = sdekit.Model.from_string(builtin.text)
    assert s.path == "<string>" and s.name == "ou" and s.vars == ("x",)
    assert sdekit.Model.from_string(builtin.text, label="mine").path == "mine"
    # the same model text gives the same numbers however it was read
    kw = dict(scan={"k": [0.5, 2.0]}, paths=1024, t_end=0.5, observe="moments", seed=9,
              progress=False)
    assert_same_results(sdekit.run(s, **kw), sdekit.run("ou", **kw))
    assert_same_results(sdekit.run(f, **kw), sdekit.run(path, **kw))


def test_from_file_bare_name_is_the_current_directory(workdir, monkeypatch):
    shutil.copyfile(sdekit.Model.load("gbm").path, os.path.join(workdir, "gbm"))
    monkeypatch.chdir(workdir)
    here = sdekit.Model.from_file("gbm")
    assert here.path == os.path.realpath(os.path.join(workdir, "gbm"))  # (absolute: issue 29)
    # while load("gbm") is the built-in, never the current directory's file
    assert not os.path.samefile(sdekit.Model.load("gbm").path, "gbm")


def test_search_path(workdir, monkeypatch):
    d = os.path.join(workdir, "models-here")
    os.makedirs(d, exist_ok=True)
    text = sdekit.Model.load("ou").text.replace("k = 1.0", "k = 3.0").replace(
        "name = ou", "name = ou3")
    with open(os.path.join(d, "ou3.sde"), "w") as f:
        f.write(text)
    with pytest.raises(sdekit.UsageError):
        sdekit.Model.load("ou3", search_path="")
    m = sdekit.Model.load("ou3", search_path=[d])
    assert m.name == "ou3" and m.params["k"] == 3.0
    monkeypatch.setenv("SDEKIT_MODEL_PATH", d)  # as the CLI: the default search path
    assert sdekit.Model.load("ou3").path == os.path.join(d, "ou3.sde")
    assert sdekit.models()["ou3"] == os.path.join(d, "ou3.sde")


def test_models_lists_the_builtins():
    ms = sdekit.models(search_path="")
    assert BUILTIN <= set(ms)
    for name in BUILTIN:
        assert sdekit.Model.load(name).path == ms[name]


def test_parameters_of_the_run(workdir):
    r = sdekit.run("josephson", params={"f": 0.2}, scan={"a": np.linspace(4.2, 14.1, 3)},
                   paths=64, periods=2, spp=50, observe=["drift"], progress=False)
    assert r.params == {"gamma": 0.9, "omega": 4.9, "D": 0.001, "f": 0.2}
    assert list(r.scan) == ["a"] and np.array_equal(r.scan["a"], np.linspace(4.2, 14.1, 3))
