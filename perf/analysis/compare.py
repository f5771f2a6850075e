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
  side would settle it.

Must not: import anything beyond the standard library and
:mod:`perf.analysis`, format text, or print.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

from perf.analysis.distributions import normal_ppf, student_t_ppf
from perf.analysis.statistics import mean, variance

SLOWER = "slower"
FASTER = "faster"
SMALL_CHANGE = "small change"
NO_CHANGE = "no change"
INCONCLUSIVE = "inconclusive"
VERDICTS = (SLOWER, FASTER, SMALL_CHANGE, NO_CHANGE, INCONCLUSIVE)

#: default equivalence margin: differences under 1 % do not matter
DEFAULT_MARGIN = 0.01
#: the most processes per side ever suggested
MAX_SUGGESTED_PROCESSES = 10_000


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
    #: for an inconclusive verdict: processes per side that would settle it
    needed_processes: int | None = None


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


def _needed_processes(difference: float, variances: float, band: float, confidence: float) -> int:
    """Processes per side for an interval narrow enough to decide: to fall
    inside the band (no change) or outside it (a change), whichever the
    observed difference is closer to; at least a quarter of the band."""
    width = max(abs(band - abs(difference)), band / 4)
    z = normal_ppf(1 - (1 - confidence) / 2)
    needed = math.ceil(variances * (z / width) ** 2)
    return max(2, min(needed, MAX_SUGGESTED_PROCESSES))


def compare_process_means(
    reference: Sequence[float],
    changed: Sequence[float],
    margin: float = DEFAULT_MARGIN,
    confidence: float = 0.95,
) -> Comparison:
    """Compare two sets of per-process means (each side needs >= 2)."""
    if not margin >= 0:
        raise ValueError(f"the margin must be >= 0, got {margin!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    ref_logs = _logs(reference, "reference")
    new_logs = _logs(changed, "changed benchmark")
    n_ref, n_new = len(ref_logs), len(new_logs)
    difference = mean(new_logs) - mean(ref_logs)
    var_ref, var_new = variance(ref_logs), variance(new_logs)
    share_ref, share_new = var_ref / n_ref, var_new / n_new
    standard_error = math.sqrt(share_ref + share_new)
    if standard_error == 0:
        df = math.inf
        half_width = 0.0
    else:
        df = (share_ref + share_new) ** 2 / (share_ref**2 / (n_ref - 1) + share_new**2 / (n_new - 1))
        half_width = student_t_ppf(1 - (1 - confidence) / 2, df) * standard_error
    low, high = difference - half_width, difference + half_width
    band = math.log1p(margin)
    verdict = _verdict(low, high, band)
    needed = None
    if verdict == INCONCLUSIVE:
        needed = _needed_processes(difference, var_ref + var_new, band, confidence)
    return Comparison(
        math.exp(difference),
        math.exp(low),
        math.exp(high),
        confidence,
        verdict,
        n_ref,
        n_new,
        df,
        needed,
    )
