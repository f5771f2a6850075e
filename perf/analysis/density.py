"""Estimates of the shape of a distribution: a Gaussian kernel density
estimate and histogram bin edges, for the figures of :mod:`perf.render.plots`.

* :func:`silverman_bandwidth`: Silverman's rule of thumb,
  ``0.9 min(s, IQR / 1.34) n^(-1/5)`` (the standard deviation alone when
  the interquartile range is 0: many ties);
* :func:`gaussian_kde`: the density on an evenly spaced grid, as two lists
  ``xs`` and ``ys`` (empty when the values do not spread: one value, or
  all equal, and no bandwidth given);
* :func:`histogram_edges`: bin edges shared by several samples (the
  narrowest Freedman-Diaconis width of the samples, Sturges' count when
  every IQR is 0, a fixed number of bins at most; one narrow bin around
  values that are all equal);
* :func:`axis_shape`: both for samples drawn on one axis, as an
  :class:`AxisShape` that a figure only draws.

Must not: import anything beyond the standard library and
:mod:`perf.analysis` (no numpy: the core has no dependency but psutil),
format text, or print.
"""

from __future__ import annotations

import bisect
import math
from typing import NamedTuple, Sequence, Union

from perf.analysis.statistics import percentile, stdev

Number = Union[int, float]

#: grid points of a density curve
DEFAULT_POINTS = 200
#: the curve extends this many bandwidths beyond the extreme values
TAIL_BANDWIDTHS = 3.0
#: kernels are summed over the values within this many bandwidths (the
#: rest adds less than exp(-32) of a kernel's peak)
KERNEL_REACH = 8.0
#: the most bins :func:`histogram_edges` returns by default
MAX_BINS = 50
#: the relative half-width of the single bin around values that are all equal
SINGLE_BIN_HALF_WIDTH = 0.01

_SQRT_2PI = math.sqrt(2.0 * math.pi)

__all__ = ["AxisShape", "axis_shape", "gaussian_kde", "histogram_edges", "silverman_bandwidth"]


def _check(values: Sequence[Number]) -> list[float]:
    if not values:
        raise ValueError("a density needs at least one value")
    result = [float(value) for value in values]
    if not all(math.isfinite(value) for value in result):
        raise ValueError("a density needs finite values")
    return result


def _interquartile_range(values: Sequence[float]) -> float:
    return percentile(values, 0.75) - percentile(values, 0.25)


def silverman_bandwidth(values: Sequence[Number]) -> float:
    """Silverman's rule of thumb for a Gaussian kernel; 0.0 for one value
    or values that are all equal."""
    checked = _check(values)
    if len(checked) < 2:
        return 0.0
    spread = stdev(checked)
    iqr = _interquartile_range(checked)
    if iqr > 0:
        spread = min(spread, iqr / 1.34)
    return 0.9 * spread * math.pow(len(checked), -0.2)


def _grid(low: float, high: float, points: int) -> list[float]:
    if points < 2:
        raise ValueError(f"a density grid needs at least 2 points, got {points}")
    step = (high - low) / (points - 1)
    return [low + step * index for index in range(points - 1)] + [high]


def gaussian_kde(
    values: Sequence[Number],
    bandwidth: float | None = None,
    points: int = DEFAULT_POINTS,
    low: float | None = None,
    high: float | None = None,
) -> tuple[list[float], list[float]]:
    """The Gaussian kernel density estimate of *values*: ``(xs, ys)``,
    *points* evenly spaced positions from *low* to *high* (default: the
    extreme values +- 3 bandwidths) and the density at each (its integral
    over the real line is 1).

    *bandwidth* defaults to :func:`silverman_bandwidth`; when that is 0
    (one value, or all values equal) there is no density to draw and the
    result is ``([], [])``.
    """
    ordered = sorted(_check(values))
    width = silverman_bandwidth(ordered) if bandwidth is None else bandwidth
    if not width >= 0 or math.isinf(width):
        raise ValueError(f"the bandwidth must be a finite number >= 0, got {bandwidth!r}")
    if width == 0:
        return [], []
    start = ordered[0] - TAIL_BANDWIDTHS * width if low is None else low
    stop = ordered[-1] + TAIL_BANDWIDTHS * width if high is None else high
    if not start < stop:
        raise ValueError(f"the grid needs low < high, got {start!r} and {stop!r}")
    xs = _grid(start, stop, points)
    scale = 1.0 / (len(ordered) * width * _SQRT_2PI)
    reach = KERNEL_REACH * width
    ys = []
    for x in xs:
        first = bisect.bisect_left(ordered, x - reach)
        last = bisect.bisect_right(ordered, x + reach)
        total = math.fsum(math.exp(-0.5 * ((x - value) / width) ** 2) for value in ordered[first:last])
        ys.append(total * scale)
    return xs, ys


def _freedman_diaconis_width(values: Sequence[float]) -> float:
    """``2 IQR n^(-1/3)``; 0 when the IQR is 0."""
    return 2.0 * _interquartile_range(values) * math.pow(len(values), -1.0 / 3.0)


def histogram_edges(samples: Sequence[Sequence[Number]], max_bins: int = MAX_BINS) -> list[float]:
    """Bin edges for histograms of *samples* drawn on one axis (the values
    of one benchmark in several files): equal bins that span every value,
    as narrow as the narrowest Freedman-Diaconis width ``2 IQR n^(-1/3)``
    of the samples (so that two distant samples still get bins of their
    own size; Sturges' ``log2(n) + 1`` bins of the pooled values when every
    IQR is 0), between 1 and *max_bins* bins.  Values that are all equal
    get one bin of +-1 % around them (+-1 around 0)."""
    if max_bins < 1:
        raise ValueError(f"max_bins must be >= 1, got {max_bins}")
    checked = [_check(sample) for sample in samples if sample]
    if not checked:
        raise ValueError("a histogram needs at least one value")
    pooled = sorted(value for sample in checked for value in sample)
    smallest, largest = pooled[0], pooled[-1]
    if smallest == largest:
        half = abs(smallest) * SINGLE_BIN_HALF_WIDTH or 1.0
        return [smallest - half, largest + half]
    widths = [width for width in map(_freedman_diaconis_width, checked) if width > 0]
    # Sturges when no sample spreads between its quartiles
    wanted = (largest - smallest) / min(widths) if widths else math.log2(len(pooled)) + 1
    count = max(1, min(math.ceil(wanted), max_bins))
    return _grid(smallest, largest, count + 1)


class AxisShape(NamedTuple):
    """Samples drawn on one axis (the values of one benchmark in several
    files), with their shared histogram bins and density curves."""

    #: each sample's values, as floats
    samples: list[list[float]]
    #: :func:`histogram_edges` of the samples that spread (min != max);
    #: empty when none does
    edges: list[float]
    #: each sample's :func:`gaussian_kde` ``(xs, ys)``; ``([], [])`` for a
    #: sample that does not spread (a vertical line, not a curve)
    densities: list[tuple[list[float], list[float]]]


def axis_shape(samples: Sequence[Sequence[Number]]) -> AxisShape:
    """The bins and densities of *samples* (each non-empty) drawn on one axis."""
    floats = [[float(value) for value in sample] for sample in samples]
    spreads = [min(sample) != max(sample) for sample in floats]
    spread = [sample for sample, spreads_out in zip(floats, spreads) if spreads_out]
    edges = histogram_edges(spread) if spread else []
    densities = [gaussian_kde(sample) if spreads_out else ([], []) for sample, spreads_out in zip(floats, spreads)]
    return AxisShape(floats, edges, densities)
