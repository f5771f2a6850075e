"""How a benchmark test's function is measured: perf's worker model.

:func:`measure_function` turns ``fn(*args, **kwargs)`` into a time function
and drives it through perf's calibration, warmups and values
(:func:`perf.measure.child.worker.run_task`), with the worker's metadata.
A worker process of the plugin calls it once per benchmark test; pytest's
own process calls it only for a test whose function no worker measured
(the fixture requested with ``request.getfixturevalue``).

:func:`pedantic_benchmark` stores the rounds that ``benchmark.pedantic``
timed in pytest's process, as one run.

Must not: print, spawn processes, decide how many processes run.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import inspect
import math
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, TypeVar

from perf.pytest_plugin.options import JIT_WARMUPS, PytestBudget, Settings

if TYPE_CHECKING:  # every pytest process imports this module: what measures is imported when it measures
    from perf.measure.child.sampling import TimeFunction
    from perf.model.benchmark import Benchmark

T = TypeVar("T")

#: metadata key: where the values come from ("workers", "pytest process")
MEASURED_IN = "pytest_measured_in"
IN_WORKERS = "worker processes"
IN_PYTEST = "pytest process"


def is_async(fn: Callable[..., Any]) -> bool:
    """True for an ``async def`` function (also behind functools.partial)."""
    return inspect.iscoroutinefunction(fn) or (
        isinstance(fn, functools.partial) and inspect.iscoroutinefunction(fn.func)
    )


def _loop_running() -> bool:
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False  # no event loop runs where asyncio was never imported
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def outside_event_loop(work: Callable[[], T]) -> T:
    """Run *work* here, or in a new thread when an event loop runs in this
    thread (an async test calling ``benchmark()``): a second loop cannot
    run inside it."""
    if not _loop_running():
        return work()
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as exc:  # handed back to the caller's thread
            outcome.append((False, exc))

    thread = threading.Thread(target=target, name="perf-benchmark")
    thread.start()
    thread.join()
    succeeded, value = outcome[0]
    if not succeeded:
        raise value
    return value  # type: ignore[no-any-return]


def call_once(fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """One call of *fn*, its result (an ``async def`` function is awaited
    to the end in a new event loop)."""
    __tracebackhide__ = True
    if not is_async(fn):
        return fn(*args, **kwargs)

    def run() -> Any:
        import asyncio

        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(fn(*args, **kwargs))
        finally:
            loop.close()

    return outside_event_loop(run)


@contextlib.contextmanager
def timing(disable_gc: bool) -> Iterator[None]:
    """While timing: no trace or profile hook (a coverage tracer would be
    timed), and no garbage collector when asked; all put back after."""
    trace, profile = sys.gettrace(), sys.getprofile()
    sys.settrace(None)
    sys.setprofile(None)
    collecting = gc.isenabled()
    if disable_gc:
        gc.disable()
    try:
        yield
    finally:
        if disable_gc and collecting:
            gc.enable()
        sys.settrace(trace)
        sys.setprofile(profile)


def _quiet(time_function: TimeFunction, disable_gc: bool) -> TimeFunction:
    """The time function, run :func:`timing`."""

    def quiet(loops: int) -> float:
        with timing(disable_gc):
            return time_function(loops)

    return quiet


def worker_plan(budget: PytestBudget, settings: Settings, jit: bool) -> tuple[int, int, float]:
    """Values and warmups per process, and the shortest value (seconds),
    for one benchmark test: the budget's, with pytest-benchmark's
    ``min_rounds`` (values over all processes), ``max_time`` (the test's
    measuring time, split over its values) and ``min_time`` over it."""
    values = max(budget.values, math.ceil(settings.min_rounds / budget.processes))
    warmups = JIT_WARMUPS if jit else budget.warmups
    capped = min(budget.min_time, settings.max_time / (budget.processes * (values + warmups)))
    return values, warmups, max(settings.min_time, capped)


def measure_function(
    name: str,
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    *,
    settings: Settings,
    budget: PytestBudget,
    loops: int,
    measured_in: str = IN_WORKERS,
    metric: str = "time",
) -> Benchmark:
    """Measure ``fn(*args, **kwargs)`` as one perf worker does; *loops* 0
    calibrates them.  Returns the runs (a calibration run first when this
    call calibrated).  *metric* ``instructions``: run the *loops* once,
    with nothing around them, in a worker under cachegrind
    (:func:`perf.measure.child.worker.count_task`).  Exceptions of *fn*
    propagate."""
    from perf.collect.python import python_has_jit
    from perf.measure.child.tasks import Task, async_time_function, empty_loop_time_function, func_time_function
    from perf.measure.child.worker import run_task
    from perf.measure.options import RunOptions

    call = functools.partial(fn, *args, **kwargs) if (args or kwargs) else fn
    clock = settings.timer
    if is_async(fn):
        time_function = async_time_function(call, (), clock=clock)
    else:
        time_function = func_time_function(call, (), clock=clock)
    task = Task(
        name,
        _quiet(time_function, settings.disable_gc),
        metadata={MEASURED_IN: measured_in},
        overhead_function=empty_loop_time_function(clock),
    )
    if metric == "time":
        values, warmups, min_time = worker_plan(budget, settings, python_has_jit())
        options = RunOptions.create(
            processes=budget.processes, values=values, warmups=warmups, loops=loops, min_time=min_time, lock="none"
        )
    else:
        options = RunOptions.create(loops=loops, metric=metric, lock="none")
    return outside_event_loop(lambda: run_task(task, options, clock=clock))


def pedantic_benchmark(name: str, data: Sequence[float], iterations: int, warmups: int) -> Benchmark:
    """The rounds of ``benchmark.pedantic`` (seconds per call, timed in
    pytest's process) as one run of a Benchmark."""
    from perf.collect import collect_metadata
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run

    metadata = collect_metadata()
    metadata.update(name=name, loops=iterations, unit="second")
    metadata[MEASURED_IN] = IN_PYTEST
    metadata["pytest_pedantic_warmup_rounds"] = warmups
    return Benchmark([Run(tuple(data), metadata=metadata, collect_metadata=False)])
