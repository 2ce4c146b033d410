"""Results: a run's or a file's, as NumPy arrays shaped by the scan axes.

Arrays are read-only views on the result's own memory (no copy): their
.base is a small holder object that keeps the C result alive, so a view
outlives the Result it came from safely.  Attributes are copied into Python
values (they are small).
"""
import collections
import collections.abc
import ctypes
import os
import tempfile

import numpy as np

from . import _errors
from ._lib import FILE_FN, b, lib, s, sdekit_attr, sdekit_dataset, sdekit_error

_DTYPES = {0: np.dtype(np.float64), 1: np.dtype(np.int64), 2: np.dtype(np.uint64)}


class _Handle:
    """Owns one sdekit_result; destroyed when the last Result or view is gone."""

    __slots__ = ("p", "__weakref__")

    def __init__(self, p):
        self.p = p

    def __del__(self):
        if self.p and lib is not None:
            lib.sdekit_result_destroy(ctypes.byref(self.p))
            self.p = None


class _Memory:
    """The base of a view: an __array_interface__ on the result's memory and
    a reference to its owner."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, owner, address, shape, dtype):
        self.owner = owner
        self.__array_interface__ = {
            "version": 3,
            "shape": tuple(shape),
            "typestr": dtype.str,
            "data": (address, True),  # read-only
        }


def _view(owner, address, shape, dtype):
    shape = tuple(int(n) for n in shape)
    if not address or int(np.prod(shape, dtype=np.int64)) == 0:
        a = np.zeros(shape, dtype)
        a.flags.writeable = False
        return a
    return np.asarray(_Memory(owner, address, shape, dtype))


class DatasetInfo(collections.namedtuple(
        "DatasetInfo", "name dtype shape dims grid_rank sample_axis stderr coordinate attrs")):
    """What the library says about one dataset.

    name: its path ("moments/var_x"); dtype, shape; dims: the dimension
    names (the scan parameters for the first grid_rank dimensions, "sample"
    for the sample axis, else the observable's: "bin", "path"); sample_axis:
    the index of the sample axis or None; stderr: the name of the dataset
    holding its standard errors, or None; coordinate: True for coordinates
    (sample times, steps) rather than statistics; attrs: its attributes.
    """


def _attr_value(a):
    t, n = a.type, a.count
    if t == 0:
        return s(a.s)
    if t == 1:
        return [s(a.strs[i]) for i in range(n)]
    ptr = {2: a.f64, 3: a.i64, 4: a.u64}.get(t)
    if ptr is None:
        return None
    if n == 1:
        v = ptr[0]
        return float(v) if t == 2 else int(v)
    dt = {2: np.float64, 3: np.int64, 4: np.uint64}[t]
    return np.ctypeslib.as_array(ptr, shape=(n,)).astype(dt, copy=True)


class Result(collections.abc.Mapping):
    """The results of a run (sdekit.run) or of a result file (sdekit.load).

    A mapping of dataset name -> read-only NumPy array ("drift/value",
    "moments/var_x", "scan/a", ...), the first dimensions being the scan axes
    (axis 0 slowest).  See docs/PYTHON.md.
    """

    def __init__(self, *a, **k):
        raise TypeError("results come from sdekit.run, sdekit.resume or sdekit.load")

    @classmethod
    def _wrap(cls, p):
        r = object.__new__(cls)
        r._h = _Handle(p)
        r._arrays = {}
        r._infos = {}
        n = lib.sdekit_result_ndatasets(p)
        r._names = tuple(s(lib.sdekit_result_dataset_name(p, i)) for i in range(n))
        r._observables = tuple(
            s(lib.sdekit_result_observable(p, i)) for i in range(lib.sdekit_result_nobservables(p)))
        scan = collections.OrderedDict()
        for i in range(lib.sdekit_result_nscan(p)):
            nv = ctypes.c_int64()
            ptr = lib.sdekit_result_scan_values(p, i, ctypes.byref(nv))
            addr = ctypes.cast(ptr, ctypes.c_void_p).value
            scan[s(lib.sdekit_result_scan_name(p, i))] = _view(r._h, addr, (nv.value,), _DTYPES[0])
        r._scan = scan
        r._attrs = None
        return r

    # ---- the mapping: datasets by name
    def _key(self, name):
        if isinstance(name, str) and name.startswith("/"):
            name = name[1:]
        if name not in self._names:
            raise KeyError("no dataset %r in the results (they are: %s)"
                           % (name, ", ".join(self._names)))
        return name

    def __getitem__(self, name):
        name = self._key(name)
        a = self._arrays.get(name)
        if a is None:
            d = self._dataset(name)
            a = _view(self._h, d.data, d.dims[:d.rank], _DTYPES[d.type])
            self._arrays[name] = a
        return a

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)

    def __contains__(self, name):
        if isinstance(name, str) and name.startswith("/"):
            name = name[1:]
        return name in self._names

    def _dataset(self, name):
        d = sdekit_dataset()
        err = sdekit_error()
        _errors.check(lib.sdekit_result_dataset(self._h.p, b(name, "dataset"), ctypes.byref(d),
                                                ctypes.byref(err)), err)
        return d

    def _attrs_of(self, obj):
        p = self._h.p
        n = lib.sdekit_result_nattrs(p, b(obj, "object"))
        out = {}
        a = sdekit_attr()
        err = sdekit_error()
        for i in range(max(n, 0)):
            _errors.check(lib.sdekit_result_attr_at(p, b(obj, "object"), i, ctypes.byref(a),
                                                    ctypes.byref(err)), err)
            out[s(a.name)] = _attr_value(a)
        return out

    # ---- what the results hold
    @property
    def datasets(self):
        """The names of every dataset, in the library's order."""
        return self._names

    @property
    def observables(self):
        """The observables (groups) the results hold, in order: ("drift", "moments")."""
        return self._observables

    @property
    def scan(self):
        """The scan axes in order (axis 0 slowest): OrderedDict name -> values."""
        return self._scan

    @property
    def attrs(self):
        """The root attributes (the run's settings) as Python values."""
        if self._attrs is None:
            self._attrs = self._attrs_of("")
        return self._attrs

    def group_attrs(self, group):
        """The attributes of a group ("target", "mlmc", "density/x") as a dict of
        Python values; KeyError when the results have no such group."""
        if lib.sdekit_result_nattrs(self._h.p, b(group, "group")) < 0:
            raise KeyError("no group %r in the results" % group)
        return self._attrs_of(group)

    @property
    def params(self):
        """The parameters that were not scanned: dict name -> value."""
        a = self.attrs
        names = a.get("param_names") or []
        vals = np.atleast_1d(a.get("param_values", []))
        if len(vals) != len(names):
            return {}
        return {n: float(v) for n, v in zip(names, vals)
                if n not in self._scan and "scan/" + n not in self}

    def info(self, name):
        """A DatasetInfo: shape, dims, sample axis, standard error's name, attributes."""
        name = self._key(name)
        i = self._infos.get(name)
        if i is None:
            d = self._dataset(name)
            dims = tuple(s(d.dim_names[k]) if d.dim_names[k] else "dim_%d" % k
                         for k in range(d.rank))
            i = DatasetInfo(name, _DTYPES[d.type], tuple(d.dims[:d.rank]), dims, d.grid_rank,
                            d.sample_axis if d.sample_axis >= 0 else None,
                            s(d.std_error) if d.std_error else None, bool(d.coordinate),
                            self._attrs_of(name))
            self._infos[name] = i
        return i

    def dims(self, name):
        """The dimension names of a dataset: ("a",) or ("k", "sample")."""
        return self.info(name).dims

    def stderr(self, name):
        """The standard errors of a dataset (an array of its shape).

        KeyError when the library has none for it (see info(name).stderr)."""
        se = self.info(name).stderr
        if se is None:
            raise KeyError("dataset %r has no standard error" % self._key(name))
        return self[se]

    @property
    def seconds(self):
        """Seconds spent integrating (0 for a file)."""
        return lib.sdekit_result_seconds(self._h.p)

    @property
    def path_steps(self):
        return lib.sdekit_result_path_steps(self._h.p)

    @property
    def device(self):
        return s(lib.sdekit_result_device(self._h.p))

    @property
    def problem(self):
        """None, or why some statistics are NaN (grid points whose paths blew up)."""
        return s(lib.sdekit_result_problem(self._h.p))

    @property
    def paths_used(self):
        """The paths each grid point's results stand for (an int array of the
        grid's shape) in a run to a standard error (target_se=, target_rse=),
        else None."""
        return self["paths_used"] if "paths_used" in self else None

    @property
    def target_status(self):
        """Per grid point of a run to a standard error: 0 reached, 1 stopped at
        max_paths, 2 at max_seconds, 3 paths became NaN/Inf; of a run to a
        total error (target_error=): 0 reached, 1 the bias still too large at
        the finest dt, 2 NaN/Inf, 3 max_paths, 4 max_seconds (the dataset's
        "meaning" attribute says which); else None."""
        return self["target/status"] if "target/status" in self else None

    # ---- writing, other forms
    def save(self, path):
        """Write FILE.h5 (every dataset and attribute, the layout of `sdekit run -o`)
        or FILE.tsv (the CLI's text; several observables: BASE.OBS.tsv each).
        Returns the list of files written."""
        written = []

        def wrote(_user, p):
            written.append(os.fsdecode(p))

        cb = FILE_FN(wrote)
        err = sdekit_error()
        _errors.check(lib.sdekit_result_write(self._h.p, b(path, "path"), cb, None,
                                              ctypes.byref(err)), err)
        return written

    def __reduce__(self):
        # pickled as the bytes of its HDF5 file (the arrays are views on the
        # library's memory, which ctypes cannot pickle): multiprocessing and
        # joblib hand results between processes this way
        with tempfile.TemporaryDirectory(prefix="sdekit-pickle-") as d:
            path = os.path.join(d, "result.h5")
            self.save(path)
            with open(path, "rb") as f:
                return _unpickle, (f.read(),)

    def to_xarray(self, observable=None):
        """An xarray.Dataset (needs xarray): see docs/PYTHON.md."""
        from ._xarray import to_xarray

        return to_xarray(self, observable)

    def plot(self, what=None, var=None, grid=None, figsize=None, stat="mean", show=None,
             log=None):
        """The pictures of `sdekit plot`, drawn with matplotlib; returns the Figure
        (save it as PNG, PDF or SVG by the name's extension)."""
        from ._plot import plot

        return plot(self, what=what, var=var, grid=grid, figsize=figsize, stat=stat, show=show,
                    log=log)

    def __repr__(self):
        a = self.attrs
        scan = ", ".join("%s[%d]" % (k, len(v)) for k, v in self._scan.items())
        used = self.paths_used
        extra = "; scan " + scan if scan else ""
        if used is not None:
            lo, hi = int(used.min()), int(used.max())
            extra += "; paths_used %s" % (lo if lo == hi else "%d..%d" % (lo, hi))
        return "<sdekit.Result %s: %s%s>" % (
            a.get("model_name", "?"), ", ".join(self._observables) or "no observables", extra)


def load(path):
    """Read a result file written by sdekit (the CLI's -o FILE.h5, Result.save)."""
    p = ctypes.c_void_p()
    err = sdekit_error()
    _errors.check(lib.sdekit_result_read(b(path, "path"), ctypes.byref(p), ctypes.byref(err)), err)
    r = Result._wrap(p)
    r._source = path  # names the file in messages (the pictures')
    return r


def _unpickle(data):
    """A Result from the bytes Result.__reduce__ took (a private directory:
    the file is read back by name)."""
    with tempfile.TemporaryDirectory(prefix="sdekit-pickle-") as d:
        path = os.path.join(d, "result.h5")
        with open(path, "xb") as f:
            f.write(data)
        r = load(path)
    del r._source  # (a name that no longer exists)
    return r
