"""perf.analysis.round_stats: pytest-benchmark's figures of one benchmark's
rounds, checked on small cases computed by hand from its definitions."""

from __future__ import annotations

import math

import pytest

from perf.analysis.round_stats import FIELDS, quartiles, round_stats


def approx(expected: dict[str, float | int | str]) -> dict[str, object]:
    """*expected* with the floats compared to a few ulps (sums and the
    standard deviation may be rounded differently from a hand formula)."""
    return {
        key: pytest.approx(value, rel=1e-12) if isinstance(value, float) else value for key, value in expected.items()
    }


def test_fields_are_pytest_benchmarks_order() -> None:
    assert FIELDS == (
        "min",
        "max",
        "mean",
        "stddev",
        "rounds",
        "median",
        "iqr",
        "q1",
        "q3",
        "iqr_outliers",
        "stddev_outliers",
        "outliers",
        "ld15iqr",
        "hd15iqr",
        "ops",
        "total",
    )


def test_the_keys_are_the_fields_in_order() -> None:
    assert tuple(round_stats([1.0, 2.0, 3.0])) == FIELDS


def test_one_round() -> None:
    assert round_stats([2.0]) == {
        "min": 2.0,
        "max": 2.0,
        "mean": 2.0,
        "stddev": 0.0,
        "rounds": 1,
        "median": 2.0,
        "iqr": 0.0,
        "q1": 2.0,
        "q3": 2.0,
        "iqr_outliers": 0,
        "stddev_outliers": 0,
        "outliers": "0;0",
        "ld15iqr": 2.0,
        "hd15iqr": 2.0,
        "ops": 0.5,
        "total": 2.0,
    }


def test_two_rounds() -> None:
    # sorted 1, 3: each half is one value; stddev sqrt(2) keeps both inside
    assert round_stats([3.0, 1.0]) == approx(
        {
            "min": 1.0,
            "max": 3.0,
            "mean": 2.0,
            "stddev": math.sqrt(2.0),
            "rounds": 2,
            "median": 2.0,
            "iqr": 2.0,
            "q1": 1.0,
            "q3": 3.0,
            "iqr_outliers": 0,
            "stddev_outliers": 0,
            "outliers": "0;0",
            "ld15iqr": 1.0,
            "hd15iqr": 3.0,
            "ops": 0.5,
            "total": 4.0,
        }
    )


def test_three_rounds() -> None:
    # n = 4*0 + 3: q1 = 3/4 x0 + 1/4 x1, q3 = 1/4 x1 + 3/4 x2
    # mean 7/3, variance (16 + 1 + 25) / 9 / 2 = 7/3: 4 is above mean + stddev
    assert round_stats([4.0, 1.0, 2.0]) == approx(
        {
            "min": 1.0,
            "max": 4.0,
            "mean": 7.0 / 3.0,
            "stddev": math.sqrt(7.0 / 3.0),
            "rounds": 3,
            "median": 2.0,
            "iqr": 2.25,
            "q1": 1.25,
            "q3": 3.5,
            "iqr_outliers": 0,
            "stddev_outliers": 1,
            "outliers": "1;0",
            "ld15iqr": 1.0,
            "hd15iqr": 4.0,
            "ops": 3.0 / 7.0,
            "total": 7.0,
        }
    )


def test_four_rounds() -> None:
    # even: the medians of 1, 2 and of 3, 4; stddev sqrt(5/3) leaves 1 and 4 out
    assert round_stats([4.0, 2.0, 3.0, 1.0]) == approx(
        {
            "min": 1.0,
            "max": 4.0,
            "mean": 2.5,
            "stddev": math.sqrt(5.0 / 3.0),
            "rounds": 4,
            "median": 2.5,
            "iqr": 2.0,
            "q1": 1.5,
            "q3": 3.5,
            "iqr_outliers": 0,
            "stddev_outliers": 2,
            "outliers": "2;0",
            "ld15iqr": 1.0,
            "hd15iqr": 4.0,
            "ops": 0.4,
            "total": 10.0,
        }
    )


def test_five_rounds_with_a_high_outlier() -> None:
    # n = 4*1 + 1: q1 = 1/4 x0 + 3/4 x1 = 1.75, q3 = 3/4 x3 + 1/4 x4 = 28;
    # the high fence 28 + 1.5 * 26.25 = 67.375 leaves 100 out;
    # deviations -21 -20 -19 -18 78: variance 7610 / 4
    stats = round_stats([1.0, 2.0, 3.0, 4.0, 100.0])
    assert stats == approx(
        {
            "min": 1.0,
            "max": 100.0,
            "mean": 22.0,
            "stddev": math.sqrt(7610.0 / 4.0),
            "rounds": 5,
            "median": 3.0,
            "iqr": 26.25,
            "q1": 1.75,
            "q3": 28.0,
            "iqr_outliers": 1,
            "stddev_outliers": 1,
            "outliers": "1;1",
            "ld15iqr": 1.0,
            # pytest-benchmark's figure: the lowest value *above* the fence
            "hd15iqr": 100.0,
            "ops": 5.0 / 110.0,
            "total": 110.0,
        }
    )


def test_hd15iqr_is_the_maximum_when_nothing_is_above_the_fence() -> None:
    assert round_stats([1.0, 2.0, 3.0, 4.0, 5.0])["hd15iqr"] == 5.0


def test_ld15iqr_skips_low_outliers() -> None:
    # sorted -100, 1, 2, 3, 4: q1 = -25 + 0.75 = -24.25, q3 = 3.25, iqr 27.5:
    # the low fence -65.5 leaves -100 out, so the lowest value within is 1
    stats = round_stats([-100.0, 1.0, 2.0, 3.0, 4.0])
    assert (stats["q1"], stats["q3"], stats["ld15iqr"], stats["iqr_outliers"]) == (-24.25, 3.25, 1.0, 1)


def test_seven_rounds_weights_the_quarter_positions() -> None:
    # n = 4*1 + 3: q1 = 3/4 x1 + 1/4 x2 = 2.25, q3 = 1/4 x4 + 3/4 x5 = 5.75
    assert quartiles([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]) == (2.25, 5.75)


def test_eight_rounds() -> None:
    # the medians of 1..4 and 5..8; variance of 1..8 is 6
    assert round_stats([8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]) == approx(
        {
            "min": 1.0,
            "max": 8.0,
            "mean": 4.5,
            "stddev": math.sqrt(6.0),
            "rounds": 8,
            "median": 4.5,
            "iqr": 4.0,
            "q1": 2.5,
            "q3": 6.5,
            "iqr_outliers": 0,
            "stddev_outliers": 4,
            "outliers": "4;0",
            "ld15iqr": 1.0,
            "hd15iqr": 8.0,
            "ops": 8.0 / 36.0,
            "total": 36.0,
        }
    )


def test_zero_total_gives_zero_ops() -> None:
    stats = round_stats([0.0, 0.0])
    assert (stats["ops"], stats["total"], stats["stddev"], stats["outliers"]) == (0.0, 0.0, 0.0, "0;0")


def test_no_rounds_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one value"):
        round_stats([])
    with pytest.raises(ValueError, match="at least one value"):
        quartiles([])


# --- the numbers pytest-benchmark's own Stats gives for its example data sets -----


def test_pytest_benchmark_five_values() -> None:
    # its Stats gives mean 42.0, stddev 25.700194551792794, total 210.0,
    # ops 0.023809523809523808 for these; the quartiles by hand: n = 4*1 + 1,
    # q1 = 4/4 + 3*36/4 = 28, q3 = 3*50/4 + 75/4 = 56.25
    stats = round_stats([4.0, 36.0, 45.0, 50.0, 75.0])
    assert stats == approx(
        {
            "min": 4.0,
            "max": 75.0,
            "mean": 42.0,
            "stddev": 25.700194551792794,
            "rounds": 5,
            "median": 45.0,
            "iqr": 28.25,
            "q1": 28.0,
            "q3": 56.25,
            "iqr_outliers": 0,
            "stddev_outliers": 2,
            "outliers": "2;0",
            "ld15iqr": 4.0,
            "hd15iqr": 75.0,
            "ops": 0.023809523809523808,
            "total": 210.0,
        }
    )


def test_pytest_benchmark_quartile_examples() -> None:
    # the two examples of Wikipedia's "Quartile" article, where pytest-benchmark
    # gives an IQR of 22.5 (odd count: 3/4 x2 + 1/4 x3 = 20.25, 1/4 x7 + 3/4 x8 = 42.75)
    # and of 25 (even count: the medians 15 and 40)
    odd = round_stats([6.0, 7.0, 15.0, 36.0, 39.0, 40.0, 41.0, 42.0, 43.0, 47.0, 49.0])
    assert odd == approx(
        {
            "min": 6.0,
            "max": 49.0,
            "mean": 365.0 / 11.0,
            # sum of squares 14631, squared sum 365**2: (11 * 14631 - 365**2) / (11 * 10)
            "stddev": math.sqrt(27716.0 / 110.0),
            "rounds": 11,
            "median": 40.0,
            "iqr": 22.5,
            "q1": 20.25,
            "q3": 42.75,
            "iqr_outliers": 0,
            # mean - stddev is about 17.3: 6, 7 and 15 are below it
            "stddev_outliers": 3,
            "outliers": "3;0",
            "ld15iqr": 6.0,
            "hd15iqr": 49.0,
            "ops": 11.0 / 365.0,
            "total": 365.0,
        }
    )
    even = round_stats([7.0, 15.0, 36.0, 39.0, 40.0, 41.0])
    assert (even["q1"], even["q3"], even["iqr"], even["median"]) == (15.0, 40.0, 25.0, 37.5)


def test_pytest_benchmark_skewed_example() -> None:
    # pytest-benchmark gives an IQR of 32.0 for these 15 values: sorted
    # 1 1 1 2 2 3 4 12 12 23 34 34 123 234 1234, n = 4*3 + 3,
    # q1 = 3/4 x3 + 1/4 x4 = 2, q3 = 1/4 x10 + 3/4 x11 = 34; the fences -46
    # and 82 leave 123, 234 and 1234 out, and hd15iqr is 123; the median is x7
    stats = round_stats([1, 2, 1, 123, 4, 1234, 1, 234, 12, 34, 12, 3, 2, 34, 23])
    assert (stats["q1"], stats["q3"], stats["iqr"]) == (2.0, 34.0, 32.0)
    assert (stats["iqr_outliers"], stats["ld15iqr"], stats["hd15iqr"]) == (3, 1.0, 123.0)
    assert stats["median"] == 12.0
    assert stats["total"] == 1720.0
