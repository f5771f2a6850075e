"""Session: the CPU lock, and what a session reports.

No worker is started here (tests/integration/test_session_process.py runs
real ones).
"""

from __future__ import annotations

import pytest
from helpers import runner_given

from perf.errors import CpuBusyError
from perf.measure.parent.session import Session, SessionEvents
from perf.measure.plan import plan_run
from perf.measure.values import GivenBudget


def plan_of(argv):
    return plan_run(runner_given(argv), "script", ("bench.py",), defaults=GivenBudget(), jit=False)


class Recorded(SessionEvents):
    def __init__(self):
        self.waits = []

    def lock_wait(self, holders):
        self.waits.append(holders)


def test_the_lock_is_skipped_with_lock_none_and_taken_once(tmp_path, monkeypatch):
    import perf.platform.lock as lock_module

    taken = []

    class FakeLock:
        def __init__(self, cpus, command=()):
            taken.append((tuple(cpus), tuple(command)))

        def acquire(self, wait, on_wait):
            return []

    monkeypatch.setattr(lock_module, "CpuLock", FakeLock)
    Session(plan_of(["--lock", "none"])).lock()
    assert taken == []
    session = Session(plan_of(["--affinity", "0"]), lock_command=("python3", "bench.py"))
    session.lock()
    session.lock()
    assert taken == [((0,), ("python3", "bench.py"))]


def test_a_second_session_of_the_process_can_lock_after_unlock(tmp_path, monkeypatch):
    """history changes --confirm runs one session per pair of commits: the
    real lock file, held by the first, must be free for the second."""
    monkeypatch.setenv("PERF_LOCK_DIR", str(tmp_path / "locks"))
    first = Session(plan_of(["--affinity", "0", "--lock", "fail"]))
    first.lock()
    with pytest.raises(CpuBusyError):
        Session(plan_of(["--affinity", "0", "--lock", "fail"])).lock()
    first.unlock()
    first.unlock()  # twice is harmless
    second = Session(plan_of(["--affinity", "0", "--lock", "fail"]))
    second.lock()
    second.unlock()


def test_a_busy_cpu_with_lock_fail_is_an_error_naming_the_holder(monkeypatch):
    import perf.platform.lock as lock_module
    from perf.errors import CpuBusyError

    class Holder:
        cpu = 0

        def describe(self):
            return "pid 42: python3 other.py"

    class BusyLock:
        def __init__(self, cpus, command=()):
            pass

        def acquire(self, wait, on_wait):
            assert not wait
            return [Holder()]

    monkeypatch.setattr(lock_module, "CpuLock", BusyLock)
    with pytest.raises(CpuBusyError, match=r"another benchmark is running on CPU 0 \(pid 42: python3 other.py\)"):
        Session(plan_of(["--lock", "fail", "--affinity", "0"]), events=Recorded()).lock()


def test_without_append_no_task_is_built_for_the_check():
    def planned(name):
        raise AssertionError(f"the task of {name!r} was built")

    Session(plan_of([])).check_appends(["a", "b"], planned)
