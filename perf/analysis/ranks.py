"""The robust comparisons: rank tests on process means, Hodges-Lehmann ratios.

* :func:`rank_compare_process_means`: two independent recordings
  (``--robust``): Mann-Whitney on the process means with the
  Hodges-Lehmann estimate of the log ratio and its rank interval (exact
  distribution of U up to :data:`EXACT_RANK_PAIRS` pairs of processes,
  normal beyond);
* :func:`signed_rank_compare_process_means`: the pairs of an interleaved
  run (``--robust`` on the two sides of one ``--compare-to`` run):
  Wilcoxon's signed ranks on the per-pair log ratios.

A process (a pair) disturbed by a noisy neighbour moves one rank, not the
estimate.  Both return a :class:`~perf.analysis.compare.Comparison` with
the verdicts of :mod:`perf.analysis.compare`.

Must not: import anything beyond the standard library and
:mod:`perf.analysis`, format text, or print.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Sequence

from perf.analysis.compare import (
    DEFAULT_MARGIN,
    RANKS,
    SIGNED_RANKS,
    Comparison,
    check_levels,
    interval_comparison,
    pair_log_ratios,
    process_logs,
)
from perf.analysis.distributions import normal_cdf, normal_ppf

#: the largest n x m for which the exact distribution of U is computed
EXACT_RANK_PAIRS = 10_000


@functools.lru_cache(maxsize=64)
def _u_distribution(n: int, m: int) -> tuple[int, ...]:
    """How many of the C(n + m, n) orderings give U = 0, 1, ..., n m: the
    coefficients of the Gaussian binomial [n + m choose n] in q."""
    size = n * m + 1
    counts = [1] + [0] * (size + n)
    for i in range(1, n + 1):
        step = m + i
        for k in range(len(counts) - 1, step - 1, -1):  # times (1 - q^(m + i))
            counts[k] -= counts[k - step]
        for k in range(i, len(counts)):  # divided by (1 - q^i)
            counts[k] += counts[k - i]
    return tuple(counts[:size])


def _cut(counts: Sequence[int], limit: float) -> int:
    """The largest c with counts[0] + ... + counts[c] <= *limit* (-1 if none)."""
    return next((c - 1 for c, total in enumerate(itertools.accumulate(counts)) if total > limit), len(counts) - 1)


def _two_sided(tail: float, sigma: float) -> float:
    """Two-sided p-value of a statistic *tail* (continuity-corrected) below
    its mean, normal with standard deviation *sigma*."""
    return min(1.0, 2 * normal_cdf((tail + 0.5) / sigma))


def _rank_cut(n: int, m: int, confidence: float) -> int:
    """The largest c with P(U <= c) <= (1 - confidence) / 2 (-1 if none)."""
    alpha = (1 - confidence) / 2
    pairs = n * m
    if pairs <= EXACT_RANK_PAIRS:
        counts = _u_distribution(n, m)
        return _cut(counts, alpha * sum(counts))
    z = normal_ppf(1 - alpha)
    return math.floor(pairs / 2 - z * math.sqrt(pairs * (n + m + 1) / 12) - 0.5)


def _rank_p_value(below: float, n: int, m: int) -> float:
    """Two-sided p-value of U = *below* (ties count 1/2)."""
    pairs = n * m
    u = min(below, pairs - below)
    if pairs <= EXACT_RANK_PAIRS:
        counts = _u_distribution(n, m)
        return min(1.0, 2 * sum(counts[: math.floor(u) + 1]) / sum(counts))
    return _two_sided(u - pairs / 2, math.sqrt(pairs * (n + m + 1) / 12))


def _rank_comparison(
    ordered: Sequence[float],
    cut: int,
    counts: tuple[int, int],
    variance_factor: float,
    *,
    p_value: float,
    method: str,
    levels: tuple[float, float],
) -> Comparison:
    """The Comparison of a rank method: the log ratio is the median of the
    sorted log differences *ordered*, its interval their order statistics
    *cut* places in from each end (unbounded when *cut* < 0); the standard
    error is the one of a normal interval as wide, and
    ``variance_factor x error^2`` the per-process (per-pair) variance that
    the suggestion for an inconclusive verdict scales."""
    size = len(ordered)
    middle = size // 2
    estimate = ordered[middle] if size % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    low, high = (-math.inf, math.inf) if cut < 0 else (ordered[cut], ordered[size - 1 - cut])
    standard_error = (high - low) / (2 * normal_ppf(1 - (1 - levels[1]) / 2))
    return interval_comparison(
        estimate,
        (low, high),
        df=math.nan,
        variances=variance_factor * standard_error**2,
        counts=counts,
        levels=levels,
        standard_error=standard_error,
        p_value=p_value,
        method=method,
    )


def rank_compare_process_means(
    reference: Sequence[float],
    changed: Sequence[float],
    margin: float = DEFAULT_MARGIN,
    confidence: float = 0.95,
) -> Comparison:
    """The robust comparison of two sets of per-process means (>= 2 each).

    The ratio is exp(Hodges-Lehmann estimate): the median of the n m
    differences ``log(changed_j) - log(reference_i)``; its interval is
    the pair of order statistics of those differences that the
    Mann-Whitney test at ``1 - confidence`` would not reject (with very
    few processes the interval is unbounded).  A process with a noisy
    neighbour moves a rank, not the estimate.
    """
    check_levels(margin, confidence)
    ref_logs = process_logs(reference, "reference")
    new_logs = process_logs(changed, "changed benchmark")
    n, m = len(ref_logs), len(new_logs)
    differences = sorted(b - a for a in ref_logs for b in new_logs)
    below = sum(1 for value in differences if value < 0) + 0.5 * sum(1 for value in differences if value == 0)
    # per-process variance of an equal-variance design with the same error
    return _rank_comparison(
        differences,
        _rank_cut(n, m, confidence),
        (n, m),
        2 / (1 / n + 1 / m),
        p_value=_rank_p_value(below, n, m),
        method=RANKS,
        levels=(margin, confidence),
    )


#: the most pairs for which the exact distribution of W+ is computed
EXACT_SIGNED_RANK_PAIRS = 50


@functools.lru_cache(maxsize=64)
def _signed_rank_distribution(n: int) -> tuple[int, ...]:
    """How many of the 2^n sign patterns give W+ = 0, 1, ..., n (n + 1) / 2:
    the coefficients of the product of (1 + q^i) for i = 1..n."""
    counts = [1] + [0] * (n * (n + 1) // 2)
    top = 0
    for i in range(1, n + 1):
        top += i
        for k in range(top, i - 1, -1):
            counts[k] += counts[k - i]
    return tuple(counts)


def _signed_rank_cut(n: int, confidence: float) -> int:
    """The largest c with P(W+ <= c) <= (1 - confidence) / 2 (-1 if none)."""
    alpha = (1 - confidence) / 2
    if n <= EXACT_SIGNED_RANK_PAIRS:
        return _cut(_signed_rank_distribution(n), alpha * (1 << n))
    z = normal_ppf(1 - alpha)
    return math.floor(n * (n + 1) / 4 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24) - 0.5)


def _signed_rank_p_value(above: float, n: int) -> float:
    """Two-sided p-value of W+ = *above* (zeros count 1/2)."""
    total_pairs = n * (n + 1) // 2
    w = min(above, total_pairs - above)
    if n <= EXACT_SIGNED_RANK_PAIRS:
        counts = _signed_rank_distribution(n)
        return min(1.0, 2 * sum(counts[: math.floor(w) + 1]) / (1 << n))
    return _two_sided(w - total_pairs / 2, math.sqrt(n * (n + 1) * (2 * n + 1) / 24))


def signed_rank_compare_process_means(
    reference: Sequence[float],
    changed: Sequence[float],
    margin: float = DEFAULT_MARGIN,
    confidence: float = 0.95,
) -> Comparison:
    """The robust comparison of the pairs of an interleaved run (``--robust``
    on two sides of one ``--compare-to`` run): Wilcoxon's signed-rank test
    on the per-pair log ratios d.

    The ratio is exp(Hodges-Lehmann estimate): the median of the Walsh
    averages (d_i + d_j) / 2, i <= j; the interval is the pair of their
    order statistics that the signed-rank test at ``1 - confidence`` would
    not reject (exact distribution up to :data:`EXACT_SIGNED_RANK_PAIRS`
    pairs; unbounded with fewer than 6 pairs at 95 %).  A pair disturbed by
    a noisy neighbour moves one rank, not the estimate.
    """
    check_levels(margin, confidence)
    differences = pair_log_ratios(reference, changed)
    n = len(differences)
    walsh = sorted((differences[i] + differences[j]) / 2 for i in range(n) for j in range(i, n))
    above = sum(1 for value in walsh if value > 0) + 0.5 * sum(1 for value in walsh if value == 0)
    return _rank_comparison(
        walsh,
        _signed_rank_cut(n, confidence),
        (n, n),
        n,
        p_value=_signed_rank_p_value(above, n),
        method=SIGNED_RANKS,
        levels=(margin, confidence),
    )
