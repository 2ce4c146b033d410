"""sdekit.run(..., comm=MPI.COMM_WORLD) under mpirun (issue 15): every rank
returns the Result of one process bitwise, rank 0 writes the file, and that
file is byte-identical to the one a single process writes (needs mpi4py,
mpirun and a libsdekit built with MPI; skipped otherwise)."""
import os
import shutil
import subprocess
import sys

import pytest

import sdekit
from sdekit._lib import lib

SCRIPT = r"""
import hashlib, sys
import numpy as np
from mpi4py import MPI
import sdekit
r = sdekit.run("ou", scan={"k": (0.5, 2.0, 3)}, paths=3000, t_end=1, sample_every=20,
               observe=["moments", "hist"], save_paths=[0, 2999], threads=1, seed=7,
               progress=False, comm=MPI.COMM_WORLD, output=sys.argv[1])
h = hashlib.sha256()
for name in sorted(r.datasets):
    h.update(np.ascontiguousarray(r[name]).tobytes())
digests = MPI.COMM_WORLD.gather(h.hexdigest())
if MPI.COMM_WORLD.rank == 0:
    print("ranks", MPI.COMM_WORLD.size, "results", len(set(digests)), digests[0])
"""


def _skip_reason():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "no mpi4py"
    if not shutil.which("mpirun"):
        return "no mpirun"
    if not lib.sdekit_mpi_available():
        return "libsdekit built without MPI"
    return None


@pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))
def test_mpi_ranks_bitwise(workdir, cli):
    d = os.path.join(workdir, "mpi")
    os.makedirs(d, exist_ok=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    script = os.path.join(d, "run.py")
    with open(script, "w") as f:
        f.write(SCRIPT)
    # one process, no MPI: the reference file and results
    one = sdekit.run("ou", scan={"k": (0.5, 2.0, 3)}, paths=3000, t_end=1, sample_every=20,
                     observe=["moments", "hist"], save_paths=[0, 2999], threads=1, seed=7,
                     progress=False, output=os.path.join(d, "one.h5"))
    ref = open(os.path.join(d, "one.h5"), "rb").read()
    lines = []
    for np_ in (2, 3):
        out = os.path.join(d, "np%d.h5" % np_)
        p = subprocess.run(["mpirun", "--oversubscribe", "-np", str(np_), sys.executable, script,
                            out], capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0, p.stderr
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("ranks")][0]
        lines.append(line)
        assert line.split()[:4] == ["ranks", str(np_), "results", "1"], line
        assert open(out, "rb").read() == ref, "mpirun -np %d: file differs" % np_
    assert len({ln.split()[-1] for ln in lines}) == 1
    assert one["moments/mean_x"].shape[0] == 3
