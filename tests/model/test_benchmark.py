"""perf.model.benchmark.Benchmark: run compatibility, derived figures,
statistics and their cache (doc/compatibility.rst, Benchmark)."""

from __future__ import annotations

import datetime
import math
import re
import statistics as std
from typing import Any

import pytest

from perf.errors import IncompatibleRunError, ResultError
from perf.model.benchmark import Benchmark
from perf.model.metadata import CHECKED_KEYS
from perf.model.run import Run


def make_run(values: Any = (1.0,), warmups: Any = None, **metadata: Any) -> Run:
    metadata.setdefault("name", "bench")
    return Run(values, warmups=warmups, metadata=metadata, collect_metadata=False)


def calibration_run(**metadata: Any) -> Run:
    return make_run((), warmups=[(1, 0.5), (2, 0.25)], **metadata)


# --- construction ------------------------------------------------------------------


@pytest.mark.parametrize("runs", [[], ()])
def test_no_run(runs: Any) -> None:
    with pytest.raises(ResultError, match=re.escape("a benchmark needs at least one run")):
        Benchmark(runs)


def test_first_run_needs_a_name() -> None:
    run = Run([1.0], metadata={"loops": 1}, collect_metadata=False)
    message = "a benchmark must have a name: the first run has no 'name' metadata"
    with pytest.raises(ResultError, match=re.escape(message)):
        Benchmark([run])


def test_first_item_must_be_a_run() -> None:
    with pytest.raises(TypeError, match=re.escape("Run expected, got float")):
        Benchmark([1.0])  # type: ignore[list-item]


def test_construction_checks_every_run() -> None:
    with pytest.raises(IncompatibleRunError):
        Benchmark([make_run(), make_run(unit="byte")])


# --- add_run -------------------------------------------------------------------------

#: a valid value for each checked key, and a different one
CHECKED_VALUES: dict[str, tuple[Any, Any]] = {
    "aslr": ("Full randomization", "No randomization"),
    "clock": ("cpu", "wall"),
    "counter_source": ("cachegrind 3.19.0; I1 32768,8,64", "cachegrind 3.19.0; I1 65536,8,64"),
    "cpu_count": (8, 4),
    "cpu_model_name": ("Intel(R) Core(TM) i7", "AMD EPYC"),
    "hostname": ("host1", "host2"),
    "inner_loops": (10, 20),
    "name": ("bench", "other"),
    "platform": ("Linux-6.1-x86_64", "Darwin-23.0-arm64"),
    "python_executable": ("/usr/bin/python3", "/usr/bin/pypy3"),
    "python_implementation": ("cpython", "pypy"),
    "python_version": ("3.11.7 (64-bit)", "3.12.1 (64-bit)"),
    "unit": ("second", "byte"),
}


def test_checked_values_cover_every_checked_key() -> None:
    assert set(CHECKED_VALUES) == set(CHECKED_KEYS)


def _full_metadata() -> dict[str, Any]:
    return {key: first for key, (first, _) in CHECKED_VALUES.items()}


@pytest.mark.parametrize("key", CHECKED_KEYS)
def test_add_run_rejects_a_different_value(key: str) -> None:
    benchmark = Benchmark([make_run(**_full_metadata())])
    first, second = CHECKED_VALUES[key]
    run = make_run(**{**_full_metadata(), key: second})
    message = (
        f"benchmark 'bench': incompatible run: metadata {key!r} is {second!r} in the run but {first!r} in the benchmark"
    )
    with pytest.raises(IncompatibleRunError, match=re.escape(message)):
        benchmark.add_run(run)
    assert benchmark.get_nrun() == 1


@pytest.mark.parametrize("key", [key for key in CHECKED_KEYS if key not in ("name", "unit")])
def test_add_run_rejects_a_missing_key(key: str) -> None:
    benchmark = Benchmark([make_run(**_full_metadata())])
    metadata = _full_metadata()
    first = metadata.pop(key)
    message = (
        f"benchmark 'bench': incompatible run: metadata {key!r} is missing in the run but {first!r} in the benchmark"
    )
    with pytest.raises(IncompatibleRunError, match=re.escape(message)):
        benchmark.add_run(make_run(**metadata))


@pytest.mark.parametrize("key", [key for key in CHECKED_KEYS if key not in ("name", "unit")])
def test_add_run_rejects_an_extra_key(key: str) -> None:
    # absence must match absence
    benchmark = Benchmark([make_run()])
    value = CHECKED_VALUES[key][0]
    message = (
        f"benchmark 'bench': incompatible run: metadata {key!r} is {value!r} in the run but missing in the benchmark"
    )
    with pytest.raises(IncompatibleRunError, match=re.escape(message)):
        benchmark.add_run(make_run(**{key: value}))


def test_a_missing_unit_is_the_default_second() -> None:
    # development versions of perf wrote no unit for timings: their files still take new runs
    old = Benchmark([make_run()])
    old.add_run(make_run(unit="second"))
    new = Benchmark([make_run(unit="second")])
    new.add_run(make_run())
    assert old.get_nrun() == new.get_nrun() == 2


def test_a_missing_unit_is_not_bytes() -> None:
    benchmark = Benchmark([make_run(unit="byte")])
    message = "benchmark 'bench': incompatible run: metadata 'unit' is missing in the run but 'byte' in the benchmark"
    with pytest.raises(IncompatibleRunError, match=re.escape(message)):
        benchmark.add_run(make_run())
    message = "benchmark 'bench': incompatible run: metadata 'unit' is 'byte' in the run but missing in the benchmark"
    with pytest.raises(IncompatibleRunError, match=re.escape(message)):
        Benchmark([make_run()]).add_run(make_run(unit="byte"))


def test_a_missing_clock_is_the_wall_clock() -> None:
    """pyperf's runs and perf's wall-clock runs have no clock key."""
    benchmark = Benchmark([make_run()])
    benchmark.add_run(make_run(clock="wall"))
    assert benchmark.get_nrun() == 2
    assert benchmark.get_clock() == "wall"


def test_a_cpu_clock_run_does_not_join_wall_clock_runs() -> None:
    message = "benchmark 'bench': incompatible run: metadata 'clock' is 'cpu' in the run but missing in the benchmark"
    with pytest.raises(IncompatibleRunError, match=re.escape(message)):
        Benchmark([make_run()]).add_run(make_run(clock="cpu"))
    message = "benchmark 'bench': incompatible run: metadata 'clock' is missing in the run but 'cpu' in the benchmark"
    with pytest.raises(IncompatibleRunError, match=re.escape(message)):
        Benchmark([make_run(clock="cpu")]).add_run(make_run())


def test_get_clock() -> None:
    benchmark = Benchmark([make_run(clock="cpu"), make_run(clock="cpu")])
    assert benchmark.get_clock() == "cpu"


def test_add_run_without_name() -> None:
    benchmark = Benchmark([make_run()])
    run = Run([1.0], collect_metadata=False)
    message = "benchmark 'bench': incompatible run: metadata 'name' is missing in the run but 'bench' in the benchmark"
    with pytest.raises(IncompatibleRunError, match=re.escape(message)):
        benchmark.add_run(run)


def test_incompatible_run_error_is_a_value_error() -> None:
    benchmark = Benchmark([make_run()])
    with pytest.raises(ValueError):
        benchmark.add_run(make_run(name="other"))


def test_add_run_accepts_other_differences() -> None:
    benchmark = Benchmark([make_run(**_full_metadata(), date="2024-01-02 03:04:05", loops=4)])
    benchmark.add_run(make_run((2.0,), **_full_metadata(), date="2024-01-02 03:05:00", loops=8))
    assert benchmark.get_nrun() == 2
    metadata = benchmark.get_metadata()
    assert "date" not in metadata
    assert "loops" not in metadata
    assert metadata == _full_metadata()


@pytest.mark.parametrize("value", [1.0, "run", None, [1.0]])
def test_add_run_requires_a_run(value: Any) -> None:
    benchmark = Benchmark([make_run()])
    with pytest.raises(TypeError, match=re.escape(f"Run expected, got {type(value).__name__}")):
        benchmark.add_run(value)


def test_add_runs() -> None:
    benchmark = Benchmark([make_run((1.0,))])
    other = Benchmark([make_run((2.0,)), make_run((3.0,))])
    benchmark.add_runs(other)
    assert benchmark.get_values() == (1.0, 2.0, 3.0)
    assert other.get_values() == (2.0, 3.0)


def test_add_runs_rejects_itself() -> None:
    benchmark = Benchmark([make_run()])
    with pytest.raises(ValueError, match=re.escape("cannot add a benchmark to itself")):
        benchmark.add_runs(benchmark)
    assert benchmark.get_nrun() == 1


def test_add_runs_requires_a_benchmark() -> None:
    benchmark = Benchmark([make_run()])
    with pytest.raises(TypeError, match=re.escape("Benchmark expected, got Run")):
        benchmark.add_runs(make_run())  # type: ignore[arg-type]


def test_add_runs_incompatible() -> None:
    benchmark = Benchmark([make_run()])
    with pytest.raises(IncompatibleRunError):
        benchmark.add_runs(Benchmark([make_run(name="other")]))
    assert benchmark.get_nrun() == 1


def test_add_runs_is_all_or_nothing() -> None:
    benchmark = Benchmark([make_run((1.0,))])
    other = Benchmark([make_run((2.0,))])
    other.update_metadata({"unit": "byte"})
    with pytest.raises(IncompatibleRunError):
        benchmark.add_runs(other)
    assert benchmark.get_values() == (1.0,)


def test_check_run() -> None:
    benchmark = Benchmark([make_run(hostname="h")])
    benchmark.check_run(make_run((2.0,), hostname="h"))
    assert benchmark.get_nrun() == 1  # checking adds nothing
    message = "benchmark 'bench': incompatible run: metadata 'hostname' is 'x' in the run but 'h' in the benchmark"
    with pytest.raises(IncompatibleRunError, match=re.escape(message)):
        benchmark.check_run(make_run(hostname="x"))
    with pytest.raises(TypeError, match=re.escape("Run expected, got str")):
        benchmark.check_run("run")  # type: ignore[arg-type]


def test_check_benchmark() -> None:
    benchmark = Benchmark([make_run()])
    benchmark.check_benchmark(Benchmark([make_run((2.0,)), make_run((3.0,))]))
    assert benchmark.get_nrun() == 1
    with pytest.raises(IncompatibleRunError):
        benchmark.check_benchmark(Benchmark([make_run(name="other")]))
    with pytest.raises(ResultError, match=re.escape("cannot add a benchmark to itself")):
        benchmark.check_benchmark(benchmark)
    with pytest.raises(TypeError, match=re.escape("Benchmark expected, got Run")):
        benchmark.check_benchmark(make_run())  # type: ignore[arg-type]


# --- accessors -----------------------------------------------------------------


def test_accessors() -> None:
    runs = [
        calibration_run(calibrate_loops=4),
        make_run((1.0, 2.0)),
        make_run((3.0,)),
    ]
    benchmark = Benchmark(runs)
    assert benchmark.get_name() == "bench"
    assert benchmark.get_nrun() == 3
    assert benchmark.get_nvalue() == 3
    assert benchmark.get_values() == (1.0, 2.0, 3.0)
    assert type(benchmark.get_values()) is tuple
    assert benchmark.get_runs() == runs


def test_get_runs_returns_a_copy() -> None:
    benchmark = Benchmark([make_run()])
    runs = benchmark.get_runs()
    runs.append(make_run())
    runs.clear()
    assert benchmark.get_nrun() == 1


@pytest.mark.parametrize(
    ("metadata", "unit"), [({}, "second"), ({"unit": "byte"}, "byte"), ({"unit": "integer"}, "integer")]
)
def test_get_unit(metadata: dict[str, str], unit: str) -> None:
    assert Benchmark([make_run(**metadata)]).get_unit() == unit


def test_get_metadata_is_common_to_all_runs() -> None:
    benchmark = Benchmark(
        [
            make_run(hostname="h", loops=2, description="a"),
            make_run(hostname="h", loops=4, description="a"),
        ]
    )
    assert benchmark.get_metadata() == {"name": "bench", "hostname": "h", "description": "a"}
    benchmark.add_run(make_run(hostname="h", description="b"))
    assert benchmark.get_metadata() == {"name": "bench", "hostname": "h"}


def test_get_metadata_returns_a_copy() -> None:
    benchmark = Benchmark([make_run()])
    benchmark.get_metadata()["name"] = "changed"
    assert benchmark.get_metadata() == {"name": "bench"}
    assert benchmark.get_name() == "bench"


def test_repr() -> None:
    benchmark = Benchmark([make_run(), make_run()])
    assert repr(benchmark) == "<Benchmark 'bench' with 2 runs>"


# --- loops, warmups ----------------------------------------------------------------


def test_loops_equal_are_ints() -> None:
    benchmark = Benchmark([make_run(loops=8, inner_loops=3), make_run(loops=8, inner_loops=3)])
    assert benchmark.get_loops() == 8
    assert type(benchmark.get_loops()) is int
    assert benchmark.get_inner_loops() == 3
    assert type(benchmark.get_inner_loops()) is int
    assert benchmark.get_total_loops() == 24
    assert type(benchmark.get_total_loops()) is int


def test_loops_unequal_are_averaged() -> None:
    benchmark = Benchmark([make_run(loops=2, inner_loops=5), make_run(loops=3, inner_loops=5)])
    assert benchmark.get_loops() == 2.5
    assert type(benchmark.get_loops()) is float
    assert benchmark.get_inner_loops() == 5
    assert benchmark.get_total_loops() == 12.5


def test_default_loops() -> None:
    benchmark = Benchmark([make_run()])
    assert (benchmark.get_loops(), benchmark.get_inner_loops(), benchmark.get_total_loops()) == (1, 1, 1)


def test_nwarmup() -> None:
    equal = Benchmark([make_run(warmups=[(1, 1.0)]), make_run(warmups=[(1, 1.0)])])
    assert equal.get_nwarmup() == 1
    assert type(equal.get_nwarmup()) is int
    unequal = Benchmark([make_run(warmups=[(1, 1.0)]), make_run(warmups=[(1, 1.0), (1, 2.0)])])
    assert unequal.get_nwarmup() == 1.5
    none = Benchmark([make_run()])
    assert none.get_nwarmup() == 0


def test_calibration_runs_are_ignored_for_loops_and_warmups() -> None:
    benchmark = Benchmark(
        [
            make_run((), warmups=[(1, 0.1), (2, 0.1), (4, 0.1)], calibrate_loops=128, loops=1),
            make_run((1.0,), warmups=[(128, 0.5)], loops=128),
            make_run((1.0,), warmups=[(128, 0.5)], loops=128),
        ]
    )
    assert benchmark.get_loops() == 128
    assert benchmark.get_total_loops() == 128
    assert benchmark.get_nwarmup() == 1
    assert benchmark.get_nrun() == 3


def test_nvalue_per_run() -> None:
    equal = Benchmark([make_run((1.0, 2.0)), make_run((3.0, 4.0)), calibration_run(calibrate_loops=1)])
    assert equal.get_nvalue_per_run() == 2
    assert type(equal.get_nvalue_per_run()) is int
    unequal = Benchmark([make_run((1.0, 2.0)), make_run((3.0,))])
    assert unequal.get_nvalue_per_run() == 1.5


# --- a benchmark of calibration runs only -----------------------------------------


def test_calibration_only_benchmark() -> None:
    benchmark = Benchmark(
        [calibration_run(calibrate_loops=16, loops=16), calibration_run(recalibrate_loops=16, loops=16)]
    )
    assert benchmark.get_nvalue() == 0
    assert benchmark.get_values() == ()
    assert benchmark.get_loops() == 16
    assert benchmark.get_nwarmup() == 2
    assert benchmark.required_nprocesses() is None
    message = "benchmark 'bench' has no values (only calibration runs)"
    for statistic in (benchmark.mean, benchmark.median, benchmark.stdev, benchmark.median_abs_dev):
        with pytest.raises(ResultError, match=re.escape(message)):
            statistic()
    with pytest.raises(ResultError, match=re.escape(message)):
        benchmark.percentile(50)


# --- statistics ------------------------------------------------------------------

VALUES = [0.0225, 0.0231, 0.0219, 0.0224, 0.0228, 0.0226, 0.0301, 0.0222]


def test_statistics() -> None:
    benchmark = Benchmark([make_run(VALUES[:3]), make_run(VALUES[3:])])
    assert benchmark.mean() == pytest.approx(std.mean(VALUES), rel=1e-12)
    assert benchmark.median() == pytest.approx(std.median(VALUES), rel=1e-12)
    assert benchmark.stdev() == pytest.approx(std.stdev(VALUES), rel=1e-12)
    centre = std.median(VALUES)
    mad = std.median([abs(value - centre) for value in VALUES])
    assert benchmark.median_abs_dev() == pytest.approx(mad, rel=1e-12)


@pytest.mark.parametrize(
    ("p", "expected"),
    [(0, 10.0), (25, 20.0), (50, 30.0), (100, 50.0), (10, 14.0), (62.5, 35.0)],
)
def test_percentile(p: float, expected: float) -> None:
    benchmark = Benchmark([make_run((30.0, 50.0)), make_run((10.0, 40.0, 20.0))])
    assert benchmark.percentile(p) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("p", [-1, 100.5, 101])
def test_percentile_out_of_range(p: float) -> None:
    benchmark = Benchmark([make_run()])
    with pytest.raises(ValueError, match=re.escape(f"p must be in the range [0; 100], got {p!r}")):
        benchmark.percentile(p)


def test_statistics_cache_is_invalidated_by_add_run() -> None:
    benchmark = Benchmark([make_run((1.0, 3.0))])
    assert benchmark.get_values() == (1.0, 3.0)
    assert benchmark.get_nvalue() == 2
    assert benchmark.mean() == 2.0
    assert benchmark.median() == 2.0
    assert benchmark.stdev() == pytest.approx(math.sqrt(2))
    assert benchmark.median_abs_dev() == 1.0
    assert benchmark.percentile(100) == 3.0
    benchmark.add_run(make_run((8.0,)))
    assert benchmark.get_values() == (1.0, 3.0, 8.0)
    assert benchmark.get_nvalue() == 3
    assert benchmark.mean() == 4.0
    assert benchmark.median() == 3.0
    assert benchmark.stdev() == pytest.approx(std.stdev([1.0, 3.0, 8.0]), rel=1e-12)
    assert benchmark.median_abs_dev() == 2.0
    assert benchmark.percentile(100) == 8.0


def test_stdev_needs_two_values() -> None:
    benchmark = Benchmark([make_run((1.0,))])
    assert benchmark.mean() == 1.0
    with pytest.raises(ResultError, match=re.escape("benchmark 'bench': stdev needs at least 2 values")):
        benchmark.stdev()


# --- required_nprocesses ----------------------------------------------------------


@pytest.mark.parametrize(
    "runs",
    [
        [make_run((1.0, 2.0, 3.0))],
        [make_run((1.0, 2.0)), calibration_run(calibrate_loops=1)],
        [calibration_run(calibrate_loops=1), make_run((5.0,))],
    ],
)
def test_required_nprocesses_needs_two_runs_with_values(runs: list[Run]) -> None:
    assert Benchmark(runs).required_nprocesses() is None


def test_required_nprocesses_by_hand() -> None:
    # per-run means 1.0 and 1.1: stdev = 0.1 / sqrt(2), mean = 1.05,
    # sigma = 0.0673435..., 4 * 1.96**2 * sigma**2 / 0.01**2 = 696.88...
    benchmark = Benchmark([make_run((0.9, 1.1)), make_run((1.1,)), calibration_run(calibrate_loops=1)])
    assert benchmark.get_process_means() == pytest.approx([1.0, 1.1])
    sigma = (0.1 / math.sqrt(2)) / 1.05
    assert math.ceil(4 * 1.96**2 * sigma**2 / 0.01**2) == 697
    assert benchmark.required_nprocesses() == 697


def test_required_nprocesses_uses_process_means_not_values() -> None:
    # values spread widely inside each process, identical process means
    benchmark = Benchmark([make_run((1.0, 3.0)), make_run((3.0, 1.0))])
    assert benchmark.required_nprocesses() == 0


# --- dates and durations ----------------------------------------------------------


def test_get_dates() -> None:
    benchmark = Benchmark(
        [
            make_run(date="2024-01-02 10:00:00", duration=1.2),  # ends 10:00:02 (ceil)
            make_run(date="2024-01-02 09:59:00", duration=100),  # ends 10:00:40
            make_run(date="2024-01-02 09:59:30.500000", duration=0.25),
        ]
    )
    assert benchmark.get_dates() == (
        datetime.datetime(2024, 1, 2, 9, 59, 0),
        datetime.datetime(2024, 1, 2, 10, 0, 40),
    )


def test_get_dates_uses_the_values_without_duration() -> None:
    # no duration metadata: raw values 2 * 1.5 sec -> ceil(3.0) = 3 sec
    benchmark = Benchmark([make_run((1.5,), loops=2, date="2024-01-02 10:00:00")])
    assert benchmark.get_dates() == (datetime.datetime(2024, 1, 2, 10, 0, 0), datetime.datetime(2024, 1, 2, 10, 0, 3))


def test_get_dates_skips_runs_without_date() -> None:
    benchmark = Benchmark([make_run(duration=1000), make_run(date="2024-01-02 10:00:00", duration=2)])
    assert benchmark.get_dates() == (datetime.datetime(2024, 1, 2, 10, 0, 0), datetime.datetime(2024, 1, 2, 10, 0, 2))


def test_get_dates_without_dates() -> None:
    assert Benchmark([make_run(), make_run()]).get_dates() is None


def test_get_dates_cache_is_invalidated_by_add_run() -> None:
    benchmark = Benchmark([make_run(date="2024-01-02 10:00:00", duration=1)])
    assert benchmark.get_dates() == (datetime.datetime(2024, 1, 2, 10, 0, 0), datetime.datetime(2024, 1, 2, 10, 0, 1))
    benchmark.add_run(make_run(date="2024-01-02 11:00:00", duration=1))
    assert benchmark.get_dates() == (datetime.datetime(2024, 1, 2, 10, 0, 0), datetime.datetime(2024, 1, 2, 11, 0, 1))


def test_get_dates_cache_is_invalidated_by_update_metadata() -> None:
    benchmark = Benchmark([make_run(date="2024-01-02 10:00:00", duration=1)])
    assert benchmark.get_dates() is not None
    benchmark.update_metadata({"date": "2025-06-07 08:09:10"})
    assert benchmark.get_dates() == (datetime.datetime(2025, 6, 7, 8, 9, 10), datetime.datetime(2025, 6, 7, 8, 9, 11))


def test_get_total_duration() -> None:
    benchmark = Benchmark(
        [
            make_run(duration=1.5),
            make_run(duration=2),
            # no duration: warmup 0.5*2 + values (1.0 + 2.0)*2 = 7
            make_run((1.0, 2.0), warmups=[(2, 0.5)], loops=2),
        ]
    )
    assert benchmark.get_total_duration() == 10.5


# --- update_metadata ----------------------------------------------------------------


def test_update_metadata() -> None:
    runs = [make_run(loops=2), make_run(loops=4)]
    benchmark = Benchmark(runs)
    benchmark.update_metadata({"tags": ["numeric"], "description": " text "})
    assert benchmark.get_metadata() == {"name": "bench", "tags": ["numeric"], "description": "text"}
    assert [run.get_loops() for run in benchmark.get_runs()] == [2, 4]
    # the original runs are immutable and unchanged
    assert runs[0].get_metadata() == {"name": "bench", "loops": 2}


def test_update_metadata_rename() -> None:
    benchmark = Benchmark([make_run()])
    benchmark.update_metadata({"name": "renamed"})
    assert benchmark.get_name() == "renamed"
    assert repr(benchmark) == "<Benchmark 'renamed' with 1 runs>"


def test_update_metadata_is_validated() -> None:
    benchmark = Benchmark([make_run()])
    with pytest.raises(ResultError, match=re.escape("metadata 'tags': expected list, got str 'x'")):
        benchmark.update_metadata({"tags": "x"})


def test_update_metadata_cannot_change_inner_loops() -> None:
    benchmark = Benchmark([make_run(inner_loops=10)])
    with pytest.raises(ResultError, match=re.escape("inner_loops metadata cannot be modified")):
        benchmark.update_metadata({"inner_loops": 20})
    assert benchmark.get_inner_loops() == 10
    benchmark.update_metadata({"inner_loops": 10})
    assert benchmark.get_inner_loops() == 10


def test_update_metadata_sets_missing_inner_loops() -> None:
    benchmark = Benchmark([make_run()])
    benchmark.update_metadata({"inner_loops": 10})
    assert benchmark.get_inner_loops() == 10


def test_update_metadata_invalidates_common_metadata() -> None:
    benchmark = Benchmark([make_run(), make_run()])
    assert benchmark.get_metadata() == {"name": "bench"}
    benchmark.update_metadata({"hostname": "h"})
    assert benchmark.get_metadata() == {"name": "bench", "hostname": "h"}
    # later runs are checked against the updated common metadata
    with pytest.raises(IncompatibleRunError):
        benchmark.add_run(make_run())
    benchmark.add_run(make_run(hostname="h"))
    assert benchmark.get_nrun() == 3


# --- formatting ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("unit", "value", "expected"),
    [
        ("second", 0.0225, "22.5 ms"),
        ("second", 1.5e-6, "1.50 us"),
        ("byte", 12.3 * 1024, "12.3 KiB"),
        ("byte", 100, "100 bytes"),
        ("integer", 2**15, "2^15"),
        ("integer", 42, "42"),
    ],
)
def test_format_value(unit: str, value: float, expected: str) -> None:
    benchmark = Benchmark([make_run(unit=unit)])
    assert benchmark.format_value(value) == expected


@pytest.mark.parametrize(
    ("unit", "values", "expected"),
    [
        ("second", (0.0225, 0.0002), ("22.5 ms", "0.2 ms")),
        ("byte", (20 * 1024 * 1024, 1), ("20.0 MiB", "1 byte")),
        ("integer", (10**6, 3), ("10^6", "3")),
    ],
)
def test_format_values(unit: str, values: tuple[float, ...], expected: tuple[str, ...]) -> None:
    benchmark = Benchmark([make_run(unit=unit)])
    assert benchmark.format_values(values) == expected


# --- count benchmarks (--metric instructions) -----------------------------------------

SOURCE = "cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 8388608,16,64"


def test_a_count_benchmark_shows_instructions_and_keeps_pyperfs_unit() -> None:
    runs = [make_run((183002.0,), unit="integer", counter_source=SOURCE, hash_seed=seed) for seed in (1, 2)]
    benchmark = Benchmark(runs)
    assert benchmark.get_counter_source() == SOURCE
    assert (benchmark.get_unit(), benchmark.get_display_unit()) == ("integer", "instructions")
    assert benchmark.format_values((183002.0, 1.0, 0.0)) == ("183,002 instructions", "1 instruction", "0 instructions")


@pytest.mark.parametrize(("unit", "shown"), [("integer", "183002.0"), ("second", "183002 sec"), ("byte", "178.7 KiB")])
def test_other_benchmarks_have_no_counter(unit: str, shown: str) -> None:
    benchmark = Benchmark([make_run((183002.0,), unit=unit)])
    assert benchmark.get_counter_source() is None
    assert benchmark.get_display_unit() == unit
    assert benchmark.format_value(183002.0) == shown


def test_counts_and_times_never_share_a_benchmark() -> None:
    counts = Benchmark([make_run((183002.0,), unit="integer", counter_source=SOURCE)])
    message = f"metadata 'counter_source' is missing in the run but {SOURCE!r} in the benchmark"
    with pytest.raises(IncompatibleRunError, match=re.escape(message)):
        counts.add_run(make_run((183002.0,), unit="integer"))
    other = SOURCE.replace("8388608", "33554432")
    with pytest.raises(IncompatibleRunError, match="metadata 'counter_source' is"):
        counts.add_run(make_run((183002.0,), unit="integer", counter_source=other))
