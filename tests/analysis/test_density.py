"""perf.analysis.density: Silverman's bandwidth, the Gaussian kernel
density estimate and shared histogram bins."""

from __future__ import annotations

import math
import random

import pytest

from perf.analysis.density import axis_shape, gaussian_kde, histogram_edges, silverman_bandwidth


def trapezoid(xs, ys):
    return sum((x2 - x1) * (y1 + y2) / 2 for x1, x2, y1, y2 in zip(xs, xs[1:], ys, ys[1:]))


def test_silverman_uses_the_smaller_of_the_stdev_and_the_scaled_iqr():
    # stdev 1.5811; IQR 4 - 2 = 2, 2 / 1.34 = 1.4925 is smaller
    assert silverman_bandwidth([1, 2, 3, 4, 5]) == pytest.approx(0.9 * (2 / 1.34) * 5**-0.2)
    # one far value: the IQR (1) wins over the stdev (about 44)
    values = [1, 2, 3, 4, 100]
    assert silverman_bandwidth(values) == pytest.approx(0.9 * (2 / 1.34) * 5**-0.2)


def test_silverman_falls_back_to_the_stdev_when_the_iqr_is_zero():
    values = [5.0] * 8 + [6.0, 7.0]  # IQR 0 (ties), stdev > 0
    sd = math.sqrt(sum((v - 5.3) ** 2 for v in values) / 9)
    assert silverman_bandwidth(values) == pytest.approx(0.9 * sd * 10**-0.2)


@pytest.mark.parametrize("values", [[3.0], [2.5, 2.5, 2.5]])
def test_no_spread_no_bandwidth_no_density(values):
    assert silverman_bandwidth(values) == 0.0
    assert gaussian_kde(values) == ([], [])


def test_one_value_with_a_given_bandwidth_is_one_normal_curve():
    xs, ys = gaussian_kde([2.0], bandwidth=0.5, points=5, low=1.0, high=3.0)
    assert xs == [1.0, 1.5, 2.0, 2.5, 3.0]
    peak = 1 / (0.5 * math.sqrt(2 * math.pi))
    assert ys == pytest.approx(
        [peak * math.exp(-2), peak * math.exp(-0.5), peak, peak * math.exp(-0.5), peak * math.exp(-2)]
    )


def test_the_density_integrates_to_one_and_peaks_near_the_centre():
    rng = random.Random(3)
    values = [rng.gauss(10.0, 2.0) for _ in range(400)]
    xs, ys = gaussian_kde(values, points=400)
    assert len(xs) == len(ys) == 400
    assert xs == sorted(xs)
    assert trapezoid(xs, ys) == pytest.approx(1.0, abs=0.01)
    assert xs[ys.index(max(ys))] == pytest.approx(10.0, abs=1.0)
    h = silverman_bandwidth(values)
    assert xs[0] == pytest.approx(min(values) - 3 * h) and xs[-1] == pytest.approx(max(values) + 3 * h)


def test_the_density_equals_the_direct_sum():
    # the kernels beyond 8 bandwidths are left out: not visible in the sum
    values = [1.0, 1.1, 1.3, 2.0, 5.0]
    h = 0.2
    xs, ys = gaussian_kde(values, bandwidth=h, points=50)
    for x, y in zip(xs, ys):
        direct = sum(math.exp(-0.5 * ((x - v) / h) ** 2) for v in values) / (len(values) * h * math.sqrt(2 * math.pi))
        assert y == pytest.approx(direct, rel=1e-9, abs=1e-12)


def test_tiny_values_of_seconds_keep_their_scale():
    values = [2.0e-6, 2.1e-6, 2.05e-6, 1.95e-6]
    xs, ys = gaussian_kde(values)
    assert trapezoid(xs, ys) == pytest.approx(1.0, abs=0.01)
    assert all(x > 0 for x in xs)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (([],), "at least one value"),
        (([1.0, math.nan],), "finite"),
        (([1.0, 2.0], -1.0), "bandwidth"),
        (([1.0, 2.0], math.inf), "bandwidth"),
        (([1.0, 2.0], None, 1), "at least 2 points"),
        (([1.0, 2.0], None, 10, 3.0, 1.0), "low < high"),
    ],
)
def test_bad_arguments_are_value_errors(arguments, message):
    with pytest.raises(ValueError, match=message):
        gaussian_kde(*arguments)


def test_histogram_edges_span_every_value_with_equal_bins():
    rng = random.Random(5)
    first = [rng.gauss(1.0, 0.05) for _ in range(60)]
    second = [rng.gauss(1.2, 0.05) for _ in range(40)]
    edges = histogram_edges([first, second])
    assert edges[0] == min(first + second) and edges[-1] == max(first + second)
    widths = [b - a for a, b in zip(edges, edges[1:])]
    assert max(widths) == pytest.approx(min(widths))
    assert 3 <= len(widths) <= 50


def test_distant_samples_keep_bins_of_their_own_size():
    # two tight samples far apart: the pooled IQR would give a few wide bins
    first = [1.0 + i * 0.001 for i in range(30)]
    second = [1.2 + i * 0.001 for i in range(30)]
    edges = histogram_edges([first, second])
    in_first = sum(1 for a in edges if first[0] <= a <= first[-1])
    assert in_first >= 3


def test_histogram_edges_of_equal_values_are_one_bin_around_them():
    assert histogram_edges([[2.0e-6]]) == pytest.approx([1.98e-6, 2.02e-6])
    assert histogram_edges([[4.0, 4.0], [4.0]]) == pytest.approx([3.96, 4.04])
    assert histogram_edges([[0.0]]) == [-1.0, 1.0]


def test_histogram_edges_with_ties_use_sturges():
    values = [1.0] * 20 + [2.0] * 20 + [3.0] * 24  # IQR 2: bins of width 2 x 2 x 64^(-1/3) = 1
    assert len(histogram_edges([values])) - 1 == math.ceil(2 / (2 * 2 * 64 ** (-1 / 3)))
    tied = [1.0] * 30 + [1.5]  # IQR 0: Sturges, log2(31) + 1 -> 6 bins
    assert len(histogram_edges([tied])) - 1 == 6


def test_histogram_edges_respect_max_bins_and_reject_nothing_to_bin():
    rng = random.Random(1)
    values = [rng.random() for _ in range(10_000)]
    assert len(histogram_edges([values], max_bins=7)) == 8
    with pytest.raises(ValueError, match="at least one value"):
        histogram_edges([[], []])
    with pytest.raises(ValueError, match="max_bins"):
        histogram_edges([[1.0]], max_bins=0)


def test_axis_shape_shares_the_bins_of_the_samples_that_spread():
    spread_a, spread_b, flat = [1, 2, 3, 5, 8], [2.0, 2.5, 3.0, 3.5], [4.0, 4.0]
    shape = axis_shape([spread_a, spread_b, flat])
    assert shape.samples == [[1.0, 2.0, 3.0, 5.0, 8.0], spread_b, flat]
    assert all(isinstance(value, float) for value in shape.samples[0])
    assert shape.edges == histogram_edges([spread_a, spread_b])
    assert shape.densities[0] == gaussian_kde(spread_a)
    assert shape.densities[1] == gaussian_kde(spread_b)
    assert shape.densities[2] == ([], [])


def test_axis_shape_without_spread_has_no_bins():
    shape = axis_shape([[3.0], [4.0, 4.0]])
    assert shape.edges == []
    assert shape.densities == [([], []), ([], [])]
    assert axis_shape([]) == ([], [], [])
