"""Benchmark: the ordered runs of one benchmark name.

Adding a run checks that it is compatible (same unit, name, host, Python...).
Derived figures (loops, dates, mean, stdev...) are one-line calls into
``perf.analysis.statistics`` and are cached until the runs change.

Must not: do I/O (``load``/``dump`` are one-line lazy calls into
``perf.storage.files``, kept for pyperf's API).
"""

from __future__ import annotations

import datetime
import itertools
import math
import operator
from typing import IO, Any, Callable, Mapping, Optional, Sequence, TypeVar, Union

from perf.analysis import statistics
from perf.errors import IncompatibleRunError, ResultError, UsageError
from perf.model.metadata import (
    CHECKED_DEFAULTS,
    CHECKED_KEYS,
    COUNT_UNIT,
    COUNTER_KEY,
    DEFAULT_CLOCK,
    DEFAULT_UNIT,
    Metadata,
    common_metadata,
    copy_metadata,
    parse_metadata,
)
from perf.model.run import Number, Run

PathOrFile = Union[str, bytes, "IO[str]"]
T = TypeVar("T")
Dates = Optional[tuple[datetime.datetime, datetime.datetime]]

#: z-score of a two-sided 95 % interval, and the interval width (1 % of the
#: mean) used by :meth:`Benchmark.required_nprocesses`
_Z_95 = 1.96
_TARGET_WIDTH = 0.01

#: perf.render.units.format_values, imported on first use
_format_values: Callable[[str, Sequence[Number]], tuple[str, ...]] | None = None


class Benchmark:
    """The runs of one benchmark; the first run must have ``name`` metadata."""

    def __init__(self, runs: Sequence[Run]) -> None:
        if not runs:
            raise ResultError("a benchmark needs at least one run")
        first = runs[0]
        if not isinstance(first, Run):
            raise TypeError(f"Run expected, got {type(first).__name__}")
        if not first._has("name"):
            raise ResultError("a benchmark must have a name: the first run has no 'name' metadata")
        self._runs: list[Run] = []
        self._common: Metadata | None = None
        self._clear_cache()
        for run in runs:
            self.add_run(run)

    @classmethod
    def _from_checked(cls, runs: list[Run]) -> Benchmark:
        """A benchmark of *runs* (not copied) known to be compatible, the
        first one named; the common metadata is computed when asked."""
        benchmark = cls.__new__(cls)
        benchmark._runs = runs
        benchmark._common = None
        benchmark._clear_cache()
        return benchmark

    def _clear_cache(self) -> None:
        self._values: tuple[Number, ...] | None = None
        self._cache: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"<Benchmark {self.get_name()!r} with {len(self._runs)} runs>"

    # --- runs -----------------------------------------------------------

    def check_run(self, run: Run) -> None:
        """Raise :class:`~perf.errors.IncompatibleRunError` unless *run* has
        the same unit, name, host, CPU and Python as the benchmark's runs."""
        if not isinstance(run, Run):
            raise TypeError(f"Run expected, got {type(run).__name__}")
        if not self._runs:
            return
        common = self._get_common_metadata()
        for key in CHECKED_KEYS:
            current = common.get(key)
            other = run._get(key)
            default = CHECKED_DEFAULTS.get(key)
            if default is not None and (current or default) == (other or default):
                # no unit (files of development versions of perf) is the default unit, as
                # get_unit() says (pyperf always wrote it); no clock is the wall clock
                continue
            if current != other:
                raise IncompatibleRunError(
                    f"benchmark {self.get_name()!r}: incompatible run: metadata {key!r} is "
                    f"{_describe(other)} in the run but {_describe(current)} in the benchmark"
                )

    def add_run(self, run: Run) -> None:
        """Append *run* after checking it is compatible with the others."""
        self.check_run(run)
        self._append(run)

    def _append(self, run: Run) -> None:
        """Append a run already checked by check_run()."""
        common = self._common
        if common is not None:
            for key in [key for key, value in common.items() if run._get(key) != value]:
                del common[key]
        self._runs.append(run)
        self._clear_cache()

    def add_runs(self, benchmark: Benchmark) -> None:
        """Append every run of another benchmark (not itself): all of them,
        or none when one is incompatible."""
        self.check_benchmark(benchmark)
        for run in benchmark._runs:
            self._append(run)

    def check_benchmark(self, benchmark: Benchmark) -> None:
        """Raise unless every run of *benchmark* could be added to this one."""
        if not isinstance(benchmark, Benchmark):
            raise TypeError(f"Benchmark expected, got {type(benchmark).__name__}")
        if benchmark is self:
            raise ResultError("cannot add a benchmark to itself")
        # The checked keys are equal in all runs of each benchmark, so
        # checking each run against this benchmark alone is enough.
        for run in benchmark._runs:
            self.check_run(run)

    def _replace_runs(self, runs: Sequence[Run]) -> None:
        if not runs:
            raise ResultError(f"benchmark {self.get_name()!r}: no run left")
        self._runs = list(runs)
        self._common = None
        self._clear_cache()

    def get_runs(self) -> list[Run]:
        return list(self._runs)

    def get_nrun(self) -> int:
        """Number of runs, calibration runs included."""
        return len(self._runs)

    def _cached(self, name: str, compute: Callable[[], T]) -> T:
        """``compute()``, computed once until the runs change."""
        try:
            value: T = self._cache[name]
        except KeyError:
            value = self._cache[name] = compute()
        return value

    def get_name(self) -> str:
        return self._cached("name", lambda: str(self._runs[0]._get("name")))

    def get_unit(self) -> str:
        return self._cached("unit", lambda: str(self._runs[0]._get("unit", DEFAULT_UNIT)))

    def get_clock(self) -> str:
        """``'wall'`` or ``'cpu'`` (``--clock``): the clock that timed the
        values (equal in every run: a checked key)."""
        return self._cached("clock", lambda: str(self._runs[0]._get("clock", DEFAULT_CLOCK)))

    def get_counter_source(self) -> str | None:
        """What counted the values of a count benchmark (``--metric
        instructions``; equal in every run: a checked key), or None."""
        source: str | None = self._cached("counter", lambda: self._runs[0]._get(COUNTER_KEY))
        return source

    def get_display_unit(self) -> str:
        """``instructions`` for a count benchmark (its unit stays pyperf's
        ``integer``), else :meth:`get_unit`: the unit of format_values()."""
        return COUNT_UNIT if self.get_counter_source() is not None else self.get_unit()

    # --- metadata -------------------------------------------------------

    def _get_common_metadata(self) -> Metadata:
        if self._common is None:
            self._common = _common_metadata(self._runs)
        return self._common

    def _get_common_value(self, key: str) -> Any:
        """``_get_common_metadata().get(key)`` (shared: never change it),
        without computing the whole common metadata when it is not known
        yet: ``compare_to`` reads 4 keys of every benchmark of two suites."""
        if self._common is not None:
            return self._common.get(key)
        values = _run_metadata(self._runs, key, None)
        first = values[0]
        # the test of common_metadata(): the first run's value, kept when no run's differs
        if first is None or any(value != first for value in values[1:]):
            return None
        return first

    def get_metadata(self) -> Metadata:
        """Metadata common to every run (a copy)."""
        return copy_metadata(self._get_common_metadata())

    def update_metadata(self, metadata: Mapping[str, Any]) -> None:
        """Set *metadata* in every run; ``inner_loops`` cannot be changed."""
        checked = parse_metadata(metadata)
        if checked:
            self._replace_runs([run._with_metadata(checked) for run in self._runs])

    # --- loops and counts -------------------------------------------------

    def _run_property(self, name: str, values_of: Callable[[list[Run]], list[Number]]) -> Number:
        """The value shared by all value runs, else their average (float)."""

        def compute() -> Number:
            runs = self._cached("value_runs", lambda: [run for run in self._runs if run._values] or self._runs)
            values = values_of(runs)
            first = values[0]
            if values.count(first) == len(values):
                return first
            return math.fsum(values) / len(values)

        return self._cached(name, compute)

    def get_loops(self) -> Number:
        return self._run_property("loops", lambda runs: list(map(int, _run_metadata(runs, "loops", 1))))

    def get_inner_loops(self) -> Number:
        return self._run_property("inner_loops", lambda runs: list(map(int, _run_metadata(runs, "inner_loops", 1))))

    def get_total_loops(self) -> Number:
        loops = self.get_loops()
        inner_loops = self.get_inner_loops()
        if type(loops) is int and type(inner_loops) is int:
            return loops * inner_loops  # the runs have the same loops and inner loops
        return self._run_property("total_loops", lambda runs: list(map(Run.get_total_loops, runs)))

    def get_nwarmup(self) -> Number:
        """Warmups per run (an average if runs differ)."""
        return self._run_property("nwarmup", lambda runs: [len(run._warmups) for run in runs])

    def get_nvalue_per_run(self) -> Number:
        return self._run_property("nvalue_per_run", lambda runs: [len(run._values) for run in runs])

    def get_nvalue(self) -> int:
        """Total number of values in all runs."""
        return len(self.get_values())

    def get_values(self) -> tuple[Number, ...]:
        if self._values is None:
            self._values = tuple(itertools.chain.from_iterable([run._values for run in self._runs]))
        return self._values

    def _get_sorted_values(self) -> list[Number]:
        """The values in increasing order (shared: never change the list).

        Every order statistic (median, percentiles, Tukey's fences) sorts
        the values; sorting them once serves them all, and the sort inside
        each of them then meets sorted input, which costs one pass.
        """
        return self._cached("sorted_values", lambda: sorted(self.get_values()))

    def get_total_duration(self) -> float:
        return self._cached("duration", lambda: math.fsum(run.get_duration() for run in self._runs))

    def get_dates(self) -> Dates:
        """``(start, end)``: first run date and last run date + its duration."""
        return self._cached("dates", lambda: _dates_of(self._runs))

    # --- statistics -------------------------------------------------------

    def _statistic(self, name: str, compute: Callable[[Sequence[Number]], float], minimum: int = 1) -> float:
        """``compute(values)``, cached.  *compute* gets the values sorted:
        the order statistics want them so, and the sums of the others are
        correctly rounded (``math.fsum``), so the order changes nothing."""
        if name not in self._cache:
            values = self._get_sorted_values()
            if len(values) < minimum:
                if not values:
                    raise ResultError(f"benchmark {self.get_name()!r} has no values (only calibration runs)")
                raise ResultError(f"benchmark {self.get_name()!r}: {name} needs at least {minimum} values")
            self._cache[name] = compute(values)
        result: float = self._cache[name]
        return result

    def mean(self) -> float:
        return self._statistic("mean", statistics.mean)

    def median(self) -> float:
        return self._statistic("median", statistics.median)

    def stdev(self) -> float:
        """Standard deviation of all values (needs two values)."""
        return self._statistic("stdev", statistics.stdev, minimum=2)

    def median_abs_dev(self) -> float:
        return self._statistic("median_abs_dev", statistics.median_abs_dev)

    def percentile(self, p: float) -> float:
        """Percentile *p* in [0, 100], interpolated between closest ranks."""
        if not 0 <= p <= 100:
            raise UsageError(f"p must be in the range [0; 100], got {p!r}")
        return self._statistic(f"percentile{p}", lambda values: statistics.percentile(values, p / 100.0))

    def get_process_means(self) -> list[float]:
        """Mean of each run's values: the unit of every confidence interval."""
        return list(self._cached("process_means", lambda: statistics.process_means(run._values for run in self._runs)))

    def required_nprocesses(self) -> int | None:
        """Processes needed for a 95 % confidence interval of 1 % of the mean.

        Computed from the spread of the per-process means; ``None`` when
        fewer than two runs have values.
        """
        means = self.get_process_means()
        if len(means) < 2:
            return None
        sigma = statistics.stdev(means) / statistics.mean(means)
        return math.ceil(4 * _Z_95**2 * sigma**2 / _TARGET_WIDTH**2)

    # --- formatting (unit-aware) ------------------------------------------

    def format_values(self, values: Sequence[Number]) -> tuple[str, ...]:
        global _format_values
        if _format_values is None:
            from perf.render.units import format_values

            _format_values = format_values
        return _format_values(self.get_display_unit(), values)

    def format_value(self, value: Number) -> str:
        return self.format_values((value,))[0]

    # --- files (pyperf API) ---------------------------------------------

    @staticmethod
    def load(file: PathOrFile) -> Benchmark:
        """Load a file holding exactly one benchmark (path, ``'-'``, file)."""
        from perf.storage import files

        return files.load_benchmark(file)

    @staticmethod
    def loads(string: str) -> Benchmark:
        from perf.storage import files

        return files.loads_benchmark(string)

    def dump(self, file: PathOrFile, compact: bool = True, replace: bool = False) -> None:
        """Write a one-benchmark suite; refuse to overwrite unless *replace*."""
        from perf.storage import files

        files.dump(self, file, compact=compact, replace=replace)


def _common_metadata(runs: Sequence[Run]) -> Metadata:
    """``common_metadata()`` of the runs' metadata, without building a dict
    per run when the runs share their inherited metadata (loaded files)."""
    splits = [storage for run in runs if isinstance(storage := run._metadata, tuple)]
    if len(splits) != len(runs) or any(split[0] is not splits[0][0] for split in splits):
        return common_metadata(run._get_metadata() for run in runs)
    # Every run is {**inherited, **own}: only keys some run has of its own
    # can differ between runs.
    own_keys = set().union(*{id(split[1]): split[1] for split in splits}.values())
    common = {}
    for key, value in runs[0]._get_metadata().items():
        if key not in own_keys or all(run._get(key) == value for run in runs):
            common[key] = value
    return common


def _run_metadata(runs: Sequence[Run], key: str, default: Any) -> list[Any]:
    """``run._get(key, default)`` of each run, looked up once when the runs
    inherit the key from the same metadata (the runs of a loaded file)."""
    storages = [run._metadata for run in runs]
    first = storages[0]
    if isinstance(first, tuple) and all(
        isinstance(storage, tuple) and storage[0] is first[0] and key not in storage[1] for storage in storages
    ):
        return [first[0].get(key, default)] * len(runs)
    return [run._get(key, default) for run in runs]


def _describe(value: Any) -> str:
    return "missing" if value is None else repr(value)


def _dates_of(runs: Sequence[Run]) -> Dates:
    """The earliest run date, and the latest run date + its duration
    (rounded up to the second)."""
    dates = [run._get("date") for run in runs]
    dated = [run for run, date in zip(runs, dates) if date is not None]
    if not dated:
        return None
    starts = [datetime.datetime.fromisoformat(date) for date in dates if date is not None]
    seconds = map(math.ceil, map(Run.get_duration, dated))
    ends = map(operator.add, starts, map(datetime.timedelta, itertools.repeat(0), seconds))
    return (min(starts), max(ends))
