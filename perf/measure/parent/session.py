"""A run of benchmarks in worker processes, started from code.

This is the one place where a run is orchestrated; ``perf.Runner`` (the
command line of bench scripts, ``timeit`` and ``command``), history
recording and bisection all start runs through it:

1. :func:`perf.measure.plan.plan_run` checks the options (with
   the budget of the interpreter that runs the workers, probed once) and
   describes the sides of the run (:class:`perf.measure.parent.sides.Side`): one,
   or two with ``--compare-to``;
2. :class:`Session` holds the CPU lock (:meth:`Session.lock`), lists a
   script's benchmarks, runs them (:meth:`Session.run`: one side's
   workers, or interleaved pairs; a suite in shuffled rounds) and saves
   every result (:class:`perf.measure.parent.saving.ResultWriter`).

Progress, lock waits and what was saved of a stopped run reach the caller
through :class:`SessionEvents`; failures are perf's exceptions.

Must not: print, exit, or measure in this process.
"""

from __future__ import annotations

import os
import random
import sys
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from perf.errors import BenchmarkFailedError, CpuBusyError, WorkerError
from perf.measure.parent.saving import Measured, PartialSave, PlannedRun, ResultWriter, mark_incomplete
from perf.measure.parent.stopping import stopping_rule
from perf.measure.plan import RunPlan

if TYPE_CHECKING:
    from perf.measure.parent.launcher import WorkerLauncher
    from perf.measure.parent.schedule import Progress, ScheduledBenchmark
    from perf.model.benchmark import Benchmark
    from perf.platform.lock import CpuLock, Holder


class SessionEvents:
    """What a session reports while it runs; the defaults ignore it all."""

    def progress(self, side: int, progress: Progress) -> None:
        """A worker finished (*side*: 0, or 1 for the changed side)."""

    def lock_wait(self, holders: list[Holder]) -> None:
        """Another run holds the CPUs: the session waits for it."""

    def starting(self) -> None:
        """The CPUs are locked: the first worker is about to start."""

    def partial_save(self, saved: PartialSave, *, interrupted: bool) -> None:
        """A stopped run (Ctrl-C, or an error): what was saved of it, what
        was not, and the files that could not take their runs."""

    def finished(self) -> None:
        """The workers of a :meth:`Session.run` stopped (done or not)."""


class Session:
    """The workers of a run, its CPU lock and its result files.

    *plan*: the checked options and the sides (:func:`perf.measure.plan.plan_run`); *extend_command(command)*: adds
    arguments to the command line of each worker, after the runner options
    (a bench script's own options: ``perf.Runner`` wraps its
    ``add_cmdline_args``); *events*: what the run reports (progress, lock
    waits, a stopped run); *lock_command*: how the lock describes this run
    to another one that waits for it; *environ*: the environment the
    workers' is filtered from (default: this process's)."""

    def __init__(
        self,
        plan: RunPlan,
        *,
        extend_command: Callable[[list[str]], None] | None = None,
        events: SessionEvents | None = None,
        lock_command: Sequence[str] = (),
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.plan = plan
        self.options = plan.options
        self.events = events or SessionEvents()
        self.writer = ResultWriter(plan.options, plan.paths)
        self.lock_command = tuple(lock_command)
        self._launch = (extend_command, None if environ is None else dict(environ))
        if plan.options.append and (not plan.options.worker or plan.options.pipe is None):
            self.writer.load_appends()  # a broken file is reported now, not after the run
        self._launchers: list[WorkerLauncher] | None = None
        self._lock: CpuLock | None = None
        self._local_metadata: dict[str, Any] | None = None
        #: a script's benchmarks, in the order it declares them (listed by a
        #: worker; the first one alone when not listed)
        self.declared: list[str] = []
        #: the results (per side) of the script's benchmarks run so far
        self._results: dict[str, list[Benchmark]] = {}
        #: the benchmarks of the script that failed, and what was kept of them
        self.failures: dict[str, BenchmarkFailedError] = {}
        #: what was saved of a run stopped by Ctrl-C or an error
        self.stopped: PartialSave | None = None

    def launchers(self) -> list[WorkerLauncher]:
        """The :class:`~perf.measure.parent.launcher.WorkerLauncher` of each side."""
        if self._launchers is None:
            from perf.measure.parent.launcher import WorkerLauncher

            extend_command, environ = self._launch
            self._launchers = [WorkerLauncher(side, extend_command, environ=environ) for side in self.plan.sides]
        return self._launchers

    # -- before the first worker -------------------------------------------------

    def check_appends(self, names: Sequence[str], planned: Callable[[str], PlannedRun]) -> None:
        """Refuse the benchmarks *names* whose --append file (of each side)
        could not take the runs this run will record (*planned(name)*, only
        asked with --append), before the lock and the workers."""
        if not self.options.append:
            return
        runs = [planned(name) for name in names]
        # a worker run in place (no sides) writes -o/--append itself
        for side_index, python in enumerate([side.python for side in self.plan.sides] or [sys.executable]):
            collected = self.worker_metadata(python)
            if collected is None:
                continue
            for run in runs:
                self.writer.check_append(side_index, run, collected)

    def worker_metadata(self, python: str) -> dict[str, Any] | None:
        """The metadata the workers of *python* collect (None: unknown)."""
        if python != sys.executable:
            probe = self.plan.probes.get(python)
            return None if probe is None else probe.metadata
        if self._local_metadata is None:
            from perf.collect import collect_metadata

            self._local_metadata = collect_metadata()
        return self._local_metadata

    def lock(self) -> None:
        """Hold the lock of the CPUs the workers use (all of them without
        --affinity) until this process exits, so that two perf runs, or a
        run and ``system tune``, never overlap; ``--lock`` chooses what to
        do when another run holds it.  Raises CpuBusyError."""
        from perf.measure.child.metric import metric_of
        from perf.platform.cpus import format_cpu_list, get_cpu_affinity, parse_cpu_list
        from perf.platform.lock import CpuLock

        options = self.options
        if options.lock == "none" or self._lock is not None or metric_of(options).counted:
            return  # counts need no quiet CPU
        if options.affinity:
            cpus = parse_cpu_list(options.affinity)
        else:
            cpus = sorted(get_cpu_affinity() or range(os.cpu_count() or 1))
        lock = CpuLock(cpus, command=self.lock_command)
        holders = lock.acquire(wait=options.lock == "wait", on_wait=self.events.lock_wait)
        if holders:
            cpu_text = format_cpu_list(holder.cpu for holder in holders)
            raise CpuBusyError(
                f"another benchmark is running on CPU {cpu_text} ({holders[0].describe()}): wait for it to "
                "finish, or use --lock wait"
            )
        self._lock = lock  # held until exit, or unlock()

    def unlock(self) -> None:
        """Release the lock :meth:`lock` took (a process that starts
        another session later, such as ``history changes --confirm`` with
        one session per pair of commits, must not wait for itself)."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def list_benchmarks(self) -> list[str]:
        """The benchmarks a bench script declares, listed by a worker of the
        first side (it measures nothing)."""
        names: list[str] = self.launchers()[0].list_benchmarks()
        return names

    # -- running -----------------------------------------------------------------

    def run_declared(
        self, index: int, name: str, planned: Callable[[str], PlannedRun], *, listed: bool, shuffle: bool
    ) -> list[Benchmark]:
        """The results (per side) of benchmark number *index* of a script,
        as the script declares them one after another.  The first one checks
        the --append files and takes the CPU lock; when *listed* (a bench
        script), a worker lists every benchmark first, and with *shuffle*
        they all run now, in shuffled rounds, the next ones being looked up.
        Otherwise each runs when declared.  *planned(name)*: what its
        workers will record.

        A benchmark whose worker fails does not stop the others: its
        processes that finished are saved marked incomplete, and it raises
        :class:`~perf.errors.BenchmarkFailedError` when it is declared;
        :attr:`failures` holds them all, :meth:`is_last` says when the
        script declared its last benchmark."""
        if index == 0:
            self.check_appends([name], planned)  # before waiting for the lock
            self.lock()
            self.events.starting()
            self.declared = self._listed(name) if listed else [name]
            if len(self.declared) > 1:
                self.check_appends(self.declared[1:], planned)
                if shuffle:
                    self._run_script(list(enumerate(self.declared)), shuffle=True)
        if listed and (index >= len(self.declared) or self.declared[index] != name):
            found = self.declared[index] if index < len(self.declared) else "nothing"
            raise WorkerError(
                f"benchmark {index + 1} of the script is {name!r}, but the worker that listed the "
                f"benchmarks found {found!r} there: does the script declare the same benchmarks in "
                "every process (custom options must reach workers through add_cmdline_args)?"
            )
        if name not in self._results and name not in self.failures:
            if index:
                self.check_appends([name], planned)
            self._run_script([(index, name)], shuffle=False)
        if name in self.failures:
            raise self.failures[name]
        return self._results[name]

    def report(self) -> PartialSave:
        """What the script's benchmarks run so far saved (and which did not
        run): the state of a run interrupted between two of them."""
        done = [name for name in self.declared if name in self._results]
        not_run = [name for name in self.declared if name not in self._results and name not in self.failures]
        return PartialSave(" and ".join(self.writer.paths), done, [], not_run, [])

    def is_last(self, index: int) -> bool:
        """Benchmark number *index* is the last one the script declares."""
        return index >= len(self.declared) - 1

    def _listed(self, name: str) -> list[str]:
        """The benchmarks of a bench script, listed by a worker before the
        first runs (to shuffle them, to know which one is the last)."""
        names = self.list_benchmarks()
        if names[0] != name or len(set(names)) != len(names):
            raise WorkerError(
                f"the worker that listed the script's benchmarks found {', '.join(map(repr, names))}, "
                f"but the script starts with {name!r}: does it declare the same benchmarks in every process "
                "(custom options must reach workers through add_cmdline_args)?"
            )
        return names

    def _run_script(self, benchmarks: Sequence[tuple[int, str]], *, shuffle: bool) -> None:
        """Run benchmarks of a script, going on when one fails: the results
        land in :attr:`_results`; a failure, with what was saved of it, in
        :attr:`failures`."""
        entries = self._run_entries(benchmarks, shuffle=shuffle, seed=None, shared_loops=False, keep_going=True)
        for entry in entries:
            if entry.error is None:
                self._results[entry.name] = entry.results()
                continue
            kept = ""
            if self.writer.path and entry.processes():
                kept = (
                    f"{entry.processes()} of {entry.total} processes of {entry.name!r} saved to "
                    f"{' and '.join(self.writer.paths)}, marked incomplete"
                )
            self.failures[entry.name] = BenchmarkFailedError(entry.name, entry.error, kept)

    def run(
        self,
        benchmarks: Sequence[tuple[int, str]],
        *,
        shuffle: bool = False,
        seed: int | None = None,
        shared_loops: bool = False,
    ) -> list[list[Benchmark]]:
        """Run *benchmarks* (task number, name): for each, its results on
        every side.  *shuffle*: a suite, in shuffled rounds.  *seed* (default:
        a fresh one) decides the orders, and is recorded.  *shared_loops*:
        every side uses the loops the first worker calibrated.  Every result
        is saved, even when one file fails; a run that fails or is stopped
        saves what its workers finished (reported to the events), then
        raises."""
        entries = self._run_entries(benchmarks, shuffle=shuffle, seed=seed, shared_loops=shared_loops)
        return [entry.results() for entry in entries]

    def _run_entries(
        self,
        benchmarks: Sequence[tuple[int, str]],
        *,
        shuffle: bool,
        seed: int | None,
        shared_loops: bool,
        keep_going: bool = False,
    ) -> list[ScheduledBenchmark]:
        """:meth:`run`, and save the benchmarks that finished; with
        *keep_going*, a failed benchmark (its ``error``) does not stop the
        others, and is left to the caller."""
        from perf.measure.parent.schedule import plan_benchmarks, run_schedule

        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        entries = plan_benchmarks(self.launchers(), benchmarks, seed, shared_loops)
        rule = stopping_rule(self.options)
        try:
            run_schedule(
                entries, seed, shuffle=shuffle, rule=rule, on_progress=self.events.progress, keep_going=keep_going
            )
        except BaseException as exc:
            self.events.finished()
            self._save_stopped(entries, "interrupted" if isinstance(exc, KeyboardInterrupt) else "stopped")
            raise
        self.events.finished()
        self.writer.save_all(_kept(entry) for entry in entries)  # in their order, a failed one marked
        return entries

    def _save_stopped(self, entries: Sequence[ScheduledBenchmark], reason: str) -> None:
        """Save what the workers of a run stopped by *reason* finished, and
        report it; the benchmarks the script declares that did not run yet
        count as not run."""
        reached = {entry.name for entry in entries} | set(self._results) | set(self.failures)
        unreached = [Measured(name, 0, 0, [None], "") for name in self.declared if name not in reached]
        self.stopped = self.writer.save_partial([*(_measured(entry, reason) for entry in entries), *unreached])
        # the benchmarks run before these ones were saved then
        self.stopped.complete[:0] = [name for name in self.declared if name in self._results]
        self.events.partial_save(self.stopped, interrupted=reason == "interrupted")


def _kept(entry: ScheduledBenchmark) -> list[Benchmark]:
    """The results of *entry* to save: all of them, or, when a worker
    failed, the processes that finished, marked incomplete."""
    if entry.error is None:
        return entry.results()
    measured = _measured(entry, "failed")
    return [mark_incomplete(benchmark, measured.incomplete) for benchmark in measured.benchmarks if benchmark]


def _measured(entry: ScheduledBenchmark, reason: str) -> Measured:
    """What *entry*'s workers finished; unless it is complete (it ran them
    all, or its stopping rule was met, and none failed), why it stopped."""
    done = entry.processes()
    complete = entry.finished and entry.error is None
    reason = "failed" if entry.error is not None else reason
    incomplete = "" if complete else f"{reason} after {done} of {entry.total} processes"
    return Measured(entry.name, entry.total, done, entry.measured(), incomplete)
