"""Changes in a timeline of commits: where the code got slower or faster.

A timeline is one benchmark's commits in order, each reduced to what its
worker processes measured (:class:`CommitSummary`: the mean of the logs of
its process means, their variance and count).  A commit's level is a step
function of the code, plus the drift of its recording (the machine that
day), plus its processes' noise.  :func:`find_changes` finds the steps:

1. **Drift between recordings** (``between``): from the successive
   differences of the commits, clipped at 3 robust standard deviations
   (changes and spikes make a few large ones), less what the processes'
   noise explains; its :data:`UPPER_BOUND` upper bound is used, so that a
   short timeline that happens to look quiet does not make false changes.
2. **Spikes**: a commit far from the two commits before it *and* the two
   after it, in the same direction (the first commit: from the two after
   it), is one bad recording, or a change reverted at once.  It is
   reported apart and left out of the segments.
3. **Binary segmentation**: the split of a segment with the largest
   ``z = |mean after - mean before| / standard error`` (weights ``1 /
   (process error² + between²)``), kept when beyond the Bonferroni
   quantile for ``family_rate`` over the timeline's splits (Student's t,
   Satterthwaite's degrees of freedom: ``between`` is itself estimated);
   segments are :data:`~perf.analysis.segments.MIN_SEGMENT` commits at least, the last
   one :data:`~perf.analysis.segments.MIN_EDGE_SEGMENT`.  Splits that do not hold between their final
   neighbours are dropped: z under the threshold, a ratio within the
   equivalence margin, or a side where most commits are not on their side
   of the midpoint (one far commit weighs a short segment's mean).
4. Each change is the comparison of its two segments as compare_to
   compares recordings (doc/design.rst, R2, R3): the ratio of geometric
   means and a t interval whose standard error includes the drift.

:func:`recording_drift` estimates the drift a recording shares across its
benchmarks: the median of their residuals around their segments.  Steps
of that shared series are changes of every benchmark and are kept; only
its transient part is returned, to be taken out before
:func:`find_changes` (a recording far off the others is a load spike,
which seldom hits every benchmark alike: it is not corrected).

Must not: read files or the store, format text, or print.
"""

from __future__ import annotations

import math
from typing import Mapping, NamedTuple, Sequence

from perf.analysis.compare import DEFAULT_MARGIN, Comparison, t_comparison
from perf.analysis.distributions import normal_ppf
from perf.analysis.segments import (
    LONGEST_STRETCH,
    SharedDrift,
    prune,
    segment,
    split_threshold,
    weighted,
)
from perf.analysis.statistics import mean, median, variance

#: rounds of spike removal (a spike next to another one hides it)
SPIKE_ROUNDS = 3
#: the chance that a timeline without changes shows one (half the 1 % aimed
#: at: the drift between recordings is itself estimated)
FAMILY_RATE = 0.005
#: how far (in standard errors) a spike stands from the commits on both sides
SPIKE_Z = 4.0
#: fewest benchmarks in a recording to estimate the drift they share
MIN_BENCHMARKS = 5
#: fewest successive differences to estimate the drift between recordings
#: (below: as large as the processes' own error)
MIN_DIFFERENCES = 5
#: MAD -> standard deviation of a normal distribution
_MAD_SCALE = 1.4826
#: differences beyond this many robust standard deviations are changes or spikes
CLIP = 3.0
#: the drift between sessions that share no commit, when too few of their
#: boundaries say what it is (standard deviation, log scale): the drift
#: seen between recordings of different days on the development machine
#: (2-5 %, doc/history.rst); a change at such a boundary must stand above it
UNLINKED_DRIFT = 0.03
#: the drift between recordings is the upper bound of its estimate at this level
UPPER_BOUND = 0.8
#: the share of a normal variance left within +-3 standard deviations
_CLIPPED_SHARE = 0.9733
#: the method name of the comparisons of two segments
SEGMENTS = "segments"


class CommitSummary(NamedTuple):
    """What the processes of one commit measured, on the log scale."""

    #: mean of the logarithms of the process means
    level: float
    #: their variance (NaN with a single process)
    spread: float
    #: how many processes
    processes: int


class FoundChange(NamedTuple):
    #: index of the first commit after the change
    position: int
    #: the segment after against the segment before (> 1: slower)
    comparison: Comparison


class FoundSpike(NamedTuple):
    position: int
    #: the spike against the commits around it
    ratio: float


class SeriesChanges(NamedTuple):
    changes: tuple[FoundChange, ...]
    spikes: tuple[FoundSpike, ...]
    #: the drift between recordings (standard deviation, log scale)
    between: float
    #: the fitted log level of each commit (its segment's)
    levels: tuple[float, ...]


def summarize(process_means: Sequence[float], shift: float = 0.0) -> CommitSummary:
    """A commit's summary from its process means (> 0), its level moved by
    *shift* (the drift of its recording, taken out)."""
    return summarize_logs([math.log(value) - shift for value in process_means])


def summarize_logs(logs: Sequence[float], spread_factor: float = 1.0) -> CommitSummary:
    """A commit's summary from the logs of its process means, their spread
    times *spread_factor* (n / (n - 1) once round effects are taken out:
    :mod:`perf.analysis.sessions`)."""
    spread = variance(logs) * spread_factor if len(logs) >= 2 else math.nan
    return CommitSummary(mean(logs), spread, len(logs))


def _errors(commits: Sequence[CommitSummary]) -> list[float]:
    """The squared standard error of each commit's level (a commit with one
    process borrows the typical spread of the others)."""
    spreads = [commit.spread for commit in commits if math.isfinite(commit.spread)]
    typical = median(spreads) if spreads else 0.0
    return [(commit.spread if math.isfinite(commit.spread) else typical) / commit.processes for commit in commits]


def between_variance(
    levels: Sequence[float], errors: Sequence[float], groups: Sequence[int | None] | None = None
) -> float:
    """The variance of the drift between recordings, from the successive
    differences of *levels* (each with its squared standard error); with
    *groups*, only the differences between commits of different groups
    (two commits measured together share their drift: none of it is in
    their difference), and 0 when there is none (fewer than
    :data:`MIN_DIFFERENCES`: at least :data:`UNLINKED_DRIFT`).

    The spread of the differences is their variance once those beyond
    :data:`CLIP` robust standard deviations (from the MAD) are left out: a
    change or a spike makes one or two large differences, and the clipped
    variance wastes far less of the data than the MAD alone."""
    pairs = [
        (b - a, error_a + error_b)
        for index, (a, b, error_a, error_b) in enumerate(zip(levels, levels[1:], errors, errors[1:]))
        if groups is None or groups[index] is None or groups[index] != groups[index + 1]
    ]
    if groups is not None and not pairs:
        return 0.0
    differences = [difference for difference, _ in pairs]
    if len(differences) < MIN_DIFFERENCES:
        fallback = median(errors) if errors else 0.0
        # a few sessions: how far apart they drifted cannot be estimated
        return fallback if groups is None else max(fallback, UNLINKED_DRIFT**2)
    centre = median(differences)
    limit = CLIP * _MAD_SCALE * median([abs(d - centre) for d in differences])
    inside = [(d, both) for d, both in pairs if abs(d - centre) <= limit]
    if len(inside) < MIN_DIFFERENCES:
        return median(errors)
    df = len(inside) - 1
    spread = sum((d - centre) ** 2 for d, _ in inside) / df / _CLIPPED_SHARE
    return max(0.0, (spread * _upper_factor(df) - mean([pair for _, pair in inside])) / 2)


def _upper_factor(df: int) -> float:
    """``df / chi2(1 - UPPER_BOUND, df)``: a sample variance times this is
    the upper bound of the variance at :data:`UPPER_BOUND` (Wilson and
    Hilferty's approximation of the chi-square quantile).  A drift
    underestimated from a short timeline makes false changes; one
    overestimated only makes changes take a commit longer to be found."""
    z = normal_ppf(1 - UPPER_BOUND)
    quantile = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    return df / quantile


def _spike_shift(levels: Sequence[float], weights: Sequence[float], kept: Sequence[int], position: int) -> float | None:
    """The log ratio of ``kept[position]`` to the two commits before it and
    the two after it (among *kept*), when it stands apart from both in the
    same direction; else None."""
    scores = []
    index = kept[position]
    for side in (kept[max(0, position - 2) : position], kept[position + 1 : position + 3]):
        if not side:
            continue
        centre, error = weighted(levels, weights, side)
        shift = levels[index] - centre
        scores.append((shift / math.sqrt(1.0 / weights[index] + error), shift))
    (left, left_shift), (right, right_shift) = scores if len(scores) == 2 else scores * 2
    if min(abs(left), abs(right)) > SPIKE_Z and (left > 0) == (right > 0):
        return (left_shift + right_shift) / 2
    return None


def _spikes(levels: Sequence[float], variances: Sequence[float]) -> dict[int, float]:
    """index -> log ratio to its surroundings, of each spike (a few rounds:
    once a spike is out, its neighbour's surroundings are clean)."""
    found: dict[int, float] = {}
    weights = [1.0 / v for v in variances]
    for _ in range(SPIKE_ROUNDS):
        kept = [i for i in range(len(levels)) if i not in found]
        new = {}
        # the first commit is judged on the two after it; the last one is
        # not judged: it may be the first of a change, which its next
        # commit will tell (alone, it cannot make a change)
        for position in range(len(kept) - 1):
            shift = _spike_shift(levels, weights, kept, position)
            if shift is not None:
                new[kept[position]] = shift
        if not new:
            break
        found.update(new)
    return found


def _shared(groups: Sequence[int] | None, count: int) -> list[int | None]:
    """Each commit's group when it shares it with another commit, else None."""
    if groups is None:
        return [None] * count
    sizes: dict[int, int] = {}
    for group in groups:
        sizes[group] = sizes.get(group, 0) + 1
    return [group if sizes[group] > 1 else None for group in groups]


def find_changes(
    commits: Sequence[CommitSummary],
    *,
    groups: Sequence[int] | None = None,
    family_rate: float = FAMILY_RATE,
    margin: float = DEFAULT_MARGIN,
    confidence: float = 0.95,
) -> SeriesChanges:
    """The changes and spikes of a timeline (see the module's docstring).

    *groups*: each commit's group of commits measured together
    (:func:`perf.analysis.sessions.commit_groups`); the commits of a group
    share their drift, which is then in no comparison within the group
    (:class:`perf.analysis.segments.SharedDrift`).  None: every commit was
    recorded alone."""
    if not commits:
        return SeriesChanges((), (), 0.0, ())
    errors = _errors(commits)
    all_levels = [commit.level for commit in commits]
    all_groups = _shared(groups, len(commits))
    sharing = any(group is not None for group in all_groups)
    between = between_variance(all_levels, errors, all_groups if sharing else None)
    variances = [error + (between if group is None else 0.0) for error, group in zip(errors, all_groups)]
    spikes = _spikes(all_levels, variances) if any(variances) else {}
    kept = [i for i in range(len(commits)) if i not in spikes]
    levels = [all_levels[i] for i in kept]
    kept_errors = [errors[i] for i in kept]
    kept_groups = [all_groups[i] for i in kept]
    if spikes:
        between = between_variance(levels, kept_errors, kept_groups if sharing else None)
    kept_variances = [error + (between if group is None else 0.0) for error, group in zip(kept_errors, kept_groups)]
    weights = [1.0 / variance if variance > 0 else 1e300 for variance in kept_variances]
    drift = SharedDrift(between, kept_groups, weights) if sharing else None
    typical_error = median(kept_errors) if kept_errors else 0.0
    share = between / (between + typical_error) if between + typical_error > 0 else 0.0
    threshold = split_threshold(len(levels), family_rate, share)
    stretches = split_threshold(len(levels), family_rate, share, tests=len(levels) * LONGEST_STRETCH)
    splits = segment(levels, weights, (threshold, stretches), drift)
    splits = prune(levels, weights, splits, (threshold, math.log1p(margin)), drift)
    bounds = [0, *splits, len(levels)]
    fitted = [0.0] * len(commits)
    for start, stop in zip(bounds, bounds[1:]):
        level = weighted(levels, weights, range(start, stop))[0] if stop > start else 0.0
        for i in range(start, stop):
            fitted[kept[i]] = level
    for i in spikes:  # a spike sits on the segment of the commit after it
        fitted[i] = fitted[kept[next((k for k, j in enumerate(kept) if j > i), len(kept) - 1)]]
    df = max(1.0, float(len(levels) - len(bounds) + 1))
    spreads = [commit.spread for commit in commits if math.isfinite(commit.spread)]
    settings = (df, 2 * median(spreads) if spreads else 0.0, margin, confidence)
    changes = []
    for k in range(1, len(bounds) - 1):
        segments = (range(bounds[k - 1], bounds[k]), range(bounds[k], bounds[k + 1]))
        processes = tuple(sum(commits[kept[i]].processes for i in segment) for segment in segments)
        comparison = _compare_segments(levels, weights, segments, processes, settings, drift)
        changes.append(FoundChange(kept[bounds[k]], comparison))
    found_spikes = tuple(FoundSpike(i, math.exp(shift)) for i, shift in sorted(spikes.items()))
    return SeriesChanges(tuple(changes), found_spikes, math.sqrt(between), tuple(fitted))


def _compare_segments(  # noqa: PLR0917 (a segment comparison needs all of it)
    levels: Sequence[float],
    weights: Sequence[float],
    segments: tuple[range, range],
    processes: tuple[int, ...],
    settings: tuple[float, float, float, float],
    drift: SharedDrift | None = None,
) -> Comparison:
    """The segment after against the segment before: a t interval on the
    difference of their weighted mean levels (with the part of the shared
    drifts that does not cancel); *settings*: degrees of freedom, the
    typical process variance, the margin and the confidence."""
    (before, error_before), (after, error_after) = (weighted(levels, weights, segment) for segment in segments)
    shared = drift.extra([segments[0]], [segments[1]]) if drift is not None else 0.0
    df, spread, margin, confidence = settings
    return t_comparison(
        after - before,
        math.sqrt(error_before + error_after + shared),
        df,
        variances=spread,
        counts=(processes[0], processes[1]),
        levels=(margin, confidence),
        method=SEGMENTS,
    )


def recording_drift(
    timelines: Mapping[str, Sequence[tuple[str, CommitSummary]]],
    order: Sequence[str],
    family_rate: float = FAMILY_RATE,
) -> dict[str, float]:
    """recording -> its transient drift shared by all its benchmarks (log
    scale), from *timelines* (benchmark -> its ``(recording, summary)`` in
    order); *order*: every recording, in time order.  Recordings with fewer
    than :data:`MIN_BENCHMARKS` benchmarks get none (0 is not returned for
    them: they are absent)."""
    residuals: dict[str, list[float]] = {}
    for points in timelines.values():
        fitted = find_changes([summary for _, summary in points], family_rate=family_rate).levels
        for (recording, summary), level in zip(points, fitted):
            residuals.setdefault(recording, []).append(summary.level - level)
    shared = [
        (recording, median(residuals[recording]))
        for recording in order
        if len(residuals.get(recording, ())) >= MIN_BENCHMARKS
    ]
    if not shared:
        return {}
    found = find_changes([CommitSummary(level, 0.0, 1) for _, level in shared], family_rate=family_rate)
    # a recording far off the others is a load spike, which seldom hits
    # every benchmark alike: its benchmarks are judged one by one
    spikes = {spike.position for spike in found.spikes}
    return {
        recording: level - step
        for index, ((recording, level), step) in enumerate(zip(shared, found.levels))
        if index not in spikes
    }
