"""``perf.Runner``: the entry point of bench scripts, ``timeit`` and ``command``.

A bench script is a command-line program: the Runner plans its run (:func:`perf.measure.plan.plan_run`),
then is the parent (a :class:`~perf.measure.parent.session.Session` runs the workers, the Runner prints,
:mod:`perf.cli.run_end` sets the exit status) or a worker.  Keyword-compatible with ``pyperf.Runner``
(doc/compatibility.rst): a script written for pyperf runs unchanged with ``import perf as pyperf``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Awaitable, Callable, ClassVar, Sequence

from perf.cli.main import ERROR_EXIT_STATUS, USAGE_EXIT_STATUS, ArgumentParser, fail, fail_on
from perf.errors import PerfError, UsageError
from perf.measure.child.tasks import Task
from perf.measure.options import RunOptions
from perf.measure.values import AUTO, GivenBudget, RunMode
from perf.model.benchmark import Benchmark
from perf.model.metadata import DEFAULT_CLOCK

if TYPE_CHECKING:
    from perf.measure.parent.saving import PlannedRun
    from perf.measure.parent.session import Session

__all__ = ["ArgumentParser", "Runner", "command_program"]

_DEFAULT_WARMUPS: Any = object()


def command_program(program: Sequence[str]) -> tuple[str, ...]:
    """The program of ``python -m perf command`` (after ``--``)."""
    return tuple(program[1:] if list(program[:1]) == ["--"] else program)


class Runner:
    """Run benchmarks in worker processes and collect every value."""

    _created: ClassVar[set[type]] = set()
    #: what it runs: a bench script, ``python -m perf timeit`` or ``command``
    mode: ClassVar[RunMode] = "script"

    def __init__(  # noqa: PLR0917 (pyperf's positional order)
        self,
        values: int | None = None,
        processes: int | None = None,
        loops: int = 0,
        min_time: float = 0.1,
        metadata: dict[str, Any] | None = None,
        show_name: bool = True,
        program_args: Sequence[str] | None = None,
        add_cmdline_args: Callable[[list[str], argparse.Namespace], None] | None = None,
        _argparser: argparse.ArgumentParser | None = None,
        warmups: int | None = _DEFAULT_WARMUPS,
        hooks: Sequence[Any] | None = None,
    ) -> None:
        if type(self) in Runner._created:
            raise RuntimeError(
                f"only one {type(self).__name__} instance must be created per process: "
                "use the same instance to run all benchmarks"
            )
        Runner._created.add(type(self))
        from perf.collect.python import python_has_jit
        from perf.measure.arguments import add_runner_arguments

        self._jit = python_has_jit()
        given_warmups = None if warmups is _DEFAULT_WARMUPS else AUTO if warmups is None else warmups
        self._defaults = GivenBudget(processes or None, values or None, given_warmups)
        self.metadata: dict[str, Any] = metadata if metadata is not None else {}
        self._show_name = show_name
        self._program_args = tuple(program_args) if program_args else (sys.argv[0],)
        self._add_cmdline_args = add_cmdline_args
        if hooks is not None:  # the hooks' module only when they are given
            from perf.measure.hooks import check_hook_descriptors

            hooks = check_hook_descriptors(hooks)
        self._hooks = tuple(hooks or ())
        self._names: list[str] = []
        #: the task of each benchmark declared so far (built on demand: the
        #: parent reads its inner loops and metadata, and never runs it)
        self._declared: dict[str, Callable[[], Task]] = {}
        self.session: Session | None = None
        self.options: RunOptions | None = None
        self.args: argparse.Namespace | None = None
        self.argparser = _argparser if _argparser is not None else ArgumentParser(description="Benchmark")
        budget, default_warmups = self._defaults.budget_for(self._jit)
        precise = self._defaults.precision_values(self._jit)
        add_runner_arguments(self.argparser, budget, default_warmups, loops, min_time, precision_values=precise)

    def parse_args(self, args: Sequence[str] | None = None) -> argparse.Namespace:
        """Parse and check the command line (``sys.argv[1:]`` by default)."""
        if self.args is not None:
            if args is None:
                return self.args
            raise RuntimeError("arguments already parsed")
        from perf.measure.plan import plan_run

        try:
            namespace = self.argparser.parse_args(args)
            plan = plan_run(
                vars(namespace),
                self.mode,
                self._program_args,
                program=command_program(getattr(namespace, "program", None) or ()),
                defaults=self._defaults,
                jit=self._jit,
                hooks=self._hooks,
            )
            self.args = namespace  # the workers' command line reads it (pyperf's add_cmdline_args)
            if not (plan.options.worker and plan.options.pipe is not None):  # a worker measuring needs no session
                from perf.cli import display
                from perf.measure.parent.session import Session

                lock_command = () if plan.options.worker else display.lock_command(self._program_args)
                events = display.RunEvents(plan.options)
                self.session = Session(
                    plan, extend_command=self._extend_command, events=events, lock_command=lock_command
                )
        except PerfError as exc:
            fail_on(exc)
        self.options = plan.options
        for name, value in plan.options._asdict().items():  # pyperf's scripts read them there
            if hasattr(namespace, name):
                setattr(namespace, name, value)
        return namespace

    def _extend_command(self, command: list[str]) -> None:
        """pyperf's callback: the worker's command and the parsed namespace."""
        if self._add_cmdline_args is not None and self.args is not None:
            self._add_cmdline_args(command, self.args)

    # -- benchmark methods -------------------------------------------------------

    def bench_time_func(
        self,
        name: str,
        time_func: Callable[..., float],
        *args: Any,
        inner_loops: int | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Benchmark | None:
        """Benchmark ``time_func(loops, *args)``, which returns the seconds
        taken by all the loops."""
        from perf.measure.child.tasks import time_func_time_function

        return self._main(
            name,
            lambda: Task(name, time_func_time_function(time_func, args), inner_loops, metadata),
            cpu_clock_refusal=f"bench_time_func() ({name!r}): the function times itself, so perf cannot choose "
            "its clock",
        )

    def bench_func(
        self,
        name: str,
        func: Callable[..., Any],
        *args: Any,
        inner_loops: int | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Benchmark | None:
        """Benchmark ``func(*args)``."""
        from perf.measure.child.tasks import empty_loop_time_function, func_time_function

        def task() -> Task:
            clock = self._clock()
            function, overhead = func_time_function(func, args, clock), empty_loop_time_function(clock)
            return Task(name, function, inner_loops, metadata, overhead_function=overhead)

        return self._main(name, task)

    def bench_async_func(
        self,
        name: str,
        func: Callable[..., Awaitable[Any]],
        *args: Any,
        inner_loops: int | None = None,
        metadata: dict[str, Any] | None = None,
        loop_factory: Callable[[], Any] | None = None,
    ) -> Benchmark | None:
        """Benchmark ``await func(*args)``, in a new event loop per value."""
        from perf.measure.child.tasks import async_time_function

        return self._main(
            name,
            lambda: Task(name, async_time_function(func, args, loop_factory, self._clock()), inner_loops, metadata),
        )

    def timeit(  # noqa: PLR0917 (pyperf's positional order)
        self,
        name: str,
        stmt: str | Sequence[str] | None = None,
        setup: str | Sequence[str] = "pass",
        teardown: str | Sequence[str] = "pass",
        inner_loops: int | None = None,
        duplicate: int | None = None,
        metadata: dict[str, Any] | None = None,
        globals: dict[str, Any] | None = None,
    ) -> Benchmark | None:
        """Benchmark Python statements, like the :mod:`timeit` module."""
        from perf.measure.child.tasks import TimeitCode

        try:
            code = TimeitCode(name if stmt is None else stmt, setup, teardown, duplicate, globals)
        except UsageError as exc:
            fail(str(exc), self._code_error_status())
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        return self._main(name, lambda: code.task(name, inner_loops, metadata, self._clock()))

    def bench_command(self, name: str, command: Sequence[str]) -> Benchmark | None:
        """Benchmark the wall time of running a program."""
        from perf.measure.child.tasks import CommandTimer, check_program

        try:
            found = check_program(command)
        except UsageError as exc:
            fail(str(exc), self._code_error_status())
        return self._main(
            name,
            lambda: CommandTimer(found, given=command).task(name),
            cpu_clock_refusal=f"bench_command() ({name!r}): the command runs in another process, whose CPU "
            "time the worker's thread clock does not count",
        )

    def _code_error_status(self) -> int:
        """A bad statement or program: a usage error of timeit/command, a failure of a script."""
        return ERROR_EXIT_STATUS if self.mode == "script" else USAGE_EXIT_STATUS

    def _clock(self) -> Callable[[], float]:
        """The clock of ``--clock``, which the time functions read."""
        from perf.measure.child.clock import get_clock

        assert self.options is not None
        return get_clock(self.options.clock)

    # -- parent or worker ------------------------------------------------------------

    def _main(self, name: str, make_task: Callable[[], Task], cpu_clock_refusal: str | None = None) -> Benchmark | None:
        """Declare benchmark *name*, then measure it (a worker whose task it
        is), run its workers (the parent), or skip it.  *cpu_clock_refusal*:
        why ``--clock cpu`` cannot time it (a usage error, before anything
        runs: in the parent, in the worker that lists the benchmarks, and in
        its own worker)."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"a benchmark name must be a non-empty string, got {name!r}")
        if name in self._declared:
            raise ValueError(f"duplicated benchmark name: {name!r}")
        self._declared[name] = make_task
        self.parse_args()
        options = self.options
        assert options is not None
        index = len(self._declared) - 1
        measures_it = not options.worker or options.worker_list or options.worker_task in (None, index)
        if cpu_clock_refusal and options.clock != DEFAULT_CLOCK and measures_it:
            fail(f"--clock {options.clock} cannot be used with {cpu_clock_refusal}", USAGE_EXIT_STATUS)
        if options.worker_list:
            from perf.cli.display import announce

            announce(name, options.pipe)
            return None
        if options.worker:
            return self._worker(make_task(), options) if options.worker_task in (None, index) else None
        from perf.cli.run_end import guarded

        return guarded(lambda: self._run(index, name), self.session, index)

    def _worker(self, task: Task, options: RunOptions) -> Benchmark:
        from perf.cli.worker import run_worker

        return run_worker(task, options, self.session, self.metadata, self._clock(), self._hooks, self._show_name)

    def _planned(self, name: str) -> PlannedRun:
        """What the workers of benchmark *name* will record (its task is
        built, cheaply: nothing runs)."""
        from perf.measure.parent.saving import PlannedRun, planned_run

        make_task = self._declared.get(name)  # None: listed by a worker, known there only
        return PlannedRun(name, self.metadata, None) if make_task is None else planned_run(make_task(), self.metadata)

    def _run(self, index: int, name: str) -> Benchmark | None:
        """The parent: run (or, in a shuffled suite, look up) the results
        of benchmark number *index*, save and print them.  A comparison
        returns None, as in pyperf."""
        from perf.cli.display import show_results
        from perf.cli.run_end import exit_if_failed

        assert self.options is not None and self.session is not None
        listed = self.mode == "script"
        shuffle = listed and not self.options.no_shuffle
        results = self.session.run_declared(index, name, self._planned, listed=listed, shuffle=shuffle)
        show_results(name if self._show_name else None, results, self.options, self.session.plan.labels)
        exit_if_failed(self.session, index)
        return results[0] if len(results) == 1 else None
