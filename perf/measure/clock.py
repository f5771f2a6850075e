"""The source of time, injectable, and its start-up self-test.

Workers time code through a :class:`Clock` (``time.perf_counter`` by
default), so tests drive them with a fake clock instead of patching the
time module.  :func:`probe_timer` measures what the clock costs and how
finely it really ticks (design/statistics.md R10); calibration uses it to
keep timer error below 0.1 % of a value.

Must not: import anything heavy (every worker imports it).
"""

from __future__ import annotations

import time
from typing import Callable

from perf.measure.calibration import TimerInfo

Clock = Callable[[], float]

#: the clock perf times code with
DEFAULT_CLOCK: Clock = time.perf_counter


def _tick(clock: Clock, spin_limit: int) -> float:
    """Time from one reading to the next different one (0.0 if none)."""
    first = clock()
    for _ in range(spin_limit):
        second = clock()
        if second != first:
            return max(second - first, 0.0)
    return 0.0


def probe_timer(
    clock: Clock = DEFAULT_CLOCK, calls: int = 10_000, ticks: int = 20, spin_limit: int = 10**6
) -> TimerInfo:
    """Measure the clock's call cost (mean over *calls*) and its effective
    resolution (smallest step between distinct readings, over *ticks* steps).

    Readings are quantised, so the step from any reading to the next
    different one is a whole number of ticks.  A clock that never moves
    reports a resolution of 0; calibration then grows loops fast and
    finally fails with a clear error.
    """
    start = clock()
    for _ in range(calls):
        clock()
    cost = max(clock() - start, 0.0) / calls
    steps = [step for step in (_tick(clock, spin_limit) for _ in range(ticks)) if step > 0]
    return TimerInfo(call_cost=cost, resolution=min(steps) if steps else 0.0)
