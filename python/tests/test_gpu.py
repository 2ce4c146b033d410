"""The Python package on GPUs (issue 32): device="all" runs one in-process rank per GPU
and gives bit for bit the results of one GPU; a repeated call in the process's session
gives the same bits as the first.  Skipped where `sdekit devices --count` finds no GPU
(CI has none; the device machine runs this file)."""
import numpy as np
import pytest

import sdekit

from conftest import run_cli

RUN = dict(paths=20000, t_end=1, seed=9, backend="cuda", progress=False,
           observe="moments,hist,drift", scan={"k": (0.5, 2, 5)})


@pytest.fixture(scope="module")
def ngpu(cli):
    n = int(run_cli(cli, ["devices", "--count"])[1].strip() or 0)
    if n == 0:
        pytest.skip("no GPU on this machine")
    return n


def _same(one, other):
    assert list(one.datasets) == list(other.datasets)
    for name in one.datasets:
        np.testing.assert_array_equal(one[name], other[name], err_msg=name)


def test_device_all_bitwise_one_gpu(ngpu):
    one = sdekit.run("ou", device=0, **RUN)
    every = sdekit.run("ou", device="all", **RUN)
    if ngpu > 1:
        assert "(%d in-process ranks)" % ngpu in every.device
    _same(one, every)


def test_device_all_meanfield_system_bitwise(ngpu):
    kw = dict(particles=1 << 18, params={"sigma": 0.5}, dt=0.01, t_end=1, backend="cuda",
              observe="order,moments", progress=False)
    _same(sdekit.run("kuramoto-meanfield", device=0, **kw),
          sdekit.run("kuramoto-meanfield", device="all", **kw))


def test_repeated_calls_same_bits(ngpu):
    first = sdekit.run("ou", device=0, **RUN)
    again = sdekit.run("ou", device=0, **RUN)
    other = sdekit.run("ou", device=0, **dict(RUN, seed=10))
    _same(first, again)
    assert not np.array_equal(first["moments/mean_x"], other["moments/mean_x"])


def test_release_then_run_same_bits(ngpu):
    first = sdekit.run("ou", device=0, **RUN)
    sdekit.release()
    sdekit.release()  # (nothing held: no effect)
    _same(first, sdekit.run("ou", device=0, **RUN))
