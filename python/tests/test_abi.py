"""The ctypes declarations against the header: sizes and offsets of the
structures as a C compiler lays them out, and the version."""
import ctypes
import os
import shutil
import subprocess

import pytest

import sdekit
from sdekit import _lib

STRUCTS = {
    "sdekit_error": _lib.sdekit_error,
    "sdekit_dataset": _lib.sdekit_dataset,
    "sdekit_attr": _lib.sdekit_attr,
    "sdekit_device_info": _lib.sdekit_device_info,
    "sdekit_cuda_info": _lib.sdekit_cuda_info,
}


def _header_dir():
    here = os.path.dirname(sdekit.__file__)
    for d in (os.path.join(here, "include"),
              os.path.join(os.path.dirname(os.path.realpath(sdekit.library_path)), "..",
                           "include"),
              os.path.join(os.path.dirname(__file__), "..", "..", "include")):
        if os.path.isfile(os.path.join(d, "sdekit.h")):
            return d
    return None


def test_layouts_match_the_header(workdir):
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("cc") or shutil.which("clang")
    inc = _header_dir()
    if not cc or not inc:
        pytest.skip("no C compiler or no sdekit.h to compare with")
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include <sdekit.h>', 'int main(void) {']
    for name, cls in STRUCTS.items():
        lines.append('printf("%s %%zu\\n", sizeof(%s));' % (name, name))
        for f, _ in cls._fields_:
            lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (name, f, name, f))
    lines.append("return 0; }")
    src = os.path.join(workdir, "abi.c")
    exe = os.path.join(workdir, "abi")
    with open(src, "w") as fh:
        fh.write("\n".join(lines))
    subprocess.run([cc, "-I", inc, src, "-o", exe], check=True)
    got = dict(ln.split() for ln in subprocess.run([exe], capture_output=True, text=True,
                                                     check=True).stdout.splitlines())
    for name, cls in STRUCTS.items():
        assert int(got[name]) == ctypes.sizeof(cls), name
        for f, _ in cls._fields_:
            assert int(got["%s.%s" % (name, f)]) == getattr(cls, f).offset, (name, f)


def test_version():
    assert sdekit.__version__ == _lib.lib.sdekit_version().decode()
    major, minor, patch = (int(x) for x in sdekit.__version__.split("."))
    assert sdekit.version_number == major * 10000 + minor * 100 + patch
