"""perf.analysis.distributions: Student t and normal CDFs, the normal
quantile, and the arguments and bounds they share with the Student t
quantile (whose own values are tests/analysis/test_student_t_quantile.py).

Reference values were computed once with SciPy 1.17.1 (``scipy.stats.t`` and
``scipy.stats.norm``) in a throwaway virtual environment and cross-checked
with mpmath at 40 digits; they are hard-coded so the tests need neither.
"""

from __future__ import annotations

import math

import pytest
from helpers import module_imports

from perf.analysis.distributions import normal_cdf, normal_ppf, student_t_cdf
from perf.analysis.student_t_quantile import student_t_ppf

#: (t, df, scipy.stats.t.cdf(t, df))
T_CDF = [
    (-100000.0, 1, 3.183098861731804e-06),
    (-40.0, 3, 1.7190340394579253e-05),
    (-3.0, 2.5, 0.036288047774515914),
    (-1.0, 10, 0.17044656615103),
    (-0.001, 5, 0.4996203933860988),
    (0.0, 7, 0.5),
    (0.5, 1, 0.6475836176504333),
    (1.96, 1000, 0.9748634075221256),
    (2.0, 30, 0.9726874775185085),
    (12.0, 4, 0.9998617857257485),
    (1000.0, 1.5, 0.9999880755271766),
]

#: (p, scipy.stats.norm.ppf(p))
NORMAL_PPF = [
    (1e-300, -37.0470962993612),
    (1e-20, -9.262340089798409),
    (1e-06, -4.753424308822899),
    (0.001, -3.090232306167813),
    (0.025, -1.9599639845400545),
    (0.1, -1.2815515655446004),
    (0.3, -0.5244005127080409),
    (0.5, 0.0),
    (0.7, 0.5244005127080407),
    (0.975, 1.959963984540054),
    (0.999999, 4.753424308817087),
]

#: (x, scipy.stats.norm.cdf(x))
NORMAL_CDF = [
    (-37.0, 5.7255712225239266e-300),
    (-10.0, 7.61985302416047e-24),
    (-3.0, 0.0013498980316300933),
    (-1.0, 0.15865525393145707),
    (0.0, 0.5),
    (0.5, 0.6914624612740131),
    (1.96, 0.9750021048517795),
    (5.0, 0.9999997133484281),
]

#: the design target is 1e-8 relative; the implementation does better
RELATIVE = 1e-11


@pytest.mark.parametrize(("t", "df", "expected"), T_CDF)
def test_t_cdf_matches_scipy(t: float, df: float, expected: float) -> None:
    assert student_t_cdf(t, df) == pytest.approx(expected, rel=RELATIVE)


@pytest.mark.parametrize(("p", "expected"), NORMAL_PPF)
def test_normal_ppf_matches_scipy(p: float, expected: float) -> None:
    assert normal_ppf(p) == pytest.approx(expected, rel=1e-14, abs=1e-300)


@pytest.mark.parametrize(("x", "expected"), NORMAL_CDF)
def test_normal_cdf_matches_scipy(x: float, expected: float) -> None:
    assert normal_cdf(x) == pytest.approx(expected, rel=1e-12)


def test_t_ppf_bounds_and_centre() -> None:
    assert student_t_ppf(0.0, 5) == -math.inf
    assert student_t_ppf(1.0, 5) == math.inf
    assert student_t_ppf(0.5, 5) == 0.0
    assert student_t_cdf(math.inf, 5) == 1.0
    assert student_t_cdf(-math.inf, 5) == 0.0
    assert math.isnan(student_t_cdf(math.nan, 5))


def test_infinite_df_is_the_normal_distribution() -> None:
    assert student_t_ppf(0.975, math.inf) == normal_ppf(0.975)
    assert student_t_cdf(1.5, math.inf) == normal_cdf(1.5)
    # and a large df comes close to it
    assert student_t_ppf(0.975, 1e6) == pytest.approx(1.959966, rel=1e-6)


@pytest.mark.parametrize("p", [-0.1, 1.5, math.nan])
def test_invalid_probability(p: float) -> None:
    with pytest.raises(ValueError, match="probability"):
        student_t_ppf(p, 3)
    with pytest.raises(ValueError, match="probability"):
        normal_ppf(p)


@pytest.mark.parametrize("df", [0, -1, math.nan])
def test_invalid_degrees_of_freedom(df: float) -> None:
    with pytest.raises(ValueError, match="degrees of freedom"):
        student_t_ppf(0.9, df)
    with pytest.raises(ValueError, match="degrees of freedom"):
        student_t_cdf(1.0, df)


def test_normal_ppf_bounds() -> None:
    assert normal_ppf(0.0) == -math.inf
    assert normal_ppf(1.0) == math.inf


def test_does_not_import_statistics_or_perf() -> None:
    imported = module_imports("perf/analysis/distributions.py")
    assert "statistics" not in imported
    assert not any(name.split(".")[0] == "perf" for name in imported)
