"""perf.pytest_plugin.workers: the worker command line, spec and events."""

from __future__ import annotations

import json

import pytest

from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.pytest_plugin.options import BUDGETS
from perf.pytest_plugin.workers import (
    Outcomes,
    Progress,
    WorkerRecorder,
    WorkerSpec,
    _apply,
    _read_events,
    _wait,
    worker_arguments,
)


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        (["-x", "tests"], ["tests"]),
        (["-xvs", "-k", "fast"], ["-vs", "-k", "fast"]),
        (["-x", "-q"], ["-q"]),
        (["-kx"], ["-kx"]),  # -k's value, not -x
        (["--pdb", "--lf", "--maxfail", "2", "--maxfail=3", "-v"], ["-v"]),
        (["--junitxml", "out.xml", "--basetemp=/tmp/b", "t.py"], ["t.py"]),
        (
            ["--benchmark-json", "x.json", "--perf-budget", "fast"],
            ["--benchmark-json", "x.json", "--perf-budget", "fast"],
        ),
    ],
)
def test_worker_arguments(given, kept):
    assert worker_arguments(given) == kept


def test_spec_round_trip(tmp_path):
    spec = WorkerSpec(["a.py::t[1]"], {"a.py::t[1]": 40}, BUDGETS["fast"], str(tmp_path / "events"), ["/x/a.py"])
    spec.save(str(tmp_path / "spec"))
    assert WorkerSpec.load(str(tmp_path / "spec")) == spec


def benchmark(name, values, loops=10):
    return Benchmark([Run(values, metadata={"name": name, "loops": loops}, collect_metadata=False)])


def recorder(tmp_path, nodeids=("a", "b", "c")):
    spec = WorkerSpec(list(nodeids), {"b": 7}, BUDGETS["fast"], str(tmp_path / "events"), [])
    return WorkerRecorder(spec)


def test_events_of_a_worker(tmp_path):
    worker = recorder(tmp_path)
    assert (worker.loops("a"), worker.loops("b")) == (0, 7)
    worker.start("a")
    worker.done("a", benchmark("a", (1.0, 2.0), loops=12))
    worker.start("b")
    try:
        1 / 0  # noqa: B018
    except ZeroDivisionError as exc:
        worker.failed("b", exc)
    worker.pedantic("c")
    outcomes = Outcomes()
    finished, crashed = _apply(_read_events(worker.spec.output), outcomes)
    assert finished == {"a", "b", "c"}
    assert crashed is None
    assert outcomes.get("a").get_values() == (1.0, 2.0)
    assert outcomes.loops == {"a": 12}
    assert outcomes.get("b").splitlines()[-1] == "ZeroDivisionError: division by zero"
    assert outcomes.pedantic == {"c"}
    assert outcomes.get("c") is None


def test_a_test_started_and_never_finished_is_the_crash(tmp_path):
    worker = recorder(tmp_path)
    worker.start("a")
    worker.done("a", benchmark("a", (1.0,)))
    worker.start("b")
    with open(worker.spec.output, "a") as file:
        file.write('{"event": "done", "nodeid": "b", "bench')  # cut by the crash
    outcomes = Outcomes()
    finished, crashed = _apply(_read_events(worker.spec.output), outcomes)
    assert (finished, crashed) == ({"a"}, "b")


def test_runs_of_later_processes_join_the_first(tmp_path):
    outcomes = Outcomes()
    outcomes.add("a", benchmark("a", (1.0, 2.0), loops=5))
    outcomes.add("a", benchmark("a", (3.0, 4.0), loops=5))
    assert outcomes.get("a").get_nrun() == 2
    assert outcomes.loops == {"a": 5}


def test_events_are_json_lines(tmp_path):
    worker = recorder(tmp_path)
    worker.start("a")
    worker.pedantic("a")
    lines = (tmp_path / "events").read_text().splitlines()
    assert [json.loads(line)["event"] for line in lines] == ["start", "pedantic"]


class SlowWorker:
    """A worker process that is still running at the first two waits."""

    def __init__(self, recorder):
        self.recorder = recorder
        self.waits = 0

    def wait(self, timeout=None):
        import subprocess

        self.waits += 1
        if self.waits == 1:
            self.recorder.start("a")
            self.recorder.done("a", benchmark("a", (1.0,)))
        if self.waits < 3:
            raise subprocess.TimeoutExpired("pytest", timeout)
        return 0


def test_a_long_worker_says_how_far_it_is(tmp_path, monkeypatch):
    import time

    monkeypatch.setattr(time, "monotonic", lambda: 112.5)
    worker = recorder(tmp_path)
    seen = []
    ongoing = Progress(2, 6, measured=10, seconds=100.0, ended=False)
    assert _wait(SlowWorker(worker), worker.spec.output, ongoing, seen.append) == 0
    assert seen == [Progress(2, 6, 11, 12.5, ended=False)] * 2
