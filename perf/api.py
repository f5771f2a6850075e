"""Run benchmarks and compare them from code: perf's typed, stable API.

What ``python -m perf timeit`` and ``python -m perf command`` do from a
shell, a program does with :func:`run` (one side) and :func:`run_pair`
(two sides, their workers interleaved in pairs): the same worker
processes, the same checks, the same CPU lock and result files.  There is
no argv: the options are a :class:`~perf.measure.options.RunOptions` built
with keywords (:meth:`RunOptions.create`), checked when built.  The tasks
are :class:`Timeit` statements, :class:`Function` (an importable
``module:function``, called with no argument) and :class:`Command` (a
program).  :func:`compare` compares results as ``compare_to`` does, and
its :class:`ComparisonResult` says the verdict in one line (``summary``).

Everything is checked before a worker starts (options, statements that
do not compile, a program not found, a target that is not
``module:function``): a :class:`~perf.errors.UsageError`.  A worker that
fails raises :class:`~perf.errors.WorkerError`.

Must not: print or exit (progress goes to :class:`SessionEvents`), or
lay text out itself (a summary's words are :mod:`perf.render`'s).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, NamedTuple, Sequence, Union

from perf.analysis.compare import DEFAULT_MARGIN
from perf.analysis.finished import FinishedComparison
from perf.errors import UsageError
from perf.measure.options import RunOptions
from perf.measure.parent.session import SessionEvents

if TYPE_CHECKING:
    from perf.measure.parent.saving import PlannedRun
    from perf.model.benchmark import Benchmark
    from perf.model.suite import BenchmarkSuite

__all__ = [
    "Command",
    "ComparisonResult",
    "Function",
    "Pair",
    "RunOptions",
    "SessionEvents",
    "Timeit",
    "compare",
    "run",
    "run_pair",
]

#: ``module:function``, where function may be an attribute path (``Class.method``)
_TARGET = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def _statements(value: str | Sequence[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True)
class Timeit:
    """Python statements, timed as ``python -m perf timeit`` times them:
    *setup* runs before the values of each process, *teardown* after."""

    stmt: str | Sequence[str]
    setup: str | Sequence[str] = ()
    teardown: str | Sequence[str] = ()
    name: str = "timeit"
    #: statements executed per loop iteration (when the statement is duplicated by hand)
    inner_loops: int | None = None
    #: repeat the statement this many times per loop iteration
    duplicate: int | None = None

    def worker_arguments(self) -> list[str]:
        """What a worker of ``python -m perf timeit`` is given after the
        runner's options."""
        from perf.measure.protocol import timeit_arguments

        stmt, setup, teardown = (_statements(value) for value in (self.stmt, self.setup, self.teardown))
        return timeit_arguments(self.name, stmt, setup, teardown, self.inner_loops, self.duplicate)

    def planned(self, clock: str) -> PlannedRun:
        """What its workers will record (checked against an ``append``
        file before they start), as ``python -m perf timeit`` plans it;
        first, each statement must compile (a UsageError now, not in a
        worker)."""
        from perf.measure.child.clock import get_clock
        from perf.measure.child.tasks import TimeitCode
        from perf.measure.parent.saving import planned_run

        if not self.name:
            raise UsageError("a benchmark name must be a non-empty string")
        if not _statements(self.stmt):
            raise UsageError("Timeit needs at least one statement")
        for what, value in (("inner_loops", self.inner_loops), ("duplicate", self.duplicate)):
            if value is not None and (not isinstance(value, int) or value < 1):
                raise UsageError(f"{what} must be an integer >= 1, got {value!r}")
        code = TimeitCode(_statements(self.stmt), _statements(self.setup), _statements(self.teardown), self.duplicate)
        return planned_run(code.task(self.name, self.inner_loops, None, get_clock(clock)), {})


@dataclass(frozen=True)
class Function:
    """An importable function, called with no argument: *target* is
    ``"module:function"`` (``"package.module:Class.method"`` works too).
    The workers import it as a fresh interpreter started in the current
    directory would (``PYTHONPATH`` counts); the benchmark is named after
    the target unless *name* is given."""

    target: str
    name: str | None = None

    def timeit(self) -> Timeit:
        """The statements its workers run: the import is setup, the call
        is timed (the attribute lookups are not)."""
        self.check()
        module, _, function = self.target.partition(":")
        setup = f"import {module} as __perf_module\n__perf_target = __perf_module.{function}"
        return Timeit("__perf_target()", setup=setup, name=self.name or self.target)

    def check(self) -> None:
        """The target has the form ``module:function``."""
        if not isinstance(self.target, str) or not _TARGET.match(self.target):
            raise UsageError(f"a function to benchmark is given as 'module:function', got {self.target!r}")


@dataclass(frozen=True)
class Command:
    """A program and its arguments, timed from start to exit as
    ``python -m perf command`` times it (its output is discarded)."""

    program: Sequence[str]
    name: str = "command"

    def planned(self, clock: str) -> PlannedRun:
        """What its workers will record (checked against an ``append``
        file before they start), as ``python -m perf command`` plans it;
        first, the program must exist and be runnable."""
        from perf.measure.child.tasks import CommandTimer, check_program
        from perf.measure.parent.saving import planned_run

        if not self.name:
            raise UsageError("a benchmark name must be a non-empty string")

        return planned_run(CommandTimer(check_program(self.program), given=self.program).task(self.name), {})


#: what :func:`run` measures
Task = Union[Timeit, Function, Command]


class Pair(NamedTuple):
    """The two sides of :func:`run_pair`, measured in interleaved pairs."""

    reference: Benchmark
    changed: Benchmark


def run(
    task: Task,
    options: RunOptions | None = None,
    *,
    events: SessionEvents | None = None,
    environ: Mapping[str, str] | None = None,
) -> Benchmark:
    """Measure *task* in worker processes and return its benchmark (also
    saved to ``options.output`` or ``options.append`` when they are set).

    *options* (default: ``RunOptions.create()``) also say which
    interpreter runs the workers (``python``); *events*: progress
    callbacks; *environ*: the environment workers start from (default:
    this process's).  Options with ``compare_to`` are for
    :func:`run_pair`."""
    options = options or RunOptions.create()
    _check_options(options)
    if options.compare_to:
        raise UsageError("these options compare two sides (compare_to): use run_pair()")
    (benchmark,) = _measure(task, options, events, environ)
    return benchmark


def run_pair(
    task: Task,
    options: RunOptions,
    *,
    events: SessionEvents | None = None,
    environ: Mapping[str, str] | None = None,
) -> Pair:
    """Measure *task* on two sides whose workers alternate in pairs, as
    ``--compare-to`` does.  ``options.compare_to`` is the reference: an
    interpreter for :class:`Timeit` and :class:`Function` (``python`` is
    the changed one, by default this one), the reference program and its
    arguments, quoted as a shell would (:func:`shlex.join`), for
    :class:`Command` (``RunOptions.create(mode="command", compare_to=...)``
    checks that program).  The results are also saved to ``options.output``
    (one file per side, named after the labels) when it is set."""
    _check_options(options)
    if not options.compare_to:
        raise UsageError("run_pair() needs options with compare_to (the reference side)")
    reference, changed = _measure(task, options, events, environ)
    return Pair(reference, changed)


class ComparisonResult(FinishedComparison):
    """What :func:`compare` returns: the finished comparison that the
    ``compare_to`` table, the HTML report and the plots lay out, with its
    verdicts in words."""

    __slots__ = ()

    @property
    def summary(self) -> str:
        """The verdict, the ratio changed / reference and its interval in
        one line, and for an inconclusive verdict (never called "no
        change") how many pairs (processes per side for separate
        recordings) would likely narrow the interval to +-margin::

            inconclusive: 1.03x [0.85x .. 1.24x]; about 140 pairs would likely narrow
            the interval to +-20% (this run: 10)

        (one line).  Several benchmarks or changed results: one such line
        each, after its name, then the geometric means (see
        :mod:`perf.render.compare_summary`)."""
        from perf.render.compare_summary import format_summary_lines

        return "\n".join(format_summary_lines(self))

    def __str__(self) -> str:
        return self.summary


def compare(
    reference: Benchmark | BenchmarkSuite,
    *changed: Benchmark | BenchmarkSuite,
    margin: float = DEFAULT_MARGIN,
    robust: bool = False,
    correct: bool = True,
) -> ComparisonResult:
    """Compare each *changed* result to *reference* as ``compare_to``
    does, and return the finished comparison that its table, the HTML
    report and the plots lay out (:attr:`ComparisonResult.summary`: its
    verdicts in words).  *margin*: the equivalence margin of "no change";
    *robust*: rank tests; *correct* False leaves out the corrections of
    separate recordings for a busy machine."""
    from perf.analysis.finished import finish_comparison
    from perf.model.benchmark import Benchmark

    if not changed:
        raise UsageError("compare() needs a reference and at least one changed result")
    files = [[result] if isinstance(result, Benchmark) else list(result) for result in (reference, *changed)]
    return ComparisonResult._make(finish_comparison(files, margin, robust, correct))


def _check_options(options: RunOptions) -> None:
    if not isinstance(options, RunOptions):
        raise UsageError(f"options are made by RunOptions.create(...), got {type(options).__name__}")


def _measure(
    task: Task, options: RunOptions, events: SessionEvents | None, environ: Mapping[str, str] | None
) -> list[Benchmark]:
    """Check everything, plan the run, then run its one benchmark: the
    results of each side."""
    from perf.measure.parent.session import Session
    from perf.measure.plan import plan_run

    if isinstance(task, Function):
        task = task.timeit()
    if not isinstance(task, (Timeit, Command)):
        raise UsageError(f"run() measures a Timeit, a Function or a Command, got {type(task).__name__}")
    planned = task.planned(options.clock)  # checks the task, before an interpreter is probed
    if isinstance(task, Command):
        plan = plan_run(options, "command", ("-m", "perf", "command"), program=task.program)
        arguments = ["--name", task.name]
    else:
        plan = plan_run(options, "timeit", ("-m", "perf", "timeit"))
        arguments = task.worker_arguments()
    session = Session(plan, extend_command=lambda command: command.extend(arguments), events=events, environ=environ)
    try:
        return session.run_declared(0, task.name, lambda name: planned, listed=False, shuffle=False)
    finally:
        session.unlock()
