"""sdekit: huge ensembles of stochastic differential equations on CPUs and
NVIDIA GPUs, from Python.

    import sdekit, numpy as np
    r = sdekit.run("josephson", scan={"a": (4.2, 14.1, 100)}, paths=1024, periods=2000,
                   transient_periods=200, observe=["drift"], seed=2010)
    r["drift/value"], r.stderr("drift/value"), r.scan["a"]

The package binds libsdekit (include/sdekit.h) with ctypes; results are NumPy
arrays on the library's memory.  docs/PYTHON.md has the whole story.
"""
from ._lib import lib as _clib
from ._lib import path as library_path
from ._lib import s as _s
from ._errors import (
    BackendError,
    CancelledError,
    CompileError,
    Error,
    FileError,
    FormatError,
    InternalError,
    ModelError,
    NonFiniteError,
    OutOfMemoryError,
    Status,
    UsageError,
)
from ._model import Model, models
from ._result import DatasetInfo, Result, load
from ._run import codegen, registry, release, resume, run, run_help

__version__ = _s(_clib.sdekit_version())
version_number = _clib.sdekit_version_number()


def cli_path():
    """The `sdekit` command that goes with the library in use: the bundled
    one, else PREFIX/bin/sdekit beside PREFIX/lib; None when there is none.
    $SDEKIT_CLI overrides."""
    import os

    env = os.environ.get("SDEKIT_CLI")
    if env:
        return env
    libdir = os.path.dirname(os.path.realpath(library_path))
    for cand in (os.path.join(libdir, "..", "bin", "sdekit"), os.path.join(libdir, "sdekit")):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return os.path.normpath(cand)
    return None


__all__ = [
    "Model", "models", "run", "resume", "release", "load", "codegen", "registry", "run_help", "Result",
    "DatasetInfo", "Error", "UsageError", "ModelError", "CompileError", "FileError",
    "OutOfMemoryError", "BackendError", "NonFiniteError", "FormatError", "CancelledError",
    "InternalError", "Status", "cli_path", "library_path", "__version__",
]
