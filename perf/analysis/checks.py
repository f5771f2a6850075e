"""Stability checks of one benchmark's result, returned as data.

Each finding is a :class:`Check`: a short code, the figures the renderer
needs (``perf/render/checks.py`` holds every sentence) and its level
(:attr:`Check.level`, a :class:`Level`: a warning that the result may be
unstable, advice, or information), so that the renderer does not sort the
codes itself.  Calibration runs
(runs without values) are ignored; a benchmark without values has no check.

pyperf's checks (pyperf 2.10.0, ``format_checks`` in ``pyperf/_cli.py``),
same thresholds and order:

``stdev``
    the standard deviation of all values is >= 10 % of their mean.
    values: ``(stdev, percent, mean)``
``sample_size``
    otherwise, when the per-process means say more processes are needed for
    a 95 % confidence interval of +-1 % (``Benchmark.required_nprocesses``,
    Z = 1.96, W = 1 %) than were run.  values: ``(required, nprocesses)``
``min`` / ``max``
    the minimum / maximum is >= 50 % away from the mean.
    values: ``(value, percent, mean)``, *percent* signed (``(value - mean) /
    mean``, negative when smaller)
``short_raw``
    unit ``second`` only: the shortest raw value (value x loops) is < 1 ms.
    values: ``(shortest_raw_value,)``
``too_many_runs``
    only with ``check_too_many_processes``: fewer than 75 % of the processes
    run would have been enough (advice, not a warning); never for instruction
    counts, whose processes are the hash seeds they were counted under.
    values: ``(required, nprocesses)``

Unlike pyperf, "processes" here counts runs with values: pyperf also counts
calibration runs (doc/compatibility.rst, known pyperf bugs).

perf's checks of how the result was recorded:

``incomplete``
    runs carry ``incomplete`` metadata: they were saved from a run that
    stopped before its planned processes (Ctrl-C, a failed worker), so the
    result has fewer processes than planned, and, in shuffled rounds or
    interleaved pairs, not the balance the schedule planned.  Reported
    first.  values: ``(count, nprocesses, notes)``: the processes with the
    key and the distinct notes (``interrupted after 8 of 24 processes``)

perf's process-level checks (doc/design.rst, R8 and R9):

``value_outliers``
    more than 2 % of all values are severe Tukey outliers (beyond 3 IQR
    from the quartiles).  values: ``(count, nvalues)``
``process_outlier``
    one per process whose mean is a severe Tukey outlier (3 IQR) among the
    process means; needs >= 4 processes.  values: ``(process, percent,
    process_mean, median)``: *process* is 1-based among the runs with
    values, *percent* the signed deviation from the median of process means.
``first_value_outlier``
    in more than 25 % of the processes with >= 2 values, the first value is
    a high Tukey outlier (above Q3 + 1.5 IQR of all values): the warmup was
    too short.  values: ``(count, nprocesses, suggested_warmups)``
``no_steady_state``
    runs with ``steady_state`` metadata (JIT warmup detection) report
    ``"no steady state"``.  values: ``(count, nprocesses_with_the_key)``
``steady_state_mix``
    whenever runs carry ``steady_state`` (information, not a warning).
    values: ``((kind, count), ...)``, most frequent first
``lost_cpu``
    runs carry ``cpu_share`` (a worker's share of its values' wall time on
    the CPU), the benchmark keeps the CPU (highest share >= 95 %, wall
    clock), and some processes spent more than 5 % less of their time on
    the CPU than the least disturbed one: other processes took it (a busy machine).
    values: ``(marked, nprocesses_with_the_key, involuntary_switches)``
``loop_overhead``
    runs carry ``loop_overhead`` (the empty timing loop, timed once per
    worker) and its median is more than 10 % of the median value
    (information: the value times the loop as well as the code).
    values: ``(overhead_seconds, percent_of_the_median_value)``
``precision``
    only with ``check_too_many_processes`` (the ``check`` command) and
    >= 2 processes with values (information): the half-width of the 95 %
    t interval of the mean of process means, in percent of that mean, and
    how many processes would make it +-1 % if the next ones vary as much
    (:func:`perf.analysis.intervals.processes_for_precision`).
    values: ``(half_width_percent, nprocesses, needed)``

The Tukey checks need >= 4 values and a non-zero interquartile range (with
no spread there is nothing to judge an outlier against).

Cost: one sort of the values and one of the process means; mean and stdev
come from the benchmark's cache.

Must not: produce text, print, read files, or drop values.
"""

from __future__ import annotations

import enum
import math
from collections import Counter
from typing import Any, NamedTuple, Sequence

from perf.analysis import intervals, statistics
from perf.model.benchmark import Benchmark
from perf.model.metadata import INCOMPLETE_KEY, STEADY_STATES
from perf.model.run import Number, Run

__all__ = [
    "ADVICE_CODES",
    "CODES",
    "INFO_CODES",
    "PYPERF_CODES",
    "Level",
    "Check",
    "check_benchmark",
]


class Level(enum.Enum):
    """What a check says: how the renderer lays it out."""

    #: the result may be unstable (pyperf's warning block)
    WARNING = "warning"
    #: advice that is not a sign of an unstable result (too many runs)
    ADVICE = "advice"
    #: information only (steady states, loop overhead, precision)
    INFORMATION = "information"


class Check(NamedTuple):
    """One finding: a code (see the module documentation) and its figures."""

    code: str
    values: tuple[Any, ...]

    @property
    def level(self) -> Level:
        """The :class:`Level` of the code: :data:`ADVICE_CODES` are advice,
        :data:`INFO_CODES` information, any other code (an unknown one too)
        a warning."""
        return _LEVELS.get(self.code, Level.WARNING)


#: every code, in the order check_benchmark() reports them
CODES = (
    "incomplete",
    "stdev",
    "sample_size",
    "min",
    "max",
    "short_raw",
    "value_outliers",
    "process_outlier",
    "first_value_outlier",
    "no_steady_state",
    "lost_cpu",
    "too_many_runs",
    "steady_state_mix",
    "loop_overhead",
    "precision",
)
#: the codes pyperf 2.10.0 reports too
PYPERF_CODES = frozenset({"stdev", "sample_size", "min", "max", "short_raw", "too_many_runs"})
#: advice that is not a sign of an unstable result
ADVICE_CODES = frozenset({"too_many_runs"})
#: information only
INFO_CODES = frozenset({"steady_state_mix", "loop_overhead", "precision"})
#: the level of every code that is not a warning (one lookup per check)
_LEVELS = {**dict.fromkeys(ADVICE_CODES, Level.ADVICE), **dict.fromkeys(INFO_CODES, Level.INFORMATION)}

#: pyperf's thresholds
STDEV_PERCENT = 10.0
MIN_MAX_PERCENT = 50.0
SHORTEST_RAW_VALUE = 1e-3  # seconds
TOO_MANY_RUNS_FRACTION = 0.75
#: perf's thresholds (R8, R9)
MILD_IQR = 1.5
SEVERE_IQR = 3.0
VALUE_OUTLIERS_FRACTION = 0.02
FIRST_VALUE_OUTLIERS_FRACTION = 0.25
MIN_TUKEY_VALUES = 4
MIN_OUTLIER_PROCESSES = 4
#: the share of a value the empty loop may take before perf says so (R10)
LOOP_OVERHEAD_FRACTION = 0.10
#: the half-width of the interval of the mean the precision check aims at:
#: precise enough, as the default stopping rule says (pyperf's sample_size
#: rule, kept for its output, asks for twice that)
PRECISION = intervals.PRECISE_ENOUGH


def check_benchmark(benchmark: Benchmark, check_too_many_processes: bool = False) -> list[Check]:
    """Every check that applies to *benchmark*, in the order of :data:`CODES`.

    *check_too_many_processes* adds the ``too_many_runs`` advice (pyperf's
    ``check`` command asks for it; the runner does not).
    """
    runs = [run for run in benchmark.get_runs() if run.values]
    if not runs:
        return []
    values = benchmark.get_values()
    nprocesses = len(runs)
    checks = _incomplete_check(runs)
    spread, required = _spread_checks(benchmark, values, nprocesses, check_too_many_processes)
    checks.extend(spread)
    checks.extend(_min_max_checks(benchmark, values))
    checks.extend(_short_raw_check(benchmark, runs))
    ordered = benchmark._get_sorted_values()
    checks.extend(_value_outliers_check(ordered))
    checks.extend(_process_outlier_checks(benchmark.get_process_means()))
    checks.extend(_first_value_check(benchmark, runs, ordered))
    steady_states = _steady_state_checks(runs)
    checks.extend(check for check in steady_states if check.code == "no_steady_state")
    checks.extend(_lost_cpu_check(benchmark))
    counts = benchmark.get_counter_source() is not None
    if (
        check_too_many_processes
        and required is not None
        and required < nprocesses * TOO_MANY_RUNS_FRACTION
        and not counts
    ):
        checks.append(Check("too_many_runs", (required, nprocesses)))
    checks.extend(check for check in steady_states if check.code == "steady_state_mix")
    checks.extend(_loop_overhead_check(benchmark))
    if check_too_many_processes:
        checks.extend(_precision_check(benchmark.get_process_means()))
    return checks


def _incomplete_check(runs: Sequence[Run]) -> list[Check]:
    """Processes saved from a run that stopped early."""
    notes = [run._get(INCOMPLETE_KEY) for run in runs if run._has(INCOMPLETE_KEY)]
    if not notes:
        return []
    return [Check("incomplete", (len(notes), len(runs), tuple(dict.fromkeys(notes))))]


def _lost_cpu_check(benchmark: Benchmark) -> list[Check]:
    """Processes that lost more than 5 % of their values' time to other
    processes (the workers' own evidence, perf.analysis.interference)."""
    from perf.analysis.interference import summarize

    summary = summarize(benchmark)
    if not summary.applies or not summary.marked:
        return []
    return [Check("lost_cpu", (summary.marked, summary.measured, summary.switches))]


def _loop_overhead_check(benchmark: Benchmark) -> list[Check]:
    """The empty timing loop takes more than 10 % of a value: the result
    times the loop as well as the code (doc/design.rst, R10)."""
    from perf.analysis.benchmarks import loop_overhead

    overhead = loop_overhead(benchmark)
    if overhead is None:
        return []
    median = benchmark.median()
    if median <= 0 or overhead <= LOOP_OVERHEAD_FRACTION * median:
        return []
    return [Check("loop_overhead", (overhead, overhead * 100.0 / median))]


def _precision_check(means: Sequence[float]) -> list[Check]:
    if len(means) < 2:
        return []
    interval = intervals.mean_interval(means)
    if not interval.estimate > 0:
        return []
    half_width = (interval.high - interval.estimate) * 100.0 / interval.estimate
    needed = intervals.processes_for_precision(means, PRECISION)
    return [Check("precision", (half_width, len(means), needed))]


def _spread_checks(
    benchmark: Benchmark, values: Sequence[Number], nprocesses: int, want_required: bool
) -> tuple[list[Check], int | None]:
    """pyperf's std dev check, else its sample-size check; also return the
    required number of processes when it was computed or *want_required*."""
    checks: list[Check] = []
    required: int | None = None
    if want_required:
        required = benchmark.required_nprocesses()
    if len(values) < 2:
        return checks, required
    mean = benchmark.mean()
    stdev = benchmark.stdev()
    percent = stdev * 100.0 / mean
    if percent >= STDEV_PERCENT:
        checks.append(Check("stdev", (stdev, percent, mean)))
        return checks, required
    if not want_required:
        required = benchmark.required_nprocesses()
    if required is not None and required > nprocesses:
        checks.append(Check("sample_size", (required, nprocesses)))
    return checks, required


def _min_max_checks(benchmark: Benchmark, values: Sequence[Number]) -> list[Check]:
    mean = benchmark.mean()
    checks = []
    for code, value in (("min", min(values)), ("max", max(values))):
        percent = (value - mean) * 100.0 / mean
        if abs(percent) >= MIN_MAX_PERCENT:
            checks.append(Check(code, (value, percent, mean)))
    return checks


def _short_raw_check(benchmark: Benchmark, runs: Sequence[Run]) -> list[Check]:
    if benchmark.get_unit() != "second":
        return []
    # loops > 0, so the smallest raw value of a run is its smallest value x loops
    total_loops = benchmark.get_total_loops()
    if isinstance(total_loops, int):  # the same in every run with values
        shortest = min(benchmark.get_values()) * total_loops
    else:
        shortest = min(min(run.values) * run.get_total_loops() for run in runs)
    if shortest < SHORTEST_RAW_VALUE:
        return [Check("short_raw", (shortest,))]
    return []


def _fences(ordered: Sequence[Number], factor: float) -> tuple[float, float] | None:
    """Tukey's fences of sorted values (``statistics.tukey_fences``: linear
    time on sorted input); ``None`` with fewer than 4 values or no spread."""
    if len(ordered) < MIN_TUKEY_VALUES:
        return None
    low, high = statistics.tukey_fences(ordered, factor)
    if not low < high:  # IQR = 0
        return None
    return low, high


def _value_outliers_check(ordered: Sequence[Number]) -> list[Check]:
    fences = _fences(ordered, SEVERE_IQR)
    if fences is None:
        return []
    count = statistics.count_outside(ordered, *fences)
    if count > VALUE_OUTLIERS_FRACTION * len(ordered):
        return [Check("value_outliers", (count, len(ordered)))]
    return []


def _process_outlier_checks(means: Sequence[float]) -> list[Check]:
    if len(means) < MIN_OUTLIER_PROCESSES:
        return []
    ordered = sorted(means)
    fences = _fences(ordered, SEVERE_IQR)
    if fences is None:
        return []
    low, high = fences
    median = statistics.median(ordered)
    return [
        Check("process_outlier", (process, (mean - median) * 100.0 / median, mean, median))
        for process, mean in enumerate(means, 1)
        if not low <= mean <= high
    ]


def _first_value_check(benchmark: Benchmark, runs: Sequence[Run], ordered: Sequence[Number]) -> list[Check]:
    fences = _fences(ordered, MILD_IQR)
    if fences is None:
        return []
    high = fences[1]
    candidates = [run.values for run in runs if len(run.values) >= 2]
    count = sum(1 for values in candidates if values[0] > high)
    if candidates and count > FIRST_VALUE_OUTLIERS_FRACTION * len(candidates):
        suggested = max(2, math.ceil(benchmark.get_nwarmup()) + 1)
        return [Check("first_value_outlier", (count, len(candidates), suggested))]
    return []


def _steady_state_checks(runs: Sequence[Run]) -> list[Check]:
    kinds = [run._get("steady_state") for run in runs]
    counts = Counter(str(kind) for kind in kinds if kind is not None)
    if not counts:
        return []
    checks = []
    stuck = counts.get("no steady state", 0)
    if stuck:
        checks.append(Check("no_steady_state", (stuck, sum(counts.values()))))

    def order(item: tuple[str, int]) -> tuple[int, int, str]:
        kind, count = item
        rank = STEADY_STATES.index(kind) if kind in STEADY_STATES else len(STEADY_STATES)
        return (-count, rank, kind)

    checks.append(Check("steady_state_mix", tuple(sorted(counts.items(), key=order))))
    return checks
