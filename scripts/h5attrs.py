"""Print every attribute of an HDF5 file, sorted, except those that name the
machine or the invocation (paths, command line, version): the layout part of
scripts/golden.sh.  Usage: h5attrs.py FILE"""
import sys

import h5py

SKIP = {"command_line", "model_path", "version"}


def show(name, obj, out):
    for k in sorted(obj.attrs.keys()):
        if k in SKIP:
            continue
        v = obj.attrs[k]
        out.append("%s @%s = %r" % (name or "/", k, v.tolist() if hasattr(v, "tolist") else v))


def main():
    out = []
    with h5py.File(sys.argv[1], "r") as f:
        show("", f, out)
        f.visititems(lambda n, o: show(n, o, out))
        f.visititems(lambda n, o: out.append("%s %s %s" % (n, type(o).__name__,
                                                            getattr(o, "shape", ""))))
    print("\n".join(sorted(out)))


main()
