"""Comparing two sets of process means: the ratio, its interval, a verdict.

The unit of replication is the worker process (doc/design.rst, R1):
each side is reduced to its per-process means, compared on a log scale
(R2): the effect is the ratio of the geometric means of the process means
(changed / reference: above 1 is slower), with a Welch t interval on the
difference of the mean logs, which allows unequal variances and unequal
numbers of processes (pyperf's pooled t-test on all values calls unequal
value counts "significant" whatever the data, doc/compatibility.rst, known pyperf bugs).

The verdict (R3) uses an equivalence margin *margin* (1 % by default), the
band ``[1 / (1 + margin), 1 + margin]`` of ratios that do not matter:

* ``slower`` / ``faster``: the whole interval is outside the band;
* ``no change``: the whole interval is inside the band;
* ``small change``: the interval excludes 1 but overlaps the band (a real
  difference, maybe too small to matter);
* ``inconclusive``: the interval contains 1 and reaches beyond the band;
  :attr:`Comparison.needed_processes` estimates how many processes per
  side would narrow the interval to +-margin.

The names of the verdicts and of the tests are the attributes of the
classes :class:`Verdict` and :class:`Method` (the modules that lay
comparisons out import types, not constants), and module constants too.

This module owns the :class:`Comparison` and its verdicts, and the t
comparisons: :func:`compare_process_means` (two independent recordings)
and :func:`compare_paired_process_means` (the pairs of an interleaved run,
R6: a paired t on the per-pair log ratios, the drift of the machine cancels
within a pair).  Elsewhere in :mod:`perf.analysis`: the rank comparisons
(:mod:`perf.analysis.ranks`), the win rate (:mod:`perf.analysis.win_rate`),
a suite's geometric mean and the counts of many comparisons
(:mod:`perf.analysis.suites`), the choice of the test for two benchmarks
(:mod:`perf.analysis.benchmarks`).

Must not: import anything beyond the standard library and
:mod:`perf.analysis`, format text, or print.
"""

from __future__ import annotations

import math
from typing import Final, NamedTuple, Sequence

from perf.analysis.distributions import normal_ppf, student_t_cdf
from perf.analysis.statistics import mean, variance
from perf.analysis.student_t_quantile import student_t_ppf


class Verdict:
    """The names of the verdicts of a :class:`Comparison` (its ``verdict``
    is one of these plain strings), and the margin they are read against
    by default.

    A class, so that the modules that lay comparisons out (perf.render,
    which imports types from perf.analysis, no constant) can name them.
    """

    SLOWER: Final = "slower"
    FASTER: Final = "faster"
    SMALL_CHANGE: Final = "small change"
    NO_CHANGE: Final = "no change"
    INCONCLUSIVE: Final = "inconclusive"
    #: every verdict, in the order of a legend
    ALL: Final = (SLOWER, FASTER, SMALL_CHANGE, NO_CHANGE, INCONCLUSIVE)
    #: default equivalence margin: differences under 1 % do not matter
    DEFAULT_MARGIN: Final = 0.01


class Method:
    """The names of the tests of a :class:`Comparison` (its ``method``)."""

    WELCH: Final = "welch"
    PAIRED: Final = "paired"
    RANKS: Final = "mann-whitney"
    SIGNED_RANKS: Final = "wilcoxon"
    #: a suite's geometric mean (perf.analysis.suites.combine_comparisons)
    SUITE: Final = "geometric mean"


SLOWER, FASTER, SMALL_CHANGE, NO_CHANGE, INCONCLUSIVE = VERDICTS = Verdict.ALL
#: verdicts that say the benchmarks differ (the interval excludes 1)
DIFFERENT = frozenset({SLOWER, FASTER, SMALL_CHANGE})
WELCH, PAIRED, RANKS, SIGNED_RANKS, SUITE = Method.WELCH, Method.PAIRED, Method.RANKS, Method.SIGNED_RANKS, Method.SUITE
DEFAULT_MARGIN = Verdict.DEFAULT_MARGIN
#: the most processes per side ever suggested
MAX_SUGGESTED_PROCESSES = 10_000

#: why the machine's speed was not corrected for although both recordings
#: carry speed probes (:attr:`Adjustment.machine_skipped`)
DIFFERENT_PROBES = "different probes"
#: both probes ran in the interpreter under test (perf's first probe), and
#: the two recordings ran different interpreters
INTERPRETER_PROBES = "interpreter probes"
#: a ratio or a bound that moved less than this (log scale) did not move
NEGLIGIBLE_CHANGE = 0.0005


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
    #: recorded), with its interval; None when the probes cannot be
    #: compared (:attr:`machine_skipped`)
    machine: tuple[float, float, float] | None
    #: the share of the machine's log ratio taken out of the ratio (0: none)
    machine_weight: float
    #: the comparison of the times as recorded, before any correction
    raw: Comparison
    #: the kind of speed probe of each side (reference, changed)
    probes: tuple[str, str] = ("", "")
    #: DIFFERENT_PROBES or INTERPRETER_PROBES: why the machine's speed was
    #: not corrected for; None when it was compared
    machine_skipped: str | None = None
    #: with INTERPRETER_PROBES: the first metadata key whose value differs
    #: between the two interpreters, and its values (reference, changed)
    interpreters: tuple[str, str, str] | None = None
    #: how far the benchmark followed the probe within the recordings: the
    #: slope of its log process means on the log probes, and the slope's
    #: standard error (None: not measured, or the probe did not vary)
    tracking: tuple[float, float] | None = None
    #: the probe moved, but the benchmark did not clearly follow it within
    #: the recordings: the ratio is as recorded, the interval widened by
    #: the shift the probe could have taken out
    untracked: bool = False

    @property
    def machine_corrected(self) -> bool:
        return self.machine_weight > 0

    @property
    def different_probes(self) -> bool:
        """True when the machine's speed was not corrected for because the
        speed probes of the two recordings are of different kinds."""
        return self.machine_skipped == DIFFERENT_PROBES

    @property
    def interpreter_probes(self) -> bool:
        """True when the machine's speed was not corrected for because both
        probes timed the interpreter under test, and the interpreters differ."""
        return self.machine_skipped == INTERPRETER_PROBES


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

    @property
    def needed_capped(self) -> bool:
        """True when :attr:`needed_processes` is the most ever suggested
        (MAX_SUGGESTED_PROCESSES): more would be needed."""
        return self.needed_processes is not None and self.needed_processes >= MAX_SUGGESTED_PROCESSES

    @property
    def corrected(self) -> bool:
        """True when a correction for a busy machine changed the result:
        its ratio or a bound of its interval moved, or its verdict."""
        if self.adjustment is None:
            return False
        raw = self.adjustment.raw
        if raw.verdict != self.verdict:
            return True
        return any(
            abs(math.log(mine / theirs)) >= NEGLIGIBLE_CHANGE
            for mine, theirs in ((self.ratio, raw.ratio), (self.low, raw.low), (self.high, raw.high))
            if mine > 0 and theirs > 0 and math.isfinite(mine) and math.isfinite(theirs)
        )


def process_logs(values: Sequence[float], side: str) -> list[float]:
    if len(values) < 2:
        raise ValueError(f"the {side} needs at least 2 processes with values, got {len(values)}")
    if any(not value > 0 or math.isinf(value) for value in values):
        raise ValueError(f"the {side} has a process mean that is not a finite number > 0")
    return [math.log(value) for value in values]


def verdict_of(low: float, high: float, band: float) -> str:
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


def needed_processes(variances: float, band: float, confidence: float) -> int:
    """Processes per side for an interval of the log ratio no wider than
    +-band (doc/design.rst, R3: n (half-width / margin)^2): then
    it fits inside the equivalence band or leaves part of it clear.
    *variances*: the sum of the per-process variances of both sides.

    The interval is Student's t: the quantile of n - 1 degrees of freedom
    (a pair's, the fewest) is used, not the normal one, which promised 9
    pairs where 10 had left an interval of +-20 % (issue 29)."""
    if band <= 0:
        return MAX_SUGGESTED_PROCESSES
    level = 1 - (1 - confidence) / 2
    needed = max(2, math.ceil(variances * (normal_ppf(level) / band) ** 2))
    while needed < MAX_SUGGESTED_PROCESSES and variances * (student_t_ppf(level, needed - 1) / band) ** 2 > needed:
        needed += 1
    return min(needed, MAX_SUGGESTED_PROCESSES)


def check_levels(margin: float, confidence: float) -> None:
    if not margin >= 0:
        raise ValueError(f"the margin must be >= 0, got {margin!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


def t_p_value(difference: float, standard_error: float, df: float) -> float:
    if standard_error == 0:
        return 1.0 if difference == 0 else 0.0
    return min(1.0, 2.0 * student_t_cdf(-abs(difference) / standard_error, df))


def interval_comparison(
    estimate: float,
    interval: tuple[float, float],
    *,
    df: float,
    variances: float,
    counts: tuple[int, int],
    levels: tuple[float, float],
    standard_error: float,
    p_value: float,
    method: str,
) -> Comparison:
    """The Comparison of the log ratio *estimate* and its *interval*: the
    verdict, and for an inconclusive one the processes :func:`needed_processes`
    suggests from *variances* (none when they are not finite).  *counts*:
    processes (pairs) per side; *levels*: margin and confidence."""
    margin, confidence = levels
    low, high = interval
    band = math.log1p(margin)
    verdict = verdict_of(low, high, band)
    needed = None
    if verdict == INCONCLUSIVE and math.isfinite(variances):
        needed = needed_processes(variances, band, confidence)
    ratios = (math.exp(estimate), math.exp(low), math.exp(high))
    return Comparison(*ratios, confidence, verdict, *counts, df, needed, standard_error, p_value, method)


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
    t quantile x *standard_error*.  *variances*: what :func:`needed_processes`
    scales; *counts*: processes (pairs) per side; *levels*: margin and
    confidence."""
    confidence = levels[1]
    half_width = student_t_ppf(1 - (1 - confidence) / 2, df) * standard_error if standard_error else 0.0
    return interval_comparison(
        difference,
        (difference - half_width, difference + half_width),
        df=df,
        variances=variances,
        counts=counts,
        levels=levels,
        standard_error=standard_error,
        p_value=t_p_value(difference, standard_error, df),
        method=method,
    )


def compare_process_means(
    reference: Sequence[float],
    changed: Sequence[float],
    margin: float = DEFAULT_MARGIN,
    confidence: float = 0.95,
) -> Comparison:
    """Compare two sets of per-process means (each side needs >= 2)."""
    check_levels(margin, confidence)
    ref_logs = process_logs(reference, "reference")
    new_logs = process_logs(changed, "changed benchmark")
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


def pair_log_ratios(reference: Sequence[float], changed: Sequence[float]) -> list[float]:
    """``log(changed[i] / reference[i])`` of each pair (>= 2 pairs)."""
    ref_logs = process_logs(reference, "reference")
    new_logs = process_logs(changed, "changed benchmark")
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
    (doc/design.rst, R6): ``reference[i]`` and ``changed[i]`` ran one
    after the other, so the drift of the machine is (nearly) the same in
    both and cancels in their log ratio.

    The effect is the mean of the per-pair log ratios (the ratio of the
    geometric means, as unpaired), the interval Student's t on those
    differences with n - 1 degrees of freedom.  Needs >= 2 complete pairs;
    the suggestion for an inconclusive verdict counts pairs.
    """
    check_levels(margin, confidence)
    differences = pair_log_ratios(reference, changed)
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
