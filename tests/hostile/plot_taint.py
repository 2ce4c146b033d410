#!/usr/bin/env python3
"""plot_taint.py SRC DST PAYLOAD: a copy of result file SRC with PAYLOAD in
every string attribute `sdekit plot` reads (model_name, scheme, precision,
model_path, command_line, version, var_names, param_names, scan/axes,
drift/var).  Used by tests/hostile/h_plot_inject.sh (the gnuplot renderer) and
python/tests/test_io.py (the matplotlib renderer).

Names used as HDF5 link names get the payload with '/' replaced (a '/' there
is refused as a dataset name, tested elsewhere) and a per-name suffix to keep
them distinct; datasets are renamed to match."""
import os
import shutil
import sys

import h5py


def _str(v):
    return v.decode() if isinstance(v, bytes) else v


def taint(src, dst, pay):
    """Copy SRC to DST with PAYLOAD (bytes, even bad UTF-8) in every string."""
    shutil.copy(src, dst)
    vs = h5py.string_dtype()

    def name(i):
        return pay.replace(b"/", b"|") + b"_" + str(i).encode()

    with h5py.File(dst, "r+") as f:
        for a in ("model_name", "scheme", "precision", "model_path", "command_line", "version"):
            f.attrs.create(a, pay, dtype=vs)
        old_vars = [_str(v) for v in f.attrs["var_names"]]
        new_vars = [name(i) for i in range(len(old_vars))]
        f.attrs.create("var_names", new_vars, dtype=vs)
        for o, n in zip(old_vars, new_vars):
            for g, pre in (("moments", "mean_"), ("moments", "var_"), ("hist", ""),
                           ("density", ""), ("paths", "")):
                if g in f and pre + o in f[g]:
                    grp = f[g]
                    grp.id.links.move((pre + o).encode(), grp.id, pre.encode() + n)
        if "drift" in f:
            dv = _str(f["drift"].attrs["var"])
            f["drift"].attrs.create("var", new_vars[old_vars.index(dv)], dtype=vs)
        pn = [_str(p) for p in f.attrs["param_names"]]
        axes = [_str(a) for a in f["scan"].attrs["axes"]]
        newp = [name(100 + i) for i in range(len(pn))]
        sg = f["scan"]
        for a in axes:
            sg.id.links.move(a.encode(), sg.id, newp[pn.index(a)])
        f["scan"].attrs.create("axes", [newp[pn.index(a)] for a in axes], dtype=vs)
        f.attrs.create("param_names", newp, dtype=vs)


if __name__ == "__main__":
    taint(sys.argv[1], sys.argv[2], os.fsencode(sys.argv[3]))
