"""perf.analysis.statistics: descriptive statistics checked against the
standard library and against small cases computed by hand."""

from __future__ import annotations

import math
import random
import re
import statistics as std

import pytest

from perf.analysis import statistics as stats


def _datasets() -> dict[str, list[float]]:
    rng = random.Random(20240101)
    return {
        "timings": [0.0225, 0.0231, 0.0219, 0.0224, 0.0228, 0.0226, 0.0301, 0.0222],
        "lognormal_odd": [rng.lognormvariate(-4.0, 0.5) for _ in range(501)],
        # a large offset: a naive one-pass variance loses every digit here
        "large_offset": [1e9 + rng.random() for _ in range(1000)],
        "nanoseconds": [1e-9 * (1 + index % 7) for index in range(10)],
        "integers": [3, 1, 4, 1, 5, 9, 2, 6],
    }


DATASETS = _datasets()
DATASET_IDS = sorted(DATASETS)


@pytest.fixture(params=DATASET_IDS)
def data(request: pytest.FixtureRequest) -> list[float]:
    return DATASETS[request.param]


# --- agreement with the statistics module ------------------------------------


def test_mean_matches_stdlib(data: list[float]) -> None:
    assert stats.mean(data) == pytest.approx(std.mean(data), rel=1e-12)


def test_variance_matches_stdlib(data: list[float]) -> None:
    assert stats.variance(data) == pytest.approx(std.variance(data), rel=1e-12)


def test_stdev_matches_stdlib(data: list[float]) -> None:
    assert stats.stdev(data) == pytest.approx(std.stdev(data), rel=1e-12)


def test_median_matches_stdlib(data: list[float]) -> None:
    assert stats.median(data) == pytest.approx(std.median(data), rel=1e-12)


def test_median_abs_dev_matches_stdlib(data: list[float]) -> None:
    centre = std.median(data)
    expected = std.median([abs(value - centre) for value in data])
    assert stats.median_abs_dev(data) == pytest.approx(expected, rel=1e-12)


def test_quartiles_match_stdlib_inclusive_method(data: list[float]) -> None:
    # statistics.quantiles(method="inclusive") is the same R7 definition
    q1, q2, q3 = std.quantiles(data, n=4, method="inclusive")
    assert stats.percentile(data, 0.25) == pytest.approx(q1, rel=1e-12)
    assert stats.percentile(data, 0.50) == pytest.approx(q2, rel=1e-12)
    assert stats.percentile(data, 0.75) == pytest.approx(q3, rel=1e-12)


# --- small cases computed by hand ------------------------------------------


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([5.0], 5.0),
        ([1, 2, 3, 4], 2.5),
        ([0.1, 0.2, 0.3], 0.2),
        ([1e-9, 3e-9], 2e-9),
    ],
)
def test_mean_by_hand(values: list[float], expected: float) -> None:
    assert stats.mean(values) == pytest.approx(expected, rel=1e-15)


def test_mean_sum_is_correctly_rounded() -> None:
    # a naive left-to-right sum gives 0.0 here
    assert stats.mean([1e100, 1.0, -1e100, 1.0]) == 0.5


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([1, 2, 3, 4], 5 / 3),
        ([2, 4, 4, 4, 5, 5, 7, 9], 32 / 7),
        ([1.0, 1.0], 0.0),
        ([1, 3], 2.0),
    ],
)
def test_variance_by_hand(values: list[float], expected: float) -> None:
    assert stats.variance(values) == pytest.approx(expected, rel=1e-15)
    assert stats.stdev(values) == pytest.approx(math.sqrt(expected), rel=1e-15)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([7], 7.0),
        ([3, 1, 2], 2.0),  # odd: the middle value
        ([5, 1, 9, 3, 7], 5.0),
        ([4, 1, 3, 2], 2.5),  # even: mean of the two middle values
        ([1.0, 10.0], 5.5),
        ([2, 2, 2, 2], 2.0),
    ],
)
def test_median_by_hand(values: list[float], expected: float) -> None:
    result = stats.median(values)
    assert result == expected
    assert isinstance(result, float)


def test_median_does_not_modify_its_input() -> None:
    values = [3.0, 1.0, 2.0]
    stats.median(values)
    assert values == [3.0, 1.0, 2.0]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([1, 1, 2, 2, 4, 6, 9], 1.0),  # the textbook example
        ([5.0], 0.0),
        ([1, 2, 3, 4], 1.0),  # median 2.5, deviations 1.5 0.5 0.5 1.5
        ([10, 10, 10, 1000], 0.0),  # robust to one outlier
    ],
)
def test_median_abs_dev_by_hand(values: list[float], expected: float) -> None:
    assert stats.median_abs_dev(values) == expected


@pytest.mark.parametrize(
    ("fraction", "expected"),
    [
        (0.0, 10.0),
        (0.25, 20.0),
        (0.5, 30.0),
        (0.75, 40.0),
        (1.0, 50.0),
        (0.1, 14.0),  # rank 0.4: 10 + 0.4 * (20 - 10)
        (0.9, 46.0),  # rank 3.6: 40 + 0.6 * (50 - 40)
        (0.625, 35.0),  # rank 2.5
    ],
)
def test_percentile_by_hand(fraction: float, expected: float) -> None:
    # unsorted input on purpose
    assert stats.percentile([30, 50, 10, 40, 20], fraction) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize(
    ("values", "fraction", "expected"),
    [
        ([1, 2, 3, 4], 0.25, 1.75),
        ([1, 2, 3, 4], 0.5, 2.5),
        ([42.0], 0.0, 42.0),
        ([42.0], 0.37, 42.0),
        ([42.0], 1.0, 42.0),
    ],
)
def test_percentile_interpolation(values: list[float], fraction: float, expected: float) -> None:
    assert stats.percentile(values, fraction) == pytest.approx(expected, rel=1e-15)


def test_percentile_half_is_the_median() -> None:
    values = [0.3, 0.1, 0.7, 0.2, 0.9, 0.4]
    assert stats.percentile(values, 0.5) == pytest.approx(stats.median(values), rel=1e-15)


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        ([[1.0, 2.0], [], [3.0]], [1.5, 3.0]),
        ([[], []], []),
        ([], []),
        ([(2.0, 4.0, 6.0)], [4.0]),
    ],
)
def test_process_means_skips_runs_without_values(runs: list[list[float]], expected: list[float]) -> None:
    assert stats.process_means(runs) == expected


def test_process_means_accepts_a_generator() -> None:
    assert stats.process_means(values for values in ([1.0, 3.0], [5.0])) == [2.0, 5.0]


# --- errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("function", "values", "message"),
    [
        (stats.mean, [], "mean requires at least one value"),
        (stats.median, [], "median requires at least one value"),
        (stats.median_abs_dev, [], "median absolute deviation requires at least one value"),
        (stats.variance, [], "variance requires at least 2 values, got 0"),
        (stats.variance, [1.0], "variance requires at least 2 values, got 1"),
        (stats.stdev, [1.0], "standard deviation requires at least 2 values, got 1"),
    ],
)
def test_errors(function, values: list[float], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        function(values)


def test_percentile_of_empty_input() -> None:
    with pytest.raises(ValueError, match=re.escape("percentile requires at least one value")):
        stats.percentile([], 0.5)


@pytest.mark.parametrize("fraction", [-0.01, 1.01, 50, -1.0, math.nan])
def test_percentile_fraction_out_of_range(fraction: float) -> None:
    message = f"percentile fraction must be in [0.0, 1.0], got {fraction!r}"
    with pytest.raises(ValueError, match=re.escape(message)):
        stats.percentile([1.0, 2.0], fraction)


def test_within_slope_takes_each_groups_level_out():
    # y = 2 x within each group, whatever the groups' levels
    groups = [([2.0, 4.0, 6.1], [1.0, 2.0, 3.0]), ([100.0, 102.0, 103.9], [0.0, 1.0, 2.0])]
    slope, error = stats.within_slope(groups)
    assert slope == pytest.approx(2.0, abs=0.05)
    assert 0 < error < 0.1


def test_within_slope_without_variation_or_residuals():
    assert stats.within_slope([([1.0, 2.0], [3.0, 3.0])]) is None  # x does not vary
    assert stats.within_slope([([1.0, 2.0], [1.0, 2.0])]) is None  # no residual left
    with pytest.raises(ValueError, match="as many y as x"):
        stats.within_slope([([1.0], [1.0, 2.0])])
