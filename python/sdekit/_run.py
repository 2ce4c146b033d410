"""sdekit.run, sdekit.resume, sdekit.codegen: a configuration from Python
arguments, run with progress, cancellation (Ctrl-C) and logging."""
import ctypes
import difflib
import logging
import math
import numbers
import os
import signal
import sys
import threading
import time
import warnings

import numpy as np

from . import _errors
from ._errors import Status
from ._lib import CANCEL_FN, LOG_FN, PROGRESS_FN, b, lib, s, sdekit_error, take_string
from ._model import Model
from ._result import Result

log = logging.getLogger("sdekit")

# The keyword arguments run() names, in the order they are applied (the
# order of `sdekit run --help`); every other keyword is an option by its CLI
# name (sample_every -> --sample-every).
_NAMED = ("paths", "particles", "dt", "spp", "t_end", "periods", "transient",
          "transient_periods", "scheme", "seed", "backend", "precision", "threads", "device",
          "observe")


# The environment variables the library reads (sdekit.h, sdekit_config_set_environment;
# src/api/environment.c; python/tests/test_environment.py checks that the two agree):
# os.environ passes only these.
_ENV_NAMES = frozenset((b"HOME", b"XDG_CACHE_HOME", b"CC", b"CFLAGS", b"PATH", b"CUDA_HOME",
                        b"CUDA_PATH", b"TMPDIR"))
_ENV_PREFIXES = (b"SDEKIT_", b"SDK_")


class _Config:
    """Owns one sdekit_config."""

    def __init__(self, p=None):
        self.params = {}  # --set NAME: value, as given (run()'s params= and set=)
        self.keep = []  # arrays the library holds by pointer (init=, path_params=)
        self.p = p if p is not None else ctypes.c_void_p()
        if p is None:
            err = sdekit_error()
            _errors.check(lib.sdekit_config_create(ctypes.byref(self.p), ctypes.byref(err)), err)

    def __del__(self):
        if self.p and lib is not None:
            lib.sdekit_config_destroy(ctypes.byref(self.p))

    def call(self, fn, *args):
        err = sdekit_error()
        _errors.check(fn(self.p, *args, ctypes.byref(err)), err)

    def option(self, name, value):
        self.call(lib.sdekit_config_option, b(name, "option name"),
                  None if value is None else b(value, "--%s" % name))

    def environment(self, env):
        if env is None:
            # only what the library reads: a large environment would otherwise cost
            # every call as much as the run's other options together
            e = os.environb
            items = [k + b"=" + e[k] for k in list(e)
                     if k in _ENV_NAMES or k.startswith(_ENV_PREFIXES)]
        else:
            items = [b(k, "environment name") + b"=" + b(v, "environment[%r]" % (k,))
                     for k, v in env.items()]
        arr = (ctypes.c_char_p * (len(items) + 1))(*items, None)
        self.call(lib.sdekit_config_set_environment, arr)


def _num(v):
    """A number as the option's text: integers as such, reals exactly (the
    shortest text that reads back as the same double)."""
    if isinstance(v, bool):
        raise TypeError("expected a number, got %r" % (v,))
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    return str(v)


def _text(name, v):
    """The value of option `name` as the CLI would take it (None: a flag)."""
    if isinstance(v, (str, bytes, os.PathLike)):
        return v
    if isinstance(v, np.ndarray):
        v = _unmasked("--%s" % name, v)  # (a masked 0-d array's .item() is its hidden data)
    if isinstance(v, np.ndarray) and v.ndim == 0:  # (what np.float64(x) * array gives)
        return _num(v.item())
    if isinstance(v, (list, tuple, np.ndarray, range)):
        return ",".join(_num(x) if not isinstance(x, str) else x for x in v)
    return _num(v)


def _unmasked(what, v):
    """v, refusing a NumPy masked array with masked values: np.asarray takes
    the data under the mask, numbers the caller hid (a review ran a scan at
    k = 99 where k was masked)."""
    if np.ma.isMaskedArray(v):
        if np.ma.is_masked(v):
            raise _errors.UsageError("%s: a masked array with masked values, whose hidden data "
                                     "would be used: fill them (np.ma.filled) or leave them out "
                                     "(.compressed())" % what)
        return np.ma.getdata(v)
    return v


def _reals(what, v):
    """v as float64 numbers, refusing what would be cut to a number silently:
    complex values (NumPy keeps the real part with a warning), booleans,
    masked values."""
    a = np.asarray(_unmasked(what, v))
    if a.dtype.kind == "c" or a.dtype.kind == "b":
        raise _errors.UsageError("%s: expected real numbers, not dtype %s" % (what, a.dtype))
    try:
        return np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError):
        raise _errors.UsageError("%s: expected numbers, not %r" % (what, v)) from None


def _set_param(cfg, k, x, what="--set"):
    """--set k=x (params= or set=): a text through the CLI's parser, a number
    as float64"""
    # a parameter given twice (params= and set=, or twice in a list):
    # neither value may win silently, as on the command line
    if k in cfg.params:
        raise _errors.UsageError("--set %s given twice (%s=%s, then %s=%s): give each "
                                 "parameter once" % (k, k, _num(cfg.params[k]), k, _num(x)))
    if x is None:
        raise _errors.UsageError("--set %s: None is no value (leave %s out to keep the model's)"
                                 % (k, k))
    cfg.params[k] = x
    if isinstance(x, (str, bytes)):
        cfg.option("set", "%s=%s" % (k, s(x) if isinstance(x, bytes) else x))
        return
    if np.ndim(x) != 0:
        raise _errors.UsageError("--set %s: one number (scan it with scan={%r: values})" % (k, k))
    cfg.call(lib.sdekit_config_set_param, b(k, "%s name" % what), float(_reals("--set %s" % k, x)))


# The keywords of run() and codegen() that are not options (the candidates,
# with the options, of the name a mistyped keyword probably meant).
_OWN = ("model", "params", "scan", "progress", "cancel", "environment", "output", "force", "comm",
        "init", "path_params")
_KEYWORDS = None


def _keywords():
    """{keyword: option}: every option of the library's one table by its C
    API name with '_' for '-', a negative flag by what it switches
    (fast_math=False: --no-fast-math); -o and --force are run()'s output=
    and force=."""
    global _KEYWORDS
    if _KEYWORDS is None:
        kw = {}
        i = 0
        while lib.sdekit_config_option_name(i) is not None:
            opt = s(lib.sdekit_config_option_name(i))
            i += 1
            if opt not in ("output", "force"):
                kw[(opt[3:] if opt.startswith("no-") else opt).replace("-", "_")] = opt
        _KEYWORDS = kw
    return _KEYWORDS


def _option_of(fn, key, value):
    """The option of keyword `key` of fn(), or a TypeError naming it (and the
    keyword it probably meant).  no_NAME=True, the spelling before NAME=False,
    is taken with a DeprecationWarning (for one release)."""
    kw = _keywords()
    name = key.replace("-", "_")
    if name in kw:
        return kw[name]
    if name.startswith("no_") and kw.get(name[3:]) == name.replace("_", "-"):
        warnings.warn("%s(%s=%r) is deprecated and will be removed: give %s=%r" %
                      (fn, key, value, name[3:], not value), DeprecationWarning, stacklevel=4)
        return kw[name[3:]]
    near = difflib.get_close_matches(name, list(kw) + list(_OWN), n=1)
    raise TypeError("%s() got an unexpected keyword argument %r%s" %
                    (fn, key, "; did you mean %r?" % near[0] if near else ""))


def _name_values(v):
    """NAME=VALUE items from a dict {name: value} or a list of "NAME=VALUE"
    texts (or one such text)."""
    if isinstance(v, dict):
        return ["%s=%s" % (k, x if isinstance(x, (str, bytes)) else _num(x)) for k, x in v.items()]
    return [v] if isinstance(v, (str, bytes)) else list(v)


_ARITY = {}


def _apply(cfg, name, opt, v):
    """Option opt given as keyword `name` (its C API name with '_' for '-'),
    its value in Python."""
    if v is None:  # (None is "not given", for a switch as for any option)
        return
    if opt.startswith("no-"):  # fast_math=False == --no-fast-math
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError("%s= is True or False, not %r" % (name, v))
        if bool(v) == name.startswith("no_"):  # (no_fast_math=True: deprecated)
            cfg.option(opt, None)
        return
    if opt == "observe-expr":  # {"E": "v*v/2"}, ["E=v*v/2"] or "E=v*v/2"
        for item in _name_values(v):
            cfg.option(opt, item)
        return
    if opt == "hist-range":
        items = v.items() if isinstance(v, dict) else None
        if items is None:
            for r in ([v] if isinstance(v, str) else v):
                cfg.option(opt, r)
        else:
            for var, r in items:  # (lo, hi) or "LO:HI"
                cfg.option(opt, "%s=%s" % (var, r) if isinstance(r, str)
                           else "%s=%s:%s" % (var, _num(r[0]), _num(r[1])))
        return
    if opt == "sample-times" and not isinstance(v, (str, bytes)):
        # an array or list of times (float64 once, through the typed setter);
        # "lin:A:B:N", "log:A:B:N[:round]" or "T1,T2" as text go as the CLI's
        t = np.ascontiguousarray(_reals("--sample-times", v))
        if t.ndim != 1:
            raise _errors.UsageError("--sample-times: expected a 1-d sequence of times, not an "
                                     "array of shape %s" % (t.shape,))
        if len(t) == 0:
            raise _errors.UsageError("--sample-times: no times given (an empty sequence); leave "
                                     "sample_times out for the default samples")
        cfg.call(lib.sdekit_config_set_sample_times,
                 t.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(t))
        return
    if opt == "set":  # {"k": 2}, ["k=2", "D=0.1"] or "k=2"
        if isinstance(v, dict):
            for k, x in v.items():
                _set_param(cfg, k, x)
            return
        for item in _name_values(v):
            item = s(item) if isinstance(item, bytes) else item
            if not isinstance(item, str) or "=" not in item:
                raise _errors.UsageError("--set %r: expected NAME=VALUE" % (item,))
            k, x = item.split("=", 1)
            _set_param(cfg, k, x)
        return
    arity = _ARITY.get(opt)
    if arity is None:  # (the library's one table of options: fixed for the process)
        arity = _ARITY[opt] = lib.sdekit_config_option_arity(b(opt, "option name"))
    if isinstance(v, (bool, np.bool_)) and v:
        if arity == 1:
            raise _errors.UsageError("option '--%s' needs a value" % opt)
        cfg.option(opt, None)
    elif isinstance(v, (bool, np.bool_)):
        return
    elif arity == 0:
        raise _errors.UsageError("option '--%s' takes no value (give %s=True)" % (opt, name))
    elif isinstance(v, (list, tuple)) and not isinstance(v, str) and opt == "scan-file":
        for x in v:  # repeatable
            cfg.option(opt, os.fspath(x))
    else:
        cfg.option(opt, _text(opt, v))


def _is_grid(v):
    return isinstance(v, tuple) and len(v) in (3, 4) and (len(v) == 3 or isinstance(v[3], str))


def _scan_values(name, v):
    vals = np.ascontiguousarray(_reals("--scan %s" % name, v).ravel()
                                if np.ndim(v) <= 1 else _reals("--scan %s" % name, v))
    if vals.ndim != 1:
        raise _errors.UsageError("--scan %s: expected a 1-d sequence of values" % name)
    return vals


def _scan_zipped(cfg, names, specs):
    """Parameters moving together along one axis: all (start, stop, n[, 'log']) ranges
    (the CLI's --scan a,b=R1,R2) or all arrays of one length (sdekit_config_add_scan_table)."""
    label = ",".join(names)
    if isinstance(specs, np.ndarray) or not isinstance(specs, (list, tuple)) \
            or len(specs) != len(names):
        raise _errors.UsageError("--scan %s: give one range or array per name (%d)"
                                 % (label, len(names)))
    if all(_is_grid(v) for v in specs):
        for j, (n, v) in enumerate(zip(names, specs)):
            _scan_axis(cfg, ("+" if j else "") + n, v)
        return
    if any(_is_grid(v) for v in specs):
        raise _errors.UsageError("--scan %s: give all ranges (start, stop, n) or all arrays"
                                 % label)
    cols = [_scan_values(n, v) for n, v in zip(names, specs)]
    if len({len(c) for c in cols}) != 1:
        raise _errors.UsageError("--scan %s: zipped parameters need the same number of values "
                                 "(%s)" % (label, ", ".join(str(len(c)) for c in cols)))
    keep = [b(n, "scan name") for n in names]  # alive until the call returns
    cnames = (ctypes.c_char_p * len(names))(*keep)
    cvals = (ctypes.POINTER(ctypes.c_double) * len(names))(
        *[c.ctypes.data_as(ctypes.POINTER(ctypes.c_double)) for c in cols])
    cfg.call(lib.sdekit_config_add_scan_table, len(names), cnames, cvals, len(cols[0]))


def _scan_axis(cfg, name, v):
    if _is_grid(v):
        log_ = len(v) == 4
        if log_ and v[3] != "log":
            raise _errors.UsageError("--scan %s: a grid is (start, stop, n) or "
                                     "(start, stop, n, 'log')" % name)
        n = v[2]
        if not isinstance(n, numbers.Integral) or isinstance(n, bool):
            if isinstance(n, numbers.Real) and float(n).is_integer():
                n = int(n)
            else:
                raise _errors.UsageError("--scan %s: N must be a whole number, not %r" % (name, n))
        cfg.call(lib.sdekit_config_add_scan, b(name, "scan name"), float(v[0]), float(v[1]), int(n),
                 int(log_))
        return
    vals = _scan_values(name, v)
    ptr = vals.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    cfg.call(lib.sdekit_config_add_scan_values, b(name, "scan name"), ptr, len(vals))


def _path_values(cfg, which, v, options):
    """init= / path_params=: a file name (--init-from, --path-params), or
    {name: array}: one value per path ([paths]) or per grid point and path
    ([grid points, paths]), any real dtype, converted to float64 once and
    handed to the library by pointer (kept alive with the configuration)."""
    if isinstance(v, (str, bytes, os.PathLike)):
        cfg.option("init-from" if which == "init" else "path-params", os.fsdecode(v))
        return
    if not isinstance(v, dict) or not v:
        raise TypeError("%s=: a file name or {name: array}, not %r" % (which, type(v).__name__))
    shape = None
    for name, a in v.items():
        arr = np.asarray(_unmasked("%s[%r]" % (which, name), a))
        if arr.dtype.kind not in "fiu":
            raise _errors.UsageError("%s[%r]: expected real numbers, not dtype %s"
                                     % (which, name, arr.dtype))
        if arr.ndim not in (1, 2):
            raise _errors.UsageError("%s[%r]: expected [paths] or [grid points, paths], not "
                                     "shape %s" % (which, name, arr.shape))
        if shape is not None and arr.shape != shape:
            raise _errors.UsageError("%s[%r]: shape %s, but others have %s"
                                     % (which, name, arr.shape, shape))
        shape = arr.shape
        arr = np.ascontiguousarray(arr, dtype=np.float64)
        cfg.keep.append(arr)
        cfg.call(lib.sdekit_config_path_values, b(which, "which"), b(name, "%s name" % which),
                 arr.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), arr.size)
    # [grid points, paths]: the run checks the shape, not only the count
    cfg.call(lib.sdekit_config_path_values_grid, b(which, "which"),
             shape[0] if len(shape) == 2 else 0)
    if len(shape) == 2 and options.get("paths") is None:
        # (systems of particles: a value per particle, paths are systems)
        # (not a whole number of systems: the run says so, with no paths invented)
        particles = options.get("particles") or 1
        if shape[1] % particles == 0:
            options["paths"] = shape[1] // particles


def _configure(fn, model, params, scan, options, environment):
    # every keyword checked before anything is done
    opts = {}
    for k, v in options.items():
        if k not in ("init", "path_params"):
            opts[k] = _option_of(fn, k, v)
    cfg = _Config()
    cfg.environment(environment)  # first, as the CLI: options given come after
    if isinstance(model, Model):
        cfg.call(lib.sdekit_config_set_model_object, model._h)
    elif isinstance(model, (str, bytes, os.PathLike)):
        cfg.call(lib.sdekit_config_set_model, b(os.fspath(model), "model"))
    else:
        raise TypeError("model: a sdekit.Model, a built-in name or a path, not %r" % (model,))
    for k, v in (params or {}).items():
        _set_param(cfg, k, v, "params")
    if scan is not None:
        for k, v in scan.items():
            names = list(k) if isinstance(k, tuple) else k.split(",") if "," in k else None
            if names:
                _scan_zipped(cfg, names, v)
            else:
                _scan_axis(cfg, k, v)
    for k in ("init", "path_params"):
        v = options.pop(k, None)
        if v is not None:
            _path_values(cfg, k, v, options)
    for k in _NAMED:
        v = options.pop(k, None)
        if v is not None:  # (paths= may come from init=/path_params= data)
            _apply(cfg, k, opts[k] if k in opts else _option_of(fn, k, v), v)
    for k, v in options.items():
        _apply(cfg, k, opts[k], v)
    return cfg


# ------------------------------------------------------------------ running


class _TextBar:
    """A progress bar on stderr when tqdm is not there (as the CLI draws it)."""

    def __init__(self):
        self.start = time.monotonic()
        self.last = -1.0

    def __call__(self, frac, sps):
        # (a run to a requested error may find more work: its fraction goes back)
        if abs(frac - self.last) < 0.005 and frac < 1:
            return
        self.last = frac
        w, k = 30, int(frac * 30 + 0.5)
        el = time.monotonic() - self.start
        left = el * (1 - frac) / frac if frac > 0 else 0
        sys.stderr.write("\r[%s%s] %5.1f%%  %.3g steps/s  %dm%02ds left "
                         % ("#" * k, "." * (w - k), 100 * frac, sps, left // 60, left % 60))
        if frac >= 1:
            sys.stderr.write("\n")
        sys.stderr.flush()

    def close(self):
        if 0 < self.last < 1:
            sys.stderr.write("\n")


class _TqdmBar:
    def __init__(self, tqdm):
        self.bar = tqdm(total=100, unit="%", bar_format="{l_bar}{bar}| {n:.1f}/100% "
                        "[{elapsed}<{remaining}{postfix}]", leave=True)

    def __call__(self, frac, sps):
        self.bar.n = min(100.0, 100.0 * frac)
        self.bar.set_postfix_str("%.3g steps/s" % sps, refresh=False)
        self.bar.refresh()

    def close(self):
        self.bar.close()


def _progress_display(progress):
    """progress=None: a bar when stderr is a terminal (as the CLI); True: a
    tqdm bar (a text bar without tqdm); a callable: called with (fraction,
    steps per second); False: nothing."""
    if progress is None:
        progress = hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    if progress is True:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return _TextBar()
        return _TqdmBar(tqdm)
    if progress is False:
        return None
    if callable(progress):
        return progress
    raise TypeError("progress: True, False, None or a callable f(fraction, steps_per_s)")


def _log_level():
    lv = log.getEffectiveLevel()
    return 0 if lv <= logging.DEBUG else 1 if lv <= logging.INFO else 2


_LEVELS = {0: logging.DEBUG, 1: logging.INFO, 2: logging.WARNING}


class _ProcessHandle:
    """A library object made once per process at its first use and released
    at exit; a subclass names the functions that create and destroy it."""
    handle = None
    create = destroy = None

    @classmethod
    def made(cls):
        if cls.handle is None:
            h = ctypes.c_void_p()
            err = sdekit_error()
            _errors.check(getattr(lib, cls.create)(ctypes.byref(h), ctypes.byref(err)), err)
            cls.handle = h
            import atexit  # (_World: registered after mpi4py's MPI_Finalize, runs before it)
            atexit.register(cls.release)
        return cls.handle

    @classmethod
    def release(cls):
        if cls.handle is not None:
            getattr(lib, cls.destroy)(ctypes.byref(cls.handle))
            cls.handle = None


class _World(_ProcessHandle):
    """The library's handle on MPI_COMM_WORLD, made once (after mpi4py has
    initialised MPI) and released before mpi4py finalises it."""
    create, destroy = "sdekit_comm_world", "sdekit_comm_destroy"

    @classmethod
    def get(cls, comm):
        try:
            from mpi4py import MPI
        except ImportError:
            raise _errors.UsageError("comm=: MPI runs from Python need mpi4py "
                                     "(Debian: python3-mpi4py)") from None
        if comm is not True and MPI.Comm.Compare(comm, MPI.COMM_WORLD) not in (MPI.IDENT,
                                                                               MPI.CONGRUENT):
            raise _errors.UsageError("comm=: sdekit runs over MPI.COMM_WORLD (or True) only")
        if not lib.sdekit_mpi_available():
            raise _errors.UsageError("comm=: this libsdekit was built without MPI")
        return cls.made()


class _Held(_ProcessHandle):
    """The process's sdekit_session: what the runs keep open between them (a
    GPU's context and kernels), so that a second run does not make them again."""
    create, destroy = "sdekit_session_create", "sdekit_session_destroy"

    @classmethod
    def get(cls):
        return cls.made()


def release():
    """Release what the process's runs keep between them: the GPU contexts, the loaded
    kernels and the device memory of earlier runs' paths (docs/API.md).  Call it to hand
    that memory to another library (JAX, PyTorch) in the same process; the next run makes
    what it needs again (a first call's cost), with the same results."""
    _Held.release()


class _Session:
    """The callbacks of one run and what they saw."""

    def __init__(self, progress, cancel, comm=None):
        self.comm = _World.get(comm) if comm is not None and comm is not False else None
        self.rank = lib.sdekit_comm_rank(self.comm) if self.comm is not None else 0
        self.display = _progress_display(progress) if self.rank == 0 else None
        self.user_cancel = cancel
        self.sigint = 0
        self.exc = None
        self.cancelled_by_user = False
        self.c_progress = PROGRESS_FN(self._progress)
        self.c_cancel = CANCEL_FN(self._cancel)
        self.c_log = LOG_FN(self._log)

    def _progress(self, _user, frac, sps):
        if self.display is None or self.exc is not None:
            return
        try:
            self.display(frac, sps)
        except BaseException as e:  # stops the run; raised when it returns
            self.exc = e

    def _cancel(self, _user):
        if self.sigint or self.exc is not None:
            return 1
        if self.user_cancel is not None:
            try:
                if self.user_cancel():
                    self.cancelled_by_user = True
                    return 1
            except BaseException as e:
                self.exc = e
                return 1
        return 0

    def _log(self, _user, level, msg):
        try:
            log.log(_LEVELS.get(level, logging.WARNING), s(msg).rstrip("\n"))
        except BaseException as e:
            self.exc = e

    def attach(self, cfg):
        # (no display: no call into Python after every chunk)
        lib.sdekit_config_set_progress(cfg.p, self.c_progress if self.display is not None else
                                       PROGRESS_FN(), None)
        lib.sdekit_config_set_cancel(cfg.p, self.c_cancel, None)
        lib.sdekit_config_set_log(cfg.p, self.c_log, None, _log_level())

    def _on_sigint(self, signum, frame):
        self.sigint = signum

    def run(self, cfg):
        """sdekit_run with SIGINT turned into a cancellation for its duration."""
        self.attach(cfg)
        err = sdekit_error()
        _errors.check(lib.sdekit_config_set_session(cfg.p, _Held.get(), ctypes.byref(err)), err)
        if self.comm is not None:
            err = sdekit_error()
            _errors.check(lib.sdekit_config_set_comm(cfg.p, self.comm, ctypes.byref(err)), err)
        old = None
        installed = False
        if threading.current_thread() is threading.main_thread():
            old = signal.getsignal(signal.SIGINT)
            if old is not signal.SIG_IGN:
                signal.signal(signal.SIGINT, self._on_sigint)
                installed = True
        out = ctypes.c_void_p()
        err = sdekit_error()
        try:
            st = lib.sdekit_run(cfg.p, ctypes.byref(out), ctypes.byref(err))
        finally:
            if installed:
                signal.signal(signal.SIGINT, old if old is not None else signal.SIG_DFL)
            if self.display is not None and hasattr(self.display, "close"):
                self.display.close()
        r = Result._wrap(out) if st == Status.OK else None
        if self.exc is not None:
            raise self.exc
        if self.sigint:
            # Ctrl-C: the run stopped after its chunk (a checkpoint, when
            # configured, was written: the message says where)
            raise KeyboardInterrupt(s(err.message) if st == Status.CANCELLED else
                                    "sdekit: interrupted at the end of the run")
        if st != Status.OK and self.comm is not None and err.alone:
            # this rank failed by itself while the others wait for it
            sys.stderr.write("sdekit: error: rank %d: %s\n" % (self.rank, s(err.message)))
            sys.stderr.flush()
            lib.sdekit_comm_abort(self.comm, 1)
        _errors.check(st, err)
        return r


def _outputs(output):
    if output is None:
        return []
    return [output] if isinstance(output, (str, bytes, os.PathLike)) else list(output)


def _check_outputs(cfg, output, force):
    """Before the run, what `sdekit run` checks: each output's name and
    directory, and that none is the model file (nor the checkpoint, when
    it exists, the progress of an earlier run) unless force.  The outputs
    stay out of the configuration (its checkpoint and recorded command line
    are those of a run without them)."""
    if force:
        cfg.option("force", None)
    lib.sdekit_config_clear_outputs(cfg.p)  # (a checkpoint's, which Python does not write)
    try:
        for o in _outputs(output):
            cfg.call(lib.sdekit_config_add_output, os.fsencode(o))
        cfg.call(lib.sdekit_config_check_outputs, 0)
    finally:
        lib.sdekit_config_clear_outputs(cfg.p)


def _finish(r, output, session=None):
    if session is not None and session.rank != 0:
        return r  # several ranks: rank 0 writes
    for o in _outputs(output):
        r.save(o)
    return r


def run(model, params=None, scan=None, *, progress=None, cancel=None, environment=None,
        output=None, force=False, **options):
    """Run a model: the arguments of `sdekit run`, as keywords.

    model: a sdekit.Model, a built-in name ("josephson") or a path.
    params: {name: value} (--set).  scan: {name: values} -- an array or list
    (the values as given) or a tuple (start, stop, n[, "log"]) (the CLI's
    START:STOP:N[:log] grid); each an axis of the grid (row-major, the first
    slowest; at most 5).  A key of several names, ("k", "D") or "k,D", moves
    them together along one axis (zipped): its value one range or array per
    name, all of one length; the result's arrays have one dimension per axis,
    r.scan the axes' first parameters, r["scan/D"] a zipped one's values.
    Options by their CLI names: paths, t_end or periods, dt, spp, transient,
    transient_periods, observe (a list or "drift,moments"), backend,
    precision, seed, threads, device (an ordinal, a list, or "all": one
    process on those GPUs, bitwise the results of one), ranks, scheme, checkpoint, checkpoint_every,
    sample_every, sample_times (a list or array of times, or "lin:A:B:N",
    "log:A:B:N[:round]": --sample-times), order_every, bins, hist_range ({var: (lo, hi)}),
    save_paths (a list), density_var, coarse_grain (True or a width), drift,
    corr_vars, max_lag, psd_segment, psd_window (acf, psd),
    particles, fast_math=False, compensation=False, bridge_correction=False,
    observe_expr ({name: expression}), verbose: every option by the C API's
    name with '_' for '-', a switch as NAME=False, a NAME=VALUE list as a
    dict; an unknown keyword is a TypeError.  Deprecated (a warning; removed
    in the next release): no_fast_math=True and the like.
    Data (README: Bringing your own data): init={"x": array} or a file (the
    initial state of every path, every variable), path_params={"k": array}
    or a file, save_final=True (Result: "final/x", [grid points, paths] or
    [paths]).  Arrays: [paths] or [grid points, paths], any real dtype
    (converted to float64 once, not copied per call); the paths follow them
    unless paths= is given.
    progress: None (a bar on a terminal), True, False or f(fraction, steps_per_s).
    cancel: a callable polled after every chunk of steps; true stops the run
    (CancelledError).  Ctrl-C stops it too (KeyboardInterrupt), writing the
    checkpoint when one is configured.  environment: the variables the
    library reads (default os.environ: the same compiler and kernel cache as
    the CLI).  output: file name(s) to save the results to, as -o.
    force: as --force, replace a checkpoint file that exists (the progress
    of an earlier run: refused otherwise), or the model file itself with an
    output or the checkpoint.
    comm: run over MPI ranks (mpi4py's MPI.COMM_WORLD, or True), started as
    `mpirun -np R python script.py`: every rank calls run() alike, each
    integrates a share of the paths, and every rank returns bitwise the
    Result of one process; rank 0 alone writes `output` (docs/SCALING.md).
    Returns a Result.
    """
    comm = options.pop("comm", None)
    cfg = _configure("run", model, params, scan, dict(options), environment)
    _check_outputs(cfg, output, force)
    session = _Session(progress, cancel, comm)
    return _finish(session.run(cfg), output, session)


def resume(checkpoint, *, periods=None, t_end=None, threads=None, stored_model=False,
           progress=None, cancel=None, environment=None, output=None, comm=None, force=False):
    """Continue a run saved with checkpoint=... (or `sdekit run --checkpoint`):
    the results are bitwise those of the run done in one go.  periods or
    t_end extend a finished run.  stored_model: resume although the model
    file changed since, with the text stored in the checkpoint.  comm: over
    MPI ranks, as run() (any number of ranks resumes any checkpoint).
    output: as run()'s; force: write an output over the model file."""
    p = ctypes.c_void_p()
    err = sdekit_error()
    _errors.check(lib.sdekit_config_from_checkpoint(
        b(checkpoint, "checkpoint"), 1 if stored_model else 0, ctypes.byref(p), ctypes.byref(err)), err)
    cfg = _Config(p)
    cfg.environment(environment)
    for k, v in (("periods", periods), ("t-end", t_end), ("threads", threads)):
        if v is not None:
            cfg.option(k, _num(v))
    _check_outputs(cfg, output, force)
    session = _Session(progress, cancel, comm)
    return _finish(session.run(cfg), output, session)


def codegen(model, params=None, scan=None, *, backend="cpu", environment=None, **options):
    """The generated kernel source of a run ("cpu" or "cuda"), as `sdekit codegen`."""
    cfg = _configure("codegen", model, params, scan, dict(options), environment)
    src = ctypes.c_void_p()
    err = sdekit_error()
    _errors.check(lib.sdekit_codegen(cfg.p, b(backend, "backend"), ctypes.byref(src), ctypes.byref(err)), err)
    return take_string(src.value)


def run_help():
    """The help text of `sdekit run`'s options."""
    return take_string(lib.sdekit_config_help())


def registry(kind):
    """The registry's names and descriptions: kind "scheme", "observable",
    "noise" or "backend" -> dict name -> description."""
    out = {}
    i = 0
    while True:
        n = lib.sdekit_registry_name(b(kind, "kind"), i)
        if n is None:
            return out
        out[s(n)] = s(lib.sdekit_registry_description(b(kind, "kind"), i))
        i += 1
