"""Build of the sdekit Python package (PEP 517 through setuptools.build_meta).

The package is pure Python (ctypes) plus libsdekit.  build_py provides the
library in one of three ways, in this order:

1. SDEKIT_PREFIX=P names an installed sdekit (`cmake --install build --prefix P`):
   the package loads P/lib/libsdekit.so.0 (recorded in sdekit/_build_config.py);
   nothing is bundled.
2. The source tree around this directory (../CMakeLists.txt): libsdekit is built
   with CMake -- in $SDEKIT_CMAKE_BUILD_DIR, else the tree's build/ when it is
   configured (`make` made it: an incremental build, nothing to do when it is up to
   date), else ../build-python -- installed into a staging prefix and bundled:
   sdekit/lib/libsdekit.so.0, sdekit/bin/sdekit, sdekit/include/sdekit.h,
   sdekit/share/sdekit/models/*.sde (the library finds its models relative to
   itself, so the installed package is relocatable like any prefix).
3. pkg-config finds an installed sdekit: as 1.

No network is needed: setuptools (and, for setuptools < 70.1, wheel) are the only
build requirements; `pip install --no-build-isolation --no-index ./python` uses
the ones installed (Debian: python3-setuptools, python3-wheel).
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py as _build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _source_tree():
    return os.path.isfile(os.path.join(ROOT, "CMakeLists.txt")) and os.path.isfile(
        os.path.join(ROOT, "include", "sdekit.h"))


def _header_version(header):
    try:
        with open(header, encoding="utf-8") as f:
            m = re.search(r'#define\s+SDEKIT_VERSION_STRING\s+"([^"]+)"', f.read())
        return m.group(1) if m else None
    except OSError:
        return None


def _pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config"] + list(args) + ["sdekit"], check=True,
                             capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def _installed_prefix():
    """(libdir, includedir) of an installed sdekit: SDEKIT_PREFIX, or pkg-config
    when there is no source tree; None to build from the source tree."""
    prefix = os.environ.get("SDEKIT_PREFIX")
    if prefix:
        prefix = os.path.abspath(prefix)
        return os.path.join(prefix, "lib"), os.path.join(prefix, "include")
    if _source_tree():
        return None
    libdir = _pkg_config("--variable=libdir")
    if libdir:
        return libdir, _pkg_config("--variable=includedir") or ""
    raise SystemExit(
        "sdekit: no libsdekit to build against: this directory is not inside the sdekit source "
        "tree, SDEKIT_PREFIX is not set and pkg-config does not know sdekit")


def _version():
    inst = None
    try:
        inst = _installed_prefix()
    except SystemExit:
        pass
    header = (os.path.join(inst[1], "sdekit.h") if inst
              else os.path.join(ROOT, "include", "sdekit.h"))
    return _header_version(header) or "0.0.0"


def _run(cmd):
    print("sdekit build: " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


class build_py(_build_py):
    """build_py, then libsdekit: bundled from a CMake build of the source tree,
    or the installed one recorded."""

    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "sdekit")
        for sub in ("lib", "bin", "include", "share"):
            shutil.rmtree(os.path.join(pkg, sub), ignore_errors=True)
        inst = _installed_prefix()
        if inst:
            lib = os.path.join(inst[0], "libsdekit.so.0")
            if not os.path.exists(lib):
                raise SystemExit("sdekit: %s does not exist" % lib)
            self._config(pkg, lib)
            return
        self._bundle(pkg)
        self._config(pkg, None)

    @staticmethod
    def _config(pkg, library):
        with open(os.path.join(pkg, "_build_config.py"), "w", encoding="utf-8") as f:
            f.write("# written by setup.py: the installed libsdekit this package was built "
                    "against (None: the bundled one)\nLIBRARY = %r\n" % library)

    def _bundle(self, pkg):
        build = os.environ.get("SDEKIT_CMAKE_BUILD_DIR")
        if not build:
            build = os.path.join(ROOT, "build")
            if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
                build = os.path.join(ROOT, "build-python")
        build = os.path.abspath(build)
        if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
            _run(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                  "-DBUILD_TESTING=OFF"])
        _run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2), "--target", "sdekit",
              "sdekit_shared", "sdekit_static", "sdekit_man"])
        stage = os.path.abspath(os.path.join(self.build_lib, "..", "sdekit-stage"))
        shutil.rmtree(stage, ignore_errors=True)
        _run(["cmake", "--install", build, "--prefix", stage])
        os.makedirs(os.path.join(pkg, "lib"))
        os.makedirs(os.path.join(pkg, "bin"))
        os.makedirs(os.path.join(pkg, "include"))
        models = os.path.join(pkg, "share", "sdekit", "models")
        os.makedirs(models)
        # the one file the loader opens (its SONAME), without the symbolic links
        shutil.copy2(os.path.realpath(os.path.join(stage, "lib", "libsdekit.so.0")),
                     os.path.join(pkg, "lib", "libsdekit.so.0"))
        # the CLI: RUNPATH $ORIGIN/../lib finds the same library
        shutil.copy2(os.path.join(stage, "bin", "sdekit"), os.path.join(pkg, "bin", "sdekit"))
        shutil.copy2(os.path.join(stage, "include", "sdekit.h"),
                     os.path.join(pkg, "include", "sdekit.h"))
        src = os.path.join(stage, "share", "sdekit", "models")
        for f in sorted(os.listdir(src)):
            if f.endswith(".sde"):
                shutil.copy2(os.path.join(src, f), os.path.join(models, f))
        shutil.rmtree(stage, ignore_errors=True)


class BinaryDistribution(Distribution):
    """A platform wheel: it holds a shared library and an executable."""

    def has_ext_modules(self):
        return True


setup(
    version=_version(),
    cmdclass={"build_py": build_py},
    distclass=BinaryDistribution,
    zip_safe=False,
)
