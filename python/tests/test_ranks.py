"""Several ranks from one process (issue 32): ranks= lays a run out as that many in-process
ranks (the layout --device all gives on GPUs), bit for bit the results of one; device="all"
on the CPU backend is refused with the reason."""
import numpy as np
import pytest

import sdekit

RUN = dict(paths=3000, t_end=1, seed=5, threads=1, backend="cpu", progress=False,
           observe="moments,hist,drift", scan={"k": (0.5, 2, 3)})


def test_ranks_bitwise():
    one = sdekit.run("ou", **RUN)
    for n in (2, 3):
        many = sdekit.run("ou", ranks=n, **RUN)
        assert "in-process ranks" in many.device
        names = list(one.datasets)
        assert names == list(many.datasets)
        for name in names:
            np.testing.assert_array_equal(one[name], many[name], err_msg=name)


def test_meanfield_system_over_ranks_bitwise():
    kw = dict(particles=5000, params={"sigma": 0.5}, dt=0.01, t_end=1, threads=1,
              backend="cpu", observe="order,moments", progress=False)
    one = sdekit.run("kuramoto-meanfield", **kw)
    many = sdekit.run("kuramoto-meanfield", ranks=3, **kw)
    for name in one.datasets:
        np.testing.assert_array_equal(one[name], many[name], err_msg=name)


def test_device_all_on_the_cpu_refused():
    with pytest.raises(sdekit.Error) as e:
        sdekit.run("ou", paths=256, t_end=0.1, backend="cpu", device="all", progress=False)
    assert "--device all" in str(e.value) and "cpu" in str(e.value)
