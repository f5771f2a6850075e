"""The win rate: how often a changed process beats a reference process (R11).

* :func:`win_rate`: two independent recordings: the probability of
  superiority over every pair of process means, with a Wilson interval on
  DeLong's effective number of pairs;
* :func:`paired_win_rate`: the pairs of an interleaved run, each pair one
  independent trial.

Which of the two applies to two benchmarks is
:func:`perf.analysis.benchmarks.benchmark_wins`'s choice.

Must not: import anything beyond the standard library and
:mod:`perf.analysis`, format text, or print.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

from perf.analysis.distributions import normal_ppf
from perf.analysis.statistics import mean, variance


class WinRate(NamedTuple):
    """How often a changed process beats (is faster than) a reference one."""

    rate: float
    low: float
    high: float
    confidence: float


def wilson_interval(rate: float, count: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a proportion *rate* out of *count*
    trials (bench/pytest_plugin/pytest_aa.py uses it for false-claim rates too)."""
    z = normal_ppf(1 - (1 - confidence) / 2)
    z2 = z * z
    centre = (rate + z2 / (2 * count)) / (1 + z2 / count)
    half = z / (1 + z2 / count) * math.sqrt(rate * (1 - rate) / count + z2 / (4 * count**2))
    return max(0.0, centre - half), min(1.0, centre + half)


def paired_win_rate(reference: Sequence[float], changed: Sequence[float], confidence: float = 0.95) -> WinRate:
    """The fraction of the pairs of an interleaved run in which the changed
    process was faster (ties count 1/2), with a Wilson interval (R11):
    the pairs are independent, unlike the pairs of process means."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if len(reference) != len(changed) or len(reference) < 2:
        raise ValueError(f"the paired win rate needs >= 2 complete pairs, got {len(reference)} and {len(changed)}")
    wins = sum(1.0 if new < old else 0.5 if new == old else 0.0 for old, new in zip(reference, changed))
    rate = wins / len(reference)
    return WinRate(rate, *wilson_interval(rate, float(len(reference)), confidence), confidence)


def win_rate(reference: Sequence[float], changed: Sequence[float], confidence: float = 0.95) -> WinRate:
    """The probability that a changed process mean is below a reference
    process mean (ties count 1/2), estimated over every pair of process
    means (R11), with a Wilson interval on the effective number of pairs
    given by DeLong's variance of the estimate (pairs sharing a process
    are not independent).  When the two sides do not overlap at all the
    variance is 0 and the smaller side's process count is used instead.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    n, m = len(reference), len(changed)
    if n < 2 or m < 2:
        raise ValueError(f"the win rate needs at least 2 processes per side, got {n} and {m}")

    def beats(new: float, old: float) -> float:
        return 1.0 if new < old else 0.5 if new == old else 0.0

    per_reference = [mean([beats(new, old) for new in changed]) for old in reference]
    per_changed = [mean([beats(new, old) for old in reference]) for new in changed]
    rate = mean(per_reference)
    spread = variance(per_reference) / n + variance(per_changed) / m
    effective = min(rate * (1 - rate) / spread, float(n * m)) if spread > 0 else float(min(n, m))
    effective = max(effective, 1.0)
    return WinRate(rate, *wilson_interval(rate, effective, confidence), confidence)
