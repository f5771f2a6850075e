"""perf.render.compare: brackets precise enough for their verdict, and what
each verdict means."""

from __future__ import annotations

import math

import pytest

from perf.analysis.compare import (
    FASTER,
    INCONCLUSIVE,
    NO_CHANGE,
    PAIRED,
    SLOWER,
    SMALL_CHANGE,
    Comparison,
    compare_process_means,
)
from perf.render.compare import (
    format_bracket,
    format_change,
    format_ratio_interval,
    format_verdict,
    identical,
    verdict_meaning,
)


def comparison(ratio, low, high, verdict, *, needed=None, method="welch", p_value=0.01):
    return Comparison(ratio, low, high, 0.95, verdict, 20, 20, 38.0, needed, 0.01, p_value, method)


@pytest.mark.parametrize(
    ("ratio", "low", "high", "verdict", "expected"),
    [
        # the case: 1.01x printed for a bound inside the 1% band
        (1 / 1.07, 1 / 1.14, 1 / 1.0094, SMALL_CHANGE, "1.07x faster [1.009x .. 1.14x]"),
        (1.07, 1.0094, 1.14, SMALL_CHANGE, "1.07x slower [1.009x .. 1.14x]"),
        # 1.0095 would print as 1.010x with three decimals
        (1.07, 1.0095, 1.14, SMALL_CHANGE, "1.07x slower [1.0095x .. 1.14x]"),
        # just beyond the band: faster, and shown beyond 1.01x
        (1 / 1.07, 1 / 1.14, 1 / 1.0104, FASTER, "1.07x faster [1.0104x .. 1.14x]"),
        (1.07, 1.0104, 1.14, SLOWER, "1.07x slower [1.0104x .. 1.14x]"),
        # just above 1x: small change, not printed as 1.000x
        (1.005, 1.0003, 1.02, SMALL_CHANGE, "1.00x slower [1.0003x .. 1.020x]"),
        # just inside the band on both sides
        (1.0, 1 / 1.0098, 1.0098, NO_CHANGE, "no change [0.9903x .. 1.0098x]"),
        # far from every threshold: as before
        (1.11, 1.10, 1.12, SLOWER, "1.11x slower [1.10x .. 1.12x]"),
        (1.01, 0.979, 1.040, INCONCLUSIVE, "1.01x slower [0.979x .. 1.040x]"),
    ],
)
def test_bracket_shows_the_bound_that_decides(ratio, low, high, verdict, expected):
    bracket = expected.rsplit(" [", 1)[1]
    result = comparison(ratio, low, high, verdict)
    assert format_bracket(result) == "[" + bracket
    assert format_change(result, meaning=False).startswith(expected)


def test_bracket_digits_follow_the_margin():
    result = comparison(1.07, 1.049, 1.10, SMALL_CHANGE)
    assert format_bracket(result) == "[1.05x .. 1.10x]"
    assert format_bracket(result, margin=0.05) == "[1.049x .. 1.10x]"


def test_bracket_of_a_real_comparison_is_consistent_with_its_verdict():
    reference = [1.0 + 0.002 * (index % 5) for index in range(20)]
    changed = [value * 1.0105 for value in reference]
    result = compare_process_means(reference, changed)
    low = float(format_bracket(result)[1:].split("x")[0])
    assert (low > 1.01) == (result.verdict == SLOWER)


def test_bracket_without_interval():
    result = Comparison(1.0, 0.0, math.inf, 0.95, INCONCLUSIVE, 1, 1, math.nan)
    assert format_bracket(result) == "[no interval: fewer than 2 processes]"


def test_each_verdict_says_what_it_means():
    assert [verdict_meaning(verdict) for verdict in (SLOWER, FASTER, SMALL_CHANGE, NO_CHANGE, INCONCLUSIVE)] == [
        "by more than 1%",
        "by more than 1%",
        "real, but maybe less than 1%",
        "less than 1% either way",
        "maybe no change, maybe more than 1%",
    ]
    assert verdict_meaning(SMALL_CHANGE, 0.05) == "real, but maybe less than 5%"


@pytest.mark.parametrize(
    ("result", "change", "verdict"),
    [
        (
            comparison(1.11, 1.10, 1.12, SLOWER, p_value=1.9e-25),
            "1.11x slower [1.10x .. 1.12x]",
            "slower: by more than 1%, since the whole 95% interval is beyond +1%; 20 vs 20 processes; p = 1.9e-25",
        ),
        (
            comparison(0.8, 0.79, 0.81, FASTER, p_value=3.2e-40),
            "1.25x faster [1.23x .. 1.27x]",
            "faster: by more than 1%, since the whole 95% interval is beyond -1%; 20 vs 20 processes; p = 3.2e-40",
        ),
        (
            comparison(1 / 1.07, 1 / 1.14, 1 / 1.0094, SMALL_CHANGE, p_value=0.002),
            "1.07x faster [1.009x .. 1.14x] (small change: real, but maybe less than 1%)",
            "small change: real, but maybe less than 1%, since the 95% interval excludes 1x but reaches inside +-1%; "
            "20 vs 20 processes; p = 0.002",
        ),
        (
            comparison(1.005, 1.004, 1.007, NO_CHANGE, p_value=1e-6),
            "1.00x slower [1.004x .. 1.007x] (no change: less than 1% either way)",
            "no change: less than 1% either way, since the whole 95% interval is inside +-1%; 20 vs 20 processes; "
            "p = 1e-06",
        ),
        (
            comparison(1.01, 0.979, 1.040, INCONCLUSIVE, needed=168, p_value=0.54),
            "1.01x slower [0.979x .. 1.040x] (inconclusive: maybe no change, maybe more than 1%)",
            "inconclusive: maybe no change, maybe more than 1%, since the 95% interval contains 1x and reaches beyond "
            "+-1%; 20 vs 20 processes; p = 0.54; about 168 processes per file would narrow it to +-1%",
        ),
    ],
)
def test_verdict_texts(result, change, verdict):
    assert format_change(result) == change
    assert format_verdict(result, 0.01) == verdict


def test_inconclusive_pairs_and_no_advice():
    result = comparison(1.01, 0.979, 1.040, INCONCLUSIVE, needed=32, method=PAIRED, p_value=0.5)
    assert format_verdict(result, 0.01) == (
        "inconclusive: maybe no change, maybe more than 1%, since the 95% interval contains 1x and reaches beyond "
        "+-1%; 20 interleaved pairs; p = 0.5; about 32 interleaved pairs would narrow it to +-1%"
    )
    # after a --target-precision run: no advice at +-1%
    assert format_verdict(result, 0.01, needed=False) == (
        "inconclusive: maybe no change, maybe more than 1%, since the 95% interval contains 1x and reaches beyond "
        "+-1%; 20 interleaved pairs; p = 0.5"
    )
    assert format_change(result, meaning=False) == "1.01x slower [0.979x .. 1.040x] (inconclusive)"


# --- exact ratios (instruction counts: no process varies) ----------------------------


def exact(ratio, verdict, p_value):
    return Comparison(ratio, ratio, ratio, 0.95, verdict, 10, 10, math.inf, None, 0.0, p_value, "welch")


def test_an_exact_ratio_of_one_says_same():
    same = exact(1.0, NO_CHANGE, 1.0)
    assert format_bracket(same) == "[exact]"
    assert format_change(same) == "no change [exact] (same: equal in every process)"
    assert format_change(same, meaning=False) == "no change [exact] (same)"
    assert format_ratio_interval(same) == "1.00x [exact]"
    assert format_verdict(same, 0.01) == "same: equal in every process; 10 vs 10 processes; p = 1"
    assert identical(same)
    assert not identical(comparison(1.0, 0.99, 1.01, NO_CHANGE))


def test_an_exact_change_shows_its_percent():
    slower = exact(184850 / 183002, SLOWER, 0.0)
    assert format_change(slower) == "1.01x slower [exactly +1.01%]"
    assert format_verdict(slower, 0.01) == (
        "slower: by more than 1%, since the exact ratio (no process varies) is beyond +1%; 10 vs 10 processes; p = 0"
    )
    faster = exact(0.98, FASTER, 0.0)
    assert format_change(faster) == "1.02x faster [exactly -2.00%]"
    assert "is beyond -1%" in format_verdict(faster, 0.01)
    # a tiny exact change is never printed as +0.00%
    tiny = exact(53001378 / 53001118, NO_CHANGE, 0.0)
    assert format_change(tiny) == "1.00x slower [exactly +0.0005%] (no change: less than 1% either way)"
    assert "the exact ratio (no process varies) is inside +-1%" in format_verdict(tiny, 0.01)
    assert not identical(tiny)
