"""perf.model.edits: the steps of convert on the model, without a command
line: selections by name and run number, warmups, metadata."""

from __future__ import annotations

from typing import Any

import pytest

from perf.errors import ResultError
from perf.model import edits
from perf.model.benchmark import Benchmark
from perf.model.edits import NumberedRuns
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite


def make_run(values: Any = (1.0,), warmups: Any = (), **metadata: Any) -> Run:
    return Run(values, warmups, metadata=metadata, collect_metadata=False)


def make_benchmark(name: str, nrun: int = 3, **metadata: Any) -> Benchmark:
    runs = [make_run((float(number),), ((1, 10.0),), name=name, **metadata) for number in range(1, nrun + 1)]
    return Benchmark(runs)


def numbers(items: list[NumberedRuns]) -> dict[str, list[int]]:
    return {item.name: [number for number, _ in item.runs] for item in items}


# --- numbering -------------------------------------------------------------------


def test_runs_are_numbered_from_1_and_back_to_a_suite() -> None:
    benchmarks = [make_benchmark("a", 2), make_benchmark("b", 3)]
    items = edits.number_runs(benchmarks)
    assert numbers(items) == {"a": [1, 2], "b": [1, 2, 3]}
    assert [run for _, run in items[1].runs] == benchmarks[1].get_runs()
    suite = edits.to_suite(items)
    assert isinstance(suite, BenchmarkSuite)
    assert suite.get_benchmark_names() == ["a", "b"]
    assert suite.get_benchmark("b").get_runs() == benchmarks[1].get_runs()


def test_a_benchmark_without_runs_is_no_suite() -> None:
    with pytest.raises(ResultError, match="at least one run"):
        edits.to_suite([NumberedRuns("a", [])])


# --- benchmarks ------------------------------------------------------------------


def test_select_benchmarks_keeps_the_order() -> None:
    benchmarks = [make_benchmark(name) for name in ("a", "b", "c")]
    assert edits.select_benchmarks(benchmarks, ["c", "a"]) == [benchmarks[0], benchmarks[2]]
    assert edits.select_benchmarks(benchmarks, exclude=["b"]) == [benchmarks[0], benchmarks[2]]
    assert edits.select_benchmarks(benchmarks, ["a", "b"], ["b"]) == [benchmarks[0]]
    assert edits.select_benchmarks(benchmarks) == benchmarks
    # a filter: nothing left is the caller's to refuse
    assert edits.select_benchmarks(benchmarks, ["a"], ["a"]) == []


def test_unknown_benchmark_names() -> None:
    benchmarks = [make_benchmark("a")]
    edits.check_benchmark_names(benchmarks, ["a", "a"])
    with pytest.raises(ResultError) as error:
        edits.check_benchmark_names(benchmarks, ["x", "a", "y", "x"])
    assert str(error.value) == "no benchmark named 'x', 'y'"
    with pytest.raises(ResultError, match=r"^no benchmark named 'z'$"):
        edits.select_benchmarks(benchmarks, exclude=["z"])


# --- runs --------------------------------------------------------------------------


def test_select_runs_by_number() -> None:
    items = edits.number_runs([make_benchmark("a", 3), make_benchmark("b", 5)])
    assert numbers(edits.select_runs(items, ((2, 3),))) == {"a": [2, 3], "b": [2, 3]}
    assert numbers(edits.select_runs(items, exclude=((1, 1), (4, 5)))) == {"a": [2, 3], "b": [2, 3]}
    assert numbers(edits.select_runs(items, ((1, 4),), ((2, 2),))) == {"a": [1, 3], "b": [1, 3, 4]}
    # numbers stay those of the input after a second selection
    first = edits.select_runs(items, exclude=((1, 1),))
    assert numbers(edits.select_runs(first, exclude=((3, 3),))) == {"a": [2], "b": [2, 4, 5]}
    # a benchmark may be left without runs
    assert numbers(edits.select_runs(items, ((4, 5),))) == {"a": [], "b": [4, 5]}


def test_run_numbers_beyond_every_benchmark() -> None:
    items = edits.number_runs([make_benchmark("a", 3), make_benchmark("b", 2)])
    edits.check_run_ranges(items, ((1, 3),))
    edits.check_run_ranges(items, ())
    with pytest.raises(ResultError) as error:
        edits.check_run_ranges(items, ((1, 1), (2, 7)))
    assert str(error.value) == "there is no run 7: no benchmark has more than 3 runs"
    with pytest.raises(ResultError, match="there is no run 4"):
        edits.select_runs(items, exclude=((4, 4),))


def test_in_ranges() -> None:
    assert edits.in_ranges(3, ((1, 1), (3, 5)))
    assert not edits.in_ranges(2, ((1, 1), (3, 5)))
    assert not edits.in_ranges(1, ())


def test_remove_warmups_keeps_calibration_warmups() -> None:
    calibration = make_run((), ((1, 0.5), (2, 0.25)), name="a", calibrate_loops=2)
    measured = make_run((1.0,), ((2, 0.5),), name="a", loops=2)
    items = [NumberedRuns("a", [(1, calibration), (2, measured)])]
    (edited,) = edits.remove_warmups(items)
    assert [number for number, _ in edited.runs] == [1, 2]
    assert edited.runs[0][1].warmups == calibration.warmups
    assert edited.runs[1][1].warmups == ()
    assert edited.runs[1][1].values == (1.0,)
    assert items[0].runs[1][1].warmups == ((2, 0.5),)  # the input is unchanged


# --- metadata ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("python_version", "3.12", "3.12"),  # a str key keeps the text
        ("my_key", "42", "42"),  # unknown keys take strings, as pyperf
        ("mem_max_rss", "1024", 1024),
        ("duration", "1.5", 1.5),
    ],
)
def test_metadata_value_has_the_type_of_the_key(key: str, text: str, value: Any) -> None:
    result = edits.metadata_value(key, text)
    assert result == value and type(result) is type(value)


@pytest.mark.parametrize(
    ("key", "text", "message"),
    [
        ("loops", "2", "'loops' cannot be changed (it describes how the values were measured)"),
        ("recalibrate_warmups", "1", "'recalibrate_warmups' cannot be changed"),
        ("tags", "fast", "'tags' is a list and cannot be set here"),
        ("mem_max_rss", "1.5", "mem_max_rss=1.5: 'mem_max_rss' must be an integer"),
        ("duration", "long", "duration=long: 'duration' must be a number"),
    ],
)
def test_metadata_value_refusals(key: str, text: str, message: str) -> None:
    with pytest.raises(ResultError) as error:
        edits.metadata_value(key, text)
    assert str(error.value).startswith(message)


def test_update_metadata_sets_every_run() -> None:
    items = edits.number_runs([make_benchmark("a", 2, hostname="old")])
    (edited,) = edits.update_metadata(items, {"hostname": "new", "my_key": "x"})
    for _, run in edited.runs:
        assert run.get_metadata()["hostname"] == "new"
        assert run.get_metadata()["my_key"] == "x"
    assert items[0].runs[0][1].get_metadata()["hostname"] == "old"


def test_one_name_for_several_benchmarks_is_refused() -> None:
    items = edits.number_runs([make_benchmark("a"), make_benchmark("b")])
    with pytest.raises(ResultError) as error:
        edits.update_metadata(items, {"name": "same"})
    assert str(error.value) == "name=same would give 2 benchmarks the same name"
    (renamed,) = edits.update_metadata(items[:1], {"name": "same"})
    assert edits.to_suite([renamed]).get_benchmark_names() == ["same"]


def test_metadata_as_value_takes_the_unit_of_the_metadata() -> None:
    run = make_run((0.5,), ((1, 0.25),), name="a", mem_max_rss=4096, runnable_threads=3)
    memory = edits.metadata_as_value(run, "mem_max_rss")
    assert (memory.values, memory.warmups) == ((4096,), ())
    assert memory.get_metadata()["unit"] == "byte"
    # a key without a unit keeps the run's (none here: seconds)
    threads = edits.metadata_as_value(run, "runnable_threads")
    assert threads.values == (3,)
    assert "unit" not in threads.get_metadata()


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({}, "no metadata 'my_key'"),
        ({"my_key": "text"}, "'my_key' is not a number: 'text'"),
        ({"my_key": 0}, "'my_key' is 0, and a value must be > 0"),
    ],
)
def test_metadata_as_value_refusals(metadata: dict[str, Any], message: str) -> None:
    with pytest.raises(ResultError) as error:
        edits.metadata_as_value(make_run(name="a", **metadata), "my_key")
    assert str(error.value) == message


def test_extract_metadata_names_the_benchmark_and_run() -> None:
    runs = [make_run(name="a", my_key=2), make_run(name="a", my_key=3), make_run(name="a")]
    items = edits.select_runs(edits.number_runs([Benchmark(runs)]), exclude=((1, 1),))
    with pytest.raises(ResultError) as error:
        edits.extract_metadata(items, "my_key")
    assert str(error.value) == "benchmark 'a', run 3: no metadata 'my_key'"
    (extracted,) = edits.extract_metadata(edits.select_runs(items, ((2, 2),)), "my_key")
    assert [(number, run.values) for number, run in extracted.runs] == [(2, (3,))]


def test_remove_all_metadata_keeps_the_name_and_unit() -> None:
    run = make_run((1.0, 2.0), ((1, 3.0),), name="a", unit="byte", hostname="h", loops=4)
    stripped = edits.without_metadata(run)
    assert stripped.get_metadata() == {"name": "a", "unit": "byte"}
    assert (stripped.values, stripped.warmups) == (run.values, run.warmups)
    (item,) = edits.remove_all_metadata([NumberedRuns("a", [(5, run)])])
    assert item.runs[0][0] == 5
    assert item.runs[0][1].get_metadata() == {"name": "a", "unit": "byte"}


def test_metadata_as_value_of_a_count_run_is_no_longer_a_count() -> None:
    # the D1 misses of a count run are not the instructions its counter counted
    run = make_run((183002.0,), name="a", unit="integer", counter_source="cachegrind", d1_misses=1929.0, duration=2.5)
    for key, unit in (("d1_misses", "integer"), ("duration", "second")):
        extracted = Benchmark([edits.metadata_as_value(run, key)])
        assert "counter_source" not in extracted.get_metadata()
        assert extracted.get_display_unit() == extracted.get_unit() == unit
