"""Steady-state detection: PELT changepoints and the per-process
classification, on synthetic sequences from seeded generators."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from perf.measure.child import steady
from perf.measure.child.steady import (
    FLAT,
    KINDS,
    MIN_SEGMENT,
    NO_STEADY_STATE,
    SLOWDOWN,
    WARMUP,
    WINDOW,
    SteadyState,
    changepoints,
    classify,
    is_steady,
)

BASE = 1e-3


def noisy(seed, size, level=0.02, base=BASE):
    """*size* durations around *base* with multiplicative Gaussian noise."""
    rng = random.Random(seed)
    return [base * (1.0 + level * rng.gauss(0.0, 1.0)) for _ in range(size)]


def scaled(values, factor, start, stop=None):
    """*values* with those in [start, stop) multiplied by *factor*."""
    stop = len(values) if stop is None else stop
    return [value * factor if start <= index < stop else value for index, value in enumerate(values)]


def gc_spikes(seed, size, level, phase, period=20):
    """Every *period*-th value (from *phase*) three times slower."""
    return [value * 3.0 if index % period == phase else value for index, value in enumerate(noisy(seed, size, level))]


# -- the API --------------------------------------------------------------


def test_constants():
    assert KINDS == (FLAT, WARMUP, SLOWDOWN, NO_STEADY_STATE)
    assert (FLAT, WARMUP, SLOWDOWN, NO_STEADY_STATE) == ("flat", "warmup", "slowdown", "no steady state")
    assert WINDOW == 10
    assert MIN_SEGMENT == 10
    assert SteadyState._fields == ("kind", "warmup", "changepoints")


# -- changepoints() ---------------------------------------------------------


def test_exact_two_level_sequence():
    assert changepoints([1.0] * 50 + [2.0] * 50) == [50]
    assert changepoints([2.0] * 30 + [1.0] * 40 + [3.0] * 30) == [30, 70]


def test_constant_sequence_has_no_changepoint():
    assert changepoints([0.25] * 200) == []
    assert changepoints([1e-9] * 50) == []


def test_flat_noise_has_no_changepoint():
    for seed in range(20):
        assert changepoints(noisy(seed, 200, level=0.05)) == []


def test_step_is_found_where_it_is():
    for seed in range(20):
        (found,) = changepoints(scaled(noisy(seed, 200), 1.3, 0, 70))
        assert abs(found - 70) <= 2


def test_change_of_variance_alone_is_a_changepoint():
    values = noisy(1, 100, level=0.10) + noisy(2, 100, level=0.005)
    (found,) = changepoints(values)
    assert abs(found - 100) <= 3


def test_too_short_for_two_segments():
    two_levels = [1.0] * 10 + [2.0] * 9
    assert changepoints(two_levels) == []
    assert changepoints(two_levels, min_segment=5) == [10]
    assert changepoints([]) == []
    assert changepoints([1.0]) == []


def test_min_segment_is_respected():
    # a 3-value dip cannot be a segment of its own with min_segment=10
    values = [1.0] * 40 + [2.0] * 3 + [1.0] * 40
    found = changepoints(values)
    bounds = [0, *found, len(values)]
    assert all(high - low >= MIN_SEGMENT for low, high in zip(bounds, bounds[1:]))
    assert changepoints(values, min_segment=3) == [40, 43]


def test_penalty():
    values = scaled(noisy(3, 100), 1.03, 50)  # a 3 % step in 2 % noise
    assert changepoints(values) == []  # 15 ln n is conservative
    assert changepoints(values, penalty=15 * math.log(100)) == []
    (found,) = changepoints(values, penalty=3 * math.log(100))
    assert abs(found - 50) <= 5
    # no penalty at all: every admissible split that lowers the cost
    assert len(changepoints(values, penalty=0.0)) > 3


@pytest.mark.parametrize("penalty", [-1.0, math.inf, math.nan])
def test_invalid_penalty(penalty):
    with pytest.raises(ValueError, match="penalty"):
        changepoints([1.0] * 30, penalty=penalty)


@pytest.mark.parametrize("value", [0.0, -1.0, math.inf, math.nan])
def test_invalid_values(value):
    with pytest.raises(ValueError, match="durations > 0"):
        changepoints([1.0] * 30 + [value])
    with pytest.raises(ValueError, match="durations > 0"):
        classify([1.0] * 30 + [value])


def test_invalid_sizes():
    with pytest.raises(ValueError, match="min_segment"):
        changepoints([1.0] * 30, min_segment=0)
    with pytest.raises(ValueError, match="window"):
        classify([1.0] * 30, window=0)
    with pytest.raises(ValueError, match="min_segment"):
        classify([1.0] * 30, min_segment=0)


def optimal_cost(logs, min_segment, penalty):
    """Minimum penalised cost by optimal partitioning, without pruning."""
    floor = max(steady.ABSOLUTE_VARIANCE_FLOOR, steady.RELATIVE_VARIANCE_FLOOR * statistics.pvariance(logs))
    best = [math.inf] * (len(logs) + 1)
    best[0] = -penalty
    for end in range(min_segment, len(logs) + 1):
        for start in [0, *range(min_segment, end - min_segment + 1)]:
            best[end] = min(best[end], best[start] + segment_cost(logs[start:end], floor) + penalty)
    return best[-1], floor


def segment_cost(logs, floor):
    mean = sum(logs) / len(logs)
    deviations = sum((value - mean) ** 2 for value in logs)
    variance = max(deviations / len(logs), floor)
    return len(logs) * math.log(variance) + deviations / variance - len(logs)


def test_pruning_keeps_the_optimum():
    rng = random.Random(5)
    for _ in range(60):
        size = rng.randint(10, 90)
        min_segment = rng.randint(1, 6)
        penalty = rng.choice([0.5, 2.0, 5.0, 15.0]) * math.log(size)
        level, values = 1.0, []
        for _ in range(size):
            if rng.random() < 0.05:
                level *= math.exp(rng.gauss(0.0, 0.3))
            values.append(level * math.exp(rng.gauss(0.0, rng.choice([0.01, 0.05]))))
        logs = [math.log(value) for value in values]
        expected, floor = optimal_cost(logs, min_segment, penalty)
        bounds = [0, *changepoints(values, min_segment, penalty), size]
        cost = sum(segment_cost(logs[low:high], floor) for low, high in zip(bounds, bounds[1:]))
        assert cost + penalty * (len(bounds) - 2) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_three_hundred_values_are_not_pruned_to_nothing():
    # flat data is the worst case (nothing to prune); the result must not
    # depend on it
    values = noisy(9, 300)
    assert changepoints(values) == []
    assert changepoints(scaled(values, 2.0, 0, 30)) == [30]


# -- classify() -----------------------------------------------------------


def test_flat():
    for seed in range(20):
        assert classify(noisy(seed, 200, level=0.05)) == SteadyState(FLAT, 0, ())


def test_warmup_step_down():
    for seed in range(20):
        result = classify(scaled(noisy(seed, 200), 1.5, 0, 50))
        assert result.kind == WARMUP
        assert abs(result.warmup - 50) <= 2
        assert result.changepoints == (result.warmup,)


def test_gradual_warmup_is_a_warmup():
    values = [value * (1.0 + 5.0 * math.exp(-index / 8.0)) for index, value in enumerate(noisy(4, 200, 0.01))]
    result = classify(values)
    assert result.kind == WARMUP
    assert 20 <= result.warmup <= 80


def test_slow_first_values_are_a_short_warmup():
    result = classify(scaled(noisy(5, 100), 10.0, 0, 3))
    assert result == SteadyState(WARMUP, 10, (10,))


def test_step_up_near_the_end_is_no_steady_state():
    result = classify(scaled(noisy(6, 100), 1.3, 88))
    assert result == SteadyState(NO_STEADY_STATE, 88, (88,))
    assert not is_steady(scaled(noisy(6, 100), 1.3, 88))


def test_slowdown():
    result = classify(scaled(noisy(7, 200), 1.2, 100))
    assert result == SteadyState(SLOWDOWN, 100, (100,))


def test_slower_than_the_first_but_not_the_second_segment_is_a_slowdown():
    values = noisy(8, 150)
    values = scaled(scaled(values, 1.5, 50, 100), 1.2, 100)
    result = classify(values)
    assert result.kind == SLOWDOWN
    assert result.changepoints == (50, 100)


def test_back_to_the_fastest_level_is_a_warmup():
    values = scaled(noisy(9, 150), 1.3, 50, 100)
    result = classify(values)
    assert result == SteadyState(WARMUP, 100, (50, 100))


def test_less_noise_at_the_same_speed_is_a_warmup():
    # a change of variance alone: the means are equivalent
    values = noisy(1, 100, level=0.10) + noisy(2, 100, level=0.005)
    result = classify(values)
    assert result.kind == WARMUP
    assert abs(result.warmup - 100) <= 3


def test_within_one_percent_is_equivalent():
    # a long, quiet sequence: a 0.5 % step is found but is no slowdown
    values = scaled(noisy(10, 400, level=0.001), 1.005, 200)
    result = classify(values)
    assert result == SteadyState(WARMUP, 200, (200,))
    result = classify(scaled(noisy(10, 400, level=0.001), 1.02, 200))
    assert result == SteadyState(SLOWDOWN, 200, (200,))


@pytest.mark.parametrize("level", [0.003, 0.01, 0.02, 0.05])
def test_periodic_gc_spikes_are_no_changepoint_storm(level):
    """Every 20th value 3x slower.  The spikes are isolated outliers,
    left out of the detection: flat, whatever the phase, except when the
    very first value is a spike (leading outliers are kept: the first
    values of a JIT are its warmup): then the first segment [0, 10) holds
    it and the sequence is a 10-value warmup."""
    for phase in range(20):
        result = classify(gc_spikes(phase, 200, level, phase))
        if phase == 0:
            assert result == SteadyState(WARMUP, 10, (10,))
        else:
            assert result == SteadyState(FLAT, 0, ())


def test_gc_spikes_on_raw_pelt():
    """What classify()'s outlier step is for.  PELT's Gaussian cost alone
    absorbs the spikes as extra variance when the noise is 1 % or more (at
    most one changepoint, where a spike-free stretch of 10+ values at an
    end makes a segment of its own), but not on quiet data: with 0.3 %
    noise, the spike-free stretches between spikes become segments."""
    for level in (0.01, 0.02, 0.05):
        assert max(len(changepoints(gc_spikes(phase, 200, level, phase))) for phase in range(20)) <= 1
    quiet = [len(changepoints(gc_spikes(phase, 200, 0.003, phase))) for phase in range(20)]
    assert max(quiet) >= 5
    assert all(classify(gc_spikes(phase, 200, 0.003, phase)).changepoints in ((), (10,)) for phase in range(20))


def test_gc_spikes_do_not_hide_a_warmup_or_a_slowdown():
    for phase in range(1, 20):
        values = scaled(gc_spikes(phase, 200, 0.01, phase), 1.5, 0, 50)
        result = classify(values)
        assert result.kind == WARMUP
        assert abs(result.warmup - 50) <= 1
        values = scaled(gc_spikes(phase, 200, 0.01, phase), 1.1, 100)
        result = classify(values)
        assert result.kind == SLOWDOWN
        assert abs(result.warmup - 100) <= 1


def test_a_lone_spike_on_a_constant_sequence():
    values = [BASE] * 200
    values[77] = 3 * BASE
    assert classify(values) == SteadyState(FLAT, 0, ())


def test_constant_sequence_is_flat():
    assert classify([BASE] * 20) == SteadyState(FLAT, 0, ())
    assert classify([BASE] * 500) == SteadyState(FLAT, 0, ())


@pytest.mark.parametrize("size", [0, 1, 5, 19])
def test_short_sequences_have_no_steady_state(size):
    assert classify([BASE] * size) == SteadyState(NO_STEADY_STATE, 0, ())
    assert classify(noisy(size, size)) == SteadyState(NO_STEADY_STATE, 0, ())
    assert not is_steady([BASE] * size)


def test_twenty_values_can_be_flat():
    assert classify(noisy(11, 20)) == SteadyState(FLAT, 0, ())
    assert is_steady(noisy(11, 20))
    # 2 * window, not 2 * min_segment, makes the steady state
    assert classify(noisy(11, 20), window=15).kind == NO_STEADY_STATE
    assert not is_steady(noisy(11, 20), window=15)


def test_final_segment_length_against_the_window():
    values = scaled(noisy(12, 100), 1.5, 0, 75)  # final segment: 25 values
    assert classify(values) == SteadyState(WARMUP, 75, (75,))
    assert classify(values, window=13) == SteadyState(NO_STEADY_STATE, 75, (75,))
    assert is_steady(values, window=12)
    assert not is_steady(values, window=13)


def test_no_steady_state_reports_the_last_segment():
    values = scaled(scaled(noisy(13, 120), 2.0, 0, 40), 1.5, 105)
    result = classify(values)
    assert result == SteadyState(NO_STEADY_STATE, 105, (40, 105))


def test_classification_is_deterministic():
    values = scaled(gc_spikes(3, 300, 0.02, 3), 1.4, 0, 60)
    first = classify(values)
    assert all(classify(values) == first for _ in range(5))
    assert classify(tuple(values)) == first
    assert changepoints(values) == changepoints(list(values))


def test_classify_on_clean_data_uses_the_changepoints():
    for seed in range(10):
        values = scaled(noisy(seed, 150), 1.4, 0, 60)
        assert list(classify(values).changepoints) == changepoints(values)


def test_scale_does_not_matter():
    values = scaled(noisy(14, 200), 1.5, 0, 50)
    result = classify(values)
    for factor in (1e-6, 1e3):
        assert classify([value * factor for value in values]) == result


def test_every_kind_is_a_known_kind():
    rng = random.Random(15)
    for _ in range(50):
        size = rng.randint(0, 120)
        values = [math.exp(rng.gauss(0.0, rng.choice([0.01, 0.5]))) for _ in range(size)]
        result = classify(values)
        assert result.kind in KINDS
        assert 0 <= result.warmup <= size
        assert list(result.changepoints) == sorted(set(result.changepoints))
        assert all(0 < index < size for index in result.changepoints)
        if result.kind == FLAT:
            assert result == SteadyState(FLAT, 0, ())


@pytest.mark.parametrize("slow", [10, 12])
def test_a_new_level_in_the_last_values_is_not_dropped_as_an_outlier(slow):
    # constant levels: the median step is 0, so outliers need a floor
    values = [2e-3] * slow + [1e-3] * (20 - slow)
    assert classify(values).kind == NO_STEADY_STATE


def test_dropping_an_outlier_never_hides_a_warmup_in_a_short_sequence():
    # 20 values, one outlier among the slow ones: without it 19 values
    # could not be split; the 10x warmup must still be seen
    values = [1e-5] * 3 + [2e-5] + [1e-6] * 16
    assert classify(values).kind != FLAT
