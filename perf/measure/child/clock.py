"""The source of time, injectable, and its start-up self-test.

Workers time code through a :class:`Clock` (``time.perf_counter`` by
default, ``time.thread_time`` with ``--clock cpu``: see :data:`CLOCKS`),
so tests drive them with a fake clock instead of patching the time
module.  :func:`probe_timer` measures what the clock costs and how
finely it really ticks (doc/design.rst, R10); calibration uses it to
keep timer error below 0.1 % of a value.

Must not: import anything heavy (every worker imports it).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Literal

from perf.errors import UsageError
from perf.measure.child.calibration import TimerInfo
from perf.model.metadata import DEFAULT_CLOCK as DEFAULT_CLOCK_NAME

Clock = Callable[[], float]
#: a clock of the time module, as :func:`time.get_clock_info` names it
ClockFunction = Literal["perf_counter", "thread_time"]

#: the clock perf times code with
DEFAULT_CLOCK: Clock = time.perf_counter

#: ``--clock``: the name of each clock, and the name of its function in the
#: time module (for :func:`time.get_clock_info`)
CLOCK_FUNCTIONS: dict[str, ClockFunction] = {"wall": "perf_counter", "cpu": "thread_time"}
#: ``--clock`` name -> the clock the worker times code with (tests put a
#: fake clock here); "cpu" is missing where the time module has no
#: thread_time
CLOCKS: dict[str, Clock] = {
    name: getattr(time, function) for name, function in CLOCK_FUNCTIONS.items() if hasattr(time, function)
}


def get_clock(name: str) -> Clock:
    """The clock of ``--clock`` *name* (checked by :func:`check_clock`)."""
    return CLOCKS[name]


def check_clock(name: str, get_clock_info: Callable[[ClockFunction], Any] = time.get_clock_info) -> None:
    """Raise :class:`~perf.errors.UsageError` unless the clock *name* can
    time code in this process: ``--clock cpu`` needs ``time.thread_time``,
    which must answer, and whose :func:`time.get_clock_info` must report a
    resolution (*get_clock_info* is injectable for tests)."""
    if name == DEFAULT_CLOCK_NAME:
        return
    function = CLOCK_FUNCTIONS[name]
    clock = CLOCKS.get(name)
    if clock is None:
        raise UsageError(f"--clock {name}: this Python has no time.{function}()")
    try:
        clock()
        resolution = get_clock_info(function).resolution
    except (OSError, ValueError) as exc:
        raise UsageError(f"--clock {name}: time.{function}() is not usable here: {exc}") from None
    if not 0 < resolution < 1:
        raise UsageError(f"--clock {name}: time.{function}() is not usable here: its resolution is {resolution!r} s")


def _tick(clock: Clock, spin_limit: int) -> float:
    """Time from one reading to the next different one (0.0 if none)."""
    first = clock()
    for _ in range(spin_limit):
        second = clock()
        if second != first:
            return max(second - first, 0.0)
    return 0.0


def record_clock(metadata: dict[str, Any], name: str) -> None:
    """Say in a run's *metadata* which clock timed its values: ``clock``
    and the ``timer`` it used for ``--clock cpu``; nothing for the wall
    clock (a run without ``clock`` was timed with the wall clock, as every
    pyperf run)."""
    if name == DEFAULT_CLOCK_NAME:
        metadata.pop("clock", None)
        return
    from perf.collect.python import timer_text

    metadata["clock"] = name
    metadata["timer"] = timer_text(CLOCK_FUNCTIONS[name])


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
