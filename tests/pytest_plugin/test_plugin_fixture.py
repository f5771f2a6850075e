"""perf.pytest_plugin.fixture: pytest-benchmark's call semantics over perf's runs."""

from __future__ import annotations

import re
import time
import types

import pytest

from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.pytest_plugin.fixture import BenchmarkFailed, BenchmarkFixture, FixtureAlreadyUsed
from perf.pytest_plugin.measure import IN_PYTEST, MEASURED_IN
from perf.pytest_plugin.options import Settings

SETTINGS = Settings(None, 0.000005, 1.0, 5, time.perf_counter, False, None, 100000)


def runs(name, *process_values, loops=100, measured_in=None):
    metadata = {"name": name, "loops": loops}
    if measured_in is not None:
        metadata[MEASURED_IN] = measured_in
    return Benchmark([Run(values, metadata=metadata, collect_metadata=False) for values in process_values])


class FakeResults:
    """What the session gives the fixture: the workers' outcome of each test."""

    def __init__(self, outcomes=None):
        self.outcomes = outcomes or {}
        self.added = []
        self.measured_here = []

    def measured(self, nodeid):
        return self.outcomes.get(nodeid)

    def measure_here(self, fixture, fn, args, kwargs):
        self.measured_here.append(fixture.fullname)
        return runs(fixture.fullname, (1.0, 2.0), loops=1, measured_in=IN_PYTEST)

    def add(self, stats):
        self.added.append(stats)


def node(name="test_x", nodeid="tests/test_a.py::test_x", callspec=None):
    return types.SimpleNamespace(name=name, nodeid=nodeid, callspec=callspec)


def fixture(outcomes=None, disabled=False, **node_fields):
    results = FakeResults(outcomes)
    return BenchmarkFixture(node(**node_fields), SETTINGS, results, disabled=disabled), results


WORKERS = {"tests/test_a.py::test_x": runs("tests/test_a.py::test_x", (3e-6, 5e-6), (4e-6, 6e-6), (2e-6, 4e-6))}


def test_the_result_is_one_call_and_the_numbers_are_the_workers():
    calls = []
    benchmark, results = fixture(WORKERS)
    assert benchmark(lambda x, y=0: calls.append(x + y) or "done", 1, y=2) == "done"
    assert calls == [3]
    stats = benchmark.stats
    assert stats.stats.data == [3e-6, 5e-6, 4e-6, 6e-6, 2e-6, 4e-6]
    assert stats.stats.min == 2e-6
    assert stats.stats.rounds == 6
    assert stats["mean"] == pytest.approx(4e-6)
    assert stats.get("iterations") == 100
    assert stats.get("nothing", "default") == "default"
    assert stats.processes == 3
    assert stats.measured_in == "worker processes"
    assert results.added == [stats]


def test_without_workers_it_measures_in_pytest_process():
    benchmark, results = fixture({})
    benchmark(len, "abc")
    assert results.measured_here == ["tests/test_a.py::test_x"]
    assert benchmark.stats.measured_in == IN_PYTEST


def test_an_error_in_a_worker_fails_the_test_with_its_tail():
    benchmark, results = fixture({"tests/test_a.py::test_x": "Traceback...\nZeroDivisionError: division by zero"})
    with pytest.raises(BenchmarkFailed, match="ZeroDivisionError"):
        benchmark(len, "abc")
    assert benchmark.has_error
    assert results.added == []


def test_the_function_exception_propagates_unchanged():
    benchmark, _ = fixture(WORKERS)
    with pytest.raises(KeyError):
        benchmark({}.__getitem__, "missing")
    assert benchmark.has_error


def test_disabled_calls_once_and_has_no_stats():
    calls = []
    benchmark, _ = fixture(WORKERS, disabled=True)
    assert benchmark(calls.append, 1) is None
    assert calls == [1]
    assert benchmark.stats is None
    assert benchmark.disabled
    assert not benchmark.enabled


@pytest.mark.parametrize("second", ["call", "pedantic"])
def test_the_fixture_is_used_once(second):
    benchmark, _ = fixture(WORKERS)
    benchmark(len, "a")
    with pytest.raises(FixtureAlreadyUsed, match=r"Previously it was used in benchmark\(\.\.\.\) mode"):
        if second == "call":
            benchmark(len, "a")
        else:
            benchmark.pedantic(len, args=("a",))
    assert benchmark.has_error


def test_identity_of_a_parametrized_test():
    callspec = types.SimpleNamespace(id="1-a", params={"n": 1, "s": "a"})
    benchmark, _ = fixture(callspec=callspec, name="test_x[1-a]")
    assert (benchmark.name, benchmark.param, benchmark.params) == ("test_x[1-a]", "1-a", {"n": 1, "s": "a"})


def test_json_entry_keeps_extra_info_added_after_the_call():
    benchmark, _ = fixture(WORKERS)
    benchmark(len, "a")
    benchmark.extra_info["size"] = 3
    entry = benchmark.stats.as_dict()
    assert list(entry) == ["group", "name", "fullname", "params", "param", "extra_info", "options", "perf", "stats"]
    assert entry["perf"]["measured_in"] == "worker processes"
    assert entry["perf"]["processes"] == 3
    low, high = entry["perf"]["mean_interval"]
    assert low < 4e-6 < high
    assert entry["extra_info"] == {"size": 3}
    assert entry["stats"]["iterations"] == 100
    assert entry["stats"]["data"] == benchmark.stats.stats.data
    assert "data" not in benchmark.stats.as_dict(include_data=False)["stats"]


# -- pedantic: pytest-benchmark's exact call counts and checks ------------------


def test_pedantic_counts_calls_like_pytest_benchmark():
    benchmark, results = fixture()
    calls = []
    benchmark.pedantic(calls.append, args=(1,), rounds=15, iterations=10)
    assert len(calls) == 151  # 15 rounds of 10, and one more for the result
    assert benchmark.stats.stats.rounds == 15
    assert benchmark.stats.iterations == 10
    assert benchmark.stats.measured_in == IN_PYTEST
    assert results.added == [benchmark.stats]


def test_pedantic_warmup_rounds_are_not_values():
    benchmark, _ = fixture()
    calls = []
    assert benchmark.pedantic(lambda: calls.append(1) or len(calls), warmup_rounds=15, rounds=5) == 20
    assert len(calls) == 20
    assert benchmark.stats.stats.rounds == 5


def test_pedantic_setup_and_teardown_per_round():
    benchmark, _ = fixture()
    events = []

    def setup():
        events.append("setup")
        return (len(events),), {}

    benchmark.pedantic(
        lambda n: events.append(("run", n)), setup=setup, teardown=lambda n: events.append("down"), rounds=2
    )
    assert events == ["setup", ("run", 1), "down", "setup", ("run", 4), "down"]


def test_pedantic_teardown_after_the_extra_call():
    benchmark, _ = fixture()
    events = []
    benchmark.pedantic(lambda: events.append("stuff"), teardown=lambda: events.append("teardown"), iterations=3)
    assert events == ["stuff"] * 3 + ["teardown", "stuff", "teardown"]


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"iterations": 0}, "Must have positive int for `iterations`."),
        ({"iterations": "x"}, "Must have positive int for `iterations`."),
        ({"rounds": 0}, "Must have positive int for `rounds`."),
        ({"warmup_rounds": -1}, "Must have positive int for `warmup_rounds`."),
        ({"iterations": 2, "setup": lambda: None}, "Can't use more than 1 `iterations` with a `setup` function."),
    ],
)
def test_pedantic_checks_before_calling_anything(keywords, message):
    benchmark, _ = fixture()
    with pytest.raises(ValueError, match=re.escape(message)):
        benchmark.pedantic(None, **keywords)
    assert benchmark.has_error


def test_pedantic_setup_arguments_and_given_arguments_do_not_mix():
    benchmark, _ = fixture()
    ran = []
    with pytest.raises(TypeError, match=r"Can't use `args` or `kwargs` if `setup` returns the arguments\."):
        benchmark.pedantic(ran.append, args=(1,), setup=lambda: ((2,), {}))
    assert ran == []


def test_pedantic_disabled_calls_setup_and_target_once_without_teardown():
    benchmark, _ = fixture(disabled=True)
    events = []
    benchmark.pedantic(
        lambda: events.append("run"), setup=lambda: events.append("setup"), teardown=lambda: events.append("down")
    )
    assert events == ["setup", "run"]
    assert benchmark.stats is None


def test_weave_is_refused_clearly():
    benchmark, _ = fixture()
    with pytest.raises(NotImplementedError, match="does not weave"):
        benchmark.weave("time.sleep")


def test_a_benchmark_travels_in_an_xdist_report():
    from perf.pytest_plugin.fixture import BenchmarkStats

    benchmark, _ = fixture(WORKERS, callspec=types.SimpleNamespace(id="1", params={"n": 1}), name="test_x[1]")
    benchmark.group = "g"
    benchmark(len, "a")
    benchmark.extra_info["size"] = 3
    received = BenchmarkStats.from_payload(benchmark.stats.payload())
    assert received.as_dict() == benchmark.stats.as_dict()
    assert received.perf.get_values() == benchmark.stats.perf.get_values()
    assert not received.has_error
