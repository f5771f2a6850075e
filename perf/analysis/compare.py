"""Comparing two benchmarks: the ratio of their means, its interval, a verdict.

The unit of replication is the worker process (design/statistics.md R1):
each side is reduced to its per-process means, compared on a log scale
(R2): the effect is the ratio of the geometric means of the process means
(changed / reference: above 1 is slower), with a Welch t interval on the
difference of the mean logs, which allows unequal variances and unequal
numbers of processes (pyperf's pooled t-test on all values calls unequal
value counts "significant" whatever the data, compat spec section 6.2).

The verdict (R3) uses an equivalence margin *margin* (1 % by default), the
band ``[1 / (1 + margin), 1 + margin]`` of ratios that do not matter:

* ``slower`` / ``faster``: the whole interval is outside the band;
* ``no change``: the whole interval is inside the band;
* ``small change``: the interval excludes 1 but overlaps the band (a real
  difference, maybe too small to matter);
* ``inconclusive``: the interval contains 1 and reaches beyond the band;
  :attr:`Comparison.needed_processes` estimates how many processes per
  side would narrow the interval to +-margin.

Also here (R2, R6, R11):

* :func:`compare_paired_process_means`: the comparison of an interleaved
  run, a paired t on the per-pair log ratios (the drift of the machine
  cancels within a pair);

* :func:`rank_compare_process_means`: the robust comparison, Mann-Whitney
  on process means with the Hodges-Lehmann estimate of the log ratio and
  its rank interval (exact distribution of U up to 10 000 pairs, normal
  beyond);
* :func:`combine_comparisons`: a suite's geometric mean of ratios with an
  interval (the benchmarks' log ratios are independent: their variances
  add; Welch-Satterthwaite degrees of freedom);
* :func:`win_rate`: how often a changed process beats a reference process
  (the probability of superiority over process means), with an interval;
* :func:`benjamini_hochberg`: which p-values stay significant at a false
  discovery rate.

Must not: import anything beyond the standard library and
:mod:`perf.analysis`, format text, or print.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple, Sequence

from perf.analysis.distributions import normal_cdf, normal_ppf, student_t_cdf
from perf.analysis.statistics import mean, variance
from perf.analysis.student_t_quantile import student_t_ppf

SLOWER = "slower"
FASTER = "faster"
SMALL_CHANGE = "small change"
NO_CHANGE = "no change"
INCONCLUSIVE = "inconclusive"
VERDICTS = (SLOWER, FASTER, SMALL_CHANGE, NO_CHANGE, INCONCLUSIVE)
#: verdicts that say the benchmarks differ (the interval excludes 1)
DIFFERENT = frozenset({SLOWER, FASTER, SMALL_CHANGE})

WELCH = "welch"
PAIRED = "paired"
RANKS = "mann-whitney"
SIGNED_RANKS = "wilcoxon"
SUITE = "geometric mean"

#: default equivalence margin: differences under 1 % do not matter
DEFAULT_MARGIN = 0.01
#: the most processes per side ever suggested
MAX_SUGGESTED_PROCESSES = 10_000


class Adjustment(NamedTuple):
    """What a comparison of two separate recordings corrected for, from the
    workers' evidence of a busy machine (perf.analysis.interference)."""

    #: processes per side that lost more than 5 % of the CPU to other
    #: processes, and processes per side
    marked: tuple[int, int]
    processes: tuple[int, int]
    #: the process means were multiplied by their CPU share (the time off
    #: the CPU is left out)
    cpu_time: bool
    #: the machine's speed, changed recording against reference (the speed
    #: probe: above 1, the machine ran slower while the changed side was
    #: recorded), with its interval
    machine: tuple[float, float, float]
    #: the share of the machine's log ratio taken out of the ratio (0: none)
    machine_weight: float
    #: the ratio before any correction
    raw_ratio: float

    @property
    def machine_corrected(self) -> bool:
        return self.machine_weight > 0


class Comparison(NamedTuple):
    """The comparison of a changed benchmark to its reference."""

    #: ratio of the geometric means of process means, changed / reference
    ratio: float
    #: confidence interval of the ratio
    low: float
    high: float
    confidence: float
    verdict: str
    #: processes on each side
    reference_processes: int
    changed_processes: int
    #: Welch-Satterthwaite degrees of freedom (inf when both variances are 0)
    df: float
    #: for an inconclusive verdict: processes per side that would narrow
    #: the interval to +-margin
    needed_processes: int | None = None
    #: standard error of the log ratio (inf when it cannot be estimated)
    standard_error: float = math.inf
    #: two-sided p-value of "the ratio is 1"
    p_value: float = 1.0
    #: WELCH, PAIRED, RANKS, SIGNED_RANKS or SUITE
    method: str = WELCH
    #: separate recordings: what was corrected for a busy machine
    adjustment: Adjustment | None = None

    @property
    def different(self) -> bool:
        """True when the interval excludes a ratio of 1."""
        return self.verdict in DIFFERENT

    @property
    def paired(self) -> bool:
        """True for the comparison of the pairs of an interleaved run."""
        return self.method in (PAIRED, SIGNED_RANKS)


def _logs(values: Sequence[float], side: str) -> list[float]:
    if len(values) < 2:
        raise ValueError(f"the {side} needs at least 2 processes with values, got {len(values)}")
    if any(not value > 0 or math.isinf(value) for value in values):
        raise ValueError(f"the {side} has a process mean that is not a finite number > 0")
    return [math.log(value) for value in values]


def _verdict(low: float, high: float, band: float) -> str:
    """*low*, *high*: the interval of the log ratio; *band*: log(1 + margin)."""
    if low > band:
        return SLOWER
    if high < -band:
        return FASTER
    if -band < low and high < band:
        return NO_CHANGE
    if low > 0 or high < 0:
        return SMALL_CHANGE
    return INCONCLUSIVE


def _needed_processes(variances: float, band: float, confidence: float) -> int:
    """Processes per side for an interval of the log ratio no wider than
    +-band (design/statistics.md R3: n (half-width / margin)^2): then
    it fits inside the equivalence band or leaves part of it clear.
    *variances*: the sum of the per-process variances of both sides."""
    if band <= 0:
        return MAX_SUGGESTED_PROCESSES
    z = normal_ppf(1 - (1 - confidence) / 2)
    needed = math.ceil(variances * (z / band) ** 2)
    return max(2, min(needed, MAX_SUGGESTED_PROCESSES))


def _check_levels(margin: float, confidence: float) -> None:
    if not margin >= 0:
        raise ValueError(f"the margin must be >= 0, got {margin!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


def _t_p_value(difference: float, standard_error: float, df: float) -> float:
    if standard_error == 0:
        return 1.0 if difference == 0 else 0.0
    return min(1.0, 2.0 * student_t_cdf(-abs(difference) / standard_error, df))


def t_comparison(
    difference: float,
    standard_error: float,
    df: float,
    *,
    variances: float,
    counts: tuple[int, int],
    levels: tuple[float, float],
    method: str,
) -> Comparison:
    """The Comparison of a t interval of the log ratio: *difference* +- the
    t quantile x *standard_error*.  *variances*: what ``_needed_processes``
    scales; *counts*: processes (pairs) per side; *levels*: margin and
    confidence."""
    margin, confidence = levels
    half_width = student_t_ppf(1 - (1 - confidence) / 2, df) * standard_error if standard_error else 0.0
    low, high = difference - half_width, difference + half_width
    band = math.log1p(margin)
    verdict = _verdict(low, high, band)
    needed = _needed_processes(variances, band, confidence) if verdict == INCONCLUSIVE else None
    return Comparison(
        math.exp(difference),
        math.exp(low),
        math.exp(high),
        confidence,
        verdict,
        counts[0],
        counts[1],
        df,
        needed,
        standard_error,
        _t_p_value(difference, standard_error, df),
        method,
    )


def compare_process_means(
    reference: Sequence[float],
    changed: Sequence[float],
    margin: float = DEFAULT_MARGIN,
    confidence: float = 0.95,
) -> Comparison:
    """Compare two sets of per-process means (each side needs >= 2)."""
    _check_levels(margin, confidence)
    ref_logs = _logs(reference, "reference")
    new_logs = _logs(changed, "changed benchmark")
    n_ref, n_new = len(ref_logs), len(new_logs)
    difference = mean(new_logs) - mean(ref_logs)
    var_ref, var_new = variance(ref_logs), variance(new_logs)
    share_ref, share_new = var_ref / n_ref, var_new / n_new
    standard_error = math.sqrt(share_ref + share_new)
    if standard_error == 0:
        df = math.inf
    else:
        df = (share_ref + share_new) ** 2 / (share_ref**2 / (n_ref - 1) + share_new**2 / (n_new - 1))
    return t_comparison(
        difference,
        standard_error,
        df,
        variances=var_ref + var_new,
        counts=(n_ref, n_new),
        levels=(margin, confidence),
        method=WELCH,
    )


def _pair_log_ratios(reference: Sequence[float], changed: Sequence[float]) -> list[float]:
    """``log(changed[i] / reference[i])`` of each pair (>= 2 pairs)."""
    ref_logs = _logs(reference, "reference")
    new_logs = _logs(changed, "changed benchmark")
    if len(ref_logs) != len(new_logs):
        raise ValueError(
            f"a paired comparison needs as many processes on each side, got {len(ref_logs)} and {len(new_logs)}"
        )
    return [new - ref for ref, new in zip(ref_logs, new_logs)]


def compare_paired_process_means(
    reference: Sequence[float],
    changed: Sequence[float],
    margin: float = DEFAULT_MARGIN,
    confidence: float = 0.95,
) -> Comparison:
    """Compare the process means of an interleaved run, pair by pair
    (design/statistics.md R6): ``reference[i]`` and ``changed[i]`` ran one
    after the other, so the drift of the machine is (nearly) the same in
    both and cancels in their log ratio.

    The effect is the mean of the per-pair log ratios (the ratio of the
    geometric means, as unpaired), the interval Student's t on those
    differences with n - 1 degrees of freedom.  Needs >= 2 complete pairs;
    the suggestion for an inconclusive verdict counts pairs.
    """
    _check_levels(margin, confidence)
    differences = _pair_log_ratios(reference, changed)
    pairs = len(differences)
    spread = variance(differences)
    standard_error = math.sqrt(spread / pairs)
    return t_comparison(
        mean(differences),
        standard_error,
        float(pairs - 1),
        variances=spread,
        counts=(pairs, pairs),
        levels=(margin, confidence),
        method=PAIRED,
    )


def unknown_comparison(reference: Sequence[float], changed: Sequence[float], confidence: float = 0.95) -> Comparison:
    """The comparison when a side has fewer than 2 processes: the ratio of
    the geometric means (1 when a side has none), an interval from 0 to
    infinity, an inconclusive verdict and no suggestion."""
    ratio = 1.0
    if reference and changed:
        ratio = math.exp(mean([math.log(value) for value in changed]) - mean([math.log(value) for value in reference]))
    return Comparison(ratio, 0.0, math.inf, confidence, INCONCLUSIVE, len(reference), len(changed), math.nan)


# --- robust: Mann-Whitney and Hodges-Lehmann on process means ------------------

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


def _rank_cut(n: int, m: int, confidence: float) -> int:
    """The largest c with P(U <= c) <= (1 - confidence) / 2 (-1 if none)."""
    alpha = (1 - confidence) / 2
    pairs = n * m
    if pairs <= EXACT_RANK_PAIRS:
        counts = _u_distribution(n, m)
        total = sum(counts)
        cumulative = 0
        for u, count in enumerate(counts):
            cumulative += count
            if cumulative > alpha * total:
                return u - 1
        return pairs
    z = normal_ppf(1 - alpha)
    return math.floor(pairs / 2 - z * math.sqrt(pairs * (n + m + 1) / 12) - 0.5)


def _rank_p_value(below: float, n: int, m: int) -> float:
    """Two-sided p-value of U = *below* (ties count 1/2)."""
    pairs = n * m
    u = min(below, pairs - below)
    if pairs <= EXACT_RANK_PAIRS:
        counts = _u_distribution(n, m)
        return min(1.0, 2 * sum(counts[: math.floor(u) + 1]) / sum(counts))
    sigma = math.sqrt(pairs * (n + m + 1) / 12)
    return min(1.0, 2 * normal_cdf((u - pairs / 2 + 0.5) / sigma))


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
    margin, confidence = levels
    band = math.log1p(margin)
    verdict = _verdict(low, high, band)
    standard_error = (high - low) / (2 * normal_ppf(1 - (1 - confidence) / 2))
    needed = None
    if verdict == INCONCLUSIVE and math.isfinite(standard_error):
        needed = _needed_processes(variance_factor * standard_error**2, band, confidence)
    return Comparison(
        math.exp(estimate),
        math.exp(low),
        math.exp(high),
        confidence,
        verdict,
        counts[0],
        counts[1],
        math.nan,
        needed,
        standard_error,
        p_value,
        method,
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
    _check_levels(margin, confidence)
    ref_logs = _logs(reference, "reference")
    new_logs = _logs(changed, "changed benchmark")
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
    total_pairs = n * (n + 1) // 2
    if n <= EXACT_SIGNED_RANK_PAIRS:
        counts = _signed_rank_distribution(n)
        cumulative = 0
        for w, count in enumerate(counts):
            cumulative += count
            if cumulative > alpha * (1 << n):
                return w - 1
        return total_pairs
    z = normal_ppf(1 - alpha)
    return math.floor(total_pairs / 2 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24) - 0.5)


def _signed_rank_p_value(above: float, n: int) -> float:
    """Two-sided p-value of W+ = *above* (zeros count 1/2)."""
    total_pairs = n * (n + 1) // 2
    w = min(above, total_pairs - above)
    if n <= EXACT_SIGNED_RANK_PAIRS:
        counts = _signed_rank_distribution(n)
        return min(1.0, 2 * sum(counts[: math.floor(w) + 1]) / (1 << n))
    sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    return min(1.0, 2 * normal_cdf((w - total_pairs / 2 + 0.5) / sigma))


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
    _check_levels(margin, confidence)
    differences = _pair_log_ratios(reference, changed)
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


# --- suites ------------------------------------------------------------------------


def combine_comparisons(
    comparisons: Sequence[Comparison], margin: float = DEFAULT_MARGIN, confidence: float = 0.95
) -> Comparison:
    """The geometric mean of the ratios of *comparisons* (one per
    benchmark) with its interval and verdict.

    The log of the geometric mean is the mean of the log ratios; the
    benchmarks were measured by different processes, so the variances of
    their log ratios add: SE = sqrt(sum SE_i^2) / N, with
    Welch-Satterthwaite degrees of freedom (a normal quantile for rank
    comparisons, which have none).  This is the interval of this set of
    benchmarks, not of "all programs".  Process counts are summed.
    """
    _check_levels(margin, confidence)
    if not comparisons:
        raise ValueError("no comparison to combine")
    count = len(comparisons)
    difference = mean([math.log(comparison.ratio) for comparison in comparisons])
    shares = [comparison.standard_error**2 for comparison in comparisons]
    total = sum(shares)
    standard_error = math.sqrt(total) / count
    reference_processes = sum(comparison.reference_processes for comparison in comparisons)
    changed_processes = sum(comparison.changed_processes for comparison in comparisons)
    if math.isinf(standard_error):
        return Comparison(
            math.exp(difference), 0.0, math.inf, confidence, INCONCLUSIVE,
            reference_processes, changed_processes, math.nan, None, math.inf, 1.0, SUITE,
        )  # fmt: skip
    if standard_error == 0:
        df = math.inf
    else:
        denominator = sum(
            share**2 / comparison.df
            for share, comparison in zip(shares, comparisons)
            if share and math.isfinite(comparison.df)
        )
        df = total**2 / denominator if denominator else math.inf
    half_width = student_t_ppf(1 - (1 - confidence) / 2, df) * standard_error if standard_error else 0.0
    low, high = difference - half_width, difference + half_width
    return Comparison(
        math.exp(difference),
        math.exp(low),
        math.exp(high),
        confidence,
        _verdict(low, high, math.log1p(margin)),
        reference_processes,
        changed_processes,
        df,
        None,
        standard_error,
        _t_p_value(difference, standard_error, df),
        SUITE,
    )


def expected_by_chance(count: int, alpha: float = 0.05) -> float:
    """How many of *count* comparisons of identical code a test at level
    *alpha* calls different on average."""
    return count * alpha


def benjamini_hochberg(p_values: Sequence[float], rate: float = 0.05) -> list[bool]:
    """Which hypotheses are rejected by the Benjamini-Hochberg procedure
    at false discovery rate *rate* (same order as *p_values*)."""
    count = len(p_values)
    order = sorted(range(count), key=lambda index: p_values[index])
    largest = 0
    for rank, index in enumerate(order, 1):
        if p_values[index] <= rate * rank / count:
            largest = rank
    rejected = [False] * count
    for index in order[:largest]:
        rejected[index] = True
    return rejected


# --- win rate -----------------------------------------------------------------------


class WinRate(NamedTuple):
    """How often a changed process beats (is faster than) a reference one."""

    rate: float
    low: float
    high: float
    confidence: float


def _wilson(rate: float, count: float, confidence: float) -> tuple[float, float]:
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
    return WinRate(rate, *_wilson(rate, float(len(reference)), confidence), confidence)


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
    return WinRate(rate, *_wilson(rate, effective, confidence), confidence)
