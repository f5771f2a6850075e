"""``--adaptive-values``: how many values per process buy the most
precision per second (doc/design.rst, R5, Kalibera & Jones 2013).

The variance of the mean of process means with p processes of k values is
``(between + within / k) / p``; a process costs ``c_proc + k c_value``
seconds (start-up, imports, calibration, warmup, then k values).  For a
fixed time the variance is smallest with

    k = sqrt((c_proc / c_value) x (within / between))

values per process: many values when processes are expensive and values
vary mostly inside a process, few when the processes differ from each
other (then only more processes help).  perf measures the four figures on
a pilot of :data:`PILOT_PROCESSES` processes and clamps k to
[:data:`MIN_VALUES`, :data:`MAX_VALUES`]: at least 2 so that the within
variance stays measurable (R4).  The warmups are part of the cost of a
process (every process pays them whatever k).  A pilot whose between
variance comes out as zero keeps its values per process: six processes
cannot show that processes agree, and reading it as "values are all that
helps" (k = 10) cost up to 60 % of the precision per second in
``bench/runner/adaptive_values.py`` (bench/results/adaptive_values-2026-11-21.txt).

Must not: spawn processes, print, or read the clock.
"""

from __future__ import annotations

import math
from typing import Sequence

from perf.analysis.statistics import mean, variance_components
from perf.model.benchmark import Benchmark

PILOT_PROCESSES = 6
MIN_VALUES = 2
MAX_VALUES = 10


def optimal_values(between: float, within: float, process_cost: float, value_cost: float) -> int | None:
    """Values per process minimising the variance of the mean for a given
    time (see the module documentation), clamped; None when *between* is
    zero (no evidence either way: keep the values per process)."""
    if not value_cost > 0 or process_cost <= 0 or within <= 0:
        return MIN_VALUES
    if between <= 0:
        return None
    best = math.sqrt((process_cost / value_cost) * (within / between))
    return max(MIN_VALUES, min(MAX_VALUES, round(best)))


def pilot_values(benchmark: Benchmark, elapsed: Sequence[float]) -> int | None:
    """The values per process for the rest of a run, from its pilot:
    *benchmark* holds the pilot's runs, *elapsed* the wall time of each
    pilot worker (start-up included) in order.  None when the pilot cannot
    tell (fewer than 2 processes with values)."""
    runs = [run for run in benchmark.get_runs() if run.values]
    if len(runs) < 2:
        return None
    between, within = variance_components([list(run.values) for run in runs])
    # seconds per value: a value is normalised per loop iteration
    value_cost = mean([mean(run.get_raw_values()) for run in runs])
    # the calibrating worker (the first) also calibrates: leave it out
    # when there are others
    workers = list(zip(runs, elapsed))
    if len(workers) > 1:
        workers = workers[1:]
    costs = [seconds - len(run.values) * value_cost for run, seconds in workers]
    return optimal_values(between, within, mean(costs), value_cost)
