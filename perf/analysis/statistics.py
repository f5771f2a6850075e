"""Descriptive statistics over sequences of floats: the one leaf module.

Owns mean, standard deviation, median, median absolute deviation,
percentiles, geometric mean and the per-process (per-run) means that every
confidence interval of perf is built on (a worker process is the unit of
replication: its values share the process's layout, hash seed and caches, so
they are not independent; see ``doc/architecture.rst``).

Must not import anything from perf, and must not use the :mod:`statistics`
module: it computes with exact fractions, which is slow on large result
files, and importing it costs start-up time.  ``math.fsum`` gives correctly
rounded sums, which is all the precision these figures need.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

Number = float  # an int is accepted wherever a float is


def _require(values: Sequence[Number], minimum: int, what: str) -> None:
    if len(values) < minimum:
        if minimum == 1:
            raise ValueError(f"{what} requires at least one value")
        raise ValueError(f"{what} requires at least {minimum} values, got {len(values)}")


def mean(values: Sequence[Number]) -> float:
    """Arithmetic mean, with a correctly rounded sum."""
    _require(values, 1, "mean")
    return math.fsum(values) / len(values)


def variance(values: Sequence[Number], what: str = "variance") -> float:
    """Sample variance (divisor n - 1), two-pass for numerical stability."""
    _require(values, 2, what)
    centre = mean(values)
    squares = math.fsum((value - centre) ** 2 for value in values)
    return squares / (len(values) - 1)


def stdev(values: Sequence[Number]) -> float:
    """Sample standard deviation (divisor n - 1)."""
    return math.sqrt(variance(values, "standard deviation"))


def median(values: Sequence[Number]) -> float:
    """Median: the middle value, or the mean of the two middle values."""
    _require(values, 1, "median")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[middle])
    return (ordered[middle - 1] + ordered[middle]) / 2.0


def median_abs_dev(values: Sequence[Number]) -> float:
    """Median absolute deviation from the median (not scaled to sigma)."""
    _require(values, 1, "median absolute deviation")
    centre = median(values)
    return median([abs(value - centre) for value in values])


def percentile(values: Sequence[Number], fraction: float) -> float:
    """Percentile with linear interpolation between closest ranks.

    *fraction* is in [0.0, 1.0] (0.5 is the median).  This is the "R7"
    definition used by numpy's default and by pyperf.
    """
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"percentile fraction must be in [0.0, 1.0], got {fraction!r}")
    _require(values, 1, "percentile")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * fraction
    lower = math.floor(rank)
    upper = math.ceil(rank)
    if lower == upper:
        return float(ordered[lower])
    return ordered[lower] * (upper - rank) + ordered[upper] * (rank - lower)


def process_means(runs_values: Iterable[Sequence[Number]]) -> list[float]:
    """Mean of each process's values, skipping processes without values.

    A process (a run) is the unit of replication: confidence intervals and
    comparisons are computed on these means, never on the pooled values.
    """
    return [mean(values) for values in runs_values if values]


def tukey_fences(values: Sequence[Number], factor: float = 1.5) -> tuple[float, float]:
    """Tukey's fences ``(Q1 - factor * IQR, Q3 + factor * IQR)``.

    Quartiles use :func:`percentile`; 1.5 marks mild outliers, 3.0 severe ones.
    """
    q1 = percentile(values, 0.25)
    q3 = percentile(values, 0.75)
    iqr = q3 - q1
    return (q1 - factor * iqr, q3 + factor * iqr)


def count_outside(values: Iterable[Number], low: float, high: float) -> int:
    """Number of values outside the closed interval [low, high]."""
    return sum(1 for value in values if not low <= value <= high)


def variance_components(groups: Sequence[Sequence[Number]]) -> tuple[float, float]:
    """``(between, within)`` variances of values grouped by process.

    One-way random-effects ANOVA estimators (they handle groups of unequal
    sizes): *within* is the pooled within-group variance (mean square
    within), *between* is ``(MSB - MSW) / n0`` clamped at 0, with
    ``n0 = (N - sum(n_i**2) / N) / (a - 1)``.  With k values in every group,
    *between* is ``var(group means) - within / k`` (Kalibera & Jones 2013).
    Empty groups are skipped; needs two groups and one group of two values.
    """
    sizes = [len(group) for group in groups if group]
    if len(sizes) < 2:
        raise ValueError(f"variance components require at least 2 non-empty groups, got {len(sizes)}")
    total = sum(sizes)
    if total == len(sizes):
        raise ValueError("variance components require a group with at least 2 values")
    means = process_means(groups)
    grand = math.fsum(value for group in groups for value in group) / total
    between_squares = math.fsum(size * (centre - grand) ** 2 for size, centre in zip(sizes, means))
    within_squares = math.fsum(
        (value - centre) ** 2 for group, centre in zip([group for group in groups if group], means) for value in group
    )
    mean_square_between = between_squares / (len(sizes) - 1)
    within = within_squares / (total - len(sizes))
    n0 = (total - math.fsum(size * size for size in sizes) / total) / (len(sizes) - 1)
    between = max(0.0, (mean_square_between - within) / n0)
    return (between, within)


def within_slope(groups: Sequence[tuple[Sequence[Number], Sequence[Number]]]) -> tuple[float, float] | None:
    """The least-squares slope of y on x within groups (each group's own
    means taken out: what the groups share, not what sets them apart), and
    its standard error: ``(slope, standard error)``.  *groups*: one
    ``(ys, xs)`` pair of equal lengths each.  None when x does not vary
    within any group, or when fewer than 1 residual degree of freedom is left."""
    sxx = sxy = syy = 0.0
    count = 0
    for ys, xs in groups:
        if len(ys) != len(xs):
            raise ValueError("within_slope: each group needs as many y as x values")
        if not xs:
            continue
        x_centre, y_centre = mean(xs), mean(ys)
        sxx += math.fsum((x - x_centre) ** 2 for x in xs)
        sxy += math.fsum((x - x_centre) * (y - y_centre) for x, y in zip(xs, ys))
        syy += math.fsum((y - y_centre) ** 2 for y in ys)
        count += len(xs)
    df = count - sum(1 for ys, _ in groups if ys) - 1
    if sxx <= 0 or df < 1:
        return None
    slope = sxy / sxx
    residual = max(syy - slope * sxy, 0.0) / df
    return slope, math.sqrt(residual / sxx)
