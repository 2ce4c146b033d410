"""Cancellation: Ctrl-C (SIGINT) stops a run through the cancel callback,
raises KeyboardInterrupt promptly, restores the handler, writes the
checkpoint, and the checkpoint resumes bitwise; a cancel callable; progress."""
import os
import signal
import threading
import time

import pytest

import sdekit
from conftest import assert_same_results

LONG = dict(scan={"k": [0.5, 1.0]}, paths=2 ** 17, t_end=20, dt=0.01, scheme="euler",
            precision="double", observe=["moments", "drift"], seed=77)


@pytest.fixture(autouse=True)
def sigint_delivered():
    """Ctrl-C as a terminal delivers it: a suite started in the background
    (nohup, `&` in a script) inherits SIGINT ignored, which sdekit respects
    (it then installs no handler), so these tests take Python's own handler
    for their duration (and give children SIG_DFL)."""
    before = signal.getsignal(signal.SIGINT)
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _sigint_when(fraction):
    """A progress callable and a thread that sends SIGINT to this process once
    the run is `fraction` done; the time it was sent is in sent[0]."""
    started = threading.Event()
    sent = []
    seen = []

    def progress(f, sps):
        seen.append(f)
        if f >= fraction:
            started.set()

    def timer():
        if started.wait(60):
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

    th = threading.Thread(target=timer, daemon=True)
    th.start()
    return progress, sent, seen, th


def test_sigint_cancels_checkpoints_and_resumes_bitwise(workdir):
    ckpt = os.path.join(workdir, "long.ckpt")
    before = signal.getsignal(signal.SIGINT)
    progress, sent, seen, th = _sigint_when(0.2)
    with pytest.raises(KeyboardInterrupt) as ei:
        sdekit.run("ou", checkpoint=ckpt, checkpoint_every=0, progress=progress, **LONG)
    caught = time.monotonic()
    th.join(5)
    assert sent, "the signal was not sent"
    assert caught - sent[0] < 3.0, "KeyboardInterrupt %.2f s after SIGINT" % (caught - sent[0])
    assert seen and seen[-1] < 1.0, "the run went to its end"
    assert "checkpoint saved to" in str(ei.value)
    assert signal.getsignal(signal.SIGINT) is before  # the handler is back
    assert os.path.isfile(ckpt)
    # the interpreter goes on: the checkpoint resumes to the results of one go
    resumed = sdekit.resume(ckpt, progress=False)
    whole = sdekit.run("ou", progress=False, **LONG)
    assert_same_results(resumed, whole)
    os.unlink(ckpt)


def test_sigint_without_checkpoint(workdir):
    progress, sent, seen, th = _sigint_when(0.1)
    with pytest.raises(KeyboardInterrupt) as ei:
        sdekit.run("ou", progress=progress, **LONG)
    th.join(5)
    assert sent and seen[-1] < 1.0
    assert str(ei.value).startswith("interrupted at step ") and "nothing was saved" in str(ei.value)
    r = sdekit.run("ou", paths=64, t_end=0.1, progress=False)  # still usable
    assert r["drift/value"].shape == ()


def test_cancel_callable():
    # a stop after 3 chunks of steps (the progress callable counts them:
    # cancel is also polled while the kernel is made)
    chunks = []

    def cancel():
        return len(chunks) >= 3

    with pytest.raises(sdekit.CancelledError) as ei:
        sdekit.run("ou", cancel=cancel, progress=lambda f, s: chunks.append(f), **LONG)
    assert ei.value.status == sdekit.Status.CANCELLED and len(chunks) == 3


def test_exception_in_progress_stops_the_run():
    class Stop(Exception):
        pass

    def progress(f, sps):
        if f > 0.05:
            raise Stop("from progress")

    with pytest.raises(Stop):
        sdekit.run("ou", progress=progress, **LONG)


def test_progress_callable_and_thread():
    seen = []
    out = {}

    def work():
        out["r"] = sdekit.run("ou", paths=4096, t_end=1, progress=lambda f, s: seen.append((f, s)))

    th = threading.Thread(target=work)  # not the main thread: no signal handler, still runs
    th.start()
    th.join(120)
    assert "r" in out and seen
    fr = [f for f, _ in seen]
    assert fr == sorted(fr) and fr[-1] == 1.0 and all(s > 0 for _, s in seen)


def test_progress_of_runs_to_an_error():
    """--target-se and --mlmc: one fraction of the whole run (it may go back where a
    check finds more work), 1 once at the end, not 1 at the end of every batch"""
    for kw in (dict(target_se=1e-3, t_end=1, observe="moments"), dict(mlmc=2e-3, t_end=1)):
        seen = []
        sdekit.run("ou" if "target_se" in kw else "gbm", scheme="euler", dt=0.25,
                   progress=lambda f, s: seen.append(f), **kw)
        assert len(seen) >= 3 and seen[-1] == 1.0, (kw, seen)
        assert all(0 <= f < 1 for f in seen[:-1]) and max(seen[:-1]) >= 0.5, (kw, seen)


CHILD = r"""
import sys, sdekit
def progress(f, sps):
    print("progress %.3f" % f, flush=True)
sdekit.run("ou", scan={"k": [0.5, 1.0]}, paths=2 ** 17, t_end=20, dt=0.01, scheme="euler",
           precision="double", observe=["moments"], seed=77, progress=progress)
print("finished", flush=True)
"""


def test_ctrl_c_in_another_python_process():
    """Ctrl-C as a terminal sends it: SIGINT to a Python process in the middle
    of a run ends it promptly with a KeyboardInterrupt traceback that says where
    the run stopped, and the run does not finish."""
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for line in p.stdout:
            if line.startswith("progress "):
                break
        else:
            pytest.fail("the child printed no progress: " + p.stderr.read())
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        waited = time.monotonic() - sent
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    # an uncaught KeyboardInterrupt: Python ends itself with SIGINT, as the shell expects
    assert p.returncode == -signal.SIGINT, err
    assert "finished" not in out
    last = err.strip().splitlines()[-1]
    assert last.startswith("KeyboardInterrupt: interrupted at step "), err
    assert waited < 5.0, "the child took %.1f s to stop" % waited
