"""The per-CPU benchmark lock, between real processes (a lock file folder
in tmp_path; the real /run/lock is never used)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap
import time

import pytest

from perf.platform.lock import CpuLock

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX advisory locks")

HOLDER = textwrap.dedent(
    """
    import sys
    from perf.platform.lock import CpuLock

    lock = CpuLock([int(cpu) for cpu in sys.argv[2].split(",")], folder=sys.argv[1], command=["holder", "bench.py"])
    assert lock.acquire(wait=False) == []
    print("locked", flush=True)
    sys.stdin.read()  # until the test closes our stdin
    """
)

WAITER = textwrap.dedent(
    """
    import sys, time
    from perf.platform.lock import CpuLock

    lock = CpuLock([0], folder=sys.argv[1])
    started = time.monotonic()
    print(lock.acquire(wait=True, on_wait=lambda holders: print("waiting", flush=True)), flush=True)
    print(f"{time.monotonic() - started:.3f}")
    """
)


def python(code, *args, **kwargs):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)], env=env, text=True, stdout=subprocess.PIPE, **kwargs
    )


class Holder:
    def __init__(self, folder, cpus="0,1"):
        self.process = python(HOLDER, folder, cpus, stdin=subprocess.PIPE)
        assert self.process.stdout.readline().strip() == "locked"

    def stop(self):
        self.process.stdin.close()
        self.process.wait(10)
        self.process.stdout.close()


@pytest.fixture
def holder(tmp_path):
    process = Holder(tmp_path)
    yield process
    process.stop()


def test_acquire_writes_who_holds_it(tmp_path):
    lock = CpuLock([1, 0, 1], folder=str(tmp_path), command=["python3", "bench.py", "-p", "3"])
    assert lock.cpus == [0, 1]
    assert lock.acquire(wait=False) == []
    assert (tmp_path / "cpu0.lock").read_text() == f"{os.getpid()} python3 bench.py -p 3\n"
    assert oct((tmp_path / "cpu1.lock").stat().st_mode & 0o777) == "0o666"  # other users can lock it too
    lock.release()
    assert (tmp_path / "cpu0.lock").read_text() == ""


def test_busy_names_the_holder(tmp_path, holder):
    holders = CpuLock([0, 1, 2], folder=str(tmp_path)).busy()
    assert [h.cpu for h in holders] == [0, 1]
    assert holders[0].pid == holder.process.pid
    assert holders[0].describe() == f"pid {holder.process.pid}: holder bench.py"
    assert CpuLock([2, 3], folder=str(tmp_path)).busy() == []  # other CPUs are free


def test_fail_mode_takes_nothing(tmp_path, holder):
    lock = CpuLock([1, 2], folder=str(tmp_path))
    holders = lock.acquire(wait=False)
    assert [h.cpu for h in holders] == [1]
    assert lock._fds == []
    # CPU 2 was not kept locked
    assert CpuLock([2], folder=str(tmp_path)).acquire(wait=False) == []


def test_wait_mode_waits_for_the_holder(tmp_path):
    first = Holder(tmp_path, "0")
    waiter = python(WAITER, tmp_path)
    assert waiter.stdout.readline().strip() == "waiting"
    time.sleep(0.3)
    assert waiter.poll() is None  # still waiting
    first.stop()
    output, _ = waiter.communicate(timeout=10)
    assert output.splitlines()[0] == "[]"
    assert float(output.splitlines()[1]) >= 0.3


def test_a_child_of_the_holder_does_not_wait_for_it(tmp_path):
    lock = CpuLock([0], folder=str(tmp_path))
    assert lock.acquire(wait=False) == []
    try:
        child = python(WAITER, tmp_path)  # our child: perf run inside a benchmark
        output, _ = child.communicate(timeout=10)
        assert output.splitlines()[0] == "[]"
        assert "waiting" not in output
    finally:
        lock.release()


def test_no_usable_folder_means_no_lock(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    lock = CpuLock([0], folder=str(blocker / "sub"))
    assert lock.folder is None
    assert lock.acquire(wait=False) == [] and lock.busy() == []


def test_lock_folder_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PERF_LOCK_DIR", str(tmp_path / "locks"))
    lock = CpuLock([0])
    assert lock.folder == str(tmp_path / "locks")
    assert lock.acquire(wait=False) == []
    lock.release()
    assert (tmp_path / "locks" / "cpu0.lock").exists()
