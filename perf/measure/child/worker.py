"""The child side: one worker process measures one task and builds its Runs.

A worker probes the clock, pins itself to the requested CPUs, drives the
task's time function through :func:`perf.measure.child.sampling.measure` (as
its metric takes values, :mod:`perf.measure.child.metric`; with hooks or
cProfile around each sample when asked), collects
the metadata of pyperf (doc/compatibility.rst, metadata keys) and returns a :class:`Benchmark` of
one value run, preceded by a calibration run when this worker calibrated
the loops (pyperf's file shape, without spending a process on it).

:func:`perf.measure.protocol.send_benchmark` writes that Benchmark as JSON
to the parent's pipe.

Must not: print (verbose output goes through ``on_sample``), exit, spawn
workers.
"""

from __future__ import annotations

import datetime
import math
import os
import time
from typing import TYPE_CHECKING, Any, Callable

from perf.collect.python import python_has_jit
from perf.errors import UsageError
from perf.measure.child.calibration import TimerInfo
from perf.measure.child.clock import DEFAULT_CLOCK, Clock, probe_timer, record_clock
from perf.measure.child.interference import Witness
from perf.measure.child.metric import metric_of
from perf.measure.child.sampling import Samples, SamplingPlan, TimeFunction, measure
from perf.measure.child.tasks import Task
from perf.measure.environment import padding_length
from perf.measure.options import RunOptions
from perf.measure.protocol import before_values
from perf.model.benchmark import Benchmark
from perf.model.run import Run

if TYPE_CHECKING:
    from perf.measure.child.metric import Metric

OnSample = Callable[[str, int, float], None]


def set_affinity(cpu_list: str) -> None:
    """Pin this process to *cpu_list* (``"2-3,6"``)."""
    from perf.platform.cpus import parse_cpu_list, set_cpu_affinity

    if not set_cpu_affinity(parse_cpu_list(cpu_list)):
        raise UsageError("--affinity: CPU affinity is not available here (install psutil)")


def _hooked(time_function: TimeFunction, hook_set: Any) -> TimeFunction:
    def hooked(loops: int) -> float:
        with hook_set:
            return time_function(loops)

    return hooked


class _Profiler:
    """cProfile around every sample, saved (merged) into one file."""

    def __init__(self, filename: str) -> None:
        import cProfile

        self.filename = filename
        self.profile = cProfile.Profile()

    def wrap(self, time_function: TimeFunction) -> TimeFunction:
        def profiled(loops: int) -> float:
            self.profile.enable()
            try:
                return time_function(loops)
            finally:
                self.profile.disable()

        return profiled

    def save(self) -> None:
        import pstats

        from perf.storage.files import folder_lock, write_atomic

        self.profile.create_stats()
        with folder_lock(self.filename):
            stats = pstats.Stats(self.profile)
            if os.path.exists(self.filename):
                stats.add(self.filename)
            temporary = f"{self.filename}.{os.getpid()}.tmp"
            stats.dump_stats(temporary)
            try:
                with open(temporary, "rb") as file:
                    write_atomic(self.filename, file.read(), replace=True)
            finally:
                os.unlink(temporary)


def _plan(options: RunOptions, task: Task, metric: Metric) -> SamplingPlan:
    warmups = options.warmups if isinstance(options.warmups, int) else None  # AUTO: steady-state detection
    return SamplingPlan(
        values=options.values,
        warmups=warmups,
        loops=options.loops if metric.timed else 1,
        min_time=options.min_time,
        inner_loops=(task.inner_loops or 1) if metric.timed else 1,  # a peak is not shared out between statements
    )


def _run_metadata(
    task: Task, runner_metadata: dict[str, Any], samples: Samples, timer: TimerInfo, metric: Metric
) -> dict[str, Any]:
    from perf.collect import collect_metadata

    metadata = collect_metadata()
    metadata.update(runner_metadata)
    metadata.update(task.metadata)
    metadata["name"] = task.name
    metadata["loops"] = samples.loops
    if task.inner_loops:
        metadata["inner_loops"] = task.inner_loops
    if metric.timed:
        metadata.setdefault("unit", metric.unit)  # a script may declare another unit
    else:
        metadata["unit"] = metric.unit
        # how many samples the peaks come from, as pyperf records them
        metadata["warmups"] = len(samples.warmups)
        metadata["values"] = len(samples.values)
    metadata["timer_call_cost"] = timer.call_cost
    metadata["timer_effective_resolution"] = timer.resolution
    padding = padding_length()
    if padding is not None:
        metadata["env_padding"] = padding
    if samples.steady is not None:
        metadata["steady_state"] = samples.steady.kind
        metadata["steady_state_warmups"] = samples.steady.warmup
    if task.overhead_function is not None and metric.timed and not python_has_jit():
        # not under a JIT: a fresh empty loop runs cold there, slower than
        # the compiled loop inside the values
        metadata["loop_overhead"] = loop_overhead(task, samples.loops)
    return metadata


def run_task(
    task: Task,
    options: RunOptions,
    runner_metadata: dict[str, Any] | None = None,
    *,
    clock: Clock = DEFAULT_CLOCK,
    on_sample: OnSample | None = None,
    hook_descriptors: Any = (),
) -> Benchmark:
    """Measure *task* as the worker described by *options*; return its runs.

    *clock*: the clock of ``--clock`` (the one the task's time functions
    read), probed so that calibration knows its cost and resolution."""
    if options.affinity:
        set_affinity(options.affinity)
    metric = metric_of(options)
    if metric.counted:
        return count_task(task, options)
    time_function = metric.measure(task.time_function, task)
    hook_set = None
    if options.hook:
        from perf.measure.hook_set import HookSet

        hook_set = HookSet(options.hook, extra=hook_descriptors)
        time_function = _hooked(time_function, hook_set)
    profiler = _Profiler(options.profile) if options.profile else None
    if profiler is not None:
        time_function = profiler.wrap(time_function)

    witness = Witness(enabled=metric.witnessed)
    time_function = witness.wrap(time_function)

    timer = probe_timer(clock)
    date = datetime.datetime.now().isoformat(" ")
    start = time.monotonic()
    witness.run_probe()
    samples = measure(time_function, _plan(options, task, metric), timer, on_sample, before_values(options))
    witness.run_probe()
    duration = time.monotonic() - start
    samples = metric.finish(samples)

    metadata = _run_metadata(task, runner_metadata or {}, samples, timer, metric)
    record_clock(metadata, options.clock)  # --clock cpu: clock and timer
    metadata.update(witness.metadata(len(samples.values)))
    metadata["date"] = date
    metadata["duration"] = duration
    if task.collect is not None:
        task.collect(metadata)
    if hook_set is not None:
        hook_set.teardown(metadata)
    if profiler is not None:
        profiler.save()
    return Benchmark(_runs(samples, metadata))


def count_task(task: Task, options: RunOptions) -> Benchmark:
    """Run *task* once, ``--loops`` loops, with nothing around it, under a
    counter (``--metric instructions``): the parent differences two such
    workers (:mod:`perf.measure.parent.counting`), so that everything
    else they do must be the same work.  ``random`` is seeded with the
    hash seed, the same in both."""
    seed = os.environ.get("PYTHONHASHSEED", "")
    if seed.isdigit():
        import random

        random.seed(int(seed))
    task.time_function(options.loops)
    metadata = {"name": task.name, "loops": options.loops, "unit": "integer"}
    return Benchmark([Run([1.0], metadata=metadata, collect_metadata=False)])  # the same bytes in both


#: the empty loop runs a tenth of the value loops: its time per iteration
#: does not depend on the count, and it then costs a tenth of a value
OVERHEAD_LOOPS_DIVISOR = 10


def loop_overhead(task: Task, loops: int) -> float:
    """Seconds per statement that the empty loop of *task* takes, timed
    once after the values with a tenth of the value loops; recorded, never
    subtracted (doc/design.rst, R10)."""
    assert task.overhead_function is not None
    empty_loops = max(1, loops // OVERHEAD_LOOPS_DIVISOR)
    raw = task.overhead_function(empty_loops)
    return max(raw, 0.0) / (empty_loops * (task.inner_loops or 1))


def _runs(samples: Samples, metadata: dict[str, Any]) -> list[Run]:
    steps = samples.calibration_steps
    runs = []
    if steps:
        # the worker's duration is split between its two runs, counted once
        calibration_time = math.fsum(value * loops for loops, value in samples.warmups[:steps])
        calibration_time *= metadata.get("inner_loops", 1)
        duration = metadata["duration"]
        calibration_time = min(calibration_time, duration)
        calibration = dict(metadata, calibrate_loops=samples.loops, duration=calibration_time)
        metadata = dict(metadata, duration=duration - calibration_time)
        for key in ("steady_state", "steady_state_warmups", "cpu_share", "involuntary_switches"):
            calibration.pop(key, None)  # they describe the values
        runs.append(Run((), warmups=samples.warmups[:steps], metadata=calibration, collect_metadata=False))
    runs.append(Run(samples.values, warmups=samples.warmups[steps:], metadata=metadata, collect_metadata=False))
    return runs
