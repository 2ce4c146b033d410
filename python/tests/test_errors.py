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


BAD_MODELS = [
    # (model text, the line the CLI names (0: none), the message after "FILE:LINE: ")
    ("[model]\nname = b\nvars = x\n[params]\nk = 1\n[drift]\nx = -k^x\n[noise]\nx = 1\n", 7,
     "[drift] x: '^' is not a power in C; write pow(a, b) at column 3 of '-k^x'"),
    ("[model]\nname = b\nvars = x\n[params]\nk = 2*q\nq = k\n[drift]\nx = -k*x\n", 5,
     "[params] k: uses 'q', which is defined below it (line 6): a parameter may use only the "
     "parameters above it"),
    ("[model]\nname = b\nvars = x\n[params]\nk = 1\n[drift]\nx = -k*(x\n", 7,
     "[drift] x: expected ')' at column 6 of '-k*(x'"),
    ("[model]\nname = b\nvars = x\n[bogus]\nk = 1\n[drift]\nx = -x\n", 5,
     "unknown section [bogus] (sections: model, params, drift, noise, init, particle, meanfield, "
     "pair, observe, boundaries, jumps, dichotomous, events, colored, levy, history)"),
    ("[model]\nname = b\nvars = x, y\n[drift]\nx = -x\n", 0,
     "[drift] has no equation for variable 'y'"),
]


@pytest.mark.parametrize("text, line, what", BAD_MODELS)
def test_model_errors_carry_what_the_cli_prints(cli, workdir, text, line, what):
    path = os.path.join(workdir, "bad-%d.sde" % BAD_MODELS.index((text, line, what)))
    with open(path, "w") as f:
        f.write(text)
    rc, _, err = run_cli(cli, ["run", path, "--paths", "1"], check=False)
    with pytest.raises(sdekit.ModelError) as ei:
        sdekit.Model.from_file(path)
    e = ei.value
    assert (e.file, e.line) == (path, line)
    assert e.message == ("%s:%d: %s" % (path, line, what) if line else "%s: %s" % (path, what))
    assert rc == 2 and err == "sdekit: error: %s\n" % e.message
    # the same text from a string names its label instead of the file
    with pytest.raises(sdekit.ModelError) as es:
        sdekit.Model.from_string(text, label="mine.sde")
    assert (es.value.file, es.value.line) == ("mine.sde", line)
    assert es.value.message == e.message.replace(path, "mine.sde", 1)


def test_unknown_model_as_the_cli_says(cli):
    rc, _, err = run_cli(cli, ["run", "no-such-model-anywhere"], check=False)
    with pytest.raises(sdekit.UsageError) as ei:
        sdekit.Model.load("no-such-model-anywhere", search_path="")
    assert rc == 2 and err == "sdekit: error: %s\n" % ei.value.message
    assert ei.value.message.startswith("unknown model 'no-such-model-anywhere' (see 'sdekit "
                                       "models': delay_ou, gbm, josephson, ")


def test_backend_cuda_without_a_gpu_as_the_cli_says(cli):
    if run_cli(cli, ["devices", "--count"])[1].strip() != "0":
        pytest.skip("this machine has a GPU")
    rc, _, err = run_cli(cli, ["run", "ou", "--paths", "16", "--backend", "cuda"], check=False)
    with pytest.raises(sdekit.BackendError) as ei:
        sdekit.run("ou", paths=16, backend="cuda", progress=False)
    assert rc == 1 and ei.value.status.exit_code == 1
    assert err == "sdekit: error: %s\n" % ei.value.message


@pytest.mark.parametrize("kw, args", [
    (dict(paths=0), ["--paths", "0"]),
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
