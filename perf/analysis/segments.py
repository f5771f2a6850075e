"""Binary segmentation of a timeline: where its level steps.

The search of :mod:`perf.analysis.changepoints` (see there for the model):
the best split of a segment (:func:`best_split`), or when no single split
stands out, the best stretch that differs from the commits around it (a
change that reverted: :func:`best_epidemic`), each kept beyond a Bonferroni
threshold (:func:`split_threshold`); then the splits that do not hold
between their final neighbours are dropped (:func:`prune`).

*levels* are the commits' log levels, *weights* the inverse of their
variance (process error plus drift between recordings).  Commits measured
together (:mod:`perf.analysis.sessions`) share their drift instead: their
weights leave it out, and a :class:`SharedDrift` adds to a comparison of
two sets of commits the part of the shared drifts that does not cancel,
``variance * sum over groups of (share of the group in one set - share in
the other)**2``: nothing for two sets within one group, twice the
variance for two sets in two groups.

Must not: format text or print.
"""

from __future__ import annotations

import math
from typing import Sequence

from perf.analysis.distributions import normal_ppf
from perf.analysis.student_t_quantile import student_t_ppf

#: fewest commits of a segment: a busy machine hits a benchmark in two
#: recordings in a row far more often than in three
MIN_SEGMENT = 3
#: fewest commits after the last change: the newest commits are all there
#: is to say whether a change happened
MIN_EDGE_SEGMENT = 2
#: a segment shorter than this must have all its commits on its side of
#: the midpoint between the levels (longer ones: most of them)
STRICT_BELOW = 5
#: the longest stretch tried as a change that reverted (a longer one is
#: found by a single split)
LONGEST_STRETCH = 30


def weighted(levels: Sequence[float], weights: Sequence[float], indexes: Sequence[int]) -> tuple[float, float]:
    """(weighted mean, its variance) of the commits *indexes*."""
    total = sum(weights[i] for i in indexes)
    return sum(weights[i] * levels[i] for i in indexes) / total, 1.0 / total


class SharedDrift:
    """The drift that the commits of a group share (measured together):
    its *variance* (log scale) and each commit's group (None: a commit
    measured alone, whose drift is in its weight).  Prefix sums of the
    weights per group make each comparison cost one step per group."""

    def __init__(self, variance: float, groups: Sequence[int | None], weights: Sequence[float]) -> None:
        self.variance = variance
        self.totals = [0.0]
        for weight in weights:
            self.totals.append(self.totals[-1] + weight)
        self.prefix: dict[int, list[float]] = {}
        for group in {group for group in groups if group is not None}:
            sums = [0.0]
            for weight, member in zip(weights, groups):
                sums.append(sums[-1] + (weight if member == group else 0.0))
            self.prefix[group] = sums

    def extra(self, first: Sequence[range], second: Sequence[range]) -> float:
        """The variance the shared drifts add to the difference of the
        weighted means of the commits of the ranges *first* and *second*."""
        if not self.variance or not self.prefix:
            return 0.0
        totals = [sum(self.totals[part.stop] - self.totals[part.start] for part in side) for side in (first, second)]
        result = 0.0
        for sums in self.prefix.values():
            shares = [
                sum(sums[part.stop] - sums[part.start] for part in side) / total
                for side, total in zip((first, second), totals)
            ]
            result += (shares[0] - shares[1]) ** 2
        return self.variance * result


def _extra(drift: SharedDrift | None, first: Sequence[range], second: Sequence[range]) -> float:
    return drift.extra(first, second) if drift is not None else 0.0


def shortest(stop: int, count: int) -> tuple[int, int]:
    """The fewest commits before and after a split of a segment ending at
    *stop* in a timeline of *count* commits."""
    return MIN_SEGMENT, (MIN_EDGE_SEGMENT if stop == count else MIN_SEGMENT)


def best_split(
    levels: Sequence[float], weights: Sequence[float], start: int, stop: int, drift: SharedDrift | None = None
) -> tuple[float, int]:
    """(z, index) of the best split of ``[start, stop)`` (0, -1: none)."""
    total_weight = sum(weights[start:stop])
    total_sum = sum(w * y for w, y in zip(weights[start:stop], levels[start:stop]))
    best = (0.0, -1)
    left_weight = left_sum = 0.0
    before, after = shortest(stop, len(levels))
    for index in range(start, stop - after):
        left_weight += weights[index]
        left_sum += weights[index] * levels[index]
        if index + 1 - start < before:
            continue
        right_weight = total_weight - left_weight
        difference = (total_sum - left_sum) / right_weight - left_sum / left_weight
        variance = 1.0 / left_weight + 1.0 / right_weight
        if drift is not None:
            variance += drift.extra([range(start, index + 1)], [range(index + 1, stop)])
        z = abs(difference) / math.sqrt(variance)
        if z > best[0]:
            best = (z, index + 1)
    return best


def best_epidemic(
    levels: Sequence[float],
    weights: Sequence[float],
    bounds: tuple[int, int],
    longest: int,
    drift: SharedDrift | None = None,
) -> tuple[float, int, int]:
    """(z, first, stop) of the stretch ``[first, stop)`` of at most
    *longest* commits inside ``bounds`` that differs most from the commits
    around it (0, -1, -1: none): a change that reverted, which a single
    split sees only diluted."""
    start, end = bounds
    cumulative_weight, cumulative_sum = [0.0], [0.0]
    for index in range(start, end):
        cumulative_weight.append(cumulative_weight[-1] + weights[index])
        cumulative_sum.append(cumulative_sum[-1] + weights[index] * levels[index])
    total_weight, total_sum = cumulative_weight[-1], cumulative_sum[-1]
    after = shortest(end, len(levels))[1]
    best = (0.0, -1, -1)
    for first in range(MIN_SEGMENT, end - start - MIN_SEGMENT - after + 1):
        for stop in range(first + MIN_SEGMENT, min(first + longest, end - start - after) + 1):
            inside_weight = cumulative_weight[stop] - cumulative_weight[first]
            inside_sum = cumulative_sum[stop] - cumulative_sum[first]
            outside_weight = total_weight - inside_weight
            difference = inside_sum / inside_weight - (total_sum - inside_sum) / outside_weight
            variance = 1.0 / inside_weight + 1.0 / outside_weight
            if drift is not None:  # (the hot loop of the search: nothing more without shared drift)
                outside = [range(start, start + first), range(start + stop, end)]
                variance += drift.extra([range(start + first, start + stop)], outside)
            z = abs(difference) / math.sqrt(variance)
            if z > best[0]:
                best = (z, start + first, start + stop)
    return best


def segment(
    levels: Sequence[float],
    weights: Sequence[float],
    thresholds: tuple[float, float],
    drift: SharedDrift | None = None,
) -> list[int]:
    """The split points of binary segmentation (sorted); *thresholds*: of
    a split, and of a stretch of at most :data:`LONGEST_STRETCH` commits."""
    splits: list[int] = []
    pending = [(0, len(levels))]
    while pending:
        start, stop = pending.pop()
        if stop - start < sum(shortest(stop, len(levels))):
            continue
        z, index = best_split(levels, weights, start, stop, drift)
        if z > thresholds[0]:
            splits.append(index)
            pending += [(start, index), (index, stop)]
            continue
        z, first, end = best_epidemic(levels, weights, (start, stop), LONGEST_STRETCH, drift)
        if z > thresholds[1]:
            splits += [first, end]
            pending += [(start, first), (first, end), (end, stop)]
    return sorted(splits)


def split_score(
    levels: Sequence[float], weights: Sequence[float], bounds: tuple[int, int, int], drift: SharedDrift | None = None
) -> tuple[float, float, bool]:
    """(z, log ratio, whether most commits of each side are on their side
    of the midpoint) of the split at ``bounds[1]`` between its neighbours.

    The last test keeps one far commit from making a change of a short
    segment by its weight in the mean: two commits at the end, one normal
    and one hit by a load spike, have a mean far from the others, but half
    of them is not a change."""
    start, split, stop = bounds
    before, before_error = weighted(levels, weights, range(start, split))
    after, after_error = weighted(levels, weights, range(split, stop))
    middle, up = (before + after) / 2, after > before
    agree = _on_their_side(levels, range(start, split), middle, not up)
    agree = agree and _on_their_side(levels, range(split, stop), middle, up)
    shared = _extra(drift, [range(start, split)], [range(split, stop)])
    return abs(after - before) / math.sqrt(before_error + after_error + shared), after - before, agree


def _on_their_side(levels: Sequence[float], indexes: range, middle: float, above: bool) -> bool:
    """Whether most commits of a segment (all of a short one) are on its
    side of *middle*: two load spikes among three commits are not a
    change of three commits."""
    count = sum((levels[i] > middle) == above for i in indexes)
    return count == len(indexes) if len(indexes) < STRICT_BELOW else 2 * count > len(indexes)


def prune(
    levels: Sequence[float],
    weights: Sequence[float],
    splits: list[int],
    limits: tuple[float, float],
    drift: SharedDrift | None = None,
) -> list[int]:
    """Drop, weakest first, the splits that do not hold between their final
    neighbours (*limits*: z under the threshold, a log ratio within the
    band, or sides made by a few far commits)."""
    threshold, band = limits
    while splits:
        bounds = [0, *splits, len(levels)]
        scores = [
            split_score(levels, weights, (bounds[k - 1], bounds[k], bounds[k + 1]), drift)
            for k in range(1, len(bounds) - 1)
        ]
        failing = [
            (z, k) for k, (z, shift, agree) in enumerate(scores) if z <= threshold or abs(shift) < band or not agree
        ]
        if not failing:
            break
        del splits[min(failing)[1]]
    return splits


def split_threshold(count: int, family_rate: float, drift_share: float = 0.0, tests: int = 0) -> float:
    """The z a split of a timeline of *count* commits must exceed, among
    *tests* tried (default: its ``count - 1`` splits).

    *drift_share*: the share of a commit's variance that is the drift
    between recordings, itself estimated from the ``count - 1`` differences:
    the quantile is Student's t with Satterthwaite's degrees of freedom
    ``(count - 2) / drift_share²`` (the normal one when the processes'
    own, well known, noise is all there is)."""
    probability = 1 - family_rate / (2 * max(1, tests or count - 1))
    if drift_share <= 0 or count < 4:
        return normal_ppf(probability)
    return student_t_ppf(probability, (count - 2) / drift_share**2)
