"""perf.render.csv: the CSV text of convert --csv and --csv-summary, from
a suite built in memory (the command line is tests/cli/test_cli_convert_csv.py)."""

from __future__ import annotations

import csv
import io

from perf.analysis.intervals import Interval, benchmark_mean_interval
from perf.analysis.summaries import ValueFigures, value_figures
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.render.csv import SUMMARY_COLUMNS, VALUE_COLUMNS, csv_summary_rows, csv_value_rows, format_csv


def mean_intervals(suite: BenchmarkSuite) -> list[tuple[ValueFigures | None, Interval | None]]:
    """What convert --csv-summary computes before it renders."""
    return [(value_figures(benchmark), benchmark_mean_interval(benchmark)) for benchmark in suite]


def make_suite() -> BenchmarkSuite:
    calibration = Run(
        (), ((1, 0.5), (2, 0.25)), {"name": "a", "calibrate_loops": 2, "inner_loops": 3}, collect_metadata=False
    )
    first = Run((0.1, 0.2), ((2, 0.3),), {"name": "a", "loops": 2, "inner_loops": 3}, collect_metadata=False)
    second = Run((0.1, 0.4), (), {"name": "a", "loops": 2, "inner_loops": 3}, collect_metadata=False)
    memory = Run((1024,), (), {"name": "b", "unit": "byte"}, collect_metadata=False)
    return BenchmarkSuite([Benchmark([calibration, first, second]), Benchmark([memory])])


def test_value_rows() -> None:
    assert list(csv_value_rows(make_suite())) == [
        ["a", "1", "", "warmup", "1", "3", "0.5", "second"],
        ["a", "1", "", "warmup", "2", "6", "0.25", "second"],
        ["a", "2", "1", "warmup", "1", "6", "0.3", "second"],
        ["a", "2", "1", "value", "1", "6", "0.1", "second"],
        ["a", "2", "1", "value", "2", "6", "0.2", "second"],
        ["a", "3", "2", "value", "1", "6", "0.1", "second"],
        ["a", "3", "2", "value", "2", "6", "0.4", "second"],
        ["b", "1", "1", "value", "1", "1", "1024", "byte"],
    ]


def test_summary_rows() -> None:
    suite = make_suite()
    rows = list(csv_summary_rows(suite, mean_intervals(suite)))
    benchmark = suite.get_benchmark("a")
    assert rows[0][:9] == [
        "a",
        "second",
        "2",
        "4",
        repr(benchmark.mean()),
        repr(benchmark.stdev()),
        repr(benchmark.median()),
        "0.1",
        "0.4",
    ]
    low, high = float(rows[0][9]), float(rows[0][10])
    assert low < benchmark.mean() < high
    # one value: no standard deviation, no interval; the minimum and maximum are the value as stored
    memory = suite.get_benchmark("b")
    assert rows[1] == ["b", "byte", "1", "1", repr(memory.mean()), "", repr(memory.median()), "1024", "1024", "", ""]


def test_format_csv_is_rfc_4180() -> None:
    suite = make_suite()
    text = format_csv(suite)
    assert text.startswith(",".join(VALUE_COLUMNS) + "\r\n")
    assert text.count("\r\n") == 9 and "\n" not in text.replace("\r\n", "")
    assert list(csv.reader(io.StringIO(text, newline="")))[1:] == list(csv_value_rows(suite))
    summary = format_csv(suite, mean_intervals(suite))
    assert summary.startswith(",".join(SUMMARY_COLUMNS) + "\r\n")
    assert list(csv.reader(io.StringIO(summary, newline="")))[1:] == list(
        csv_summary_rows(suite, mean_intervals(suite))
    )


def test_names_are_quoted_when_needed() -> None:
    run = Run([1.5], metadata={"name": 'say "hi", then bye'}, collect_metadata=False)
    text = format_csv(BenchmarkSuite([Benchmark([run])]))
    assert text.splitlines()[1] == '"say ""hi"", then bye",1,1,value,1,1,1.5,second'
