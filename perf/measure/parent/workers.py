"""Worker processes: spawn one, read its pipe and its output, reap it.

Workers that time run strictly one at a time (two at once would measure
each other); workers that count (``--metric instructions``) need no quiet
CPU, and :func:`run_commands` starts them together.  :func:`run_command`
runs any worker command line (a bench
script's, a ``python -m pytest`` batch worker's) with a fresh pipe for
what it sends back (:mod:`perf.measure.protocol`), its standard error
captured (its last lines explain a failure), and its own session, so that
a timeout or Ctrl-C stops it and everything it started: no orphan is left
behind; a callback can watch it while it runs.  A runner worker also gets
a clean environment with a random padding (:mod:`perf.measure.environment`).
:class:`WorkerProcess` may hold a worker at its barrier (:data:`READY`,
:data:`WARM`): it lets it start (:meth:`WorkerProcess.release`), then take
its values once the worker started beside it is ready (:mod:`perf.measure.parent.launcher`).

Must not: print (the caller gets events through callbacks), time the
benchmark itself, decide the schedule (:mod:`perf.measure.parent.schedule`), exit.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from typing import Callable, NamedTuple, Sequence

from perf.errors import WorkerError, WorkerTimeoutError
from perf.measure.protocol import READY, WARM, decode_benchmark, with_stderr
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
        self._signal(close=False)
        self.started = time.monotonic()

    def _let_measure(self) -> None:
        """Let it take its values (it waits for this once warm)."""
        self._signal(close=True)

    def _signal(self, close: bool) -> None:
        """One byte on the barrier (a worker that died meanwhile is reported
        by its exit status, not here)."""
        if self.barrier is None:
            return
        try:
            os.write(self.barrier, b"g")
        except BrokenPipeError:
            close = True
        if close:
            self._close_barrier()

    def _close_barrier(self) -> None:
        if self.barrier is not None:
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
        self._close_barrier()
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                self.process.kill()
        self.process.wait()

    def close(self) -> None:
        os.close(self.read_fd)
        self.output.close()
        self._close_barrier()


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
    return finish_workers([(worker, what)], timeout, check, watch)[0]


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
    return finish_workers(started, timeout, check)


def finish_workers(
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
    return worker_output(run_command(command, env, pipe, timeout=timeout, what=what, cwd=cwd), what)


def worker_output(finished: Finished, what: str) -> WorkerOutput:
    benchmark = decode_benchmark(finished.data, what, finished.stderr)
    return WorkerOutput(benchmark, finished.stderr.decode("utf-8", "replace"), finished.elapsed)
