"""prepare_run and Session: the sides of a run, and what a session reports.

No worker is started here (tests/integration/test_session_process.py runs
real ones): the probe of another interpreter is a fake.
"""

from __future__ import annotations

import sys

import pytest

from perf.cli.main import ArgumentParser
from perf.errors import UsageError
from perf.measure.arguments import add_runner_arguments
from perf.measure.options import DEFAULT_BUDGET, GivenBudget
from perf.measure.probe import PythonProbe
from perf.measure.session import Session, SessionEvents, prepare_run


def namespace(argv, program=None):
    parser = ArgumentParser(prog="bench")
    add_runner_arguments(parser, DEFAULT_BUDGET, 1, 0, 0.1)
    args = parser.parse_args(argv)
    if program is not None:
        args.program = ["--", *program]
    return args


def fake_probe(python, env):
    return PythonProbe("pypy" if "pypy" in python else "cpython", {"python_executable": python})


def executable(tmp_path, name):
    path = tmp_path / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def plan_of(argv, mode="script", script=("bench.py",), program=None):
    return prepare_run(namespace(argv, program), mode, GivenBudget(), script, jit=False, probe=fake_probe)


def test_one_side_runs_the_script_with_this_interpreter():
    plan = plan_of(["-p", "3"])
    (side,) = plan.sides
    assert (side.kind, side.python, side.script, side.label) == ("interpreter", sys.executable, ("bench.py",), None)
    assert side.options.processes == 3
    assert plan.labels is None


def test_compare_to_gives_two_labelled_sides_each_with_its_budget(tmp_path):
    pypy = executable(tmp_path, "pypy3")
    plan = plan_of(["--compare-to", pypy])
    reference, changed = plan.sides
    assert (reference.python, changed.python) == (pypy, sys.executable)
    assert plan.labels == (reference.label, changed.label)
    assert reference.label == "pypy3"
    assert (reference.options.processes, reference.options.warmups) == (6, "auto")  # the JIT budget
    assert (changed.options.processes, changed.options.warmups) == (24, 1)
    assert set(plan.probes) == {pypy}


def test_command_sides_are_programs_run_by_this_interpreter():
    plan = plan_of(["--compare-to", "true --old"], mode="command", script=("-m", "perf", "command"), program=["true"])
    reference, changed = plan.sides
    assert (reference.kind, reference.program, changed.program) == ("program", ("true", "--old"), ("true",))
    assert reference.python == changed.python == sys.executable
    assert plan.labels == ("true --old", "true")


def test_a_script_from_the_command_line_cannot_be_rerun_by_workers():
    with pytest.raises(UsageError, match="save it to a file instead of using python -c or stdin"):
        plan_of([], script=("-c",))


def test_a_worker_plans_no_side_and_probes_nothing(tmp_path):
    plan = plan_of(["--worker", "--python", executable(tmp_path, "pypy3")])
    assert plan.sides == ()
    assert plan.probes == {}


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
