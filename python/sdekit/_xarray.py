"""Result.to_xarray(): the results as an xarray.Dataset, without copying.

Dimensions are the datasets' own dimension names: the scan parameters (with
the scan values as their coordinates), "sample", "bin", "path".  Coordinates
(the sample times "t", the steps, the saved paths' indices, "dt" per grid
point) become xarray coordinates; sample times that are the same at every grid
point become one 1-d coordinate on the sample dimension.

to_xarray("moments"): one observable; variables and dimensions by their names
within it ("mean_x", "t"; "k", "sample").  to_xarray(): every observable;
variables by their full names ("moments/mean_x") and the dimensions that are not
scan axes prefixed with the observable ("moments/sample", "hist/bin"), since two
observables may sample at different times.  A dimension the file does not
name (a dataset another program added) is the dataset's own ("split_dim1").
A statistic with a standard error names its companion variable in the
attributes standard_error and ancillary_variables (CF's name).
"""
import re

import numpy as np


def _shared_rows(a, grid_rank):
    """a without its grid dimensions when every grid point holds the same values."""
    if grid_rank == 0 or a.ndim <= grid_rank:
        return None
    flat = a.reshape((-1,) + a.shape[grid_rank:])
    if all(np.array_equal(flat[0], row, equal_nan=True) for row in flat[1:]):
        return flat[0]
    return None


def to_xarray(r, observable=None):
    try:
        import xarray as xr
    except ImportError as e:
        raise ImportError("Result.to_xarray needs xarray (pip install xarray, or "
                          "apt-get install python3-xarray)") from e
    if observable is not None and observable not in r.observables:
        raise KeyError("no observable %r in the results (they are: %s)"
                       % (observable, ", ".join(r.observables)))
    groups = [observable] if observable is not None else list(r.observables)
    whole = observable is None
    coords = {}
    for name, vals in r.scan.items():
        attrs = {k: v for k, v in r.info("scan/" + name).attrs.items() if k != "dims"}
        coords[name] = (name, vals, attrs)
    for name in r:  # parameters zipped with an axis: coordinates along it
        if name.startswith("scan/") and "zipped_with" in r.info(name).attrs:
            i = r.info(name)
            attrs = {k: v for k, v in i.attrs.items() if k != "dims"}
            coords[name[5:]] = (i.dims, r[name], attrs)
    if "scan/dt" in r:
        i = r.info("scan/dt")
        coords["dt"] = (i.dims, r["scan/dt"])
    data = {}
    for obs in groups:
        for name in r.datasets:
            if not name.startswith(obs + "/"):
                continue
            i = r.info(name)
            key = name if whole else name[len(obs) + 1:]
            # dimensions the file does not name (the library calls them dimK:
            # datasets another program added) are the dataset's own
            own = [d if k < i.grid_rank or not re.fullmatch(r"dim\d+", d)
                   else "%s_%s" % (name.rsplit("/", 1)[-1], d) for k, d in enumerate(i.dims)]
            dims = tuple(d if k < i.grid_rank or not whole else "%s/%s" % (obs, d)
                         for k, d in enumerate(own))
            attrs = {k: v for k, v in i.attrs.items() if k != "dims"}
            if i.stderr:
                # the companion variable holding its standard errors (CF's name too)
                attrs["standard_error"] = i.stderr if whole else i.stderr[len(obs) + 1:]
                attrs["ancillary_variables"] = attrs["standard_error"]
            a = r[name]
            if i.coordinate:
                row = _shared_rows(a, i.grid_rank)
                if row is not None:
                    a, dims = row, dims[i.grid_rank:]
                coords[key] = (dims, a, attrs)
            else:
                data[key] = (dims, a, attrs)
    attrs = {k: v for k, v in r.attrs.items()}
    return xr.Dataset(data, coords=coords, attrs=attrs)
