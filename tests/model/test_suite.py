"""perf.model.suite.BenchmarkSuite: unique names, merging of runs,
common metadata and dates (doc/compatibility.rst, BenchmarkSuite)."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest

from perf.errors import IncompatibleRunError, ResultError
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite


def make_run(values: Any = (1.0,), **metadata: Any) -> Run:
    return Run(values, metadata=metadata, collect_metadata=False)


def make_benchmark(name: str, *values: float, **metadata: Any) -> Benchmark:
    return Benchmark([make_run((value,), name=name, **metadata) for value in values or (1.0,)])


# --- construction ----------------------------------------------------------------


def test_construction() -> None:
    first = make_benchmark("a")
    second = make_benchmark("b")
    suite = BenchmarkSuite([first, second])
    assert suite.get_benchmarks() == [first, second]
    assert suite.filename is None
    assert len(suite) == 2
    assert list(suite) == [first, second]
    assert repr(suite) == "<BenchmarkSuite with 2 benchmarks>"


@pytest.mark.parametrize("filename", [None, "result.json", "<stdin>"])
def test_filename_attribute(filename: str | None) -> None:
    suite = BenchmarkSuite([make_benchmark("a")], filename=filename)
    assert suite.filename == filename
    suite.filename = "other.json"
    assert suite.filename == "other.json"


@pytest.mark.parametrize("benchmarks", [[], ()])
def test_empty_suite(benchmarks: Any) -> None:
    with pytest.raises(ResultError, match=re.escape("a suite needs at least one benchmark")):
        BenchmarkSuite(benchmarks)


def test_duplicate_names_are_rejected() -> None:
    with pytest.raises(ResultError, match=re.escape("the suite already has a benchmark called 'a'")):
        BenchmarkSuite([make_benchmark("a"), make_benchmark("b"), make_benchmark("a")])


def test_add_benchmark_duplicate_name() -> None:
    suite = BenchmarkSuite([make_benchmark("a")])
    with pytest.raises(ResultError, match=re.escape("the suite already has a benchmark called 'a'")):
        suite.add_benchmark(make_benchmark("a", 2.0))
    assert len(suite) == 1


def test_add_benchmark_same_object() -> None:
    benchmark = make_benchmark("a")
    suite = BenchmarkSuite([benchmark])
    with pytest.raises(ValueError, match=re.escape("the benchmark is already part of the suite")):
        suite.add_benchmark(benchmark)
    with pytest.raises(ValueError, match=re.escape("the benchmark is already part of the suite")):
        BenchmarkSuite([benchmark, benchmark])


@pytest.mark.parametrize("value", [make_run(name="a"), "a", None])
def test_add_benchmark_requires_a_benchmark(value: Any) -> None:
    suite = BenchmarkSuite([make_benchmark("a")])
    with pytest.raises(TypeError, match=re.escape(f"Benchmark expected, got {type(value).__name__}")):
        suite.add_benchmark(value)


def test_add_benchmark_appends() -> None:
    suite = BenchmarkSuite([make_benchmark("b")])
    suite.add_benchmark(make_benchmark("a"))
    assert suite.get_benchmark_names() == ["b", "a"]


# --- add_runs --------------------------------------------------------------------


def test_add_runs_benchmark_with_an_existing_name() -> None:
    existing = make_benchmark("a", 1.0)
    suite = BenchmarkSuite([existing, make_benchmark("b")])
    suite.add_runs(make_benchmark("a", 2.0, 3.0))
    assert suite.get_benchmark_names() == ["a", "b"]
    assert suite.get_benchmark("a") is existing
    assert existing.get_values() == (1.0, 2.0, 3.0)


def test_add_runs_benchmark_with_a_new_name() -> None:
    suite = BenchmarkSuite([make_benchmark("a")])
    new = make_benchmark("c", 5.0)
    suite.add_runs(new)
    assert suite.get_benchmark_names() == ["a", "c"]
    assert suite.get_benchmark("c").get_values() == (5.0,)


def test_add_runs_suite() -> None:
    suite = BenchmarkSuite([make_benchmark("a", 1.0), make_benchmark("b", 2.0)])
    other = BenchmarkSuite([make_benchmark("b", 3.0), make_benchmark("c", 4.0), make_benchmark("a", 5.0)])
    suite.add_runs(other)
    assert suite.get_benchmark_names() == ["a", "b", "c"]
    assert suite.get_benchmark("a").get_values() == (1.0, 5.0)
    assert suite.get_benchmark("b").get_values() == (2.0, 3.0)
    assert suite.get_benchmark("c").get_values() == (4.0,)


def test_add_runs_incompatible_run() -> None:
    suite = BenchmarkSuite([make_benchmark("a", unit="second")])
    with pytest.raises(IncompatibleRunError):
        suite.add_runs(make_benchmark("a", unit="byte"))
    assert suite.get_benchmark("a").get_nrun() == 1


def test_add_runs_suite_is_all_or_nothing() -> None:
    suite = BenchmarkSuite([make_benchmark("a", 1.0), make_benchmark("b", 2.0)])
    other = BenchmarkSuite(
        [
            make_benchmark("a", 3.0),  # compatible
            make_benchmark("c", 4.0),  # new
            make_benchmark("b", 5.0, unit="byte"),  # incompatible
        ]
    )
    with pytest.raises(IncompatibleRunError):
        suite.add_runs(other)
    assert suite.get_benchmark_names() == ["a", "b"]
    assert suite.get_benchmark("a").get_values() == (1.0,)
    assert suite.get_benchmark("b").get_values() == (2.0,)


@pytest.mark.parametrize("value", [make_run(name="a"), [make_benchmark("x")], "a", None])
def test_add_runs_requires_a_benchmark_or_a_suite(value: Any) -> None:
    suite = BenchmarkSuite([make_benchmark("a")])
    message = f"Benchmark or BenchmarkSuite expected, got {type(value).__name__}"
    with pytest.raises(TypeError, match=re.escape(message)):
        suite.add_runs(value)


# --- lookups ---------------------------------------------------------------------


def test_get_benchmark() -> None:
    first = make_benchmark("a")
    second = make_benchmark("b")
    suite = BenchmarkSuite([first, second])
    assert suite.get_benchmark("a") is first
    assert suite.get_benchmark("b") is second


def test_get_benchmark_missing() -> None:
    suite = BenchmarkSuite([make_benchmark("a")])
    with pytest.raises(KeyError, match=re.escape("there is no benchmark called 'missing'")):
        suite.get_benchmark("missing")


def test_get_benchmark_after_rename() -> None:
    benchmark = make_benchmark("a")
    suite = BenchmarkSuite([benchmark])
    benchmark.update_metadata({"name": "renamed"})
    assert suite.get_benchmark("renamed") is benchmark
    assert suite.get_benchmark_names() == ["renamed"]
    with pytest.raises(KeyError):
        suite.get_benchmark("a")


def test_names_keep_insertion_order() -> None:
    names = ["zeta", "alpha", "mu", "beta"]
    suite = BenchmarkSuite([make_benchmark(name) for name in names])
    assert suite.get_benchmark_names() == names
    assert [benchmark.get_name() for benchmark in suite] == names


def test_get_benchmarks_returns_a_copy() -> None:
    suite = BenchmarkSuite([make_benchmark("a")])
    benchmarks = suite.get_benchmarks()
    benchmarks.clear()
    assert len(suite) == 1


# --- metadata, dates and durations ---------------------------------------------------


def test_get_metadata_common_to_every_run() -> None:
    suite = BenchmarkSuite(
        [
            Benchmark(
                [
                    make_run(name="a", hostname="h", python_version="3.11", loops=2),
                    make_run(name="a", hostname="h", python_version="3.11", loops=4),
                ]
            ),
            Benchmark([make_run(name="b", hostname="h", python_version="3.11", loops=2)]),
        ]
    )
    assert suite.get_metadata() == {"hostname": "h", "python_version": "3.11"}


def test_get_metadata_of_one_benchmark() -> None:
    suite = BenchmarkSuite([make_benchmark("a", hostname="h")])
    assert suite.get_metadata() == {"name": "a", "hostname": "h"}


def test_get_metadata_returns_a_copy() -> None:
    benchmark = make_benchmark("a", hostname="h")
    suite = BenchmarkSuite([benchmark])
    suite.get_metadata()["hostname"] = "changed"
    assert suite.get_metadata() == {"name": "a", "hostname": "h"}
    assert benchmark.get_metadata() == {"name": "a", "hostname": "h"}


def test_get_metadata_nothing_in_common() -> None:
    suite = BenchmarkSuite([make_benchmark("a", hostname="h1"), make_benchmark("b", hostname="h2")])
    assert suite.get_metadata() == {}


def test_get_dates() -> None:
    suite = BenchmarkSuite(
        [
            make_benchmark("a", date="2024-01-02 10:00:00", duration=5),
            make_benchmark("b", date="2024-01-02 09:00:00", duration=1.5),
            make_benchmark("c"),  # no date
        ]
    )
    assert suite.get_dates() == (datetime.datetime(2024, 1, 2, 9, 0, 0), datetime.datetime(2024, 1, 2, 10, 0, 5))


def test_get_dates_without_dates() -> None:
    assert BenchmarkSuite([make_benchmark("a"), make_benchmark("b")]).get_dates() is None


def test_get_total_duration() -> None:
    suite = BenchmarkSuite(
        [
            Benchmark([make_run(name="a", duration=1.5), make_run(name="a", duration=2.5)]),
            Benchmark([make_run((2.0, 3.0), name="b", loops=2)]),  # no duration: (2 + 3) * 2
        ]
    )
    assert suite.get_total_duration() == 14.0
