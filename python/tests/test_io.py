"""Results in and out: arrays are views on the library's memory (no copy),
sdekit.load reads every kind of file the CLI writes (format 1 and 2) as h5py
sees it, and what Result.save writes is read by `sdekit info`, `sdekit plot`
and h5py; result.plot() draws the pictures `sdekit plot` draws."""
import glob
import json
import os

import numpy as np
import pytest

import sdekit
from sdekit import _plot
from conftest import run_cli

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fuzz", "corpus",
                      "h5")

# CLI runs that between them write every observable, two scan axes, saved
# paths, systems of particles
CLI_RUNS = {
    "ou-grid": ["ou", "--scan", "k=0.5:2:3", "--scan", "D=0.1,0.4", "--paths", "512", "--t-end",
                "1", "--observe", "drift,moments,hist", "--sample-every", "20"],
    "josephson-density": ["josephson", "--paths", "256", "--periods", "4", "--spp", "50",
                          "--observe", "density,drift", "--coarse-grain", "--save-paths", "0,1,2",
                          "--sample-every", "10"],
    "ou-observables": ["ou", "--scan", "k=0.5:2:3", "--paths", "256", "--t-end", "1",
                       "--observe", "moments,expr,cov,diffusion", "--observe-expr", "E=x*x",
                       "--sample-every", "20"],
    "kuramoto-order": ["kuramoto-meanfield", "--particles", "256", "--paths", "2", "--t-end",
                       "0.5", "--dt", "0.01", "--observe", "order,density", "--sample-every",
                       "5"],
    "fpt-scan": [os.path.join(EXAMPLES, "double-well.sde"), "--scan", "D=0.3:0.5:2", "--paths",
                 "256", "--t-end", "20", "--dt", "0.01", "--observe", "fpt"],
    "ou-tavg": ["ou", "--paths", "256", "--t-end", "1", "--observe", "tavg,expr",
                "--observe-expr", "E=x*x"],
}


def _h5py_datasets(path):
    h5py = pytest.importorskip("h5py")
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o[...]) if isinstance(o, h5py.Dataset)
                     else None)
        attrs = {k: f.attrs[k] for k in f.attrs}
    return out, attrs


def _same_as_h5py(r, path):
    data, attrs = _h5py_datasets(path)
    assert sorted(r.datasets) == sorted(data), path
    for name, want in data.items():
        got = r[name]
        assert got.shape == want.shape and got.dtype == want.dtype, (path, name)
        assert np.array_equal(got, want, equal_nan=got.dtype.kind == "f"), (path, name)
    assert r.attrs["model_name"] == attrs["model_name"]
    assert r.attrs["seed"] == attrs["seed"]


def _library_address(r, name):
    return r._dataset(name).data


@pytest.mark.parametrize("source", ["run", "load"])
def test_arrays_are_views_on_the_library_memory(source, workdir):
    r = sdekit.run("ou", scan={"k": [0.5, 1.0, 2.0]}, paths=512, t_end=1, sample_every=20,
                   observe="drift,moments,hist", progress=False)
    if source == "load":
        path = os.path.join(workdir, "views.h5")
        r.save(path)
        r = sdekit.load(path)
    for name in r.datasets:
        a = r[name]
        # no copy: the array's data is the library's dataset, its base the holder
        # that keeps the C result alive
        assert a.__array_interface__["data"][0] == _library_address(r, name), name
        assert not a.flags.owndata and not a.flags.writeable, name
        assert a.base.owner is r._h, name
        assert np.shares_memory(a, r[name])
    k = r.scan["k"]
    assert np.shares_memory(k, r["scan/k"]) or k.base.owner is r._h
    se = r.stderr("drift/value")
    assert np.shares_memory(se, r["drift/error"])


def test_to_xarray_does_not_copy():
    pytest.importorskip("xarray")
    r = sdekit.run("ou", scan={"k": [0.5, 1.0]}, paths=256, t_end=1, sample_every=20,
                   observe="drift,moments", progress=False)
    ds = r.to_xarray("moments")
    assert np.shares_memory(ds["var_x"].values, r["moments/var_x"])
    assert np.shares_memory(ds["k"].values, r.scan["k"])
    full = r.to_xarray()
    assert np.shares_memory(full["drift/value"].values, r["drift/value"])


def test_load_while_h5py_holds_the_file(workdir):
    # h5py opens files with the weak close degree, and libhdf5 opens a file
    # held open in the process only with the degree it holds it with: load
    # gave "cannot open ... as an HDF5 file" before
    h5py = pytest.importorskip("h5py")
    path = os.path.join(workdir, "held.h5")
    sdekit.run("ou", paths=64, t_end=0.5, seed=3, progress=False).save(path)
    with h5py.File(path, "r") as f:
        r = sdekit.load(path)
        assert np.array_equal(r["drift/value"], f["drift/value"][...])
        assert f["drift/value"].shape == r["drift/value"].shape  # h5py's file still open


@pytest.mark.parametrize("kind", sorted(CLI_RUNS))
def test_load_reads_what_the_cli_writes(cli, workdir, kind):
    path = os.path.join(workdir, "cli-%s.h5" % kind)
    run_cli(cli, ["run"] + CLI_RUNS[kind] + ["--seed", "11", "-o", path])
    r = sdekit.load(path)
    _same_as_h5py(r, path)
    assert r.attrs["format_version"] == 2
    if kind == "ou-grid":
        assert list(r.scan) == ["k", "D"] and r["drift/value"].shape == (3, 2)
        assert r.dims("moments/var_x") == ("k", "D", "sample")
        assert np.array_equal(r.stderr("drift/value"), r["drift/error"])
    if kind == "kuramoto-order":
        assert r.attrs["particles"] == 256
        assert np.array_equal(r.stderr("order/r"), r["order/r_err"])


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(CORPUS, "*.h5"))) or
                         [pytest.param(None, marks=pytest.mark.skip("no fuzz corpus here"))])
def test_load_reads_older_files(path):
    """Files of format 1 (before dims and standard_error) and 2 from the fuzz corpus."""
    r = sdekit.load(path)
    _same_as_h5py(r, path)
    assert r.attrs["format_version"] in (1, 2)
    for name in r.datasets:
        assert len(r.dims(name)) == r[name].ndim


def test_info_plot_and_h5py_read_what_save_writes(cli, workdir):
    """A Python result saved in the CLI's layout: `sdekit info` and `sdekit plot`
    read it, and sdekit plot draws the pictures result.plot() draws."""
    r = sdekit.run("josephson", scan={"a": [4.2, 8.0, 12.0], "D": (0.001, 0.01, 3, "log")},
                   paths=128, periods=10, transient_periods=1, observe="drift,moments,hist",
                   sample_every=100, seed=3, progress=False)
    path = os.path.join(workdir, "py-grid.h5")
    assert r.save(path) == [path]
    _same_as_h5py(r, path)
    _, out, _ = run_cli(cli, ["info", path])
    assert "model:       josephson" in out and "a: n=3 values given: 4.2, 8, 12" in out
    for name in r.datasets:
        assert "/" + name in out
    _check_plot_pictures(cli, workdir, r, path, "py-grid")


def test_plot_draws_what_sdekit_plot_draws_for_every_kind(cli, workdir):
    for kind in sorted(CLI_RUNS):
        path = os.path.join(workdir, "cli-%s.h5" % kind)
        if not os.path.exists(path):
            run_cli(cli, ["run"] + CLI_RUNS[kind] + ["--seed", "11", "-o", path])
        _check_plot_pictures(cli, workdir, sdekit.load(path), path, kind)


def _check_plot_pictures(cli, workdir, r, path, stem):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    names = _plot.pictures(r)
    assert names
    # parity: the figures Python draws are the ones sdekit plot describes
    # (one description, decided in the library; the renderers only draw it)
    _, out, _ = run_cli(cli, ["plot", "--spec", path])
    assert _plot.describe(r)["figures"] == json.loads(out)["figures"], stem
    for name in names + (["paths"] if "paths/t" in r else []):
        fig = r.plot(name)
        assert fig.axes, name
        fig.savefig(os.path.join(workdir, "%s.py.%s.png" % (stem, name)))
        plt.close(fig)
    if not _has_gnuplot():
        return
    out = os.path.join(workdir, "%s.cli.png" % stem)
    run_cli(cli, ["plot", path, "-o", out, "--quiet"])
    if len(names) == 1:
        drawn = [names[0]] if os.path.exists(out) else []
    else:
        drawn = [n for n in names if os.path.exists(out[:-4] + "." + n + ".png")]
    others = [f for f in os.listdir(workdir)
              if f.startswith(stem + ".cli.") and f not in
              ["%s.cli.%s.png" % (stem, n) for n in names] + ["%s.cli.png" % stem]]
    assert drawn == names and not others, (stem, names, drawn, others)


def _has_gnuplot():
    import shutil

    return shutil.which("gnuplot") is not None


def test_progress_with_tqdm(capsys):
    pytest.importorskip("tqdm")
    sdekit.run("ou", paths=20000, t_end=2, progress=True)
    err = capsys.readouterr().err
    assert "100.0/100%" in err and "steps/s" in err


def test_progress_without_tqdm(capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm raises ImportError
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    sdekit.run("ou", paths=20000, t_end=2, progress=True)
    err = capsys.readouterr().err
    assert "[" + "#" * 30 + "] 100.0%" in err and "steps/s" in err


def test_backend_auto_without_a_gpu_is_the_cpu(cli):
    if run_cli(cli, ["devices", "--count"])[1].strip() != "0":
        pytest.skip("this machine has a GPU")
    kw = dict(scan={"k": [0.5, 1.0]}, paths=1024, t_end=1, observe="moments", seed=4,
              progress=False)
    a = sdekit.run("ou", backend="auto", **kw)
    c = sdekit.run("ou", backend="cpu", **kw)
    assert a.attrs["backend"] == "cpu"
    for name in c.datasets:
        assert np.array_equal(a[name], c[name]), name


def test_full_disk_raises_and_the_interpreter_ends_normally(workdir):
    """A full disk (RLIMIT_FSIZE with SIGXFSZ ignored: writes past it fail
    with EFBIG) raises FileError; nothing is left behind and the interpreter
    exits normally (libhdf5's exit handler crashed it: issue 25 item 10)."""
    import resource
    import signal
    import subprocess
    import sys

    d = os.path.join(workdir, "full")
    os.makedirs(d)
    code = ("import sdekit\n"
            "try:\n"
            "    sdekit.run('ou', paths=100, t_end=10, dt=0.001, sample_every=1,\n"
            "               observe='moments', output='out.h5', progress=False)\n"
            "except sdekit.FileError as e:\n"
            "    print('FileError:', e)\n")

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))

    p = subprocess.run([sys.executable, "-c", code], cwd=d, preexec_fn=limit,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "FileError: cannot write 'out.h5': File too large" in p.stdout
    assert os.listdir(d) == []


def test_model_and_checkpoint_are_not_replaced(workdir):
    """An existing checkpoint (a run's progress) and the model file are not
    replaced without force=True (issue 25 item 13)."""
    d = os.path.join(workdir, "lost")
    os.makedirs(d)
    model = os.path.join(d, "m.sde")
    with open(model, "w") as f:
        f.write(sdekit.Model.load("ou").text)
    text = open(model).read()
    with pytest.raises(sdekit.UsageError, match="is the model file"):
        sdekit.run(model, paths=64, t_end=1, checkpoint=model, progress=False)
    assert open(model).read() == text
    ck = os.path.join(d, "ck")
    sdekit.run(model, paths=64, t_end=1, checkpoint=ck, progress=False)
    saved = open(ck, "rb").read()
    with pytest.raises(sdekit.UsageError, match="exists .*sdekit resume"):
        sdekit.run(model, paths=64, t_end=1, seed=2, checkpoint=ck, progress=False)
    assert open(ck, "rb").read() == saved
    sdekit.run(model, paths=64, t_end=1, seed=2, checkpoint=ck, force=True, progress=False)
    assert open(ck, "rb").read() != saved
    sdekit.resume(ck, t_end=2, progress=False)  # saves to its own checkpoint


def test_plot_log_show_and_vector_output(cli, workdir):
    """Result.plot takes sdekit plot's --log and --show, and saves PDF and SVG
    (matplotlib by the extension); its descriptions are --spec's."""
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    path = os.path.join(workdir, "cli-ou-observables.h5")
    if not os.path.exists(path):
        run_cli(cli, ["run"] + CLI_RUNS["ou-observables"] + ["--seed", "11", "-o", path])
    r = sdekit.load(path)
    d = _plot.describe(r, "expr", log="y")["figures"][0]
    assert all(p["ylog"] for p in d["panels"])
    _, out, _ = run_cli(cli, ["plot", "--spec", path, "--observable", "expr", "--log", "y"])
    assert json.loads(out)["figures"][0] == d
    d = _plot.describe(r, show="expr/mean_E")["figures"][0]
    assert d["panels"][0]["kind"] == "lines" and len(d["panels"][0]["series"]) == 3
    with pytest.raises(ValueError, match="log 'z'"):
        r.plot("expr", log="z")
    for ext, head in (("pdf", b"%PDF"), ("svg", b"<?xml")):
        fig = r.plot("expr", log="y")
        out = os.path.join(workdir, "expr-log." + ext)
        fig.savefig(out)
        plt.close(fig)
        with open(out, "rb") as f:
            assert f.read(5).startswith(head), ext


# Strings a result file holds (names, model path, command line) in the
# pictures: matplotlib's mathtext must neither choke on them nor change them
# (tests/hostile/h_plot_inject.sh does the same for gnuplot).
PLOT_PAYLOADS = ["a$x$b", "$", "$$", "\\", "tail\\", "back\\slash \\$ \\frac{a}{",
                 "{}^_%#&~", "\\mathrm{x} $\\alpha$", "100% $5 & {x}_{y}^{z}",
                 "'; `touch PWNED` \"", "esc\x1b]0;t\x07 \xff"]


def test_plot_draws_hostile_strings_as_written(cli, workdir):
    mpl = pytest.importorskip("matplotlib")
    pytest.importorskip("h5py")
    mpl.use("Agg")
    import importlib.util
    import matplotlib.pyplot as plt

    spec = importlib.util.spec_from_file_location(
        "plot_taint", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                   "tests", "hostile", "plot_taint.py"))
    plot_taint = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot_taint)
    src = os.path.join(workdir, "hostile-src.h5")
    run_cli(cli, ["run", "josephson", "--scan", "a=4.2:14.1:2", "--observe",
                  "drift,moments,hist,density", "--save-paths", "0,1", "--paths", "64",
                  "--periods", "5", "--seed", "3", "-o", src])
    for n, pay in enumerate(PLOT_PAYLOADS):
        dst = os.path.join(workdir, "hostile-%d.h5" % n)
        plot_taint.taint(src, dst, pay.encode("utf-8", "surrogateescape"))
        r = sdekit.load(dst)
        for name in _plot.pictures(r) + ["paths"]:
            fig = r.plot(name)
            fig.canvas.draw()  # mathtext parses here: no payload may break it
            ren = fig.canvas.get_renderer()
            sub = fig.texts[1]  # the subtitle: plain runs that hold the payload
            want = "".join(t for _, t in _plot.describe(r, name)["figures"][0]["subtitle"])
            assert pay in want or "\ufffd" in want, (pay, want)
            lit = fig.text(0, 0, want, fontsize=sub.get_fontsize(), parse_math=False)
            # drawn as written: the same width as the text set literally
            assert abs(sub.get_window_extent(ren).width - lit.get_window_extent(ren).width) < 0.5, \
                (pay, name, sub.get_text())
            plt.close(fig)
