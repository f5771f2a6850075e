"""perf.pytest_plugin.report: the results table of pytest's terminal."""

from __future__ import annotations

from test_plugin_fixture import WORKERS, fixture

from perf.measure.parent.batches import Outcomes, Progress
from perf.pytest_plugin.report import outcome_lines, progress_line, results_table, saved_comparison_table


def finished(group=None, **node_fields):
    benchmark, _ = fixture(WORKERS, **node_fields)
    benchmark.group = group
    benchmark(len, "a")
    return benchmark.stats


def test_one_row_per_benchmark_with_its_interval_and_processes():
    lines = results_table([finished()])
    header = lines[0]
    assert header.split() == [
        "Name",
        "(time",
        "in",
        "us)",
        "Mean",
        "95%",
        "interval",
        "StdDev",
        "Min",
        "Processes",
        "x",
        "values",
        "Loops",
    ]
    row = lines[2].split()
    assert row[0] == "test_x"
    assert row[1] == "4.0000"
    # the process means are 4, 5 and 3 us: t(0.975, 2) x 1 / sqrt(3)
    assert row[2:4] == ["±2.4841", "(62.1%)"]
    assert row[-4:] == ["3", "x", "2", "100"]
    assert lines[-1].startswith("Mean and StdDev: of every value")


def test_groups_get_a_title_each():
    lines = results_table([finished(group="slow"), finished()])
    titles = [line for line in lines if "group" in line]
    assert len(titles) == 1
    assert "group 'slow': 1 benchmark" in titles[0]


def test_nothing_finished_no_table():
    assert results_table([]) == []


def test_progress_line():
    assert progress_line(Progress(2, 6, 19, 3.25), 20) == (
        "perf: worker process 2/6: 19/20 benchmarks measured in 3.2 s"
    )


def test_progress_of_a_process_still_running():
    assert progress_line(Progress(1, 6, 7, 10.0, ended=False), 20) == (
        "perf: worker process 1/6: 7/20 benchmarks measured so far in 10.0 s"
    )


def test_what_the_workers_did_not_measure():
    outcomes = Outcomes()
    outcomes.add("a", WORKERS["tests/test_a.py::test_x"])
    outcomes.in_parent.update({"b", "c"})
    outcomes.errors["d"] = "tail"
    assert outcome_lines(outcomes, 5) == [
        "perf: 2 benchmark tests use benchmark.pedantic: they run in pytest's process",
        "perf: 1 benchmark tests failed in a worker process: their tests will fail",
        "perf: 1 benchmark tests were not measured by the workers (skipped there, or benchmark() not reached): "
        "measured in pytest's process if they call benchmark()",
    ]
    assert outcome_lines(outcomes, 4) == outcome_lines(outcomes, 5)[:2]
    assert outcome_lines(outcomes, 4, xdist=True)[0].endswith(
        "use benchmark.pedantic: they run once, unmeasured, under xdist"
    )


def test_saved_comparison_table():
    rows = [("test_a (NOW)", 2e-6, None), ("test_a (0001_x)", 1.6e-6, 2e-6), ("test_b (NOW)", 5e-7, None)]
    assert saved_comparison_table(rows) == [
        "Name (mean, time in ns)            Mean    Change",
        "test_a (NOW)                 2,000.0000",
        "test_a (0001_x)              1,600.0000    +25.0%",
        "test_b (NOW)                   500.0000",
    ]
    assert saved_comparison_table([]) == []
