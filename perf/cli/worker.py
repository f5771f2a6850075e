"""A worker process on the command line: what it prints, its exit status.

A worker measures one benchmark (:func:`perf.measure.child.worker.run_task`),
then sends it to the parent through its pipe; run in place (``--worker``
without ``--pipe``: under a profiler or a debugger) it prints the result
and saves it to ``-o``/``--append`` itself.  This module owns what such a
process prints and its exit status: the benchmarked code's traceback
without perf's frames, one ``ERROR:`` line for perf's errors.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable, Sequence

from perf.cli.main import fail_on
from perf.errors import PerfError, WorkerCancelled, ZeroValueError

if TYPE_CHECKING:
    from perf.measure.child.tasks import Task
    from perf.measure.options import RunOptions
    from perf.measure.parent.session import Session
    from perf.model.benchmark import Benchmark


def run_worker(  # noqa: PLR0917 (the Runner passes what it holds)
    task: Task,
    options: RunOptions,
    session: Session | None,
    metadata: dict[str, Any],
    clock: Callable[[], float],
    hooks: Sequence[Any],
    show_name: bool,
) -> Benchmark:
    """Measure *task* in this process (*metadata*: the script's): send it to
    the parent, or, run in place (with a *session*), check the --append
    file first, then print the result and save it."""
    from perf.measure.child.metric import metric_of
    from perf.measure.child.worker import run_task
    from perf.measure.protocol import send_benchmark

    if options.verbose or options.pipe is None:
        from perf.cli import display  # not on a quiet worker's path
    in_place = options.pipe is None
    on_sample = display.sample_printer(task, metric_of(options)) if options.verbose else None
    _wait_for_turn(options)
    try:
        if session is not None:  # run in place: it writes -o/--append
            from perf.measure.parent.saving import planned_run

            session.check_appends([task.name], lambda _name: planned_run(task, metadata))
        benchmark = run_task(task, options, metadata, clock=clock, on_sample=on_sample, hook_descriptors=hooks)
    except (KeyboardInterrupt, WorkerCancelled) as exc:
        sys.exit(0 if isinstance(exc, WorkerCancelled) else 1)  # cancelled: the parent no longer needs it
    except ZeroValueError as exc:
        if in_place:
            # pyperf's exception, which the script can catch
            raise ValueError("benchmark function returned zero") from exc
        fail_on(exc)
    except PerfError as exc:
        fail_on(exc)
    except Exception as exc:
        # the benchmarked code failed: its traceback, without perf's frames
        from perf.cli.display import print_user_traceback

        print_user_traceback(exc)
        sys.exit(1)
    if not in_place:
        assert options.pipe is not None
        send_benchmark(benchmark, options.pipe)
        return benchmark
    display.print_result(benchmark, options, show_name, checks=False)
    assert session is not None
    try:
        session.writer.save(benchmark)
    except PerfError as exc:
        fail_on(exc)
    return benchmark


def _wait_for_turn(options: RunOptions) -> None:
    """A worker started ahead of its turn (``--barrier``): warm the
    metadata's imports and caches while the previous worker measures, then
    wait at the barrier; exit quietly when it is not needed."""
    if options.barrier is None:
        return
    from perf.collect import collect_metadata
    from perf.measure.protocol import wait_at_barrier

    collect_metadata()
    if not wait_at_barrier(options):
        sys.exit(0)
