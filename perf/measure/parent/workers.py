"""Worker processes: spawn one, read its pipe and its output, reap it.

Workers that time run strictly one at a time (two at once would measure
each other); workers that count (``--metric instructions``) need no quiet
CPU, and :func:`run_commands` starts them together.  :func:`run_command` runs any worker command line (a bench
script's, a ``python -m pytest`` batch worker's) with a fresh pipe for
what it sends back (:mod:`perf.measure.protocol`), its standard error
captured (its last lines explain a failure), and its own session, so that
a timeout or Ctrl-C stops it and everything it started: no orphan is left
behind; a callback can watch it while it runs.  A runner worker also gets
a clean environment with a random padding (:mod:`perf.measure.environment`).
:class:`WorkerLauncher` builds the command line and the environment of
the workers of one side (:class:`perf.measure.parent.sides.Side`).

Must not: print (the caller gets events through callbacks), time the
benchmark itself, decide the schedule (:mod:`perf.measure.parent.schedule`), exit.
"""

from __future__ import annotations

import os
import random
import selectors
import signal
import subprocess
import time
from typing import Callable, NamedTuple, Sequence, Tuple

from perf.errors import WorkerError, WorkerTimeoutError
from perf.measure.child.metric import metric_of
from perf.measure.environment import random_padding, runner_environment
from perf.measure.parent.sides import Side
from perf.measure.protocol import (
    LIST_ARGUMENT,
    READY,
    WARM,
    decode_benchmark,
    decode_names,
    with_stderr,
    worker_arguments,
)
from perf.model.benchmark import Benchmark

#: how much of a worker's standard error is kept
STDERR_LIMIT = 64 * 1024
#: after its pipe closes, a worker must exit within this time
EXIT_TIMEOUT = 60.0
#: how often a watched or merged worker is checked for its exit (a process
#: it left behind may hold its output open)
EXIT_POLL = 0.5


class WorkerOutput(NamedTuple):
    """What a finished worker sent back."""

    benchmark: Benchmark
    #: everything it wrote on stderr (warnings, debug prints), maybe cut
    stderr: str
    #: wall time of the process, start-up included
    elapsed: float


class Finished(NamedTuple):
    """A worker that exited: its status, what it sent on its pipe, its
    stderr (its stdout too when merged, maybe cut), its wall time."""

    status: int
    data: bytes
    stderr: bytes
    elapsed: float


class Watch(NamedTuple):
    """While the worker runs, *callback* gets what it sent so far every *every* seconds."""

    every: float
    callback: Callable[[bytes], None]


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return f"was killed by signal {name}"
    return f"failed with exit code {code}"


class WorkerProcess:
    """One worker process: spawn it, read its pipe and stderr, reap it.
    *env* None: this process's environment; *merge_output*: its standard
    output goes with its standard error (a pytest process prints there)."""

    def __init__(
        self,
        command: list[str],
        env: dict[str, str] | None,
        read_fd: int,
        write_fd: int,
        cwd: str | None = None,
        *,
        merge_output: bool = False,
        barrier: tuple[int, int] | None = None,
    ) -> None:
        self.started = time.monotonic()
        self.read_fd = read_fd
        self.merge_output = merge_output
        #: the parent's end of the barrier (None: none, or let through)
        self.barrier = None if barrier is None else barrier[1]
        #: whether it said READY, and WARM (:func:`perf.measure.protocol.wait_at_barrier`)
        self.ready = False
        self.warm = False
        try:
            self.process = subprocess.Popen(
                command,
                env=env,
                cwd=cwd,
                pass_fds=(write_fd,) if barrier is None else (write_fd, barrier[0]),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE if merge_output else None,
                stderr=subprocess.STDOUT if merge_output else subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            os.close(read_fd)
            if barrier is not None:
                os.close(barrier[1])
            raise WorkerError(f"cannot start a worker ({command[0]}): {exc.strerror or exc}") from None
        finally:
            os.close(write_fd)
            if barrier is not None:
                os.close(barrier[0])
        output = self.process.stdout if merge_output else self.process.stderr
        assert output is not None
        self.output = output
        self.result = bytearray()
        self.stderr = bytearray()

    def release(self) -> None:
        """Let a worker waiting at its barrier start (its timeout counts from now)."""
        if self.barrier is not None:
            os.write(self.barrier, b"g")
        self.started = time.monotonic()

    def _let_measure(self) -> None:
        """Let it take its values (it waits for this once warm)."""
        if self.barrier is not None:
            os.write(self.barrier, b"g")
            os.close(self.barrier)
            self.barrier = None

    def _markers(self) -> None:
        head = self.result[:2]
        self.ready = self.ready or READY in head
        self.warm = self.warm or WARM in head

    def _read(self, fd: int, buffers: dict[int, bytearray], selector: selectors.BaseSelector) -> None:
        chunk = os.read(fd, 65536)
        if not chunk:
            selector.unregister(fd)
            del buffers[fd]
            return
        buffer = buffers[fd]
        buffer += chunk
        if buffer is self.stderr and len(buffer) > 2 * STDERR_LIMIT:
            del buffer[:-STDERR_LIMIT]
        elif buffer is self.result and len(buffer) <= 2 + len(chunk):
            self._markers()

    def _read_all(
        self, deadline: float | None, watch: Watch | None = None, beside: WorkerProcess | None = None
    ) -> bool:
        """Read the pipe and stderr until both close or, for a watched or
        merged worker (polled for its exit), until it exited; False on
        timeout.  Meanwhile, note when the worker *beside* (started ahead
        of its turn) says it is READY."""
        own = {self.read_fd: self.result, self.output.fileno(): self.stderr}
        buffers = dict(own)
        if beside is not None and not beside.ready:
            buffers[beside.read_fd] = beside.result
        else:
            self._let_measure()  # nothing will start beside its values
        watched = self.started
        polled = watch is not None or self.merge_output
        poll = EXIT_POLL if watch is None else min(watch.every, EXIT_POLL)
        with selectors.DefaultSelector() as selector:
            for fd in buffers:
                selector.register(fd, selectors.EVENT_READ)
            while own.keys() & buffers.keys():
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    return False
                if watch is not None and now >= watched + watch.every:
                    watched = now
                    watch.callback(bytes(self.result))
                timeout = None if deadline is None else deadline - now
                if polled:
                    timeout = poll if timeout is None else min(timeout, poll)
                ready = selector.select(timeout)
                if not ready and polled and self.process.poll() is not None:
                    return True  # everything it wrote was read; what it left running holds the output
                for key, _ in ready:
                    (self if key.fd in own else beside)._read(key.fd, buffers, selector)  # type: ignore[union-attr]
                if self.warm and (beside is None or beside.ready or beside.read_fd not in buffers):
                    self._let_measure()  # the worker beside is ready (or gone): nothing else runs now
        return True

    def wait(
        self, deadline: float | None, watch: Watch | None = None, beside: WorkerProcess | None = None
    ) -> int | None:
        """Gather the output; the exit code, or None on timeout."""
        if not self._read_all(deadline, watch, beside):
            return None
        remaining = EXIT_TIMEOUT if deadline is None else max(min(deadline - time.monotonic(), EXIT_TIMEOUT), 0.0)
        try:
            return self.process.wait(remaining)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """Stop the worker and everything it started."""
        if self.barrier is not None:
            os.close(self.barrier)
            self.barrier = None
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                self.process.kill()
        self.process.wait()

    def close(self) -> None:
        os.close(self.read_fd)
        self.output.close()


def run_command(
    command: list[str],
    env: dict[str, str] | None,
    pipe: tuple[int, int],
    *,
    timeout: float | None,
    what: str,
    cwd: str | None = None,
    check: bool = True,
    merge_output: bool = False,
    watch: Watch | None = None,
) -> Finished:
    """Run one worker to its exit (in the folder *cwd*), *watch*ing it while
    it runs.  WorkerError when it cannot start or, with *check*, exits with
    a non-zero status; WorkerTimeoutError after *timeout* seconds.  On
    those, and on any exception (Ctrl-C too), the worker and what it
    started are stopped."""
    worker = WorkerProcess(command, env, *pipe, cwd=cwd, merge_output=merge_output)
    return _finish([(worker, what)], timeout, check, watch)[0]


def run_commands(
    jobs: Sequence[tuple[list[str], dict[str, str], tuple[int, int], str]],
    *,
    timeout: float | None,
    cwd: str | None,
    check: bool = True,
    merge_output: bool = False,
) -> list[Finished]:
    """Run workers at the same time (*jobs*: command, environment, pipe,
    what it is), for workers that need no quiet CPU (counts); as
    :func:`run_command` does one, and when one fails (with *check*: exits
    with a non-zero status), the others are stopped."""
    started: list[tuple[WorkerProcess, str]] = []
    try:
        for command, env, pipe, what in jobs:
            started.append((WorkerProcess(command, env, *pipe, cwd=cwd, merge_output=merge_output), what))
    except BaseException:
        for worker, _ in started:
            worker.kill()
            worker.close()
        for _, _, pipe, _ in jobs[len(started) + 1 :]:  # the one that failed closed its own
            os.close(pipe[0])
            os.close(pipe[1])
        raise
    return _finish(started, timeout, check)


def _finish(
    workers: Sequence[tuple[WorkerProcess, str]],
    timeout: float | None,
    check: bool,
    watch: Watch | None = None,
    beside: WorkerProcess | None = None,
) -> list[Finished]:
    """Wait for started *workers* (worker, what it is) one after the other
    (and note when the worker *beside* is ready)."""
    try:
        finished = []
        for worker, what in workers:
            code = worker.wait(None if timeout is None else worker.started + timeout, watch, beside)
            if code is None:
                worker.kill()
                if timeout is None:
                    raise WorkerError(
                        f"{what} sent its result but did not exit within {EXIT_TIMEOUT:g} s; it was stopped"
                    )
                raise WorkerTimeoutError(f"{what} ran longer than the timeout ({timeout:g} s) and was stopped")
            if check and code != 0:
                raise WorkerError(with_stderr(f"{what} {describe_exit(code)}", bytes(worker.stderr)))
            elapsed = time.monotonic() - worker.started
            finished.append(Finished(code, bytes(worker.result), bytes(worker.stderr), elapsed))
        return finished
    except BaseException:
        for worker, _ in workers:
            worker.kill()
        raise
    finally:
        for worker, _ in workers:
            worker.close()


def run_worker(
    command: list[str],
    env: dict[str, str],
    pipe: tuple[int, int],
    *,
    timeout: float | None,
    what: str,
    cwd: str | None = None,
) -> WorkerOutput:
    """Run one worker to completion and decode the benchmark it sent."""
    return _output(run_command(command, env, pipe, timeout=timeout, what=what, cwd=cwd), what)


def _output(finished: Finished, what: str) -> WorkerOutput:
    benchmark = decode_benchmark(finished.data, what, finished.stderr)
    return WorkerOutput(benchmark, finished.stderr.decode("utf-8", "replace"), finished.elapsed)


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
        """Start *following* ahead of its turn (unless it already is)."""
        if not self.enabled or self.key == following:
            return
        self.cancel()
        launcher, task, loops, values = following
        self.worker = launcher.spawn(task, loops, values)
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
        return _output(_finish([(worker, what)], self.options.timeout, True, beside=standby.worker)[0], what)

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
