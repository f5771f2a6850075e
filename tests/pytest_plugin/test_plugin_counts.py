"""--perf-metric instructions in the pytest plugin: the checks before any
test, what a count worker runs, and how counts are shown and saved.

pytester parses real command lines in this process (no worker runs); the
workers themselves are in tests/integration/test_pytest_counts.py."""

from __future__ import annotations

import json
import random

import pytest
from test_plugin_fixture import SETTINGS, fixture, node, runs
from test_plugin_session import configure, saved_run

from perf.measure.parent.batches import CALIBRATION, SAMPLE, Outcomes, Progress
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.pytest_plugin.fixture import BenchmarkFixture, entry_unit
from perf.pytest_plugin.measure import measure_function
from perf.pytest_plugin.options import BUDGETS, PytestBudget
from perf.pytest_plugin.report import (
    header_lines,
    other_unit_line,
    outcome_lines,
    progress_line,
    results_table,
    saved_comparison_table,
)

pytest_plugins = ["pytester"]

NODE = "tests/test_a.py::test_x"


#: what counted_run writes in every run of counts
SOURCE = {"counter_source": "cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 8388608,16,64"}


def counts(*samples, loops=4000):
    """A test's counts as count_batches makes them: one run per sample."""
    return Benchmark(
        [
            Run([value], metadata={"name": NODE, "loops": loops, "unit": "integer", "hash_seed": seed, **SOURCE})
            for seed, value in enumerate(samples, 1)
        ]
    )


def counted(*samples):
    benchmark, _ = fixture({NODE: counts(*samples)})
    benchmark(len, "a")
    return benchmark.stats


# -- before any test ------------------------------------------------------------------


def test_a_count_session_calibrates_for_a_tenth_of_the_budget(pytester, fake_valgrind):
    session = configure(pytester, "--perf-metric", "instructions", "--perf-budget", "fast")
    assert session.counting
    assert session.budget == PytestBudget(processes=1, values=1, warmups=0, min_time=BUDGETS["fast"].min_time / 10)
    assert session.header() == [
        "perf: instructions per call, counted under valgrind: 2 samples per benchmark, each a pair of worker "
        "processes; benchmark.pedantic is not counted"
    ]
    assert not configure(pytester).counting


def test_without_valgrind_one_line_before_any_test(pytester, no_valgrind):
    with pytest.raises(pytest.UsageError) as error:
        configure(pytester, "--perf-metric", "instructions")
    assert str(error.value).startswith("--perf-metric instructions counts under valgrind, which is not installed: ")
    assert "\n" not in str(error.value)
    assert configure(pytester, "--perf-metric", "instructions", "--benchmark-disable").disabled  # nothing counted


def test_xdist_workers_do_not_look_for_valgrind(pytester, no_valgrind, monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    assert configure(pytester, "--perf-metric", "instructions").counting


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--benchmark-min-rounds", "3"], "cannot be used with --benchmark-min-rounds: a sample of counts is"),
        (["--benchmark-max-time", "2"], "cannot be used with --benchmark-max-time: "),
        (["--benchmark-timer", "time.process_time"], "cannot be used with --benchmark-timer: "),
        (["--benchmark-warmup"], "cannot be used with --benchmark-warmup: "),
        (
            ["--benchmark-compare", "--benchmark-compare-fail", "min:5%", "mean:0.001"],
            "--benchmark-compare-fail mean:0.001 is in seconds: give a percentage (mean:5%)",
        ),
    ],
)
def test_options_without_a_meaning_for_counts_are_refused(pytester, fake_valgrind, args, message):
    with pytest.raises(pytest.UsageError) as error:
        configure(pytester, "--perf-metric", "instructions", *args)
    assert message in str(error.value)
    if "--benchmark-compare" not in args:  # (which needs saved runs)
        configure(pytester, *args)  # with times, they are fine


def test_a_worker_runs_the_loops_alone_with_random_seeded_from_the_hash_seed(monkeypatch):
    monkeypatch.setenv("PYTHONHASHSEED", "7")
    random.seed(0)
    calls = []
    budget = BUDGETS["default"]
    function = lambda: calls.append(random.random())  # noqa: E731
    measured = measure_function(
        NODE, function, (), {}, settings=SETTINGS, budget=budget, loops=25, metric="instructions"
    )
    random.seed(7)
    assert calls == [random.random() for _ in range(25)]  # no calibration, no warmup: the loops, once
    (run,) = measured.get_runs()
    assert (run.get_loops(), measured.get_unit()) == (25, "integer")


# -- what the session shows and saves ---------------------------------------------------


def test_the_table_shows_instructions_per_call_and_samples():
    lines = results_table([counted(1200.0, 1210.0)])
    header = "Name (instructions per call) Mean 95% interval StdDev Min Samples Loops"
    assert lines[0].split() == header.split()
    # two samples: t(0.975, 1) x 5 = 63.5
    assert lines[2].split() == ["test_x", "1,205.0", "±63.5", "(5.3%)", "7.1", "1,200.0", "2", "4000"]
    assert lines[-1].startswith("Mean and StdDev: of the samples (instructions per call, counted by cachegrind;")


def test_the_json_entry_says_its_figures_are_instructions():
    stats = counted(1200.0, 1210.0)
    entry = stats.as_dict()
    assert entry["perf"] == {
        "measured_in": "worker processes",
        "processes": 2,
        "mean_interval": entry["perf"]["mean_interval"],
        "unit": "instructions",
    }
    assert (entry["stats"]["mean"], entry["stats"]["iterations"]) == (1205.0, 4000)
    assert entry_unit(entry) == "instructions"
    assert entry_unit(json.loads(json.dumps({"perf": {"measured_in": "worker processes"}}))) == "seconds"
    assert entry_unit({"stats": {}}) == "seconds"  # pytest-benchmark's own


def test_in_pytest_process_nothing_is_counted():
    class CountingResults:
        def measured(self, nodeid):
            return None

        def measure_here(self, fixture, fn, args, kwargs):
            return None  # the session's answer with counts

        def add(self, stats):
            raise AssertionError("nothing to add")

    benchmark = BenchmarkFixture(node(), SETTINGS, CountingResults(), disabled=False)
    assert benchmark(len, "abc") == 3
    assert benchmark.stats is None


def test_pedantic_rounds_run_and_are_not_kept():
    calls = []
    benchmark, results = fixture({})
    benchmark.pedantic_kept = False
    assert benchmark.pedantic(calls.append, args=(1,), rounds=3, iterations=2) is None
    assert len(calls) == 7  # pytest-benchmark's calls, as the test expects them
    assert benchmark.stats is None
    assert results.added == []


def test_progress_of_the_calibration_and_the_samples():
    assert progress_line(Progress(1, 1, 3, 2.5, stage=CALIBRATION), 4) == (
        "perf: loops calibrated in a worker process without valgrind: 3/4 benchmarks in 2.5 s"
    )
    assert progress_line(Progress(2, 2, 1, 12.0, False, SAMPLE), 4) == (
        "perf: sample 2/2 (hash seed 2): 1/4 benchmarks counted so far in 12.0 s"
    )


def test_what_the_workers_did_not_count():
    outcomes = Outcomes()
    outcomes.add("a", counts(1.0, 1.0))
    outcomes.in_parent.add("b")
    assert outcome_lines(outcomes, 3, counting=True) == [
        "perf: 1 benchmark tests use benchmark.pedantic: they run in pytest's process, not counted (their rounds "
        "are times)",
        "perf: 1 benchmark tests were not measured by the workers (skipped there, or benchmark() not reached): "
        "not counted",
    ]


def test_header_under_xdist():
    assert header_lines(BUDGETS["default"], "default", True, True, [])[0].endswith(
        "each a pair of worker processes, before xdist runs the tests in parallel; benchmark.pedantic runs once, "
        "unmeasured"
    )


def test_saved_counts_are_compared_in_instructions():
    rows = [("test_a (NOW)", 1210.0, None), ("test_a (0001_x)", 1100.0, 1210.0)]
    assert saved_comparison_table(rows, "instructions") == [
        "Name (mean, instructions per call)            Mean    Change",
        "test_a (NOW)                               1,210.0",
        "test_a (0001_x)                            1,100.0    +10.0%",
    ]


def compared_with_saved(pytester, storage, *args, benchmark=None):
    session = configure(pytester, "--benchmark-compare", "--benchmark-storage", str(storage), *args)
    stats = benchmark or counted(1200.0, 1210.0)
    session.add(stats)
    return session.summary + session.compare()


def test_saved_times_are_not_compared_with_counts(pytester, fake_valgrind, tmp_path):
    saved_run(tmp_path / "saved", "perf 3.0.0", measured_in="worker processes", processes=3)  # seconds
    lines = compared_with_saved(pytester, tmp_path / "saved", "--perf-metric", "instructions")
    assert lines[0] == (
        "perf: not compared with the benchmarks of 0001_base in seconds per call: this session has instructions "
        "per call"
    )
    assert [line.split()[:2] for line in lines[2:]] == [["test_x", "(NOW)"]]  # no row of 0001_base


def test_saved_counts_are_not_compared_with_times(pytester, tmp_path):
    saved_run(tmp_path / "saved", "perf 3.0.0", measured_in="worker processes", processes=2, unit="instructions")
    benchmark, _ = fixture({NODE: runs(NODE, (3e-6, 5e-6), (4e-6, 6e-6))})
    benchmark(len, "a")
    lines = compared_with_saved(pytester, tmp_path / "saved", benchmark=benchmark.stats)
    assert lines[0] == other_unit_line(["0001_base"], "seconds")
    assert "instructions per call: this session has seconds per call" in lines[0]


def test_saved_counts_are_compared_with_counts(pytester, fake_valgrind, tmp_path):
    entry = {"name": "test_x", "fullname": NODE, "stats": {"mean": 1100.0}, "perf": {"unit": "instructions"}}
    (tmp_path / "saved").mkdir()
    (tmp_path / "saved" / "0001_base.json").write_text(json.dumps({"benchmarks": [entry], "version": "perf 3.0.0"}))
    lines = compared_with_saved(pytester, tmp_path / "saved", "--perf-metric", "instructions")
    assert lines[0].startswith("Name (mean, instructions per call)")
    assert lines[2].split() == ["test_x", "(0001_base)", "1,100.0", "+9.5%"]
    assert len(lines) == 3
