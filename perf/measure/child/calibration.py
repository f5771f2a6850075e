"""Pure decisions of loop calibration: how many loops make one value.

One value is the time of ``loops`` calls of the benchmarked code.  It must
be long enough for the timer to be accurate and for start-up noise to
average out, and not longer than needed.

pyperf doubles ``loops`` until a value reaches ``min_time``, so values land
anywhere in [min_time, 2 x min_time) (1.44 x on average): time spent for no
precision.  perf scales linearly instead (doc/design.rst, R4, R10):

* the target is the largest of ``min_time``, 1000 timer calls and 10**4
  effective timer resolutions, so timer error stays below 0.1 %;
* a value in [target, 1.3 x target] is accepted;
* otherwise the next count aims at the middle of that window,
  ``ceil(loops x 1.15 x target / raw)``, growing at most 10 times per step
  (a first value can be dominated by one-off costs);
* a long value at one loop is accepted (nothing shorter exists) only from
  a warm call: the first call of a benchmark can pay for imports, caches or
  code generation (cattrs built its converter in 486 ms, then ran in
  0.7 ms), so a first call that long is timed again, and calibration goes
  on from the warm call.

Must not: run or time anything.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from perf.errors import CalibrationError

#: a value may be up to this factor above the target
ACCEPT_FACTOR = 1.3
#: aim at the middle of [target, ACCEPT_FACTOR x target]
AIM_FACTOR = (1.0 + ACCEPT_FACTOR) / 2.0
#: most growth of the loop count in one step
MAX_GROWTH = 10
#: beyond this, the code is too fast to time (or the clock does not move)
MAX_LOOPS = 2**32
#: the timer floor: calls and resolutions one value must span
TIMER_CALLS = 1000
TIMER_RESOLUTIONS = 10**4


class TimerInfo(NamedTuple):
    """What the clock costs and how finely it ticks, probed at start-up."""

    #: mean cost of one clock call, in seconds
    call_cost: float
    #: smallest non-zero difference between two back-to-back reads, seconds
    resolution: float


def target_seconds(min_time: float, timer: TimerInfo) -> float:
    """The shortest acceptable raw value (seconds) for this clock."""
    return max(min_time, TIMER_CALLS * timer.call_cost, TIMER_RESOLUTIONS * timer.resolution)


def is_accepted(raw: float, loops: int, target: float, *, first_call: bool = False) -> bool:
    """True when a value of *raw* seconds for *loops* loops is good.

    With a single loop nothing shorter exists: a long value is accepted,
    unless it is the benchmark's *first_call* in this process, which may
    pay one-off costs and is never trusted alone.
    """
    if raw < target or (loops == 1 and first_call):
        return False
    return raw <= ACCEPT_FACTOR * target or loops == 1


def next_calibration_loops(loops: int, raw: float, target: float, *, first_call: bool = False) -> int:
    """The loop count to try after a value that :func:`is_accepted`
    refused: one loop again after a long first call (time it warm), else
    :func:`next_loops`."""
    if loops == 1 and first_call and raw >= target:
        return 1
    return next_loops(loops, raw, target)


def next_loops(loops: int, raw: float, target: float, max_growth: int | None = MAX_GROWTH) -> int:
    """The loop count to try after *loops* loops took *raw* seconds,
    growing at most *max_growth* times (None: no cap, for a raw value
    that can be trusted, such as the median of a steady segment).

    Raises :class:`~perf.errors.CalibrationError` when more than
    ``MAX_LOOPS`` loops would be needed.
    """
    if loops < 1:
        raise ValueError(f"loops must be >= 1, got {loops}")
    # raw == 0: the clock did not move, grow as fast as allowed
    proposed = math.ceil(loops * AIM_FACTOR * target / raw) if raw > 0 else loops * MAX_GROWTH
    if max_growth is not None:
        proposed = min(proposed, loops * max_growth)
    proposed = max(1, proposed)
    if proposed > MAX_LOOPS:
        raise CalibrationError(
            f"failed to calibrate the number of loops: more than {MAX_LOOPS} loops needed "
            f"to reach {target:.3g} s (is the benchmark empty, or the clock frozen?)"
        )
    return proposed
