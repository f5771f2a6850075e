"""``--target-precision``: when a run has enough processes.

The rule is about precision, never about significance (doc/design.rst,
R5): stop once the 95 % confidence interval of the mean of the process means
(with ``--compare-to``: of the ratio, from the paired comparison) is within
+-target, and not before ``minimum`` processes (pairs), nor after
``maximum``.  Stopping as soon as a comparison "becomes significant" would
inflate the false positives (~24 % instead of 5 % in the
simulation of doc/design.rst, R5); stopping on precision keeps them at the nominal level,
because the width of the interval does not depend on where its centre is.
It is not exact either: looking after every process favours stopping when
the spread happens to look small (simulated A/A: 5.0-6.6 % with a minimum
of 10 pairs, up to 7.9 % with 4), hence a default minimum of 10.

Must not: spawn processes, print, or read the clock.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple, Sequence

from perf.analysis.compare import compare_paired_process_means
from perf.analysis.intervals import PRECISE_ENOUGH, mean_interval
from perf.measure.values import COUNT_MIN_PROCESSES, COUNT_PRECISION, DEFAULT_SECONDS, MIN_PROCESSES

if TYPE_CHECKING:
    from perf.measure.options import RunOptions


class StoppingRule(NamedTuple):
    """Stop between *minimum* and *maximum* processes, as soon as the
    interval is within +-*target* (a fraction: 0.01 for 1 %), or once the
    workers of a benchmark took *seconds* (None: no limit)."""

    target: float
    minimum: int
    maximum: int
    confidence: float = 0.95
    seconds: float | None = None

    def precision(self, means: Sequence[float]) -> float:
        """Half-width of the interval of the mean of *means*, relative to
        that mean (inf with fewer than 2)."""
        if len(means) < 2:
            return math.inf
        interval = mean_interval(means, self.confidence)
        return (interval.high - interval.estimate) / interval.estimate

    def paired_precision(self, reference: Sequence[float], changed: Sequence[float]) -> float:
        """Largest relative distance from the ratio to a bound of its
        interval, for complete pairs (inf with fewer than 2)."""
        if len(reference) < 2 or len(reference) != len(changed):
            return math.inf
        comparison = compare_paired_process_means(reference, changed, confidence=self.confidence)
        return max(comparison.high / comparison.ratio, comparison.ratio / comparison.low) - 1

    def done(self, count: int, precision: float, elapsed: float = 0.0) -> bool:
        """True when *count* processes (pairs) with *precision*, whose
        workers took *elapsed* seconds, are enough."""
        if count >= self.maximum:
            return True
        out_of_time = self.seconds is not None and elapsed >= self.seconds
        return count >= self.minimum and (precision <= self.target or out_of_time)


def stopping_rule(options: RunOptions) -> StoppingRule | None:
    """The StoppingRule of --target-precision, or None.  A default run
    (no -p, time) has the target :data:`~perf.analysis.intervals.PRECISE_ENOUGH`
    between :data:`~perf.measure.values.MIN_PROCESSES` and its budget's
    processes, and stops after :data:`~perf.measure.values.DEFAULT_SECONDS`
    of workers (:func:`perf.measure.options.with_budget`).  Counts
    (``--metric instructions``) without -p stop on :data:`COUNT_PRECISION`
    after at least 2 samples: counts of deterministic code are equal, and
    need no more."""
    if options.precision_default:
        minimum = min(MIN_PROCESSES, options.processes)
        return StoppingRule(PRECISE_ENOUGH, minimum, options.processes, seconds=DEFAULT_SECONDS)
    if options.target_precision is None:
        if options.metric != "time" and (options.given_budget is None or options.given_budget.processes is None):
            return StoppingRule(COUNT_PRECISION, min(COUNT_MIN_PROCESSES, options.processes), options.processes)
        return None
    assert options.min_processes is not None and options.max_processes is not None
    return StoppingRule(options.target_precision, options.min_processes, options.max_processes)
