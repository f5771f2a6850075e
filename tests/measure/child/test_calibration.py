"""Loop calibration decisions and the timer self-test, with fake clocks."""

from __future__ import annotations

import math
import re

import pytest
from helpers import FakeClock

from perf.errors import CalibrationError
from perf.measure.child.calibration import (
    AIM_FACTOR,
    MAX_LOOPS,
    TimerInfo,
    is_accepted,
    next_calibration_loops,
    next_loops,
    target_seconds,
)
from perf.measure.child.clock import probe_timer

FINE = TimerInfo(call_cost=50e-9, resolution=1e-9)


@pytest.mark.parametrize(
    ("timer", "target"),
    [
        (FINE, 0.1),  # min_time rules on a good clock
        (TimerInfo(call_cost=200e-6, resolution=1e-9), 0.2),  # 1000 expensive calls
        (TimerInfo(call_cost=50e-9, resolution=15.6e-3), 156.0),  # a 15.6 ms tick
    ],
)
def test_target_is_the_largest_floor(timer, target):
    assert target_seconds(0.1, timer) == pytest.approx(target)


@pytest.mark.parametrize(
    ("raw", "loops", "accepted"),
    [
        (0.099, 8, False),
        (0.100, 8, True),
        (0.130, 8, True),
        (0.131, 8, False),
        (0.500, 1, True),  # nothing shorter than one loop
        (0.050, 1, False),
    ],
)
def test_acceptance_window(raw, loops, accepted):
    assert is_accepted(raw, loops, 0.1) is accepted


def test_a_long_first_call_is_never_accepted_alone():
    assert not is_accepted(0.5, 1, 0.1, first_call=True)
    assert not is_accepted(0.12, 1, 0.1, first_call=True)
    assert next_calibration_loops(1, 0.5, 0.1, first_call=True) == 1  # time it again, warm
    assert next_calibration_loops(1, 0.5, 0.1) == 1  # warm and long: one loop is all there is
    assert next_calibration_loops(1, 0.01, 0.1, first_call=True) == 10  # short: the usual growth
    assert next_calibration_loops(8, 0.5, 0.1, first_call=True) == 2


@pytest.mark.parametrize(
    ("loops", "raw", "expected"),
    [
        (100, 0.05, 230),  # linear: ceil(100 * 1.15 * 0.1 / 0.05)
        (1, 0.001, 10),  # growth capped at x10 per step
        (1000, 0.5, 230),  # too long: scale down
        (3, 10.0, 1),  # never below one loop
        (7, 0.0, 70),  # the clock did not move
    ],
)
def test_next_loops_is_linear_and_bounded(loops, raw, expected):
    assert next_loops(loops, raw, 0.1) == expected


def test_next_loops_lands_in_the_window_for_a_steady_benchmark():
    per_loop = 3.7e-7
    loops = 1
    steps = 0
    while not is_accepted(loops * per_loop, loops, 0.1) and steps < 20:
        loops = next_loops(loops, loops * per_loop, 0.1)
        steps += 1
    assert 0.1 <= loops * per_loop <= 0.13
    assert steps <= 8  # 1 -> 10 -> ... -> 10**5 -> accept


def test_too_many_loops_is_a_clear_error():
    with pytest.raises(CalibrationError, match=re.escape(f"more than {MAX_LOOPS} loops needed")):
        next_loops(MAX_LOOPS // 2, 1e-12, 0.1)


def test_probe_timer_measures_cost_and_resolution():
    clock = FakeClock(step=50e-9)
    info = probe_timer(clock, calls=1000, ticks=5)
    assert info.call_cost == pytest.approx(50e-9 * 1001 / 1000)
    assert info.resolution == pytest.approx(50e-9)


def test_probe_timer_on_a_coarse_clock():
    clock = FakeClock(step=1e-6, tick=1e-3)
    info = probe_timer(clock, calls=100, ticks=5)
    assert info.resolution == pytest.approx(1e-3)
    assert target_seconds(0.1, info) == pytest.approx(10.0)  # 10**4 ticks


def test_probe_timer_on_a_frozen_clock_ends():
    info = probe_timer(lambda: 5.0, calls=10, ticks=3, spin_limit=100)
    assert info == TimerInfo(call_cost=0.0, resolution=0.0)


def test_next_loops_without_growth_cap():
    # a trusted raw value (a steady segment) may grow the loops more than 10x
    assert next_loops(100, 0.001, 0.1) == 1000
    assert next_loops(100, 0.001, 0.1, max_growth=None) == math.ceil(100 * AIM_FACTOR * 0.1 / 0.001)
