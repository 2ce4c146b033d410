"""Hostile result files for the readers of result files (h_plot_shapes.sh
for `sdekit info` and `plot`, tests/test_image.c for sdk_read_h5).

  craft_h5.py KIND SRC DST FIFO

copies the sdekit result file SRC (a run with --scan a=...:...:2 --observe
drift,moments,hist) to DST and damages it as KIND says; FIFO is a FIFO that
links and external storage point at (a reader that follows them blocks)."""
import shutil
import sys

import h5py
import numpy as np



def zeros(f, name, n):
    """A dataset of n zeros, every chunk written and compressed: a file of a
    few KB that unpacks to 8 n bytes."""
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((2**22,))
    dcpl.set_deflate(9)
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    dcpl.set_fill_time(h5py.h5d.FILL_TIME_ALLOC)
    h5py.h5d.create(f.id, name, h5py.h5t.IEEE_F64LE, h5py.h5s.create_simple((n,)), dcpl=dcpl)


kind, src, dst, fifo = sys.argv[1:5]
shutil.copy(src, dst)
vs = h5py.string_dtype()
with h5py.File(dst, "r+") as f:
    if kind == "short_mean":      # moments/mean_x shorter than moments/t
        m = f["moments/mean_x"][:, :-2]
        del f["moments/mean_x"]
        f["moments/mean_x"] = m
    elif kind == "huge_axis":     # scan axis of 2^40 points, never written
        del f["scan/a"]
        f.create_dataset("scan/a", shape=(2**40,), dtype="f8", chunks=(1024,))
    elif kind == "huge_dims":     # moments/t with dimensions whose product overflows
        del f["moments/t"]
        f.create_dataset("moments/t", shape=(2, 2**62), dtype="f8", chunks=(1, 1024))
    elif kind == "unwritten":     # drift/value declared but never written (fill values)
        del f["drift/value"]
        f.create_dataset("drift/value", shape=(2,), dtype="f8", chunks=(2,))
    elif kind == "external_link": # an external link to an HDF5 "file" that is a FIFO
        f["elink"] = h5py.ExternalLink(fifo, "/x")
    elif kind == "external_moments":
        del f["moments/t"]
        f["moments/t"] = h5py.ExternalLink(fifo, "/t")
    elif kind == "soft_link":
        del f["drift/error"]
        f["drift/error"] = h5py.SoftLink("/drift/value")
    elif kind == "external_storage":  # scan/dt's raw data in an outside file (a FIFO)
        del f["scan/dt"]
        f.create_dataset("scan/dt", shape=(2,), dtype="f8", external=[(fifo, 0, 16)])
    elif kind == "virtual":       # scan/dt mapped from a dataset in another file (a FIFO)
        del f["scan/dt"]
        lay = h5py.VirtualLayout(shape=(2,), dtype="f8")
        lay[:] = h5py.VirtualSource(fifo, "dt", shape=(2,))
        f.create_virtual_dataset("scan/dt", lay, fillvalue=0.01)
    # ---- what sdk_read_h5 refuses besides (tests/test_image.c) ----
    elif kind == "unwritten_z":   # compressed, one of its two chunks never written
        del f["drift/value"]
        d = f.create_dataset("drift/value", shape=(2, 4), dtype="f8", chunks=(1, 4),
                             compression="gzip")
        d[0, :] = 1
    elif kind == "f32":           # a dataset of single-precision numbers
        x = f["drift/error"][...]
        del f["drift/error"]
        f.create_dataset("drift/error", data=x.astype("f4"))
    elif kind == "strings":       # a dataset of strings
        f.create_dataset("drift/note", data=np.array(["a", "b"], dtype=object), dtype=vs)
    elif kind == "rank7":         # more dimensions than sdekit keeps
        f.create_dataset("drift/deep", data=np.zeros((1,) * 9))
    elif kind == "named_type":    # a committed datatype among the datasets
        f["drift/type"] = np.dtype("f8")
    elif kind == "long_name":     # a name of 250 bytes
        f.create_dataset("drift/" + "n" * 250, data=np.zeros(2))
    elif kind == "total":         # 5 x 2^27 values (every chunk written, compressed
        #                           fill values: a small file) over the whole cap
        zeros(f, b"big0", 2**27)
        for i in range(1, 5):
            f["big%d" % i] = f["big0"]  # hard links: five names, one dataset
    elif kind == "expand":        # 2 x 2^25 values of 0 (512 MiB) from a file of
        #                           about 50 KB: within SDK_H5_MAX_TOTAL, over
        #                           what the file's size may unpack to
        zeros(f, b"zero0", 2**25)
        f["zero1"] = f["zero0"]
    elif kind == "dims_count":    # dims naming one dimension of two
        f["moments/mean_x"].attrs.create("dims", ["a"], dtype=vs)
    elif kind == "dims_type":     # dims as numbers
        f["moments/mean_x"].attrs["dims"] = np.array([1.0, 2.0])
    elif kind == "std_error":     # standard_error naming nothing
        f["drift/value"].attrs.create("standard_error", "nothing", dtype=vs)
    elif kind == "std_error_shape":  # ... or a dataset of another shape
        f["drift/value"].attrs.create("standard_error", "../scan/a", dtype=vs)
    elif kind == "int_list_attr":  # an attribute sdekit does not keep: a list of integers
        f["drift"].attrs["ks"] = np.array([1, 2, 3], dtype="i8")
    elif kind == "compound_attr":
        f["drift"].attrs["c"] = np.array((1, 2.0), dtype=[("a", "i4"), ("b", "f8")])
    elif kind == "newer":
        f.attrs["format_version"] = np.int64(99)
    elif kind == "not_sdekit":
        del f.attrs["format"]
    elif kind == "axes_dt":       # a scan axis called dt
        f["scan"].attrs.create("axes", ["dt"], dtype=vs)
    elif kind == "axes_missing":  # an axis without its dataset
        f["scan"].attrs.create("axes", ["zz"], dtype=vs)
    elif kind == "no_scan":
        del f["scan"]
    elif kind == "dt_shape":      # scan/dt not over the grid
        x = f["scan/dt"][...]
        a = dict(f["scan/dt"].attrs)
        del f["scan/dt"]
        f["scan/dt"] = np.concatenate([x, x])
        for k, v in a.items():
            f["scan/dt"].attrs[k] = v
    elif kind == "samples":       # a sample axis longer than the group's step
        d = f["moments/mean_x"]
        x, a = d[...], dict(d.attrs)
        del f["moments/mean_x"]
        f["moments/mean_x"] = np.concatenate([x, x], axis=1)
        for k, v in a.items():
            f["moments/mean_x"].attrs[k] = v
    # ---- unusual but valid: read ----
    elif kind == "loop":          # a hard link back to the root (a cycle)
        f["drift/loop"] = f["/"]
    elif kind == "odd_names":     # names with a newline, escapes and bad UTF-8
        f["drift"].attrs.create("var", b"x\n\x1b[31m\xff", dtype=vs)
        d = f["drift"].create_dataset(b"n\nl\x1b\xff", data=np.zeros(2))
        d.attrs.create("dims", ["a"], dtype=vs)
    elif kind == "added_group":   # a group another program added, without dims
        g = f.create_group("extra")
        g["step"] = np.arange(4, dtype=np.int64) * 10
        g["t"] = np.ones((2, 4))
        g["v"] = np.zeros((2, 3, 4))
    else:
        sys.exit("craft_h5.py: unknown kind " + kind)
