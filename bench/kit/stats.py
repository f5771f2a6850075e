"""Intervals and tests the experiments count with (perf's own are in
perf.analysis: these are the yardsticks and the rivals)."""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple, Sequence

from perf.analysis import compare
from perf.analysis.statistics import mean, median, stdev, variance, variance_components
from perf.analysis.student_t_quantile import student_t_ppf

ALPHA = 0.05

# -- rates counted over repetitions ----------------------------------------------------


def binomial_cdf(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact binomial interval of *k* successes in *n*, by bisection."""
    tail = (1 - confidence) / 2

    def solve(target: float, count: int) -> float:
        low, high = 0.0, 1.0
        for _ in range(60):
            middle = (low + high) / 2
            if binomial_cdf(count, n, middle) > target:
                low = middle
            else:
                high = middle
        return (low + high) / 2

    lower = 0.0 if k == 0 else solve(1 - tail, k - 1)
    upper = 1.0 if k == n else solve(tail, k)
    return lower, upper


def mc_rate(count: int, total: int) -> str:
    """``p % +- SE``: the rate with its binomial Monte-Carlo standard error."""
    if not total:
        return "n/a"
    p = count / total
    return f"{100 * p:5.1f} % +- {100 * math.sqrt(p * (1 - p) / total):.1f}"


def fpr_cell(count: int, total: int) -> str:
    """``k/n = p % +- SE [exact 95 % interval]``."""
    low, high = clopper_pearson(count, total)
    return f"{count}/{total} = {mc_rate(count, total).strip()} [{100 * low:.1f}..{100 * high:.1f}]"


# -- one comparison's answer -----------------------------------------------------------


class Claim(NamedTuple):
    """One method's answer for one comparison."""

    ratio: float
    #: 95 % CI of the ratio (None: the method has no interval)
    low: float | None
    high: float | None
    verdict: str | None
    different: bool
    t_score: float


def from_comparison(result: compare.Comparison) -> Claim:
    se = result.standard_error
    t_score = math.log(result.ratio) / se if se and math.isfinite(se) else math.nan
    return Claim(result.ratio, result.low, result.high, result.verdict, result.different, t_score)


def half_width(claim: Claim) -> float | None:
    """sqrt(high / low) - 1, the interval's half-width as a ratio."""
    if claim.low is None or claim.high is None or not claim.low > 0 or math.isinf(claim.high):
        return None
    return math.sqrt(claim.high / claim.low) - 1


def claims_cells(claims: Sequence[Claim]) -> list[str]:
    """Over repetitions: the median ratio, the median half-width, the mean
    and SD of the t-scores (an honest SE gives mean 0 and SD 1)."""
    widths = [width for width in map(half_width, claims) if width is not None]
    t_scores = [claim.t_score for claim in claims if math.isfinite(claim.t_score)]
    return [
        f"{median([claim.ratio for claim in claims]):.4f}",
        f"+-{100 * median(widths):.2f} %" if widths else "n/a",
        f"{mean(t_scores):+.2f}" if t_scores else "n/a",
        f"{stdev(t_scores):.2f}" if len(t_scores) >= 2 else "n/a",
    ]


# -- the rivals' tests ---------------------------------------------------------------


def pooled_t_local(sample1: Sequence[float], sample2: Sequence[float]) -> tuple[bool, float]:
    """pyperf's test: two-sample Student t on the pooled values, equal sizes."""
    n = len(sample1)
    pooled = ((n - 1) * variance(sample1) + (n - 1) * variance(sample2)) / (2 * n - 2)
    t_score = (mean(sample1) - mean(sample2)) / math.sqrt(pooled * 2 / n)
    return abs(t_score) >= student_t_ppf(1 - ALPHA / 2, 2 * n - 2), t_score


def pyperf_test() -> tuple[Callable[[Sequence[float], Sequence[float]], tuple[bool, float]], str]:
    """pyperf compare_to's significance test (``pyperf._utils.is_significant``,
    or the same formula here when pyperf is missing) and what it is."""
    try:
        import pyperf
        from pyperf._utils import is_significant
    except ImportError:
        return pooled_t_local, "local pooled Student t (pyperf's formula; pyperf not importable)"
    return is_significant, f"pyperf._utils.is_significant (pyperf {pyperf.__version__})"


# -- what a recording holds ------------------------------------------------------------


def icc(groups: Sequence[Sequence[float]]) -> tuple[float, float, float]:
    """(between SD, within SD, ICC), variance components of values by process."""
    between, within = variance_components(groups)
    total = between + within
    return math.sqrt(between), math.sqrt(within), between / total if total else 0.0


def raw_time(benchmark: Any) -> float:
    """Seconds spent measuring: every calibration, warmup and value."""
    total = 0.0
    for run in benchmark.get_runs():
        inner = run.get_inner_loops()
        for loops, value in run.warmups:
            total += value * loops * inner
        total += sum(run.values) * run.get_loops() * inner
    return total
