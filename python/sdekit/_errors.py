"""sdekit's errors as Python exceptions: one class per sdekit_status.

Every exception carries .status (a Status), .message (the one line the CLI
prints after "sdekit: error: ") and str(e) == e.message.  ModelError adds
.file and .line (the model file, or the label given to Model.from_string,
and the line; 0 when the problem is not on one line).
"""
import enum

from ._lib import lib, s


class Status(enum.IntEnum):
    """sdekit_status of include/sdekit.h."""

    OK = 0
    USAGE = 1
    MODEL = 2
    COMPILE = 3
    IO = 4
    NOMEM = 5
    BACKEND = 6
    NONFINITE = 7
    FORMAT = 8
    CANCELLED = 9
    INTERNAL = 10

    @property
    def exit_code(self):
        """The exit status the CLI uses for it."""
        return lib.sdekit_status_exit_code(int(self))

    @property
    def description(self):
        return s(lib.sdekit_status_name(int(self)))


class Error(Exception):
    """An error reported by libsdekit."""

    status = Status.INTERNAL

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = Status(status)

    def __str__(self):
        return self.message


class UsageError(Error, ValueError):
    """A bad option, value or argument (CLI exit status 2)."""

    status = Status.USAGE


class ModelError(Error):
    """A malformed or inconsistent model; .file and .line say where."""

    status = Status.MODEL

    def __init__(self, message, status=None, file="", line=0):
        super().__init__(message, status)
        self.file = file
        self.line = line


class CompileError(Error):
    """The generated kernel did not compile."""

    status = Status.COMPILE


class FileError(Error, OSError):
    """A file could not be read or written."""

    status = Status.IO

    def __init__(self, message, status=None):
        Error.__init__(self, message, status)

    def __str__(self):
        return self.message


class OutOfMemoryError(Error, MemoryError):
    status = Status.NOMEM


class BackendError(Error):
    """The backend (CUDA, the C compiler) is unavailable or failed."""

    status = Status.BACKEND


class NonFiniteError(Error, ArithmeticError):
    """Paths became NaN or infinite."""

    status = Status.NONFINITE


class FormatError(Error):
    """A corrupt or incompatible file."""

    status = Status.FORMAT


class CancelledError(Error):
    """The run was stopped by a cancel callable (Ctrl-C raises KeyboardInterrupt instead)."""

    status = Status.CANCELLED


class InternalError(Error):
    """A bug in sdekit."""

    status = Status.INTERNAL


_BY_STATUS = {
    cls.status: cls
    for cls in (
        UsageError,
        ModelError,
        CompileError,
        FileError,
        OutOfMemoryError,
        BackendError,
        NonFiniteError,
        FormatError,
        CancelledError,
        InternalError,
    )
}


def from_c(err, status=None):
    """The exception for a filled sdekit_error."""
    st = Status(status if status is not None else err.status)
    msg = s(err.message) or st.description
    cls = _BY_STATUS.get(st, Error)
    if cls is ModelError:
        return ModelError(msg, st, file=s(err.file), line=err.line)
    return cls(msg, st)


def check(status, err):
    """Raise the exception of a failed call."""
    if status != Status.OK:
        raise from_c(err, status)
