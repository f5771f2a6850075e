"""Per-process steady-state detection for JIT runtimes (doc/design.rst, R8).

A JIT worker runs values until a steady segment is found (or a time cap is
hit, which is the caller's business): every :data:`WINDOW` values it calls
:func:`classify` on all the values so far, and stops warming up once the
last segment is at least ``2 * WINDOW`` values long.  This module only
decides, and never fails on the shape of the data: a process without steady
state is reported as such, with the start of its last segment, so that the
caller can keep that segment and warn.

Changepoints (:func:`changepoints`)
    PELT, *Pruned Exact Linear Time* (Killick, Fearnhead and Eckley,
    "Optimal detection of changepoints with a linear computational cost",
    JASA 107(500), 2012), on the logarithms of the values (durations are
    multiplicative: in logs a 5 % change has the same size at any speed).
    The cost of a segment of k values is twice its Gaussian negative
    log-likelihood with its own mean *and* variance, maximised under
    ``variance >= floor``::

        cost = k ln v + S / v - k     S: sum of squared deviations from the
                                      mean, v = max(S / k, floor)

    that is ``k ln(S / k)`` for any segment that is not degenerate (the
    constant ``k (1 + ln 2 pi)`` is dropped: segment lengths add up to n).
    The floor, ``max(1e-9, 1e-5 x variance of all the log values)``, keeps
    a run of identical values (a coarse timer, a constant sequence) from
    costing minus infinity; a constant sequence has no changepoint.  1e-9
    is the variance of a rounding to 1e-4 of the value, the resolution that
    loop calibration guarantees; values rounded much more coarsely than
    that can show spurious changepoints on runs of equal values.

    The penalty per changepoint defaults to ``15 ln n`` (warmup_stats).
    Because the cost is a constrained maximum likelihood, splitting a
    segment never raises it, so PELT's pruning is exact with K = 0; a start
    that the pruning rule rejects at time t is only dropped from time
    ``t + min_segment`` on, which keeps it exact with a minimum segment
    length.  Ties go to the earliest changepoint.  Cost: linear when there
    are changes to prune against, quadratic at worst (flat data, where this
    penalty prunes nothing): about 12 ms for n = 300 and 0.13 s for
    n = 1000 in CPython.

Classification (:func:`classify`), after Barrett, Bolz-Tereick, Killick,
Mount and Tratt, "Virtual Machine Warmup Blows Hot and Cold", OOPSLA 2017
(krun / warmup_stats):

* *no steady state*: the last segment is shorter than ``2 * window`` values
  (a changepoint falls in the final stretch), including any sequence of
  fewer than ``2 * window`` values;
* *flat*: no changepoint at all;
* *slowdown*: an earlier segment is faster than the final one, beyond the
  equivalence rule below;
* *warmup*: otherwise: the final segment is the fastest, or equivalent to
  every faster one.

Outliers.  Like warmup_stats, :func:`classify` leaves isolated outliers out
of the changepoint detection (the Gaussian cost takes a segment free of GC
spikes for a different regime).  A log value is an outlier when it is
further than ``8 x`` the median absolute successive difference of the
values around it (about 7.6 sigma for Gaussian noise, Barrett's
``3 x (90th - 10th percentile)`` is 7.7 sigma) from both the median of the
``2 x min_segment`` values before it and that of the values after it (one
side only at the ends), so that a level change is not an outlier.  It is left out when at most a
quarter of its neighbours (``min_segment // 2`` on each side) are outliers
too: bursts and new levels stay, and so do the leading outliers, the first
values of a warmup.  Changepoints found on the remaining values are mapped
back to indexes of the values (a left-out value belongs to the segment of
the kept value before it).

Equivalence rule.  The final segment is *slower* than an earlier one when
it is slower both by its mean and by its median (of the log values, without
outliers), each by more than ``max(ln 1.01, 2 x standard error of the
difference of the means)``: a difference under 1 %, or within the noise,
is no difference.  The 1 % plays the part of warmup_stats' ``--delta``;
the standard error keeps a change of variance alone (same speed, less
noise) from making a slowdown; the median keeps slow values the outlier
rule left in (bursts) from making one.  A slowdown that only shows in the
slow tail (median unchanged) is thus reported as a warmup.

Must not: print, spawn processes, import anything outside the stdlib.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

FLAT = "flat"
WARMUP = "warmup"
SLOWDOWN = "slowdown"
NO_STEADY_STATE = "no steady state"
#: every classification, from the best to the worst
KINDS = (FLAT, WARMUP, SLOWDOWN, NO_STEADY_STATE)

#: values between two changepoint detections; the steady segment must be
#: at least twice as long
WINDOW = 10
#: shortest segment between two changepoints
MIN_SEGMENT = 10

#: the default penalty per changepoint is this times ln(n) (warmup_stats)
PENALTY_FACTOR = 15.0
#: smallest segment variance of the log values, absolute (rounding to a
#: relative 1e-4, the resolution loop calibration guarantees) ...
ABSOLUTE_VARIANCE_FLOOR = 1e-9
#: ... and relative to the variance of all the log values
RELATIVE_VARIANCE_FLOOR = 1e-5
#: a log value further from the median of the values before it, and from
#: the median of the values after it, than this times the median absolute
#: successive difference of the values around it is an outlier: 7.6 sigma
#: for Gaussian noise, like Barrett 2017's 3 x (90th - 10th percentile),
#: but blind to level changes ...
OUTLIER_BAND = 8.0
#: smallest outlier distance, in log units (1 %)
MIN_OUTLIER_BAND = 0.01
#: ... where "before", "after" and "around" extend over this times
#: min_segment values
OUTLIER_REACH = 2
#: ... and is left out when at most 1 / OUTLIER_SPARSITY of its neighbours
#: (min_segment // 2 on each side, itself included) are outliers too
OUTLIER_SPARSITY = 4
#: segments whose speeds differ by less than this fraction are equivalent
RELATIVE_TOLERANCE = 0.01
#: ... and so are those that differ by less than this many standard errors
STANDARD_ERRORS = 2.0


class SteadyState(NamedTuple):
    """How one process's sequence of values reached (or not) a steady state."""

    #: one of :data:`KINDS`
    kind: str
    #: number of leading values before the final segment (0 when flat)
    warmup: int
    #: indexes where a new segment starts (sorted, excluding 0)
    changepoints: tuple[int, ...]


class _Segment(NamedTuple):
    """Summary of the log values of one segment."""

    size: int
    mean: float
    variance: float
    median: float


def _log_values(values: Sequence[float]) -> list[float]:
    logs = []
    for value in values:
        if not 0.0 < value < math.inf:
            raise ValueError(f"values must be finite durations > 0, got {value!r}")
        logs.append(math.log(value))
    return logs


def _check_positive(name: str, number: int) -> None:
    if number < 1:
        raise ValueError(f"{name} must be >= 1, got {number!r}")


def _default_penalty(size: int) -> float:
    return PENALTY_FACTOR * math.log(size) if size > 1 else 0.0


class _Sums(NamedTuple):
    """What the cost of any segment is computed from."""

    #: prefix sums of the centred log values (fewer cancellation errors in
    #: the sums of squared deviations) and of their squares
    sums: list[float]
    squares: list[float]
    #: the variance floor, and its logarithm
    floor: float
    log_floor: float


def _cumulative(logs: list[float]) -> _Sums:
    """The prefix sums of *logs* and the variance floor."""
    size = len(logs)
    centre = math.fsum(logs) / size
    sums = [0.0] * (size + 1)
    squares = [0.0] * (size + 1)
    total = total_squares = 0.0
    for index, value in enumerate(logs, 1):
        deviation = value - centre
        total += deviation
        total_squares += deviation * deviation
        sums[index] = total
        squares[index] = total_squares
    variance = max(total_squares / size - (total / size) ** 2, 0.0)
    floor = max(ABSOLUTE_VARIANCE_FLOOR, RELATIVE_VARIANCE_FLOOR * variance)
    return _Sums(sums, squares, floor, math.log(floor))


def _last_segment_costs(
    candidates: list[int], end: int, prefix: _Sums, best_cost: list[float]
) -> tuple[list[float], float, int]:
    """The cost of the best segmentation of ``logs[:end]`` whose last
    segment starts at each candidate, the lowest of them and its start (the
    earliest on ties)."""
    sums, squares, floor, log_floor = prefix
    log = math.log
    end_sum = sums[end]
    end_squares = squares[end]
    costs = []
    best = math.inf
    best_start = 0
    for start in candidates:
        length = end - start
        segment_sum = end_sum - sums[start]
        deviations = end_squares - squares[start] - segment_sum * segment_sum / length
        variance = deviations / length
        if variance > floor:
            cost = best_cost[start] + length * log(variance)
        else:
            cost = best_cost[start] + length * log_floor + deviations / floor - length
        costs.append(cost)
        if cost < best:
            best = cost
            best_start = start
    return costs, best, best_start


def _backtrack(previous: list[int], size: int) -> list[int]:
    """The changepoints of the best segmentation of ``logs[:size]``, from
    the start of the last segment of each prefix (*previous*)."""
    found = []
    start = previous[size]
    while start > 0:
        found.append(start)
        start = previous[start]
    return found[::-1]


def _pelt(logs: list[float], min_segment: int, penalty: float) -> list[int]:
    """Optimal changepoints of *logs* (see the module docstring)."""
    size = len(logs)
    if size < 2 * min_segment:
        return []
    prefix = _cumulative(logs)

    best_cost = [math.inf] * (size + 1)
    best_cost[0] = -penalty
    previous = [0] * (size + 1)
    candidates: list[int] = []
    pruned: set[int] = set()
    #: end -> candidates dropped from that end on
    removals: dict[int, list[int]] = {}
    for end in range(min_segment, size + 1):
        start = end - min_segment
        if start == 0 or start >= min_segment:
            candidates.append(start)
        if end in removals:
            dropped = set(removals.pop(end))
            candidates = [start for start in candidates if start not in dropped]
        costs, best, best_start = _last_segment_costs(candidates, end, prefix, best_cost)
        best_cost[end] = best + penalty
        previous[end] = best_start
        # Pruning (Killick 2012, theorem 3.1, K = 0): a start whose cost is
        # above the optimum by more than the penalty can no longer be the
        # optimal last changepoint for ends >= end + min_segment.
        threshold = best + penalty + 1e-9 * (1.0 + abs(best))
        for start, cost in zip(candidates, costs):
            if cost > threshold and start not in pruned:
                pruned.add(start)
                removals.setdefault(end + min_segment, []).append(start)
    return _backtrack(previous, size)


def changepoints(values: Sequence[float], min_segment: int = MIN_SEGMENT, penalty: float | None = None) -> list[int]:
    """Indexes where a new segment of *values* starts (sorted, without 0).

    PELT on the log values with a Gaussian cost for a change of mean and
    variance (see the module docstring); segments are at least
    *min_segment* values long; *penalty* per changepoint defaults to
    ``15 ln n``.  Fewer than ``2 * min_segment`` values have no changepoint.

    Raises ValueError when a value is not a finite number > 0, when
    *min_segment* < 1 or when *penalty* is negative or not finite.
    """
    _check_positive("min_segment", min_segment)
    logs = _log_values(values)
    if penalty is None:
        penalty = _default_penalty(len(logs))
    elif not 0.0 <= penalty < math.inf:
        raise ValueError(f"penalty must be finite and >= 0, got {penalty!r}")
    return _pelt(logs, min_segment, penalty)


def _summary(logs: list[float]) -> _Segment:
    size = len(logs)
    mean = math.fsum(logs) / size
    variance = math.fsum((value - mean) ** 2 for value in logs) / size
    return _Segment(size, mean, variance, _percentile(sorted(logs), 0.5))


def _is_slower(final: _Segment, earlier: _Segment) -> bool:
    """Whether *final* is slower than *earlier*, beyond the equivalence
    tolerance (module docstring)."""
    noise = STANDARD_ERRORS * math.sqrt(final.variance / final.size + earlier.variance / earlier.size)
    tolerance = max(math.log1p(RELATIVE_TOLERANCE), noise)
    return final.mean - earlier.mean > tolerance and final.median - earlier.median > tolerance


def _percentile(ordered: list[float], fraction: float) -> float:
    """Percentile of sorted values, linear interpolation between ranks."""
    rank = (len(ordered) - 1) * fraction
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _kept_indexes(logs: list[float], min_segment: int) -> list[int]:
    """Indexes of *logs* without their isolated outliers (module docstring)."""
    size = len(logs)
    if size < 2 * min_segment:
        return list(range(size))
    steps = [abs(logs[index + 1] - logs[index]) for index in range(size - 1)]
    reach = OUTLIER_REACH * min_segment
    flagged = []
    for index, value in enumerate(logs):
        low = max(index - reach, 0)
        # at least 1 %: on a quantised or constant sequence the median step is 0
        band = max(OUTLIER_BAND * _percentile(sorted(steps[low : index + reach]), 0.5), MIN_OUTLIER_BAND)
        before = logs[low:index]
        # the last value has no "after": compare it with its closest
        # predecessors instead, so the start of a new level is not an outlier
        after = logs[index + 1 : index + 1 + reach] or logs[max(index - max(min_segment // 2, 1), 0) : index]
        flagged.append(all(abs(value - _percentile(sorted(side), 0.5)) > band for side in (before, after) if side))
    leading = 0
    while leading < size and flagged[leading]:
        leading += 1
    counts = [0] * (size + 1)
    for index, flag in enumerate(flagged):
        counts[index + 1] = counts[index] + flag
    half = max(min_segment // 2, 1)
    kept = []
    for index in range(size):
        if flagged[index] and index >= leading:
            low = max(index - half, 0)
            high = min(index + half + 1, size)
            if (counts[high] - counts[low]) * OUTLIER_SPARSITY <= high - low:
                continue  # isolated: a spike, not a level
        kept.append(index)
    return kept


def classify(values: Sequence[float], window: int = WINDOW, min_segment: int = MIN_SEGMENT) -> SteadyState:
    """Classify one process's sequence of values (durations, seconds > 0).

    The final segment is the steady state when it is at least
    ``2 * window`` values long; ``warmup`` is where it starts.  Without
    steady state (kind :data:`NO_STEADY_STATE`), ``warmup`` is still the
    start of the last segment, the best the process offers.  Fewer than
    ``2 * window`` values never have a steady state; with
    ``2 * window`` values or more and no changepoint, the sequence is flat
    (fewer than ``2 * min_segment`` values cannot have a changepoint).

    The changepoints are those of :func:`changepoints` on the values
    without their isolated outliers, as indexes of *values* (all values are
    kept when dropping the outliers would leave too few to split).

    Raises ValueError on invalid values or parameters (see
    :func:`changepoints`); never on the shape of the data.
    """
    _check_positive("window", window)
    _check_positive("min_segment", min_segment)
    logs = _log_values(values)
    size = len(logs)
    kept = _kept_indexes(logs, min_segment)
    if len(kept) < 2 * min_segment <= size:
        kept = list(range(size))
    clean = [logs[index] for index in kept]
    found = _pelt(clean, min_segment, _default_penalty(size))
    starts = tuple(kept[index] for index in found)
    start = starts[-1] if starts else 0
    if size - start < 2 * window:
        return SteadyState(NO_STEADY_STATE, start, starts)
    if not starts:
        return SteadyState(FLAT, 0, ())
    bounds = [0, *found, len(clean)]
    segments = [_summary(clean[bounds[index] : bounds[index + 1]]) for index in range(len(bounds) - 1)]
    final = segments[-1]
    kind = SLOWDOWN if any(_is_slower(final, segment) for segment in segments[:-1]) else WARMUP
    return SteadyState(kind, start, starts)


def is_steady(values: Sequence[float], window: int = WINDOW) -> bool:
    """Whether *values* end with a steady segment of at least
    ``2 * window`` values (the kind is not :data:`NO_STEADY_STATE`)."""
    return classify(values, window).kind != NO_STEADY_STATE
