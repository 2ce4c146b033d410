"""Models: sdekit.Model.load / from_file / from_string, and the catalog."""
import ctypes
import os

from . import _errors
from ._lib import b, lib, s


def _search_path(search_path):
    # as the CLI: SDEKIT_MODEL_PATH unless a search path is given
    if search_path is None:
        search_path = os.environ.get("SDEKIT_MODEL_PATH")
    if isinstance(search_path, (list, tuple)):
        search_path = ":".join(os.fspath(p) for p in search_path)
    return search_path


class Model:
    """A parsed model file (read-only).

    Attributes: name, description, vars (tuple of variable names), params
    (dict name -> value in the file, after [params] expressions), text (the
    model file's text), path (the file read, as a resolved absolute path, or
    the label of from_string),
    kind ("paths", "meanfield" or "pair"), has_period, periodic_var (the
    first variable declared periodic, or None).
    """

    __slots__ = ("_h", "name", "description", "vars", "params", "text", "path", "kind",
                 "has_period", "periodic_var")

    def __init__(self, *a, **k):
        raise TypeError("use sdekit.Model.load(name), .from_file(path) or .from_string(text)")

    @classmethod
    def _wrap(cls, h):
        m = object.__new__(cls)
        object.__setattr__(m, "_h", h)
        p = h
        nv = lib.sdekit_model_nvars(p)
        np_ = lib.sdekit_model_nparams(p)
        pv = lib.sdekit_model_periodic_var(p)
        vals = {
            "name": s(lib.sdekit_model_name(p)),
            "description": s(lib.sdekit_model_description(p)),
            "vars": tuple(s(lib.sdekit_model_var(p, i)) for i in range(nv)),
            "params": {s(lib.sdekit_model_param(p, i)): lib.sdekit_model_param_value(p, i)
                       for i in range(np_)},
            "text": s(lib.sdekit_model_text(p)),
            "path": s(lib.sdekit_model_path(p)),
            "kind": s(lib.sdekit_model_kind(p)),
            "has_period": bool(lib.sdekit_model_has_period(p)),
        }
        vals["periodic_var"] = vals["vars"][pv] if 0 <= pv < nv else None
        for k, v in vals.items():
            object.__setattr__(m, k, v)
        return m

    def __setattr__(self, name, value):
        raise AttributeError("sdekit.Model is read-only")

    @classmethod
    def load(cls, name, search_path=None):
        """A model by name or path, as `sdekit run MODEL` finds it.

        A path contains a '/' or ends in .sde; a bare name is looked up as
        NAME.sde in search_path (a ':'-separated string or a list; default
        $SDEKIT_MODEL_PATH), then among the built-in models; never in the
        current directory.
        """
        h = ctypes.c_void_p()
        err = _lib_error()
        st = lib.sdekit_model_load(b(os.fspath(name), "model"),
                                   b(_search_path(search_path), "search_path"),
                                   ctypes.byref(h), ctypes.byref(err))
        _errors.check(st, err)
        return cls._wrap(h)

    @classmethod
    def from_file(cls, path):
        """The model in file `path` (a bare file name means the current directory)."""
        path = os.fspath(path)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if "/" not in path and not path.endswith(".sde"):
            path = "./" + path
        return cls.load(path)

    @classmethod
    def from_string(cls, text, label=None):
        """A model from its text; label names it in messages (default "<string>")."""
        h = ctypes.c_void_p()
        err = _lib_error()
        st = lib.sdekit_model_from_string(b(text, "model text"), b(label, "label"), ctypes.byref(h), ctypes.byref(err))
        _errors.check(st, err)
        return cls._wrap(h)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h and lib is not None:
            lib.sdekit_model_destroy(ctypes.byref(h))

    def __repr__(self):
        return "<sdekit.Model %s (%s): vars %s, params %s>" % (
            self.name, self.path, ", ".join(self.vars),
            ", ".join("%s=%g" % kv for kv in self.params.items()))


def _lib_error():
    from ._lib import sdekit_error

    return sdekit_error()


def models(search_path=None):
    """The models `sdekit models` lists: dict name -> file, search path first."""
    h = ctypes.c_void_p()
    err = _lib_error()
    st = lib.sdekit_catalog_create(b(_search_path(search_path), "search_path"), ctypes.byref(h), ctypes.byref(err))
    _errors.check(st, err)
    try:
        out = {}
        for i in range(lib.sdekit_catalog_count(h)):
            f = s(lib.sdekit_catalog_file(h, i))
            name = f[:-4] if f.endswith(".sde") else f
            out.setdefault(name, s(lib.sdekit_catalog_path(h, i)))
        return out
    finally:
        lib.sdekit_catalog_destroy(ctypes.byref(h))
