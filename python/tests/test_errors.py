"""Errors: the CLI's messages, file and line, as exceptions."""
import os

import pytest

import sdekit
from conftest import run_cli

BAD = "[model]\nname = bad\nvars = x\n[params]\nk = 1\n[drift]\nx = -k*y\n"
BAD_MSG = "[drift] x: unknown name 'y' (known: variables x; parameters k; t, pi)"


def test_bad_model_string():
    with pytest.raises(sdekit.ModelError) as ei:
        sdekit.Model.from_string(BAD, label="bad.sde")
    e = ei.value
    assert e.file == "bad.sde" and e.line == 7
    assert e.message == "bad.sde:7: " + BAD_MSG
    assert str(e) == e.message
    assert e.status == sdekit.Status.MODEL and e.status.exit_code == 2
    assert isinstance(e, sdekit.Error)


def test_bad_model_file_as_the_cli_says(cli, workdir):
    path = os.path.join(workdir, "bad.sde")
    with open(path, "w") as f:
        f.write(BAD)
    rc, _, err = run_cli(cli, ["run", path], check=False)
    with pytest.raises(sdekit.ModelError) as ei:
        sdekit.Model.from_file(path)
    assert rc == 2 and err == "sdekit: error: %s\n" % ei.value.message
    assert ei.value.file == path and ei.value.line == 7
    # the same through run(): the model is read when the run starts
    with pytest.raises(sdekit.ModelError) as ei2:
        sdekit.run(path, progress=False)
    assert ei2.value.message == ei.value.message and ei2.value.line == 7


@pytest.mark.parametrize("kw, args", [
    (dict(paths=0), ["--paths", "0"]),
    (dict(bogus=1), ["--bogus", "1"]),
    (dict(scan={"k": (1, 2, 0)}), ["--scan", "k=1:2:0"]),
    (dict(backend="gpu"), ["--backend", "gpu"]),
    (dict(precision="quad"), ["--precision", "quad"]),
    (dict(observe="moments,"), ["--observe", "moments,"]),
    (dict(dt=-1), ["--dt", "-1"]),
])
def test_bad_option_as_the_cli_says(cli, kw, args):
    rc, _, err = run_cli(cli, ["run", "ou"] + args, check=False)
    with pytest.raises(sdekit.UsageError) as ei:
        sdekit.run("ou", progress=False, **kw)
    assert rc == 2 and ei.value.status.exit_code == 2
    assert err == "sdekit: error: %s\n" % ei.value.message
    assert isinstance(ei.value, ValueError)


def test_usage_messages_exact():
    with pytest.raises(sdekit.UsageError) as ei:
        sdekit.run("ou", paths=0, progress=False)
    assert ei.value.message == "--paths '0': expected a whole number >= 1"
    with pytest.raises(sdekit.UsageError) as ei:
        sdekit.run("ou", scan={"q": [1, 2]}, paths=16, progress=False)
    assert "q" in ei.value.message
    with pytest.raises(sdekit.UsageError) as ei:
        sdekit.Model.load("no-such-model-anywhere")
    assert "unknown model" in ei.value.message


def test_missing_file():
    with pytest.raises(sdekit.Error) as ei:
        sdekit.load("/nonexistent/dir/x.h5")
    assert "/nonexistent/dir/x.h5" in ei.value.message
    assert ei.value.status in (sdekit.Status.IO, sdekit.Status.FORMAT, sdekit.Status.USAGE)


def test_a_file_that_is_not_a_result(workdir):
    path = os.path.join(workdir, "not-a-result.h5")
    with open(path, "wb") as f:
        f.write(b"\x89HDF\r\n\x1a\n" + b"\0" * 200)
    with pytest.raises(sdekit.Error) as ei:
        sdekit.load(path)
    assert path in ei.value.message
