"""The quantile of Student's t distribution, pure Python.

The upper-tail probability ``q = min(p, 1 - p)`` is exact in binary
floating point; the initial guess is G. W. Hill's "Algorithm 396:
Student's t-quantiles" (CACM 13(10), 1970, as refined in R's ``qt``); it
is polished by Newton's method (on log P(T > t) against log t in the tail,
which is exact for power-law tails; on P(0 < T <= t) near the centre),
safeguarded by a bracket that falls back to bisection (geometric over wide
brackets).  The CDF and density come from :mod:`perf.analysis.distributions`.

Relative error is below 1e-12 for p in [1e-6, 1 - 1e-6] and df from 1 to
1000, measured against SciPy and 40-digit mpmath (SciPy itself is off by
4e-5 at p = 0.5 - 1e-6, df = 4); it grows to ~1e-11 at df = 1e6, where the
continued fraction gets long.  ``df`` may be any float > 0 (``math.inf``
gives the normal quantile).

Must not: import the :mod:`statistics` module (slow to import; its
``NormalDist`` has no Student t) or anything from perf but
:mod:`perf.analysis.distributions`.
"""

from __future__ import annotations

import functools
import math
import sys

from perf.analysis.distributions import (
    check_df,
    check_probability,
    normal_ppf,
    student_t_log_density,
    student_t_tail_and_centre,
)

__all__ = ["student_t_ppf"]

_EPSILON = sys.float_info.epsilon
_LARGEST = sys.float_info.max
#: iterations of the safeguarded Newton solver (3 to 5 usually, 16 at most
#: seen over the whole double range)
_MAX_NEWTON = 200


def _hill_guess(q: float, df: float) -> float:
    """Hill's (1970) approximation of t > 0 with P(T > t) = q (0 < q < 1/2):
    exact for df 1 and 2, a few digits otherwise; always finite and > 0."""
    two_tailed = 2.0 * q
    if df == 1.0:
        guess = 1.0 / math.tan(q * math.pi)
    elif df == 2.0:
        guess = math.sqrt(2.0 / (two_tailed * (2.0 - two_tailed)) - 2.0)
    elif df < 1.0:
        guess = 1.0  # outside Hill's domain: the bracketed solver takes over
    else:
        guess = _hill_general(two_tailed, df)
    if not guess > 0.0:  # NaN, 0 or negative from a degenerate case
        guess = 1.0
    return min(guess, _LARGEST)


def _hill_general(two_tailed: float, df: float) -> float:
    a = 1.0 / (df - 0.5)
    b = 48.0 / (a * a)
    c = ((20700.0 * a / b - 98.0) * a - 16.0) * a + 96.36
    d = ((94.5 / (b + c) - 3.0) / b + 1.0) * math.sqrt(a * math.pi / 2.0) * df
    y = (d * two_tailed) ** (2.0 / df)
    if (df < 2.1 and two_tailed > 0.5) or y > 0.05 + a:
        # asymptotic expansion around the normal quantile
        x = normal_ppf(0.5 * two_tailed)
        y = x * x
        if df < 5.0:
            c += 0.3 * (df - 4.5) * (x + 0.6)
        c = (((0.05 * d * x - 5.0) * x - 7.0) * x - 2.0) * x + b + c
        y = (((((0.4 * y + 6.3) * y + 36.0) * y + 94.5) / c - y - 3.0) / b + 1.0) * x
        y = math.expm1(a * y * y)
    elif y > 0.0:
        y = ((1.0 / (((df + 6.0) / (df * y) - 0.089 * d - 0.822) * (df + 2.0) * 3.0) + 0.5 / (df + 4.0)) * y - 1.0) * (
            df + 1.0
        ) / (df + 2.0) + 1.0 / y
    else:
        return math.inf  # (d * P) ** (2 / df) underflowed: far in the tail
    return math.sqrt(df * y)


def _next_guess(t: float, step: float, low: float, high: float) -> float:
    """Newton's candidate ``t + step`` if it stays inside (low, high), else a
    bisection of the bracket (geometric when it spans a wide range)."""
    candidate = t + step
    if low < candidate < high:
        return candidate
    if math.isinf(high):  # no upper bound yet: grow fast, but stay finite
        return min(max(2.0 * t, t * t), _LARGEST)
    if high > 4.0 * low and high > 4.0:
        return math.sqrt(max(low, 1.0)) * math.sqrt(high)
    return low + 0.5 * (high - low)


def _newton_step(t: float, df: float, q: float) -> tuple[float, float]:
    """``(error, step)``: the sign of *error* tells whether P(T > t) is above
    *q* (t too small: error > 0); ``t + step`` is Newton's next estimate.

    In the tail (q < 1/4) Newton works on log P(T > t) against log t, which
    is exact for the power-law tails of small df; near the centre it works on
    P(0 < T <= t) against ``1/2 - q``, which is exact there (Sterbenz).
    """
    tail, centre = student_t_tail_and_centre(t, df)
    log_density = student_t_log_density(t, df)
    if q >= 0.25:
        error = (0.5 - q) - centre
        return error, error / math.exp(log_density)
    if tail <= 0.0:  # underflow: far beyond the quantile
        return -math.inf, -math.inf
    log_tail = math.log(tail)
    error = log_tail - math.log(q)
    # d log(tail) / d log(t) = -t·density/tail, in logs so nothing underflows
    exponent = error * math.exp(log_tail - math.log(t) - log_density)
    step = t * math.expm1(exponent) if exponent < 700.0 else math.inf
    return error, step


def _upper_quantile(q: float, df: float) -> float:
    """t > 0 such that P(T > t) = q, for 0 < q < 1/2: safeguarded Newton."""
    low, high = 0.0, math.inf
    t = _hill_guess(q, df)
    for _ in range(_MAX_NEWTON):
        error, step = _newton_step(t, df, q)
        if error == 0.0:
            return t
        if error > 0.0:
            if t >= _LARGEST:
                return math.inf  # the quantile overflows
            low = t  # the tail is too heavy: t is too small
        else:
            high = t
        if abs(step) <= 1e-13 * t:
            # quadratic convergence: the error left after this step is ~step²
            return t + step
        if math.isfinite(high) and high - low <= 4.0 * _EPSILON * high:
            return t  # the bracket collapsed: t is as good as the tail allows
        t = _next_guess(t, step, low, high)
    return t


@functools.lru_cache(maxsize=256)
def student_t_ppf(p: float, df: float) -> float:
    """Quantile of Student's t distribution: t such that P(T <= t) = p.

    ``student_t_ppf(0, df)`` is ``-inf`` and ``student_t_ppf(1, df)`` is
    ``inf``; *p* outside [0, 1] or *df* <= 0 raises :class:`ValueError`.

    Cached: the intervals of a suite ask for the same few quantiles again
    and again (``stats`` of 200 benchmarks of 20 processes: 200 times the
    one of df = 19), and each costs a few Newton steps on the incomplete
    beta function.  A pure function of two floats, so a cached result is
    the computed one; errors are not cached.
    """
    check_probability(p)
    check_df(df)
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    if p == 0.5:
        return 0.0
    if math.isinf(df):
        return normal_ppf(p)
    q = min(p, 1.0 - p)  # exact: 1 - p has no rounding error for p >= 1/2
    t = _upper_quantile(q, df)
    return t if p > 0.5 else -t
