"""Confidence intervals of a mean: Student's t interval.

``mean_interval`` is the textbook two-sided interval
``mean ± t(1 - (1 - confidence) / 2, n - 1) · s / √n`` (Student 1908; e.g.
NIST/SEMATECH e-Handbook of Statistical Methods, §7.2.2.1), with the t
quantile from :mod:`perf.analysis.distributions`.

``benchmark_mean_interval`` applies it to a benchmark's per-process means,
never to the pooled values: values from one worker process share its memory
layout, hash seed and caches, so they are not independent, and an interval
over pooled values is too narrow (doc/design.rst, R1: at a
nominal 95 %, pooled intervals covered the truth 83-87 % of the time,
intervals over process means 95-96 %).

``geometric_mean_interval`` is the same t interval on the logarithms,
back-transformed: an interval of the geometric mean that is never below
zero, and that widens on the slow side as timings do (a benchmark can be
twice as slow, it cannot be a whole mean faster).  With 2-3 processes the
arithmetic interval of a noisy benchmark reached below zero (``95% CI:
-87.7 ns .. 458.7 ns``); the log interval of the same process means is
positive whatever the spread.  It is the scale ``compare_to`` already
works on (the ratio of geometric means of process means, doc/design.rst,
R2).  ``benchmark_log_interval`` applies it to a benchmark's process
means: the interval of the result line.

Must not: format text, or pool the values of different processes.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

from perf.analysis import statistics
from perf.analysis.student_t_quantile import student_t_ppf
from perf.model.benchmark import Benchmark

__all__ = [
    "Interval",
    "benchmark_log_interval",
    "benchmark_mean_interval",
    "geometric_mean_interval",
    "mean_interval",
    "processes_for_precision",
    "scaled_count",
    "PRECISE_ENOUGH",
]

#: the most processes processes_for_precision() ever answers
MAX_PROCESSES = 100_000
#: "precise enough": the 95 % interval of the mean of process means within
#: +-1 % of it.  The one definition: the default stopping rule stops there
#: (perf.measure.parent.stopping), and the checks that say a result lacks
#: processes (sample_size, precision) judge by it, so that a run that
#: stopped on precision never warns that it lacks samples
PRECISE_ENOUGH = 0.01


class Interval(NamedTuple):
    """A two-sided confidence interval around an estimate."""

    #: the point estimate (here: the mean)
    estimate: float
    #: lower bound
    low: float
    #: upper bound
    high: float
    #: confidence level, e.g. 0.95
    confidence: float
    #: number of observations the interval is built on
    n: int


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:  # also rejects NaN
        raise ValueError(f"confidence must be between 0 and 1 (exclusive), got {confidence!r}")


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """Student t interval of the mean of *values* (at least two).

    Raise :class:`ValueError` when there are fewer than two values or when
    *confidence* is not strictly between 0 and 1.
    """
    _check_confidence(confidence)
    n = len(values)
    if n < 2:
        raise ValueError(f"a confidence interval of the mean needs at least 2 values, got {n}")
    estimate = statistics.mean(values)
    # the lower tail probability (1 - confidence) / 2 is more precise than
    # 1 - (1 - confidence) / 2 for high confidence levels
    t = -student_t_ppf((1.0 - confidence) / 2.0, n - 1)
    half_width = t * statistics.stdev(values) / math.sqrt(n)
    return Interval(estimate, estimate - half_width, estimate + half_width, confidence, n)


def benchmark_mean_interval(benchmark: Benchmark, confidence: float = 0.95) -> Interval | None:
    """t interval of the mean of the benchmark's per-process means.

    Each run with values contributes the mean of its values; calibration runs
    (no values) are skipped.  ``None`` when fewer than two runs have values.
    """
    _check_confidence(confidence)
    means = benchmark.get_process_means()
    if len(means) < 2:
        return None
    return mean_interval(means, confidence)


def geometric_mean_interval(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """Student t interval of the mean of ``log(values)``, back-transformed:
    the geometric mean of *values* (at least two, all > 0 and finite) and
    an interval around it with both bounds > 0.

    Raise :class:`ValueError` for fewer than two values, a value that is
    not a finite number > 0, or a *confidence* not strictly between 0 and 1.
    """
    if any(not value > 0 or math.isinf(value) for value in values):
        raise ValueError("a geometric mean interval needs values that are finite numbers > 0")
    logs = mean_interval([math.log(value) for value in values], confidence)
    return Interval(math.exp(logs.estimate), math.exp(logs.low), math.exp(logs.high), confidence, logs.n)


def benchmark_log_interval(benchmark: Benchmark, confidence: float = 0.95) -> Interval | None:
    """:func:`geometric_mean_interval` of the benchmark's per-process means
    (the interval of the result line).

    ``None`` when fewer than two runs have values.  When a process mean is
    not > 0 (a counter that can be 0) there is no logarithm: the
    arithmetic interval of :func:`benchmark_mean_interval` is returned.
    """
    _check_confidence(confidence)
    means = benchmark.get_process_means()
    if len(means) < 2:
        return None
    if any(not mean > 0 or math.isinf(mean) for mean in means):
        return mean_interval(means, confidence)
    return geometric_mean_interval(means, confidence)


def processes_for_precision(values: Sequence[float], precision: float = 0.01, confidence: float = 0.95) -> int | None:
    """How many processes would make the *confidence* t interval of the
    mean of process means at most +-*precision* of the mean, if the next
    processes vary as much as *values* (the process means so far).

    The smallest n with ``t(n - 1) s / sqrt(n) <= precision * mean``, at
    least 2, at most :data:`MAX_PROCESSES`; ``None`` with fewer than two
    process means.  Unlike pyperf's estimate (a normal quantile, doc/compatibility.rst,
    known pyperf bugs) it keeps the t quantile, which matters below ~30.
    """
    _check_confidence(confidence)
    if not precision > 0:
        raise ValueError(f"precision must be > 0, got {precision!r}")
    if len(values) < 2:
        return None
    target = precision * abs(statistics.mean(values))
    spread = statistics.stdev(values)
    if spread == 0:
        return 2
    if target == 0:
        return MAX_PROCESSES

    def half_width(n: int) -> float:
        return -student_t_ppf((1.0 - confidence) / 2.0, n - 1) * spread / math.sqrt(n)

    # the normal approximation is a lower bound: t > z
    z = -student_t_ppf((1.0 - confidence) / 2.0, math.inf)
    n = max(2, math.ceil((z * spread / target) ** 2))
    if n >= MAX_PROCESSES:
        return MAX_PROCESSES
    while half_width(n) > target and n < MAX_PROCESSES:
        n += 1
    return n


def scaled_count(count: int, precision: float, target: float, ratio: bool = False) -> int | None:
    """About how many processes (or pairs) would bring an interval that
    reached +-*precision* (a fraction of the estimate) with *count* of them
    down to +-*target*, if the next ones vary as much: the half-width
    shrinks as 1/sqrt(n).  With *ratio* the precision is the one of a ratio
    (``--compare-to``), whose interval is built on the log scale, and the
    log half-widths are scaled.  The shrinking t quantile is ignored: the
    answer errs on the high side, by less than 10 % from 10 processes on.

    At least ``count + 1`` when *precision* is above *target*, at most
    :data:`MAX_PROCESSES`; ``None`` when *precision* is not finite (fewer
    than two processes).
    """
    if not target > 0:
        raise ValueError(f"target must be > 0, got {target!r}")
    if not math.isfinite(precision):
        return None
    factor = math.log1p(precision) / math.log1p(target) if ratio else precision / target
    if factor <= 1:
        return count
    needed = count * factor**2
    if needed >= MAX_PROCESSES:
        return MAX_PROCESSES
    return max(count + 1, math.ceil(needed))
