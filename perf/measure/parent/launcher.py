"""Starting the workers of a side: their command lines, environments,
and the next one started ahead of its turn.

:class:`WorkerLauncher` builds the command line and the environment of
the workers of one side (:class:`perf.measure.parent.sides.Side`), and
runs one (:mod:`perf.measure.parent.workers` runs the process).

A worker's start-up (the interpreter, imports, a script's setup, the
metadata that does not change) takes 60-100 ms on the machine perf is
developed on, a fifth of a default process.  :class:`Standby` starts the
next worker of a schedule while the current one warms up; the next one
says READY and waits at its barrier
(:func:`perf.measure.protocol.wait_at_barrier`).  The current worker,
warm, waits too until the next one is ready, then takes its values: no
start-up runs beside a value.  The next one goes once the current one
exited.

Must not: print (the caller gets events through callbacks), time the
benchmark itself, decide the schedule (it is told the next worker), exit.
"""

from __future__ import annotations

import os
import random
from typing import Callable, Tuple

from perf.errors import WorkerError
from perf.measure.child.metric import metric_of
from perf.measure.environment import random_padding, runner_environment
from perf.measure.parent.sides import Side
from perf.measure.parent.workers import (
    Finished,
    WorkerOutput,
    WorkerProcess,
    finish_workers,
    run_command,
    worker_output,
)
from perf.measure.protocol import LIST_ARGUMENT, decode_names, worker_arguments

#: a worker of the schedule: its launcher (side), task, loops and values per process
NextWorker = Tuple["WorkerLauncher", int, int, int]


class Standby:
    """The next worker of a schedule, started while the current one warms
    up, and waiting at its barrier: its start-up (interpreter, imports, the
    script's setup, the metadata that does not change) is out of the wall
    time.  The current worker takes its values only once the next one is
    ready (it waits at its barrier again, warm): no start-up runs beside a
    value (doc/design.rst, R12).  The next worker of a schedule that
    stops (the stopping rule) is stopped at its barrier: it measured
    nothing.  ``PERF_NO_STANDBY=1`` in the environment: every worker starts
    in turn."""

    def __init__(self, enabled: bool | None = None) -> None:
        if enabled is None:
            enabled = not os.environ.get("PERF_NO_STANDBY")
        self.enabled = enabled
        self.worker: WorkerProcess | None = None
        self.key: NextWorker | None = None

    def start(self, following: NextWorker) -> None:
        """Start *following* ahead of its turn (unless it already is, or its
        metric takes samples its own way: counts)."""
        launcher, task, loops, values = following
        if not self.enabled or self.key == following or metric_of(launcher.options).sampler is not None:
            return
        self.cancel()
        try:
            self.worker = launcher.spawn(task, loops, values)
        except WorkerError:
            self.enabled = False  # it fails again in its turn, and says why then
            return
        self.key = following

    def take(self, key: NextWorker) -> WorkerProcess | None:
        """The worker started for *key* (None: another one, or none: it is stopped)."""
        if self.worker is not None and self.key == key:
            taken = self.worker
            self.worker, self.key = None, None
            return taken
        self.cancel()
        return None

    def cancel(self) -> None:
        """Stop the worker waiting at its barrier (it measured nothing)."""
        if self.worker is not None:
            self.worker.kill()
            self.worker.close()
        self.worker, self.key = None, None


class WorkerLauncher:
    """Starts the workers of one side: their command lines and environment.
    *extend_command(command)* adds arguments to each worker's command line
    after the runner options (a bench script passes its own options on to
    the workers)."""

    def __init__(
        self,
        side: Side,
        extend_command: Callable[[list[str]], None] | None = None,
        *,
        environ: dict[str, str] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if os.name != "posix":
            raise WorkerError("running workers is only supported on POSIX systems for now")
        self.side = side
        self.options = side.options
        self.extend_command = extend_command
        self.environ = dict(os.environ if environ is None else environ)
        self.rng = rng or random.Random()

    def worker_command(
        self,
        task: int,
        write_fd: int,
        loops: int,
        values: int | None = None,
        *,
        listing: bool = False,
        barrier: int | None = None,
    ) -> list[str]:
        """The command line of a worker of benchmark number *task*: *loops*
        0 calibrates them; *values* per process (default: ``--values``);
        *listing*: a worker that only lists the benchmarks; *barrier*: the
        descriptor it waits on before it measures."""
        arguments = worker_arguments(self.options, task, write_fd, loops, values, barrier=barrier)
        if listing:
            arguments.append(LIST_ARGUMENT)
        command = [self.side.python, *self.side.script, *arguments]
        if self.extend_command is not None:
            self.extend_command(command)
        if self.side.kind == "program":
            command += ["--", *self.side.program]
        if listing:
            return command  # it measures nothing
        return metric_of(self.options).command(command)  # a metric may run its workers under a program

    def run(self, command: list[str], pipe: tuple[int, int], what: str) -> Finished:
        """:func:`run_command` for a worker of this side."""
        return run_command(command, self.worker_env(), pipe, timeout=self.options.timeout, what=what, cwd=self.side.cwd)

    def list_benchmarks(self) -> list[str]:
        """The names of the benchmarks the script declares, in order, from
        a worker run with ``--worker-list`` (it measures nothing)."""
        read_fd, write_fd = os.pipe()
        command = self.worker_command(0, write_fd, 0, listing=True)
        what = "the worker listing the script's benchmarks"
        finished = self.run(command, (read_fd, write_fd), what)
        return decode_names(finished.data, what, finished.stderr)

    def spawn(self, task: int, loops: int, values: int) -> WorkerProcess:
        """Start a measuring worker that waits at its barrier until
        :meth:`WorkerProcess.release`."""
        read_fd, write_fd = os.pipe()
        barrier = os.pipe()
        command = self.worker_command(task, write_fd, loops, values, barrier=barrier[0])
        return WorkerProcess(command, self.worker_env(), read_fd, write_fd, cwd=self.side.cwd, barrier=barrier)

    def run_worker(
        self,
        task: int,
        loops: int,
        values: int,
        what: str,
        sample: int = 1,
        *,
        standby: Standby | None = None,
        following: NextWorker | None = None,
    ) -> WorkerOutput:
        """Take sample number *sample* of benchmark number *task*: run one
        worker and decode what it sent, or let the metric's sampler take it
        (counts: :mod:`perf.measure.parent.counting`).  With a *standby*:
        the worker it started for this one, if any, and meanwhile start
        the *following* one there."""
        sampler = metric_of(self.options).sampler
        if sampler is not None:
            import importlib

            module, _, function = sampler.partition(":")
            output: WorkerOutput = getattr(importlib.import_module(module), function)(
                self, task, loops, values, what=what, sample=sample
            )
            return output
        standby = standby or Standby(enabled=False)
        worker = standby.take((self, task, loops, values)) or self.spawn(task, loops, values)
        worker.release()
        if following is not None:
            standby.start(following)
        finished = finish_workers([(worker, what)], self.options.timeout, True, beside=standby.worker)
        return worker_output(finished[0], what)

    def worker_env(self, rng: random.Random | None = None) -> dict[str, str]:
        """The filtered environment, with a fresh padding (drawn from *rng*,
        default: the launcher's); the side's own variables pass the filter
        (perf's folder still leads a side's ``PYTHONPATH`` when perf is not
        installed)."""
        options = self.options
        if self.side.env:
            names = tuple(name for name, _ in self.side.env)
            options = options._replace(inherit_environ=(*options.inherit_environ, *names))
        padding = random_padding(rng or self.rng)
        return runner_environment(options, {**self.environ, **dict(self.side.env)}, padding)
