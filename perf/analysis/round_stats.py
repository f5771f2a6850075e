"""The statistics pytest-benchmark shows and saves for one benchmark's rounds.

pytest-benchmark (5.2) keeps one value per round (seconds per call) and
derives sixteen figures from them; its JSON files, its table and the
``benchmark.stats.stats`` object of its fixture carry them under fixed
names.  perf's pytest plugin writes and reads those files, so it computes
the same figures by the same definitions, including the ones that differ
from perf's own: quartiles by a method of their own (not the "R7"
percentile of :func:`perf.analysis.statistics.percentile`), outlier counts
over the pooled rounds, and ``hd15iqr`` as pytest-benchmark computes it
(see :func:`round_stats`).

Must not: import anything beyond the standard library and
:mod:`perf.analysis`, format text, or print.
"""

from __future__ import annotations

import bisect
import math
from typing import Dict, Sequence, Union

from perf.analysis.statistics import count_outside, mean, median, stdev

#: The figures, in pytest-benchmark's order (its table columns and JSON keys).
FIELDS = (
    "min",
    "max",
    "mean",
    "stddev",
    "rounds",
    "median",
    "iqr",
    "q1",
    "q3",
    "iqr_outliers",
    "stddev_outliers",
    "outliers",
    "ld15iqr",
    "hd15iqr",
    "ops",
    "total",
)

RoundStats = Dict[str, Union[float, int, str]]


def quartiles(ordered: Sequence[float]) -> tuple[float, float]:
    """``(q1, q3)`` of sorted values, as pytest-benchmark computes them.

    One value is both quartiles.  An even count splits the values into two
    halves and takes the median of each.  An odd count weights the two
    values around each quarter position, 1/4 and 3/4 (the "method 3" of
    the Wikipedia article on quartiles): with ``n = 4k + 1`` values,
    ``q1 = x[k-1]/4 + 3 x[k]/4``; with ``n = 4k + 3``, ``q1 = 3 x[k]/4 +
    x[k+1]/4``, and ``q3`` mirrors it from the top.
    """
    count = len(ordered)
    if count == 0:
        raise ValueError("quartiles require at least one value")
    if count == 1:
        return float(ordered[0]), float(ordered[0])
    if count % 2 == 0:
        half = count // 2
        return median(ordered[:half]), median(ordered[half:])
    k, remainder = divmod(count, 4)
    if remainder == 1:
        return (0.25 * ordered[k - 1] + 0.75 * ordered[k], 0.75 * ordered[3 * k] + 0.25 * ordered[3 * k + 1])
    return (0.75 * ordered[k] + 0.25 * ordered[k + 1], 0.25 * ordered[3 * k + 1] + 0.75 * ordered[3 * k + 2])


def round_stats(data: Sequence[float]) -> RoundStats:
    """The sixteen figures of :data:`FIELDS` for per-round values *data*.

    The definitions are pytest-benchmark's:

    * ``stddev`` is the sample standard deviation, 0.0 for a single round;
    * ``q1``, ``q3``: :func:`quartiles`; ``iqr = q3 - q1``;
    * ``iqr_outliers``: values outside ``[q1 - 1.5 iqr, q3 + 1.5 iqr]``;
      ``stddev_outliers``: values outside ``[mean - stddev, mean +
      stddev]``; ``outliers`` is the text ``"<stddev_outliers>;<iqr_outliers>"``;
    * ``ld15iqr``: the lowest value at or above ``q1 - 1.5 iqr``;
    * ``hd15iqr``: the highest value when none lies above ``q3 + 1.5
      iqr``, otherwise the *lowest value above it*: pytest-benchmark's
      docstring promises the highest value within the fence, but its
      numbers are these, and saved files must match them;
    * ``total`` is the sum of the values (a sum of seconds per call, not
      the wall time of the rounds); ``ops = rounds / total``, 0.0 when
      the total is 0.

    A single round gives its value for every quartile and fence figure.
    Raises :exc:`ValueError` for no values.
    """
    if not data:
        raise ValueError("round statistics require at least one value")
    ordered = sorted(data)
    rounds = len(ordered)
    centre = mean(ordered)
    deviation = stdev(ordered) if rounds > 1 else 0.0
    q1, q3 = quartiles(ordered)
    iqr = q3 - q1
    low_fence = q1 - 1.5 * iqr
    high_fence = q3 + 1.5 * iqr
    if rounds == 1:
        lowest = highest = float(ordered[0])
    else:
        lowest = float(ordered[bisect.bisect_left(ordered, low_fence)])
        above = bisect.bisect_right(ordered, high_fence)
        highest = float(ordered[min(above, rounds - 1)])
    iqr_outliers = count_outside(ordered, low_fence, high_fence)
    stddev_outliers = count_outside(ordered, centre - deviation, centre + deviation)
    total = math.fsum(ordered)
    return {
        "min": float(ordered[0]),
        "max": float(ordered[-1]),
        "mean": centre,
        "stddev": deviation,
        "rounds": rounds,
        "median": median(ordered),
        "iqr": iqr,
        "q1": q1,
        "q3": q3,
        "iqr_outliers": iqr_outliers,
        "stddev_outliers": stddev_outliers,
        "outliers": f"{stddev_outliers};{iqr_outliers}",
        "ld15iqr": lowest,
        "hd15iqr": highest,
        "ops": rounds / total if total else 0.0,
        "total": total,
    }
