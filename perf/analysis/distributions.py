"""Normal and Student t distributions: CDFs and the normal quantile, pure Python.

Algorithms:

* Student t CDF: ``P(T > t) = I_x(df/2, 1/2) / 2`` with ``x = df / (df + t²)``,
  where ``I_x(a, b)`` is the regularized incomplete beta function.  ``I_x`` is
  evaluated by its continued fraction (Numerical Recipes, 3rd ed., §6.4,
  ``betacf``) with the modified Lentz method (Lentz 1976; Thompson & Barnett
  1986), on whichever side of ``(a + 1) / (a + b + 2)`` converges fast, using
  the symmetry ``I_x(a, b) = 1 - I_{1-x}(b, a)``.  ``x`` and ``1 - x`` are both
  computed from ``t²/df`` directly, so neither suffers from cancellation.
* ``log Γ(a + 1/2) - log Γ(a)`` (in B(df/2, 1/2) and the density) uses
  Stirling's series for a >= 20 instead of subtracting two large lgamma()s.
* Normal CDF: ``erfc(-x / √2) / 2`` (``math.erfc`` keeps the lower tail
  accurate).
* Normal quantile: M. J. Wichura, "Algorithm AS 241: The Percentage Points of
  the Normal Distribution", Applied Statistics 37(3), 1988, 477-484 (PPND16,
  about 1e-16 relative).

``df`` may be any float > 0 (``math.inf`` gives the normal distribution);
the accuracy above is verified for df >= 1.  The quantile of Student's t
distribution, found with this CDF, is :mod:`perf.analysis.student_t_quantile`.

Must not: import the :mod:`statistics` module (slow to import; its
``NormalDist`` has no Student t) or anything from perf.
"""

from __future__ import annotations

import math
import sys

__all__ = ["normal_cdf", "normal_ppf", "student_t_cdf"]

_EPSILON = sys.float_info.epsilon
#: smallest magnitude the Lentz recurrences may reach (avoids division by 0)
_TINY = 1e-300
#: the continued fraction needs O(sqrt(max(a, b))) terms: far below this
_MAX_TERMS = 100_000


# --- normal distribution ------------------------------------------------------


def normal_cdf(x: float) -> float:
    """P(X <= x) for the standard normal distribution."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def normal_ppf(p: float) -> float:
    """Quantile of the standard normal distribution (Wichura's AS 241).

    ``normal_ppf(0)`` is ``-inf`` and ``normal_ppf(1)`` is ``inf``;
    *p* outside [0, 1] raises :class:`ValueError`.
    """
    check_probability(p)
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        num = _polynomial(
            r,
            (
                3.3871328727963666080e0,
                1.3314166789178437745e2,
                1.9715909503065514427e3,
                1.3731693765509461125e4,
                4.5921953931549871457e4,
                6.7265770927008700853e4,
                3.3430575583588128105e4,
                2.5090809287301226727e3,
            ),
        )
        den = _polynomial(
            r,
            (
                1.0,
                4.2313330701600911252e1,
                6.8718700749205790830e2,
                5.3941960214247511077e3,
                2.1213794301586595867e4,
                3.9307895800092710610e4,
                2.8729085735721942674e4,
                5.2264952788528545610e3,
            ),
        )
        return q * num / den
    r = math.sqrt(-math.log(p if q < 0.0 else 1.0 - p))
    if r <= 5.0:
        r -= 1.6
        num = _polynomial(
            r,
            (
                1.42343711074968357734e0,
                4.63033784615654529590e0,
                5.76949722146069140550e0,
                3.64784832476320460504e0,
                1.27045825245236838258e0,
                2.41780725177450611770e-1,
                2.27238449892691845833e-2,
                7.74545014278341407640e-4,
            ),
        )
        den = _polynomial(
            r,
            (
                1.0,
                2.05319162663775882187e0,
                1.67638483018380384940e0,
                6.89767334985100004550e-1,
                1.48103976427480074590e-1,
                1.51986665636164571966e-2,
                5.47593808499534494600e-4,
                1.05075007164441684324e-9,
            ),
        )
    else:
        r -= 5.0
        num = _polynomial(
            r,
            (
                6.65790464350110377720e0,
                5.46378491116411436990e0,
                1.78482653991729133580e0,
                2.96560571828504891230e-1,
                2.65321895265761230930e-2,
                1.24266094738807843860e-3,
                2.71155556874348757815e-5,
                2.01033439929228813265e-7,
            ),
        )
        den = _polynomial(
            r,
            (
                1.0,
                5.99832206555887937690e-1,
                1.36929880922735805310e-1,
                1.48753612908506148525e-2,
                7.86869131145613259100e-4,
                1.84631831751005468180e-5,
                1.42151175831644588870e-7,
                2.04426310338993978564e-15,
            ),
        )
    x = num / den
    return -x if q < 0.0 else x


def _polynomial(x: float, coefficients: tuple[float, ...]) -> float:
    """Horner's rule; *coefficients* from the constant term up."""
    result = 0.0
    for coefficient in reversed(coefficients):
        result = result * x + coefficient
    return result


# --- regularized incomplete beta function ---------------------------------------


def _away_from_zero(value: float) -> float:
    """*value*, or a tiny number in its place when it is nearer 0 (Lentz)."""
    return _TINY if abs(value) < _TINY else value


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of I_x(a, b), modified Lentz method (NR ``betacf``)."""
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 / _away_from_zero(1.0 - qab * x / qap)
    h = d

    def step(aa: float) -> float:
        nonlocal c, d
        d = 1.0 / _away_from_zero(1.0 + aa * d)
        c = _away_from_zero(1.0 + aa / c)
        return d * c

    for m in range(1, _MAX_TERMS + 1):
        m2 = 2 * m
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)))  # even step
        delta = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)))  # odd step
        h *= delta
        if abs(delta - 1.0) <= 4.0 * _EPSILON:
            return h
    raise ArithmeticError(f"incomplete beta: no convergence for a={a!r}, b={b!r}, x={x!r}")


def _beta_parts(a: float, b: float, x: float, y: float, log_beta: float) -> tuple[float, float]:
    """``(I_x(a, b), I_y(b, a))``, the two summing to 1, where *y* is ``1 - x``
    computed without cancellation and *log_beta* is ``log B(a, b)``.  The one
    on the side where the continued fraction converges is computed directly,
    the other as ``1 -`` it."""
    if x <= 0.0:
        return 0.0, 1.0
    if y <= 0.0:
        return 1.0, 0.0
    log_x = math.log1p(-y) if y < 0.5 else math.log(x)
    log_y = math.log1p(-x) if x < 0.5 else math.log(y)
    front = math.exp(a * log_x + b * log_y - log_beta)
    if x < (a + 1.0) / (a + b + 2.0):
        direct = front * _beta_continued_fraction(a, b, x) / a
        return direct, 1.0 - direct
    direct = front * _beta_continued_fraction(b, a, y) / b
    return 1.0 - direct, direct


def _stirling_tail(z: float) -> float:
    """``log Γ(z) - ((z - 1/2) log z - z + log(2π)/2)``, Stirling's series."""
    z2 = z * z
    return (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - 1.0 / (1680.0 * z2)) / z2) / z2) / z


def _log_gamma_ratio_half(a: float) -> float:
    """``log Γ(a + 1/2) - log Γ(a)`` without the cancellation of two lgamma()
    calls for large *a* (absolute error ~1e-16 instead of ~1e-16·a·log a)."""
    if a < 20.0:
        return math.lgamma(a + 0.5) - math.lgamma(a)
    return a * math.log1p(0.5 / a) - 0.5 + 0.5 * math.log(a) + _stirling_tail(a + 0.5) - _stirling_tail(a)


# --- Student t distribution -------------------------------------------------------


def check_df(df: float) -> None:
    """ValueError unless *df* is a number of degrees of freedom (> 0)."""
    if not df > 0.0:  # also rejects NaN
        raise ValueError(f"degrees of freedom must be > 0, got {df!r}")


def check_probability(p: float) -> None:
    """ValueError unless *p* is a probability (in [0, 1])."""
    if not 0.0 <= p <= 1.0:  # also rejects NaN
        raise ValueError(f"probability must be in [0, 1], got {p!r}")


def student_t_tail_and_centre(t: float, df: float) -> tuple[float, float]:
    """``(P(T > t), P(0 < T <= t))`` for t >= 0: they sum to 1/2, and the
    smaller one (or the one the continued fraction gives) keeps its relative
    precision."""
    a = 0.5 * df
    log_beta = 0.5 * math.log(math.pi) - _log_gamma_ratio_half(a)  # log B(a, 1/2)
    r = t / math.sqrt(df)
    if r > 1e150:
        # x = 1/(1 + r²) underflows; the first term of the series is exact
        log_r = math.log(t) - 0.5 * math.log(df)  # r itself may overflow
        tail = 0.5 * math.exp(-2.0 * a * log_r - log_beta) / a
        return tail, 0.5 - tail
    z = r * r
    x = 1.0 / (1.0 + z)  # df / (df + t²)
    y = z / (1.0 + z)  # t² / (df + t²) = 1 - x
    tail, centre = _beta_parts(a, 0.5, x, y, log_beta)
    return 0.5 * tail, 0.5 * centre


def student_t_log_density(t: float, df: float) -> float:
    """log of the density of Student's t distribution at t > 0."""
    r = t / math.sqrt(df)
    log1p_z = 2.0 * (math.log(t) - 0.5 * math.log(df)) if r > 1e150 else math.log1p(r * r)
    return _log_gamma_ratio_half(0.5 * df) - 0.5 * math.log(df * math.pi) - 0.5 * (df + 1.0) * log1p_z


def student_t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t distribution with *df* degrees of freedom."""
    check_df(df)
    if math.isnan(t):
        return math.nan
    if math.isinf(df):
        return normal_cdf(t)
    tail, centre = student_t_tail_and_centre(abs(t), df)
    if t >= 0.0:
        return 0.5 + centre if tail > 0.25 else 1.0 - tail
    return 0.5 - centre if tail > 0.25 else tail
