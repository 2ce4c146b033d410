#!/usr/bin/env python3
"""The Python package's overhead on a real job: the OU job with 10^6 paths

    sdekit run ou --paths 1000000 --t-end 5 --dt 0.01 --observe moments -o ou.h5

timed as the CLI (the whole process, as a user runs it) and as
sdekit.run(...) + Result.save in this process, in alternation so that both
see the same machine load, after one warm-up of each (the kernel is then in
the shared kernel cache).  Prints the median of each and the ratio
Python / CLI; issue 12 asks for at most 1.05.  Both write the same numbers
(checked bitwise).  With --process the Python side is also timed as a whole
`python -c "import sdekit; ..."` process (informative: interpreter and NumPy
start-up included).

    python3 python/bench_overhead.py [--repeats 5] [--paths 1000000] [--check]

--check: exit status 1 when the ratio exceeds --limit (default 1.05).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

# run as `python python/bench_overhead.py`: the installed sdekit, not the
# source directory beside this script
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]
import sdekit  # noqa: E402

JOB = dict(t_end=5, dt=0.01, observe="moments")


def cli_args(cli, paths, out):
    return [cli, "run", "ou", "--paths", str(paths), "--t-end", "5", "--dt", "0.01",
            "--observe", "moments", "--quiet", "-o", out]


def time_cli(cli, paths, out):
    t0 = time.perf_counter()
    subprocess.run(cli_args(cli, paths, out), check=True)
    return time.perf_counter() - t0


DEVICE = []


def time_python(paths, out):
    t0 = time.perf_counter()
    r = sdekit.run("ou", paths=paths, progress=False, output=out, **JOB)
    t = time.perf_counter() - t0
    DEVICE[:] = [r.device]
    return t


def time_python_process(paths, out):
    code = ("import sdekit; sdekit.run('ou', paths=%d, t_end=5, dt=0.01, observe='moments', "
            "progress=False, output=%r)" % (paths, out))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - t0


def same_numbers(a, b):
    ra, rb = sdekit.load(a), sdekit.load(b)
    return sorted(ra.datasets) == sorted(rb.datasets) and all(
        np.array_equal(ra[n], rb[n], equal_nan=True) for n in ra.datasets)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="timed runs of each (default 5)")
    ap.add_argument("--paths", type=int, default=10 ** 6)
    ap.add_argument("--cli", default=None, help="the sdekit command (default: the one that "
                    "goes with the library, sdekit.cli_path())")
    ap.add_argument("--process", action="store_true",
                    help="also time Python as a whole process (import included)")
    ap.add_argument("--limit", type=float, default=1.05)
    ap.add_argument("--check", action="store_true", help="exit 1 when the ratio exceeds --limit")
    a = ap.parse_args()
    if a.repeats < 3:
        ap.error("--repeats: at least 3")
    cli = a.cli or sdekit.cli_path()
    if not cli:
        ap.error("no sdekit command found: give --cli or set SDEKIT_CLI")
    work = tempfile.mkdtemp(prefix="sdekit-bench-")
    try:
        out_cli, out_py = os.path.join(work, "cli.h5"), os.path.join(work, "py.h5")
        out_proc = os.path.join(work, "proc.h5")
        # warm-up: the kernel compiled once into the kernel cache both use
        time_cli(cli, a.paths, out_cli)
        time_python(a.paths, out_py)
        if not same_numbers(out_cli, out_py):
            print("bench_overhead: the CLI and Python results differ", file=sys.stderr)
            return 1
        tc, tp, tq = [], [], []
        for i in range(a.repeats):
            # alternate which goes first, so that neither always follows the other
            order = (("cli", "py") if i % 2 == 0 else ("py", "cli"))
            for who in order:
                if who == "cli":
                    tc.append(time_cli(cli, a.paths, out_cli))
                else:
                    tp.append(time_python(a.paths, out_py))
            if a.process:
                tq.append(time_python_process(a.paths, out_proc))
        mc, mp = statistics.median(tc), statistics.median(tp)
        steps = sdekit.load(out_py).attrs["nsteps"] * a.paths
        print("job:     sdekit run ou --paths %d --t-end 5 --dt 0.01 --observe moments -o FILE.h5"
              % a.paths)
        print("machine: %d CPUs (%s); sdekit %s (%s)" % (os.cpu_count() or 0, DEVICE[0],
                                                          sdekit.__version__, sdekit.library_path))
        print("cli:     median %.3f s of %d (%s)  %.3g steps/s"
              % (mc, len(tc), " ".join("%.3f" % t for t in tc), steps / mc))
        print("python:  median %.3f s of %d (%s)  %.3g steps/s  [sdekit.run + save, in process]"
              % (mp, len(tp), " ".join("%.3f" % t for t in tp), steps / mp))
        if tq:
            print("python process: median %.3f s of %d (%s)  [python -c 'import sdekit; ...']"
                  % (statistics.median(tq), len(tq), " ".join("%.3f" % t for t in tq)))
        ratio = mp / mc
        print("ratio python/cli: %.3f (limit %.2f): %s"
              % (ratio, a.limit, "ok" if ratio <= a.limit else "OVER"))
        return 1 if a.check and ratio > a.limit else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
