"""What a worker measures: one small interface, one implementation per metric.

A :class:`Metric` says how a worker takes a value from a task, the unit
of the values, whether loops are calibrated and a value shared out
between inner loops, whether the busy-machine evidence applies, and how
a worker's command line is wrapped (:meth:`Metric.command`).
:data:`METRICS` registers the implementations by name (``module:class``,
imported when a run asks for one: a worker's start-up stays short);
:func:`metric_of` picks the one of a run's options.  A new metric is a
module with such a class and a line in :data:`METRICS`
(doc/architecture.rst).

Must not: print, exit, or import the parent side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Mapping, Sequence

if TYPE_CHECKING:  # a worker does not pay for a Protocol class at start-up
    from typing import Protocol

    from perf.measure.child.sampling import Samples, TimeFunction
    from perf.measure.child.tasks import Task
    from perf.measure.options import RunOptions

    class Metric(Protocol):
        """How a worker measures a task, and what its values are."""

        #: the name of the metric (its key in :data:`METRICS`)
        name: ClassVar[str]
        #: the unit of the stored values (``unit`` metadata; :mod:`perf.render.units` shows it)
        unit: ClassVar[str]
        #: loops are calibrated and a value is shared out between inner loops
        #: (a time); otherwise one loop per value, not divided (a peak)
        timed: ClassVar[bool]
        #: the worker records the busy-machine evidence (CPU share, probe) and
        #: the analysis may correct with it
        witnessed: ClassVar[bool]
        #: the values are counts of a simulated CPU: workers need no quiet
        #: CPU (no CPU lock), and run the task alone, without perf's sampling
        counted: ClassVar[bool]
        #: how the parent takes one sample (``module:function``, called as
        #: ``sampler(launcher, task, loops, values, what=, sample=)``); None:
        #: one worker, :meth:`perf.measure.parent.launcher.WorkerLauncher.run_worker`
        sampler: ClassVar[str | None]

        def measure(self, time_function: TimeFunction, task: Task) -> TimeFunction:
            """The function that takes one value of *task* (``loops -> value``)."""

        def finish(self, samples: Samples) -> Samples:
            """The samples as they are stored."""

        def command(self, command: Sequence[str]) -> list[str]:
            """The command line that starts a worker of this metric."""

        def recorded(self) -> dict[str, str]:
            """The checked metadata its runs will record, known before they
            run (the checks of an ``--append`` file)."""


class WallTime:
    """The wall clock (``--clock wall``, the default): the task's own time function."""

    name: ClassVar[str] = "wall"
    unit: ClassVar[str] = "second"
    timed: ClassVar[bool] = True
    witnessed: ClassVar[bool] = True
    counted: ClassVar[bool] = False
    sampler: ClassVar[str | None] = None

    def measure(self, time_function: TimeFunction, task: Task) -> TimeFunction:
        return time_function

    def finish(self, samples: Samples) -> Samples:
        return samples

    def command(self, command: Sequence[str]) -> list[str]:
        return list(command)

    def recorded(self) -> dict[str, str]:
        return {} if self.timed else {"unit": self.unit}  # a script may declare the unit of its times


class CpuTime(WallTime):
    """The CPU time of the worker's thread (``--clock cpu``): the task's
    time functions read that clock (:mod:`perf.measure.child.clock`)."""

    name: ClassVar[str] = "cpu"


class Instructions(WallTime):
    """Instructions and simulated cache misses per loop (``--metric
    instructions``): a sample is two workers under cachegrind that differ
    only in their loops (:mod:`perf.measure.parent.counting`)."""

    name: ClassVar[str] = "instructions"
    unit: ClassVar[str] = "integer"
    witnessed: ClassVar[bool] = False
    counted: ClassVar[bool] = True
    sampler: ClassVar[str | None] = "perf.measure.parent.counting:count_sample"

    def command(self, command: Sequence[str]) -> list[str]:
        from perf.measure.cachegrind import cachegrind_command

        return cachegrind_command(list(command))

    def recorded(self) -> dict[str, str]:
        from perf.measure.cachegrind import installed_source
        from perf.model.metadata import COUNTER_KEY

        return {"unit": self.unit, COUNTER_KEY: installed_source()}


#: every metric: its name -> the class that implements it (``module:class``)
METRICS: Mapping[str, str] = {
    "wall": "perf.measure.child.metric:WallTime",
    "cpu": "perf.measure.child.metric:CpuTime",
    "track-memory": "perf.measure.child.memory:PeakMemory",
    "tracemalloc": "perf.measure.child.memory:TracedMemory",
    "instructions": "perf.measure.child.metric:Instructions",
}


def get_metric(name: str) -> Metric:
    """The metric registered as *name*."""
    import importlib

    module, _, cls = METRICS[name].partition(":")
    metric: Metric = getattr(importlib.import_module(module), cls)()
    return metric


def metric_of(options: RunOptions) -> Metric:
    """The metric a run's *options* ask for."""
    if options.tracemalloc:
        return get_metric("tracemalloc")
    if options.metric != "time":
        return get_metric(options.metric)
    return get_metric("track-memory" if options.track_memory else options.clock)
