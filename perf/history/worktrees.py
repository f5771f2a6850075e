"""Commits measured in their worktrees: the measured command, interleaved sessions.

``ARGS`` after ``--`` of ``perf bisect`` and ``history changes --confirm``
(:func:`parse_command`) is a bench script and its options, or ``-m perf
timeit ...``, whose runner options are read as the runner reads them
(:func:`perf.measure.arguments.parse_runner_arguments`); its runner options
(``-p``, ``-n``...) are the budget of one session.  A
:class:`CommitMeasurer` checks out each commit once in a temporary
worktree (and runs ``--build`` there), and measures commits together
through the session API: sides that differ by working folder and
``PYTHONPATH`` (:class:`perf.measure.parent.sides.Side`), in rounds of one
worker per commit on the same machine in the same minutes
(:meth:`CommitMeasurer.record` for ``history record``,
:meth:`CommitMeasurer.rounds` for ``perf bisect`` and ``--confirm``).

Must not: print, exit, or decide anything from the measurements.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

from perf.errors import UsageError
from perf.history.git import Repository, build, short
from perf.history.rounds import Measured

if TYPE_CHECKING:
    from perf.measure.options import RunOptions
    from perf.measure.parent.session import Session, SessionEvents
    from perf.measure.parent.sides import Side
    from perf.measure.plan import RunPlan
    from perf.measure.values import GivenBudget, RunMode
    from perf.model.benchmark import Benchmark

#: the default budget of one session: pairs of processes, values per process
DEFAULT_PROCESSES = 10
DEFAULT_VALUES = 3
#: --metric instructions: the rounds of a session of bisect and --confirm
#: (sample n of every commit has hash seed n, and equal
#: differences between rounds are exact), and the samples per commit of
#: history record (the same seed for every commit)
COUNT_SESSION_ROUNDS = 2
COUNT_RECORD_SAMPLES = 1


class BuildEvents:
    """What a measurer reports; the defaults ignore it."""

    def building(self, commit: str) -> None:
        """A worktree of *commit* is checked out and its build starts."""


class MeasuredCommand(NamedTuple):
    """``ARGS`` after ``--``: what the workers of each side run."""

    #: the plan of one side in this folder (its options are a round's budget)
    plan: RunPlan
    #: the arguments after the runner's own: the script's, or timeit's
    extra: tuple[str, ...]
    #: --python: None (this interpreter), absolute, or relative to a worktree
    python: str | None


#: runner options that bisect and record set themselves
_REFUSED = {
    "output": "-o",
    "append": "--append",
    "compare_to": "--compare-to",
    "python": "--python",
    "worker": "--worker",
}


def parse_command(
    args: Sequence[str] | None, python: str | None = None, defaults: GivenBudget | None = None
) -> MeasuredCommand:
    """Parse ``ARGS`` (a bench script and its options, or ``-m perf timeit
    ...``) with the runner's parser; UsageError for what cannot run.
    *defaults*: the budget when ARGS gives none (default: a session of
    bisect, :data:`DEFAULT_PROCESSES` x :data:`DEFAULT_VALUES`;
    ``GivenBudget()``: the runner's)."""
    from perf.collect.python import python_has_jit
    from perf.measure.arguments import parse_runner_arguments
    from perf.measure.plan import plan_run
    from perf.measure.values import DEFAULT_BUDGET, GivenBudget

    if not args:
        raise UsageError("missing the command to measure after --: a bench script and its options, or -m perf timeit")
    mode: RunMode = "script"
    script: tuple[str, ...] = (args[0],)
    if list(args[:3]) == ["-m", "perf", "timeit"]:
        mode, script = "timeit", ("-m", "perf", "timeit")
    elif args[0].startswith("-"):
        raise UsageError(f"the command after -- must be a bench script or -m perf timeit, not {args[0]}")
    rest = list(args[len(script) :])
    given, extra = parse_runner_arguments(rest, DEFAULT_BUDGET, error_prefix="after --: ")
    for name, option in _REFUSED.items():
        if given[name]:
            raise UsageError(f"{option} cannot be given after --: the command sets it")
    if python and os.path.isabs(python):
        given["python"] = python
    if given.get("metric") not in (None, "time") and given.get("processes") is None:
        # counts of a commit against another are paired by hash seed: exact for deterministic code
        given["processes"] = COUNT_SESSION_ROUNDS if defaults is None else COUNT_RECORD_SAMPLES
    if defaults is None:
        defaults = GivenBudget(DEFAULT_PROCESSES, DEFAULT_VALUES)
    plan = plan_run(given, mode, script, defaults=defaults, jit=python_has_jit())
    return MeasuredCommand(plan, tuple(extra), python)


def worktree_python(worktree: str, python: str | None, commit: str) -> str:
    """The interpreter that runs ARGS in a worktree: --python resolved in
    it (``./python``), or this interpreter."""
    if not python:
        return sys.executable
    path = python
    if not os.path.isabs(python):
        path = os.path.normpath(os.path.join(worktree, python)) if os.sep in python else _which(python)
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UsageError(f"--python: {python}: no such executable in the worktree of {short(commit)}")
    return path


def _which(name: str) -> str:
    import shutil

    return shutil.which(name) or ""


def pinned_loops(options: RunOptions, results: Sequence[Sequence[Benchmark]]) -> RunOptions:
    """*options* with the loops the reference side of a session's *results*
    calibrated, when its benchmarks agree on one count: each side of a
    session calibrates its own loops, and two commits timed with different
    loop counts differ by the loop's overhead, not only by their code."""
    loops = {int(benchmarks[0].get_loops()) for benchmarks in results if benchmarks[0].get_runs()}
    if options.loops or len(loops) != 1:
        return options
    return options._replace(loops=loops.pop())


class CommitMeasurer:
    """Worktrees of commits (checked out and built once) and interleaved
    sessions between them: ``with CommitMeasurer(...) as measurer:``."""

    def __init__(
        self,
        repository: Repository,
        command: MeasuredCommand,
        build_command: str | None = None,
        events: BuildEvents | None = None,
        lock_command: Sequence[str] = ("perf", "bisect"),
    ) -> None:
        self.repository = repository
        self.command = command
        self.build_command = build_command
        self.events = events or BuildEvents()
        #: how the CPU lock describes this run to another one that waits
        self.lock_command = tuple(lock_command)
        self._worktrees: dict[str, tuple[contextlib.ExitStack, Side]] = {}
        self._locked: Session | None = None
        #: the options of every session after the first: its calibrated
        #: loops pinned (None: not known yet)
        self._pinned: RunOptions | None = None
        #: rounds(): the script's benchmarks (listed once), and the loops
        #: each benchmark's first session calibrated
        self._names: list[str] | None = None
        self._loops: dict[str, int] = {}

    def __enter__(self) -> CommitMeasurer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for stack, _ in self._worktrees.values():
            stack.close()
        self._worktrees.clear()
        if self._locked is not None:
            self._locked.unlock()
            self._locked = None

    def side(self, commit: str) -> Side:
        """The side of *commit*: its worktree (checked out and built now)."""
        if commit in self._worktrees:
            return self._worktrees[commit][1]
        stack = contextlib.ExitStack()
        try:
            path = stack.enter_context(self.repository.worktree(commit))
            if self.build_command:
                self.events.building(commit)
                build(path, self.build_command, commit)
            (base,) = self.command.plan.sides
            python = worktree_python(path, self.command.python, commit)
            side = base._replace(python=python, cwd=path, env=(("PYTHONPATH", path),), label=short(commit))
        except BaseException:
            stack.close()
            raise
        self._worktrees[commit] = (stack, side)
        return side

    def release(self, commit: str) -> None:
        """Remove the worktree of *commit* (measured no more)."""
        if commit in self._worktrees:
            self._worktrees.pop(commit)[0].close()

    def _session(
        self, commits: Sequence[str], events: SessionEvents | None = None, options: RunOptions | None = None
    ) -> Session:
        """A session whose sides are the worktrees of *commits*, the CPU
        lock held (taken by the first one, held until the measurer exits).
        *options*: every side's (their workers read a side's options, not
        the plan's); by default the options with the loops the first
        session calibrated, once known, else ARGS' options."""
        from perf.measure.parent.session import Session
        from perf.measure.plan import RunPlan

        options = options or self._pinned
        sides = tuple(self.side(commit) for commit in commits)
        if options is not None:
            sides = tuple(side._replace(options=options) for side in sides)
        extra = self.command.extra

        plan = RunPlan(options or self.command.plan.options, sides, {})
        session = Session(
            plan, extend_command=lambda command: command.extend(extra), events=events, lock_command=self.lock_command
        )
        if self._locked is None:
            session.lock()
            self._locked = session
        return session

    def record(
        self,
        commits: Sequence[str],
        events: SessionEvents | None = None,
        on_listed: Callable[[list[str]], None] | None = None,
    ) -> tuple[list[str], list[list[Benchmark]]]:
        """One session of *commits* interleaved: rounds of one worker per
        commit, in a new order each round, every commit timed with the loops
        the first worker calibrated (and those of the first session after
        it).  *on_listed* gets the benchmarks before they run.  Returns the
        benchmark names and, for each, its result per commit."""
        session = self._session(commits, events)
        names = session.list_benchmarks()
        if on_listed is not None:
            on_listed(names)
        results = session.run(list(enumerate(names)), shared_loops=True)
        if self._pinned is None:
            self._pinned = pinned_loops(self.command.plan.options, results)
        return names, results

    def benchmarks(self, commit: str) -> list[str]:
        """The benchmarks the script declares, listed once by a worker in
        the worktree of *commit* (it measures nothing)."""
        if self._names is None:
            self._names = self._session((commit,)).list_benchmarks()
        return list(self._names)

    def rounds(
        self,
        commits: Sequence[str],
        benchmarks: Sequence[str] | None = None,
        rounds: int | None = None,
        events: SessionEvents | None = None,
    ) -> list[list[Benchmark]]:
        """One session of *commits* in rounds, as :meth:`record`: each round
        runs one worker of every commit in a new order, all timed with the
        same loops; every run records its round and the session.  Only the
        *benchmarks* given (default: all of the script's, in its order),
        *rounds* rounds (default: ARGS' processes).  A benchmark that an
        earlier session measured keeps the loops it calibrated then (one
        loop count for the whole session).  Returns each benchmark's result
        per commit."""
        names = self.benchmarks(commits[0])
        chosen = list(names if benchmarks is None else benchmarks)
        for name in chosen:
            if name not in names:
                raise UsageError(f"unknown benchmark: {name} (the script's benchmarks: {', '.join(names)})")
        options = self.command.plan.options
        if rounds is not None:
            options = options._replace(processes=rounds)
        known = {self._loops.get(name, 0) for name in chosen}
        if not options.loops and len(known) == 1:
            options = options._replace(loops=known.pop())
        session = self._session(commits, events, options)
        results = session.run([(names.index(name), name) for name in chosen], shared_loops=True)
        for name, result in zip(chosen, results):
            if name not in self._loops and result[0].get_runs():
                self._loops[name] = int(result[0].get_runs()[-1].get_loops())
        return results

    def measure(self, commits: Sequence[str], benchmarks: Sequence[str] | None, count: int) -> Measured:
        """One session of :meth:`rounds` (*count* rounds of *benchmarks*,
        default: all), each benchmark's results by name, with its wall time:
        the workers', and the setup's before them (worktrees and builds)."""
        import time

        start = time.monotonic()
        for commit in commits:
            self.side(commit)
        ready = time.monotonic()
        results = self.rounds(commits, benchmarks, count)
        chosen = self.benchmarks(commits[0]) if benchmarks is None else benchmarks
        return Measured(dict(zip(chosen, results)), time.monotonic() - ready, ready - start)
