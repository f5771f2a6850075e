"""Edits of benchmarks, run by run: the steps of ``python -m perf convert``.

Every function returns new objects and leaves its arguments as they were
(runs are immutable; lists are rebuilt).  Runs are edited as
:class:`NumberedRuns`: each run keeps its number in the input (1-based,
calibration runs included, as ``--include-runs`` counts), so that an error
after a selection still names the run of the input file.

* :func:`select_benchmarks` keeps benchmarks by name, :func:`select_runs`
  keeps runs by number.  Both are filters: they may leave no benchmark, or
  a benchmark without runs; the caller says why that is wrong (a
  :class:`~perf.model.suite.BenchmarkSuite` refuses both).  A name or a run
  number that matches nothing is an error (:func:`check_benchmark_names`,
  :func:`check_run_ranges`);
* :func:`remove_warmups` removes the warmups of the runs with values (a
  calibration run keeps its warmups: they are all it holds);
* :func:`update_metadata` sets metadata in every run; the keys of
  :data:`MEASUREMENT_KEYS` cannot be set (:func:`metadata_value`);
* :func:`extract_metadata` replaces the values of each run by one of its
  metadata (in the metadata's unit);
* :func:`remove_all_metadata` keeps only the name and the unit.

Must not: parse command lines, read or write files, format figures, print
or exit (every problem is a :class:`~perf.errors.ResultError`; the caller
adds what the user typed to the message).
"""

from __future__ import annotations

from typing import Any, Collection, Iterable, NamedTuple, Sequence

from perf.errors import ResultError
from perf.model.benchmark import Benchmark
from perf.model.metadata import COUNTER_KEY, Metadata, get_metadata_info, is_number
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite

#: keys :func:`metadata_value` refuses: the values were divided by the loop
#: counts, and the calibration keys say what a run without values is
MEASUREMENT_KEYS = (
    "loops",
    "inner_loops",
    "calibrate_loops",
    "recalibrate_loops",
    "calibrate_warmups",
    "recalibrate_warmups",
)

#: ranges of run numbers, ``(first, last)`` both included, 1-based
RunRanges = tuple[tuple[int, int], ...]

#: a run and its number in the input (1-based)
NumberedRun = tuple[int, Run]


class NumberedRuns(NamedTuple):
    """One benchmark being edited: its name and its runs, each with its
    number in the input (1-based)."""

    name: str
    runs: list[NumberedRun]


def number_runs(benchmarks: Iterable[Benchmark]) -> list[NumberedRuns]:
    """The runs of each benchmark, numbered from 1."""
    return [NumberedRuns(benchmark.get_name(), list(enumerate(benchmark.get_runs(), 1))) for benchmark in benchmarks]


def to_suite(items: Iterable[NumberedRuns]) -> BenchmarkSuite:
    """The suite of the edited benchmarks; ResultError when one has no run."""
    return BenchmarkSuite([Benchmark([run for _, run in item.runs]) for item in items])


# --- selections ------------------------------------------------------------------


def check_benchmark_names(benchmarks: Sequence[Benchmark], names: Iterable[str]) -> None:
    """ResultError naming the *names* that no benchmark has."""
    known = {benchmark.get_name() for benchmark in benchmarks}
    unknown = [name for name in dict.fromkeys(names) if name not in known]
    if unknown:
        raise ResultError(f"no benchmark named {', '.join(repr(name) for name in unknown)}")


def select_benchmarks(
    benchmarks: Sequence[Benchmark],
    include: Collection[str] | None = None,
    exclude: Collection[str] = (),
) -> list[Benchmark]:
    """The benchmarks named in *include* (every one when None) and not in
    *exclude*, in their order; maybe none.  ResultError when a name of
    *include* or *exclude* is no benchmark's."""
    check_benchmark_names(benchmarks, include or ())
    check_benchmark_names(benchmarks, exclude)
    return [
        benchmark
        for benchmark in benchmarks
        if (include is None or benchmark.get_name() in include) and benchmark.get_name() not in exclude
    ]


def in_ranges(number: int, ranges: RunRanges) -> bool:
    """Whether *number* is in one of *ranges*."""
    return any(first <= number <= last for first, last in ranges)


def check_run_ranges(items: Sequence[NumberedRuns], ranges: RunRanges) -> None:
    """ResultError when *ranges* name a run beyond the runs of every benchmark."""
    if not ranges:
        return
    largest = max(len(item.runs) for item in items)
    highest = max(last for _, last in ranges)
    if highest > largest:
        raise ResultError(f"there is no run {highest}: no benchmark has more than {largest} runs")


def select_runs(items: Sequence[NumberedRuns], include: RunRanges = (), exclude: RunRanges = ()) -> list[NumberedRuns]:
    """The runs numbered in *include* (every run when empty) and not in
    *exclude*; a benchmark may be left without runs.  ResultError when a
    range goes beyond the runs of every benchmark."""
    check_run_ranges(items, include)
    check_run_ranges(items, exclude)
    return [
        item._replace(
            runs=[
                (number, run)
                for number, run in item.runs
                if (not include or in_ranges(number, include)) and not in_ranges(number, exclude)
            ]
        )
        for item in items
    ]


# --- runs and metadata -------------------------------------------------------------


def remove_warmups(items: Sequence[NumberedRuns]) -> list[NumberedRuns]:
    """Every run without its warmups, except the calibration runs."""
    return [item._replace(runs=[(number, run.remove_warmups()) for number, run in item.runs]) for item in items]


def metadata_value(key: str, text: str) -> Any:
    """*text* as the value of metadata *key* set by :func:`update_metadata`:
    a str when the key accepts strings (as pyperf, for every key it does not
    know), else a number.  ResultError for the keys of
    :data:`MEASUREMENT_KEYS`, a list, or a text that is not the number the
    key takes."""
    if key in MEASUREMENT_KEYS:
        raise ResultError(f"{key!r} cannot be changed (it describes how the values were measured)")
    types = get_metadata_info(key).types
    if str in types:
        return text
    if list in types:
        raise ResultError(f"{key!r} is a list and cannot be set here")
    for kind in (int, float):
        if kind in types:
            try:
                return kind(text)
            except ValueError:
                pass
    expected = "an integer" if float not in types else "a number"
    raise ResultError(f"{key}={text}: {key!r} must be {expected}")


def check_metadata_updates(items: Sequence[NumberedRuns], updates: Metadata) -> None:
    """ResultError when *updates* would give several benchmarks one name."""
    if "name" in updates and len(items) > 1:
        raise ResultError(f"name={updates['name']} would give {len(items)} benchmarks the same name")


def update_metadata(items: Sequence[NumberedRuns], updates: Metadata) -> list[NumberedRuns]:
    """Every run with *updates* (validated metadata) set; ResultError as
    :func:`check_metadata_updates`."""
    check_metadata_updates(items, updates)
    return [
        item._replace(
            runs=[
                (number, Run(run.values, run.warmups, {**run.get_metadata(), **updates}, collect_metadata=False))
                for number, run in item.runs
            ]
        )
        for item in items
    ]


def metadata_as_value(run: Run, name: str) -> Run:
    """A run whose only value is its metadata *name*, in that metadata's
    unit; ResultError when it has none, or not a number > 0."""
    metadata = run.get_metadata()
    value = metadata.get(name)
    if value is None:
        raise ResultError(f"no metadata {name!r}")
    if not is_number(value):
        raise ResultError(f"{name!r} is not a number: {value!r}")
    if value <= 0:
        raise ResultError(f"{name!r} is {value!r}, and a value must be > 0")
    unit = get_metadata_info(name).unit
    if unit is not None:
        metadata["unit"] = unit
    # the value is no longer the instructions that the counter counted per loop
    metadata.pop(COUNTER_KEY, None)
    return Run([value], metadata=metadata, collect_metadata=False)


def extract_metadata(items: Sequence[NumberedRuns], name: str) -> list[NumberedRuns]:
    """Every run as :func:`metadata_as_value` makes it; the ResultError
    names the benchmark and the run."""
    extracted = []
    for item in items:
        runs = []
        for number, run in item.runs:
            try:
                runs.append((number, metadata_as_value(run, name)))
            except ResultError as exc:
                raise ResultError(f"benchmark {item.name!r}, run {number}: {exc}") from None
        extracted.append(item._replace(runs=runs))
    return extracted


def without_metadata(run: Run) -> Run:
    """*run* with no metadata but its name and unit."""
    metadata = run.get_metadata()
    kept: Metadata = {key: metadata[key] for key in ("name", "unit") if key in metadata}
    return Run(run.values, run.warmups, kept, collect_metadata=False)


def remove_all_metadata(items: Sequence[NumberedRuns]) -> list[NumberedRuns]:
    """Every run as :func:`without_metadata` makes it."""
    return [item._replace(runs=[(number, without_metadata(run)) for number, run in item.runs]) for item in items]
