"""perf.analysis.student_t_quantile: Student t quantiles.

Reference values were computed once with SciPy 1.17.1 (``scipy.stats.t``)
in a throwaway virtual environment and cross-checked with mpmath at 40
digits; they are hard-coded so the tests need neither.  Where SciPy is
wrong (see ``test_t_ppf_where_scipy_is_off_or_extreme``) the value is
mpmath's or a closed form.  The bounds, the infinite df and the invalid
arguments are tests/analysis/test_distributions.py, with the CDFs.
"""

from __future__ import annotations

import ast
import math
import pathlib

import pytest

from perf.analysis.distributions import student_t_cdf
from perf.analysis.student_t_quantile import student_t_ppf

#: (p, df, scipy.stats.t.ppf(p, df))
T_PPF = [
    (1e-06, 1, -318309.8861827435),
    (0.001, 1, -318.30883898555044),
    (0.025, 1, -12.706204736174705),
    (0.3, 1, -0.7265425280053609),
    (0.6, 1, 0.32491969623290634),
    (0.9, 1, 3.0776835371752544),
    (0.975, 1, 12.706204736174694),
    (0.995, 1, 63.656741162871526),
    (0.999999, 1, 318309.88617359026),
    (1e-06, 2, -707.1057205259339),
    (0.001, 2, -22.327124770119873),
    (0.025, 2, -4.302652729749464),
    (0.3, 2, -0.6172133998483678),
    (0.6, 2, 0.2886751345948128),
    (0.9, 2, 1.8856180831641272),
    (0.975, 2, 4.302652729749462),
    (0.995, 2, 9.924843200918287),
    (0.999999, 2, 707.1057205157672),
    (1e-06, 3, -103.29946778041935),
    (0.001, 3, -10.214531852407385),
    (0.025, 3, -3.1824463052837086),
    (0.3, 3, -0.5843897274398188),
    (0.6, 3, 0.2766706623326898),
    (0.9, 3, 1.637744353696209),
    (0.975, 3, 3.1824463052837078),
    (0.995, 3, 5.840909309733355),
    (0.999999, 3, 103.29946777942898),
    (1e-06, 4, -41.577854150450975),
    (0.001, 4, -7.1731822197823085),
    (0.025, 4, -2.7764451051977943),
    (0.3, 4, -0.5686490630497053),
    (0.6, 4, 0.2707222947075976),
    (0.9, 4, 1.533206274058944),
    (0.975, 4, 2.7764451051977934),
    (0.995, 4, 4.604094871349992),
    (0.999999, 4, 41.5778541501515),
    (1e-06, 5, -24.771029720515948),
    (0.001, 5, -5.893429531356009),
    (0.025, 5, -2.5705818356363155),
    (0.3, 5, -0.5594296444693604),
    (0.6, 5, 0.2671808657041451),
    (0.9, 5, 1.4758840488244815),
    (0.975, 5, 2.5705818356363146),
    (0.995, 5, 4.032142983555228),
    (0.999999, 5, 24.771029720372493),
    (1e-06, 7.5, -13.052169759815303),
    (0.001, 7.5, -4.6303190940341015),
    (0.025, 7.5, -2.3330396268649745),
    (0.3, 7.5, -0.5474128775812613),
    (0.6, 7.5, 0.26250189880429486),
    (0.9, 7.5, 1.4052118464159533),
    (0.975, 7.5, 2.333039626864974),
    (0.995, 7.5, 3.421422688124044),
    (0.999999, 7.5, 13.052169759763295),
    (1e-06, 10, -9.751995490940581),
    (0.001, 10, -4.143700494046589),
    (0.025, 10, -2.2281388519862753),
    (0.3, 10, -0.5415280387550154),
    (0.6, 10, 0.2601848294920803),
    (0.9, 10, 1.372183641110336),
    (0.975, 10, 2.228138851986274),
    (0.995, 10, 3.16927267261695),
    (0.999999, 10, 9.751995490909856),
    (1e-06, 19, -6.723394282200186),
    (0.001, 19, -3.579400148954716),
    (0.025, 19, -2.09302405440831),
    (0.3, 19, -0.5333138816422048),
    (0.6, 19, 0.25692281979615467),
    (0.9, 19, 1.3277282090267986),
    (0.975, 19, 2.0930240544083087),
    (0.995, 19, 2.8609346064649794),
    (0.999999, 19, 6.7233942821860095),
    (1e-06, 30, -5.871117120418882),
    (0.001, 30, -3.385184866829305),
    (0.025, 30, -2.042272456301238),
    (0.3, 30, -0.5300190039065046),
    (0.6, 30, 0.2556053649519128),
    (0.9, 30, 1.3104150253913955),
    (0.975, 30, 2.0422724563012378),
    (0.995, 30, 2.7499956535672254),
    (0.999999, 30, 5.871117120408624),
    (1e-06, 100, -5.048830877228346),
    (0.001, 100, -3.173739493738783),
    (0.025, 100, -1.983971518523552),
    (0.3, 100, -0.5260762706003465),
    (0.6, 100, 0.25402218245822766),
    (0.9, 100, 1.290074761346516),
    (0.975, 100, 1.9839715185235518),
    (0.995, 100, 2.6258905214380173),
    (0.999999, 100, 5.048830877221446),
    (1e-06, 999, -4.781636978830079),
    (0.001, 999, -3.0984103617533125),
    (0.025, 999, -1.9623414611334498),
    (0.3, 999, -0.5245678747137387),
    (0.6, 999, 0.2534145833303675),
    (0.9, 999, 1.2823995700373971),
    (0.975, 999, 1.9623414611334493),
    (0.995, 999, 2.5807596372676365),
    (0.999999, 999, 4.781636978824167),
    (1e-06, 1000, -4.781608620458351),
    (0.001, 1000, -3.0984021639129233),
    (0.025, 1000, -1.9623390808264085),
    (0.3, 1000, -0.524567707309227),
    (0.6, 1000, 0.25341451583949876),
    (0.9, 1000, 1.2823987214609247),
    (0.975, 1000, 1.9623390808264083),
    (0.995, 1000, 2.580754698065951),
    (0.999999, 1000, 4.781608620452439),
]

#: the design target is 1e-8 relative; the implementation does better
RELATIVE = 1e-11


@pytest.mark.parametrize(("p", "df", "expected"), T_PPF)
def test_t_ppf_matches_scipy(p: float, df: float, expected: float) -> None:
    assert student_t_ppf(p, df) == pytest.approx(expected, rel=RELATIVE)


@pytest.mark.parametrize(
    ("p", "df", "expected"),
    [
        # SciPy 1.17.1 gives -2.666766695183308e-06 (4e-5 off); mpmath, 40 digits
        (0.5 - 1e-6, 4, -2.6666666665992693e-06),
        # closed forms, evaluated with mpmath: df=1 is Cauchy, -1/tan(pi p)
        (1e-300, 1, -3.1830988618379066e299),
        # df=2: -(1 - 2p) / sqrt(2p(1 - p)); SciPy gives -3.18e161 here
        (1e-300, 2, -7.071067811865475e149),
        (5e-324, 2, -3.1812124520951964e161),
    ],
)
def test_t_ppf_where_scipy_is_off_or_extreme(p: float, df: float, expected: float) -> None:
    assert student_t_ppf(p, df) == pytest.approx(expected, rel=1e-11)


@pytest.mark.parametrize("df", [0.3, 1, 1.5, 2, 3.7, 12, 250, 1e4])
@pytest.mark.parametrize("p", [1e-300, 1e-100, 1e-12, 1e-6, 0.01, 0.2, 0.4999, 0.7, 0.999])
def test_t_ppf_inverts_cdf(p: float, df: float) -> None:
    t = student_t_ppf(p, df)
    if math.isinf(t):  # df < 1 far in the tail: the quantile overflows
        assert df < 1 and p < 1e-6
        return
    assert student_t_cdf(t, df) == pytest.approx(p, rel=1e-10)


def test_t_ppf_is_antisymmetric_and_monotonic() -> None:
    for df in (1, 2.5, 9, 120):
        previous = -math.inf
        for p in (1e-9, 1e-3, 0.1, 0.3, 0.5, 0.7, 0.9, 0.999, 1 - 1e-9):
            t = student_t_ppf(p, df)
            assert t > previous
            previous = t
            upper = max(p, 1 - p)  # 1 - upper is exact
            assert student_t_ppf(1 - upper, df) == -student_t_ppf(upper, df)


def test_imports_only_the_distributions() -> None:
    path = pathlib.Path(__file__).resolve().parents[2] / "perf" / "analysis" / "student_t_quantile.py"
    tree = ast.parse(path.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    assert "statistics" not in imported
    assert [name for name in imported if name.split(".")[0] == "perf"] == ["perf.analysis.distributions"]
