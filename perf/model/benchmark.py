"""Benchmark: the ordered runs of one benchmark name.

Adding a run checks that it is compatible (same unit, name, host, Python...).
Derived figures (loops, dates, mean, stdev...) are one-line calls into
``perf.analysis.statistics`` and are cached until the runs change.

Must not: do I/O (``load``/``dump`` are one-line lazy calls into
``perf.storage.files``, kept for pyperf's API).
"""

from __future__ import annotations

import datetime
import math
from typing import IO, Any, Callable, Mapping, Optional, Sequence, Union

from perf.analysis import statistics
from perf.errors import IncompatibleRunError, ResultError, UsageError
from perf.model.metadata import CHECKED_KEYS, DEFAULT_UNIT, Metadata, common_metadata, copy_metadata, parse_metadata
from perf.model.run import Number, Run

PathOrFile = Union[str, bytes, "IO[str]"]
Dates = Optional[tuple[datetime.datetime, datetime.datetime]]

#: z-score of a two-sided 95 % interval, and the interval width (1 % of the
#: mean) used by :meth:`Benchmark.required_nprocesses`
_Z_95 = 1.96
_TARGET_WIDTH = 0.01


class Benchmark:
    """The runs of one benchmark; the first run must have ``name`` metadata."""

    def __init__(self, runs: Sequence[Run]) -> None:
        if not runs:
            raise ResultError("a benchmark needs at least one run")
        first = runs[0]
        if not isinstance(first, Run):
            raise TypeError(f"Run expected, got {type(first).__name__}")
        if "name" not in first._metadata:
            raise ResultError("a benchmark must have a name: the first run has no 'name' metadata")
        self._runs: list[Run] = []
        self._common: Metadata | None = None
        self._clear_cache()
        for run in runs:
            self.add_run(run)

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
            other = run._metadata.get(key)
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
        if self._runs:
            common = self._get_common_metadata()
            for key in [key for key, value in common.items() if run._metadata.get(key) != value]:
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

    def get_name(self) -> str:
        return str(self._runs[0]._metadata["name"])

    def get_unit(self) -> str:
        return str(self._runs[0]._metadata.get("unit", DEFAULT_UNIT))

    # --- metadata -------------------------------------------------------

    def _get_common_metadata(self) -> Metadata:
        if self._common is None:
            self._common = common_metadata(run._metadata for run in self._runs)
        return self._common

    def get_metadata(self) -> Metadata:
        """Metadata common to every run (a copy)."""
        return copy_metadata(self._get_common_metadata())

    def update_metadata(self, metadata: Mapping[str, Any]) -> None:
        """Set *metadata* in every run; ``inner_loops`` cannot be changed."""
        checked = parse_metadata(metadata)
        if checked:
            self._replace_runs([run._with_metadata(checked) for run in self._runs])

    # --- loops and counts -------------------------------------------------

    def _run_property(self, get: Callable[[Run], Number]) -> Number:
        """The value shared by all value runs, else their average (float)."""
        runs = [run for run in self._runs if not run.is_calibration()] or self._runs
        values = [get(run) for run in runs]
        if all(value == values[0] for value in values):
            return values[0]
        return math.fsum(values) / len(values)

    def get_loops(self) -> Number:
        return self._run_property(Run.get_loops)

    def get_inner_loops(self) -> Number:
        return self._run_property(Run.get_inner_loops)

    def get_total_loops(self) -> Number:
        return self._run_property(Run.get_total_loops)

    def get_nwarmup(self) -> Number:
        """Warmups per run (an average if runs differ)."""
        return self._run_property(lambda run: len(run.warmups))

    def get_nvalue_per_run(self) -> Number:
        return self._run_property(lambda run: len(run.values))

    def get_nvalue(self) -> int:
        """Total number of values in all runs."""
        return len(self.get_values())

    def get_values(self) -> tuple[Number, ...]:
        if self._values is None:
            self._values = tuple(value for run in self._runs for value in run._values)
        return self._values

    def get_total_duration(self) -> float:
        return math.fsum(run.get_duration() for run in self._runs)

    def get_dates(self) -> Dates:
        """``(start, end)``: first run date and last run date + its duration."""
        if "dates" not in self._cache:
            self._cache["dates"] = _dates_of(self._runs)
        dates: Dates = self._cache["dates"]
        return dates

    # --- statistics -------------------------------------------------------

    def _statistic(self, name: str, compute: Callable[[tuple[Number, ...]], float], minimum: int = 1) -> float:
        if name not in self._cache:
            values = self.get_values()
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
        return statistics.process_means(run._values for run in self._runs)

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
        from perf.render.units import format_values

        return format_values(self.get_unit(), values)

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


def _describe(value: Any) -> str:
    return "missing" if value is None else repr(value)


def _dates_of(runs: Sequence[Run]) -> Dates:
    start: datetime.datetime | None = None
    end: datetime.datetime | None = None
    for run in runs:
        date = run.get_date()
        if date is None:
            continue
        run_start = datetime.datetime.fromisoformat(date)
        run_end = run_start + datetime.timedelta(seconds=math.ceil(run.get_duration()))
        if start is None or run_start < start:
            start = run_start
        if end is None or run_end > end:
            end = run_end
    if start is None or end is None:
        return None
    return (start, end)
