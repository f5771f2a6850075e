"""What one worker measures: calibration steps, warmups and values.

:func:`measure` drives a *time function* (``loops -> seconds for all the
loops``, as ``Runner.bench_time_func`` takes) through the calibration
decisions of :mod:`perf.measure.child.calibration`, then the warmups, then the
values, and returns them normalised per loop iteration.  Loop calibration
happens inside the first worker, whose values are kept: no process is spent
on calibration alone.

Must not: spawn processes, collect metadata, print.
"""

from __future__ import annotations

import functools
import math
from typing import Callable, NamedTuple

from perf.errors import WorkerError, ZeroValueError
from perf.measure.child.calibration import (
    TimerInfo,
    is_accepted,
    next_calibration_loops,
    next_loops,
    target_seconds,
)
from perf.measure.child.steady import WINDOW, SteadyState, classify

#: loops -> seconds taken by that many loops of the benchmark
TimeFunction = Callable[[int], float]

#: calibration steps before the last loop count is taken as it is (a
#: benchmark whose values jump by more than 30 % can oscillate forever)
MAX_CALIBRATION_STEPS = 32
#: JIT: loop recalibrations after the first steady state
MAX_RECALIBRATIONS = 3


class SamplingPlan(NamedTuple):
    """How many of each sample one worker takes."""

    values: int
    #: warmup values; None finds this process's steady state (JIT runtimes)
    warmups: int | None
    #: loops per value; 0 asks this worker to calibrate them first
    loops: int
    min_time: float
    inner_loops: int = 1
    #: steady-state search: most warmup values, and most seconds spent
    max_warmups: int = 300
    max_warmup_time: float = 30.0


class Samples(NamedTuple):
    """What a worker measured, per loop iteration."""

    values: tuple[float, ...]
    #: calibration steps first, then the warmups: (loops, value) pairs
    warmups: tuple[tuple[int, float], ...]
    loops: int
    #: number of leading warmups that were calibration steps
    calibration_steps: int
    #: with ``warmups=None``: how the warmup values settled
    steady: SteadyState | None = None


def _timed(time_function: TimeFunction, loops: int) -> float:
    raw = time_function(loops)
    if not isinstance(raw, (int, float)) or isinstance(raw, bool) or not 0 <= raw < math.inf:
        raise WorkerError(f"the time function must return seconds >= 0, got {raw!r}")
    return float(raw)


def _ignore(kind: str, loops: int, raw: float) -> None:
    pass


class _Sampler:
    """Takes samples of one time function and keeps the warmups."""

    def __init__(self, time_function: TimeFunction, plan: SamplingPlan, report: Callable[[str, int, float], None]):
        self.time_function = time_function
        self.plan = plan
        self.report = report
        self.warmups: list[tuple[int, float]] = []

    def take(self, kind: str, loops: int) -> float:
        """Time one sample, report it, return its value per iteration."""
        raw = _timed(self.time_function, loops)
        self.report(kind, loops, raw)
        if raw == 0 and kind == "value":
            raise ZeroValueError(
                f"a value of {loops} loops took 0 seconds: the clock is too coarse (use more loops or --min-time)"
            )
        return raw / (loops * self.plan.inner_loops)

    def warmup(self, kind: str, loops: int) -> float:
        value = self.take(kind, loops)
        self.warmups.append((loops, value))
        return value

    def calibrate(self, target: float) -> int:
        loops = 1
        for step in range(MAX_CALIBRATION_STEPS):
            raw = self.warmup("calibration", loops) * loops * self.plan.inner_loops
            if is_accepted(raw, loops, target, first_call=step == 0):
                break
            loops = next_calibration_loops(loops, raw, target, first_call=step == 0)
        return loops

    def find_steady_state(self, loops: int, target: float, calibrating: bool) -> tuple[int, int, SteadyState]:
        """JIT warmup: (loops, index of the first warmup of the final
        warm-up, its state).  When calibrating, a JIT makes the code faster
        once warm: the loops are sized again on the steady segment, and the
        warm-up starts over with them."""
        for attempt in range(MAX_RECALIBRATIONS + 1):
            start = len(self.warmups)
            steady = _warm_up(functools.partial(self.warmup, "warmup", loops), self.plan, loops)
            if not calibrating or attempt == MAX_RECALIBRATIONS:
                break
            steady_values = sorted(value for _, value in self.warmups[start + steady.warmup :])
            raw = steady_values[len(steady_values) // 2] * loops * self.plan.inner_loops
            if raw >= target:
                break
            # sized on a steady segment: no growth cap, and always grow
            loops = max(next_loops(loops, raw, target, max_growth=None), loops + 1)
        return loops, start, steady


def measure(
    time_function: TimeFunction,
    plan: SamplingPlan,
    timer: TimerInfo,
    on_sample: Callable[[str, int, float], None] | None = None,
    on_values: Callable[[], None] | None = None,
) -> Samples:
    """Calibrate loops if ``plan.loops`` is 0, then take the warmups and
    the values.  *on_sample(kind, loops, raw_seconds)* is called after each
    sample (``kind`` is ``"calibration"``, ``"warmup"`` or ``"value"``), for
    verbose output; *on_values()* once, as the first value starts.

    Raises :class:`~perf.errors.ZeroValueError` when a value is 0 (the clock
    is too coarse for the loop count) and
    :class:`~perf.errors.CalibrationError` when no loop count can reach the
    target.
    """
    sampler = _Sampler(time_function, plan, on_sample or _ignore)
    target = target_seconds(plan.min_time, timer)
    calibrating = plan.loops == 0
    loops = sampler.calibrate(target) if calibrating else plan.loops
    steps = len(sampler.warmups)
    steady = None
    if plan.warmups is None:
        loops, start, steady = sampler.find_steady_state(loops, target, calibrating)
        steps = start if calibrating else 0
    else:
        for _ in range(plan.warmups):
            sampler.warmup("warmup", loops)
    if on_values is not None:
        on_values()
    values = [sampler.take("value", loops) for _ in range(plan.values)]
    warmups = sampler.warmups
    if steady is not None:
        # classify the whole sequence again: a slow phase longer than the
        # first windows can look steady at first (recorded, never an error)
        steady = classify([value for _, value in warmups[steps:]] + values)
    return Samples(tuple(values), tuple(warmups), loops, steps, steady)


def _warm_up(sample: Callable[[], float], plan: SamplingPlan, loops: int) -> SteadyState:
    """Take warmup values, a window at a time, until the last segment of
    the sequence is long enough to call steady, or the budget is spent
    (doc/design.rst, R8: never an error, a classification)."""
    sequence: list[float] = []
    while True:
        sequence.extend(sample() for _ in range(WINDOW))
        state = classify(sequence)
        if state.kind != "no steady state":
            return state
        spent = math.fsum(sequence) * loops * plan.inner_loops
        if len(sequence) >= plan.max_warmups or spent >= plan.max_warmup_time:
            return state
