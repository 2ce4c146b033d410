"""The `sdekit` command of the package: `python -m sdekit` and the console
script that `pip install ./python` puts on PATH run the CLI of the library in use."""
import importlib.metadata
import os
import subprocess
import sys

import pytest

import sdekit

HERE = os.path.dirname(os.path.abspath(__file__))


def _version_line(cmd):
    p = subprocess.run(cmd + ["--version"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_python_m_sdekit(cli):
    assert _version_line([sys.executable, "-m", "sdekit"]) == "sdekit " + sdekit.__version__
    assert _version_line([sys.executable, "-m", "sdekit"]) == _version_line([cli])


def test_console_script_declared():
    """pyproject.toml declares the console script `sdekit` (what pip installs)."""
    tomllib = pytest.importorskip("tomllib")
    pyproject = os.path.join(HERE, "..", "pyproject.toml")
    if not os.path.isfile(pyproject):
        pytest.skip("not in the source tree")
    with open(pyproject, "rb") as f:
        scripts = tomllib.load(f)["project"].get("scripts", {})
    assert scripts.get("sdekit") == "sdekit.__main__:main"


def test_console_script_installed(cli):
    """Where the package is installed (scripts/ci-python.sh), the `sdekit`
    script beside the interpreter runs the bundled CLI."""
    try:
        eps = importlib.metadata.entry_points(group="console_scripts")
    except TypeError:  # Python < 3.10
        eps = importlib.metadata.entry_points().get("console_scripts", [])
    mine = [e for e in eps if e.name == "sdekit" and e.value == "sdekit.__main__:main"]
    if not mine or not sdekit.__file__.startswith(sys.prefix):
        pytest.skip("the package is not installed by pip here")
    script = os.path.join(os.path.dirname(sys.executable), "sdekit")
    assert os.access(script, os.X_OK), script
    assert _version_line([script]) == _version_line([cli])
