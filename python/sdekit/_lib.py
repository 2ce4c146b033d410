"""Loading libsdekit and the ctypes declarations of include/sdekit.h.

The library is looked for, in order: the copy bundled in this package
(sdekit/lib/libsdekit.so.0, with its models in sdekit/share/sdekit/models,
where the library's own lookup finds them), the installed library the package
was built against (SDEKIT_PREFIX or pkg-config at build time: _build_config),
$SDEKIT_LIBRARY, and ctypes.util.find_library("sdekit").

Every declaration below mirrors include/sdekit.h; tests/test_abi.py checks the
structure layouts against a C compiler's.
"""
import ctypes
import ctypes.util
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_int64,
    c_size_t,
    c_uint,
    c_uint64,
    c_void_p,
)

_HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED = os.path.join(_HERE, "lib", "libsdekit.so.0")

# The major version this binding was written for (SDEKIT_VERSION_MAJOR).
API_MAJOR = 0
MAX_RANK = 8


class sdekit_error(Structure):
    _fields_ = [
        ("status", c_int),
        ("message", c_char * 1024),
        ("file", c_char * 1024),
        ("line", c_int),
        ("source_file", c_char_p),
        ("source_line", c_int),
        ("alone", c_int),
    ]


class sdekit_dataset(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("type", c_int),
        ("rank", c_int),
        ("dims", c_int64 * MAX_RANK),
        ("dim_names", c_char_p * MAX_RANK),
        ("grid_rank", c_int),
        ("sample_axis", c_int),
        ("count", c_int64),
        ("data", c_void_p),
        ("std_error", c_char_p),
        ("coordinate", c_int),
    ]


class sdekit_attr(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("type", c_int),
        ("count", c_int64),
        ("s", c_char_p),
        ("strs", POINTER(c_char_p)),
        ("f64", POINTER(c_double)),
        ("i64", POINTER(c_int64)),
        ("u64", POINTER(c_uint64)),
    ]


class sdekit_figure_options(Structure):
    _fields_ = [
        ("observable", c_char_p),
        ("var", c_char_p),
        ("show", c_char_p),
        ("grid", c_int64),
        ("stat", c_int),
        ("log", c_int),
    ]


class sdekit_device_info(Structure):
    _fields_ = [
        ("ordinal", c_int),
        ("name", c_char * 256),
        ("arch", c_char * 16),
        ("multiprocessors", c_int),
        ("memory_bytes", c_double),
    ]


class sdekit_cuda_info(Structure):
    _fields_ = [
        ("driver_version", c_int),
        ("nvrtc_major", c_int),
        ("nvrtc_minor", c_int),
        ("nvrtc_path", c_char * 512),
        ("ndevices", c_int),
    ]


PROGRESS_FN = CFUNCTYPE(None, c_void_p, c_double, c_double)
CANCEL_FN = CFUNCTYPE(c_int, c_void_p)
LOG_FN = CFUNCTYPE(None, c_void_p, c_int, c_char_p)
FILE_FN = CFUNCTYPE(None, c_void_p, c_char_p)

class c_str(c_char_p):
    """c_char_p as an argument type that refuses an embedded NUL: C would see
    only the text before it (a name "k\\0x" would set k).  b() refuses it
    first with a message naming the argument; this catches what did not come
    through b()."""

    @classmethod
    def from_param(cls, obj):
        if isinstance(obj, (bytes, bytearray)) and b"\0" in obj:
            raise ValueError("embedded null character")
        return c_char_p.from_param(obj)


_P = c_void_p  # opaque objects
_E = POINTER(sdekit_error)
_S = c_int  # sdekit_status

# name: (restype, argtypes)
_PROTOTYPES = {
    "sdekit_version": (c_char_p, []),
    "sdekit_version_number": (c_int, []),
    "sdekit_status_name": (c_char_p, [c_int]),
    "sdekit_status_exit_code": (c_int, [c_int]),
    "sdekit_free": (None, [c_void_p]),
    # models
    "sdekit_model_load": (_S, [c_str, c_str, POINTER(_P), _E]),
    "sdekit_model_from_string": (_S, [c_str, c_str, POINTER(_P), _E]),
    "sdekit_model_destroy": (None, [POINTER(_P)]),
    "sdekit_model_name": (c_char_p, [_P]),
    "sdekit_model_description": (c_char_p, [_P]),
    "sdekit_model_path": (c_char_p, [_P]),
    "sdekit_model_text": (c_char_p, [_P]),
    "sdekit_model_nvars": (c_int, [_P]),
    "sdekit_model_var": (c_char_p, [_P, c_int]),
    "sdekit_model_nparams": (c_int, [_P]),
    "sdekit_model_param": (c_char_p, [_P, c_int]),
    "sdekit_model_param_value": (c_double, [_P, c_int]),
    "sdekit_model_has_period": (c_int, [_P]),
    "sdekit_model_periodic_var": (c_int, [_P]),
    "sdekit_model_kind": (c_char_p, [_P]),
    "sdekit_catalog_create": (_S, [c_str, POINTER(_P), _E]),
    "sdekit_catalog_destroy": (None, [POINTER(_P)]),
    "sdekit_catalog_ndirs": (c_int, [_P]),
    "sdekit_catalog_dir": (c_char_p, [_P, c_int]),
    "sdekit_catalog_count": (c_int, [_P]),
    "sdekit_catalog_file": (c_char_p, [_P, c_int]),
    "sdekit_catalog_path": (c_char_p, [_P, c_int]),
    "sdekit_catalog_dir_builtin": (c_int, [_P, c_int]),
    "sdekit_catalog_entry_dir": (c_int, [_P, c_int]),
    # configuration
    "sdekit_config_create": (_S, [POINTER(_P), _E]),
    "sdekit_config_destroy": (None, [POINTER(_P)]),
    "sdekit_config_set_model": (_S, [_P, c_str, _E]),
    "sdekit_config_set_model_text": (_S, [_P, c_str, c_str, _E]),
    "sdekit_config_set_model_object": (_S, [_P, _P, _E]),
    "sdekit_config_set_model_search_path": (_S, [_P, c_str, _E]),
    "sdekit_config_set_param": (_S, [_P, c_str, c_double, _E]),
    "sdekit_config_add_scan": (_S, [_P, c_str, c_double, c_double, c_int64, c_int, _E]),
    "sdekit_config_add_scan_values": (_S, [_P, c_str, POINTER(c_double), c_int64, _E]),
    "sdekit_config_path_values": (_S, [_P, c_str, c_str, POINTER(c_double), c_int64, _E]),
    "sdekit_config_path_values_grid": (_S, [_P, c_str, c_int64, _E]),
    "sdekit_config_set_sample_times": (_S, [_P, POINTER(c_double), c_int64, _E]),
    "sdekit_config_add_scan_table": (_S, [_P, c_int, POINTER(c_char_p),
                                          POINTER(POINTER(c_double)), c_int64, _E]),
    "sdekit_config_set_checkpoint": (_S, [_P, c_str, c_double, _E]),
    "sdekit_config_add_output": (_S, [_P, c_str, _E]),
    "sdekit_config_clear_outputs": (None, [_P]),
    "sdekit_config_noutputs": (c_int, [_P]),
    "sdekit_config_output": (c_char_p, [_P, c_int]),
    "sdekit_config_set_quiet": (_S, [_P, c_int, _E]),
    "sdekit_config_set_verbose": (_S, [_P, c_int, _E]),
    "sdekit_config_option": (_S, [_P, c_str, c_str, _E]),
    "sdekit_config_option_arity": (c_int, [c_str]),
    "sdekit_config_option_name": (c_char_p, [c_int]),
    "sdekit_config_set_command_line": (_S, [_P, c_str, _E]),
    "sdekit_config_help": (c_void_p, []),
    "sdekit_config_set_environment": (_S, [_P, POINTER(c_char_p), _E]),
    "sdekit_config_set_cache": (_S, [_P, c_str, c_int64, _E]),
    "sdekit_config_cache_dir": (c_char_p, [_P]),
    "sdekit_config_environment_note": (c_char_p, [_P]),
    "sdekit_config_set_progress": (None, [_P, PROGRESS_FN, c_void_p]),
    "sdekit_config_set_cancel": (None, [_P, CANCEL_FN, c_void_p]),
    "sdekit_config_set_log": (None, [_P, LOG_FN, c_void_p, c_int]),
    "sdekit_config_check_outputs": (_S, [_P, c_int, _E]),
    "sdekit_config_nobservables": (c_int, [_P]),
    "sdekit_config_observable": (c_char_p, [_P, c_int]),
    "sdekit_config_from_checkpoint": (_S, [c_str, c_uint, POINTER(_P), _E]),
    # MPI
    "sdekit_mpi_available": (c_int, []),
    "sdekit_comm_world": (_S, [POINTER(_P), _E]),
    "sdekit_comm_destroy": (None, [POINTER(_P)]),
    "sdekit_comm_rank": (c_int, [_P]),
    "sdekit_comm_size": (c_int, [_P]),
    "sdekit_comm_abort": (None, [_P, c_int]),
    "sdekit_config_set_comm": (_S, [_P, _P, _E]),
    "sdekit_session_create": (_S, [POINTER(_P), _E]),
    "sdekit_session_destroy": (None, [POINTER(_P)]),
    "sdekit_config_set_session": (_S, [_P, _P, _E]),
    "sdekit_session_held": (c_int, [_P]),
    # running
    "sdekit_run": (_S, [_P, POINTER(_P), _E]),
    "sdekit_codegen": (_S, [_P, c_str, POINTER(c_void_p), _E]),
    "sdekit_figure_describe": (_S, [_P, c_str, POINTER(sdekit_figure_options), POINTER(c_void_p),
                                    _E]),
    # results
    "sdekit_result_read": (_S, [c_str, POINTER(_P), _E]),
    "sdekit_result_destroy": (None, [POINTER(_P)]),
    "sdekit_result_write": (_S, [_P, c_str, FILE_FN, c_void_p, _E]),
    "sdekit_result_seconds": (c_double, [_P]),
    "sdekit_result_path_steps": (c_double, [_P]),
    "sdekit_result_device": (c_char_p, [_P]),
    "sdekit_result_problem": (c_char_p, [_P]),
    "sdekit_result_nobservables": (c_int, [_P]),
    "sdekit_result_observable": (c_char_p, [_P, c_int]),
    "sdekit_result_nscan": (c_int, [_P]),
    "sdekit_result_scan_name": (c_char_p, [_P, c_int]),
    "sdekit_result_scan_values": (POINTER(c_double), [_P, c_int, POINTER(c_int64)]),
    "sdekit_result_ndatasets": (c_int, [_P]),
    "sdekit_result_dataset_name": (c_char_p, [_P, c_int]),
    "sdekit_result_dataset": (_S, [_P, c_str, POINTER(sdekit_dataset), _E]),
    "sdekit_result_nattrs": (c_int, [_P, c_str]),
    "sdekit_result_attr_at": (_S, [_P, c_str, c_int, POINTER(sdekit_attr), _E]),
    "sdekit_result_attr": (_S, [_P, c_str, c_str, POINTER(sdekit_attr), _E]),
    # registry and devices
    "sdekit_registry_name": (c_char_p, [c_str, c_int]),
    "sdekit_registry_description": (c_char_p, [c_str, c_int]),
    "sdekit_registry_value": (c_int64, [c_str, c_int, c_str]),
    "sdekit_cuda_info_get": (_S, [_P, POINTER(sdekit_cuda_info), _E]),
    "sdekit_cuda_device": (_S, [_P, c_int, POINTER(sdekit_device_info), _E]),
}


def _candidates():
    yield "bundled", BUNDLED
    try:
        from . import _build_config  # written by setup.py when built against an installed sdekit

        if getattr(_build_config, "LIBRARY", None):
            yield "installed (build time)", _build_config.LIBRARY
    except ImportError:
        pass
    env = os.environ.get("SDEKIT_LIBRARY")
    if env:
        yield "$SDEKIT_LIBRARY", env
    found = ctypes.util.find_library("sdekit")
    if found:
        yield "find_library", found


def _load():
    tried = []
    for how, path in _candidates():
        if os.path.isabs(path) and not os.path.exists(path):
            tried.append("%s (%s): not there" % (path, how))
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s): %s" % (path, how, e))
            continue
        try:
            for name, (res, args) in _PROTOTYPES.items():
                f = getattr(lib, name)
                f.restype = res
                f.argtypes = args
        except AttributeError as e:
            tried.append("%s (%s): not a libsdekit of this API (%s)" % (path, how, e))
            continue
        major = lib.sdekit_version_number() // 10000
        if major != API_MAJOR:
            tried.append(
                "%s (%s): libsdekit %s, this package needs %d.x"
                % (path, how, lib.sdekit_version().decode(), API_MAJOR)
            )
            continue
        return lib, path
    raise ImportError(
        "sdekit: libsdekit.so.0 not found; tried:\n  "
        + ("\n  ".join(tried) if tried else "(nothing: no bundled library, $SDEKIT_LIBRARY unset, "
           "find_library('sdekit') found none)")
        + "\nInstall the package from the source tree (pip install ./python), or point "
        "SDEKIT_LIBRARY at an installed libsdekit.so.0."
    )


lib, path = _load()


def s(b):
    """A C string from the library as str (None stays None)."""
    if b is None:
        return None
    return b.decode("utf-8", "surrogateescape")


def b(x, what):
    """A str, bytes or path as a C string (None stays None); `what` names the
    argument in the error.  Every string handed to the library comes through
    here: one with an embedded NUL is refused (as Python's open() does),
    since C would see only the text before it."""
    if x is None:
        return None
    if isinstance(x, bytes):
        v = x
    elif isinstance(x, os.PathLike):
        v = os.fsencode(x)
    else:
        v = str(x).encode("utf-8", "surrogateescape")
    if b"\0" in v:
        from ._errors import UsageError  # (_errors imports this module)

        raise UsageError("%s: embedded null character in %r" % (what, x))
    return v


def take_string(ptr):
    """A string the library handed over (free with sdekit_free) as str."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8", "surrogateescape")
    finally:
        lib.sdekit_free(ptr)


__all__ = ["lib", "path", "s", "b", "c_str", "take_string"]
