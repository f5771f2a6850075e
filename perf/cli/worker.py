"""A worker process on the command line, and how the Runner fails.

A worker measures one benchmark (:func:`perf.measure.worker.run_task`),
then sends it to the parent through its pipe; run in place (``--worker``
without ``--pipe``: under a profiler or a debugger) it prints the result
and saves it to ``-o``/``--append`` itself.  This module owns what such a
process prints and its exit status: the benchmarked code's traceback
without perf's frames, one ``ERROR:`` line for perf's errors.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Sequence

from perf.cli import display
from perf.cli.main import ERROR_EXIT_STATUS, exit_status
from perf.errors import PerfError, ZeroValueError

if TYPE_CHECKING:
    from perf.measure.options import RunOptions
    from perf.measure.saving import PlannedRun
    from perf.measure.session import Session
    from perf.measure.tasks import Task
    from perf.model.benchmark import Benchmark

#: exit status of a run stopped by --timeout (pyperformance relies on it)
TIMEOUT_EXIT_STATUS = 124


def fail(message: str, status: int = ERROR_EXIT_STATUS) -> NoReturn:
    """One ``ERROR:`` line on stderr, then exit with *status*."""
    sys.stdout.flush()
    print(f"ERROR: {message}", file=sys.stderr)
    sys.exit(status)


def fail_on(error: PerfError) -> NoReturn:
    fail(str(error), exit_status(error))


def run_worker(  # noqa: PLR0917 (the Runner passes what it holds)
    task: Task,
    options: RunOptions,
    session: Session,
    planned: PlannedRun,
    metadata: dict[str, Any],
    clock: Callable[[], float],
    hooks: Sequence[Any],
    show_name: bool,
) -> Benchmark:
    """Measure *task* in this process (*metadata*: the script's): send it to
    the parent, or, run in place, check the --append file against
    *planned*, then print the result and save it."""
    from perf.measure.worker import run_task, send

    in_place = options.pipe is None
    on_sample = display.sample_printer(task, "byte" if options.memory else "second") if options.verbose else None
    try:
        if in_place:
            session.check_appends([planned])
        benchmark = run_task(task, options, metadata, clock=clock, on_sample=on_sample, hook_descriptors=hooks)
    except KeyboardInterrupt:
        sys.exit(1)
    except ZeroValueError as exc:
        if in_place:
            # pyperf's exception, which the script can catch
            raise ValueError("benchmark function returned zero") from exc
        fail_on(exc)
    except PerfError as exc:
        fail_on(exc)
    except Exception as exc:
        # the benchmarked code failed: its traceback, without perf's frames
        display.print_user_traceback(exc)
        sys.exit(1)
    if not in_place:
        assert options.pipe is not None
        send(benchmark, options.pipe)
        return benchmark
    display.print_result(benchmark, options, show_name, checks=False)
    try:
        session.writer.save(benchmark)
    except PerfError as exc:
        fail_on(exc)
    return benchmark
