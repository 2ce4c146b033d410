#!/usr/bin/python3
"""Seeds of fuzz_h5table (fuzz/README.md): small HDF5 tables of every form
the reader takes (io/table.h), written with h5py into fuzz/corpus/h5table.
Run from the source tree: python3 fuzz/make-h5table-seeds.py"""
import os

import h5py
import numpy as np

d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "h5table")
os.makedirs(d, exist_ok=True)
g = np.random.default_rng(7)


def h5(name):
    return h5py.File(os.path.join(d, name), "w", libver="earliest")


with h5("columns.h5") as f:  # a dataset per name, 1-D
    f["x"] = g.normal(size=7)
    f["v"] = np.arange(7, dtype="<i4")
with h5("grid.h5") as f:  # 2-D [grid points][paths], big-endian, a float32 column
    f["x"] = g.normal(size=(3, 5)).astype(">f8")
    f["k"] = g.uniform(size=(3, 5)).astype("<f4")
with h5("compound.h5") as f:  # one compound dataset: a field per name
    t = np.zeros(6, dtype=[("x", "<f8"), ("k", ">i2"), ("u", "<u8")])
    t["x"], t["k"], t["u"] = g.normal(size=6), np.arange(6), 2**40
    f["table"] = t
with h5("chunked.h5") as f:  # chunked and deflated, 2-D
    f.create_dataset("x", data=g.normal(size=(4, 9)), chunks=(2, 4), compression="gzip")
with h5("result.h5") as f:  # an sdekit result's final states
    f.attrs["format"] = np.bytes_("sdekit")
    f.attrs["seed"] = np.uint64(5)
    f["final/x"] = g.normal(size=(2, 4))
    f["final/v"] = g.normal(size=(2, 4))
    f["final_params/k"] = g.uniform(size=(2, 4))
