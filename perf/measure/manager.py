"""The parent side: spawn workers one after another and gather their runs.

Workers run strictly one at a time (two at once would measure each
other).  Each gets a fresh pipe for its result (JSON of a one- or two-run
benchmark), its standard error captured (its last lines explain a
failure), a clean environment with a random padding (see
:mod:`perf.measure.environment`), and its own session, so that a timeout
or Ctrl-C stops it and everything it started: no orphan is left behind.

The first worker calibrates the loops and keeps its values; the others
reuse its loop count.

Must not: print (the caller gets events through callbacks), time the
benchmark itself, exit.
"""

from __future__ import annotations

import argparse
import os
import random
import selectors
import signal
import subprocess
import time
from typing import Any, Callable, NamedTuple, Sequence

from perf.analysis.benchmarks import PAIR_KEY, SEED_KEY
from perf.errors import PerfError, WorkerError, WorkerTimeoutError
from perf.measure.allocation import PILOT_PROCESSES
from perf.measure.allocation import pilot_values as choose_values
from perf.measure.environment import perf_source_folder, random_padding, worker_environment
from perf.measure.options import stopping_rule, worker_arguments
from perf.model.benchmark import Benchmark

#: how much of a worker's standard error is kept
STDERR_LIMIT = 64 * 1024
#: lines of standard error quoted when a worker fails
STDERR_LINES = 20
#: after its pipe closes, a worker must exit within this time
EXIT_TIMEOUT = 60.0


class WorkerOutput(NamedTuple):
    """What a finished worker sent back."""

    benchmark: Benchmark
    #: everything it wrote on stderr (warnings, debug prints), maybe cut
    stderr: str
    #: wall time of the process, start-up included
    elapsed: float


class Progress(NamedTuple):
    """One finished worker, for progress displays."""

    name: str
    done: int
    total: int
    output: WorkerOutput
    #: wall time since the first worker of this benchmark started
    elapsed: float


def _tail(stderr: bytes, lines: int = STDERR_LINES) -> str:
    """The end of a worker's stderr: its last traceback when it has one
    (up to 3 x *lines*), else its last *lines* lines."""
    all_lines = stderr.decode("utf-8", "replace").rstrip().splitlines()
    starts = [index for index, line in enumerate(all_lines) if line.startswith("Traceback (most recent call last)")]
    keep_traceback = starts and len(all_lines) - starts[-1] <= 3 * lines
    kept = all_lines[starts[-1] :] if keep_traceback else all_lines[-lines:]
    return "\n".join("    " + line for line in kept)


def _with_stderr(message: str, stderr: bytes) -> str:
    """*message*, followed by the end of the worker's stderr if any."""
    tail = _tail(stderr)
    return f"{message}; last lines of its stderr:\n{tail}" if tail else message


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return f"was killed by signal {name}"
    return f"failed with exit code {code}"


class WorkerProcess:
    """One worker process: spawn it, read its pipe and stderr, reap it."""

    def __init__(self, command: list[str], env: dict[str, str], read_fd: int, write_fd: int) -> None:
        self.command = command
        self.started = time.monotonic()
        self.read_fd = read_fd
        try:
            self.process = subprocess.Popen(
                command,
                env=env,
                pass_fds=(write_fd,),
                stdin=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            os.close(read_fd)
            raise WorkerError(f"cannot start a worker ({command[0]}): {exc.strerror or exc}") from None
        finally:
            os.close(write_fd)
        self.result = bytearray()
        self.stderr = bytearray()

    def _read_all(self, deadline: float | None) -> bool:
        """Read the pipe and stderr until both close; False on timeout."""
        assert self.process.stderr is not None
        buffers = {self.read_fd: self.result, self.process.stderr.fileno(): self.stderr}
        with selectors.DefaultSelector() as selector:
            for fd in buffers:
                selector.register(fd, selectors.EVENT_READ)
            while buffers:
                timeout = None if deadline is None else deadline - time.monotonic()
                if timeout is not None and timeout <= 0:
                    return False
                for key, _ in selector.select(timeout):
                    chunk = os.read(key.fd, 65536)
                    if not chunk:
                        selector.unregister(key.fd)
                        del buffers[key.fd]
                        continue
                    buffer = buffers[key.fd]
                    buffer += chunk
                    if buffer is self.stderr and len(buffer) > 2 * STDERR_LIMIT:
                        del buffer[:-STDERR_LIMIT]
        return True

    def wait(self, deadline: float | None) -> int | None:
        """Gather the output; the exit code, or None on timeout."""
        if not self._read_all(deadline):
            return None
        remaining = EXIT_TIMEOUT if deadline is None else max(min(deadline - time.monotonic(), EXIT_TIMEOUT), 0.0)
        try:
            return self.process.wait(remaining)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """Stop the worker and everything it started."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                self.process.kill()
        self.process.wait()

    def close(self) -> None:
        os.close(self.read_fd)
        if self.process.stderr is not None:
            self.process.stderr.close()


def run_worker(
    command: list[str], env: dict[str, str], pipe: tuple[int, int], *, timeout: float | None, what: str
) -> WorkerOutput:
    """Run one worker to completion; raise WorkerError on any failure."""
    worker = WorkerProcess(command, env, *pipe)
    try:
        code = worker.wait(None if timeout is None else worker.started + timeout)
        if code is None:
            worker.kill()
            if timeout is None:
                raise WorkerError(f"{what} sent its result but did not exit within {EXIT_TIMEOUT:g} s; it was stopped")
            raise WorkerTimeoutError(f"{what} ran longer than the timeout ({timeout:g} s) and was stopped")
        stderr = bytes(worker.stderr)
        if code != 0:
            raise WorkerError(_with_stderr(f"{what} {_describe_exit(code)}", stderr))
        benchmark = _decode(bytes(worker.result), what, stderr)
        elapsed = time.monotonic() - worker.started
        return WorkerOutput(benchmark, stderr.decode("utf-8", "replace"), elapsed)
    except BaseException:
        worker.kill()
        raise
    finally:
        worker.close()


def _decode(data: bytes, what: str, stderr: bytes) -> Benchmark:
    from perf.storage.files import loads_benchmark

    if not data:
        message = f"{what} exited without sending a result (did the script call the same benchmarks in a worker?)"
        raise WorkerError(_with_stderr(message, stderr))
    try:
        return loads_benchmark(data)
    except (PerfError, ValueError) as exc:
        raise WorkerError(f"{what} sent an invalid result: {exc}") from None


class Manager:
    """Runs the workers of each benchmark of a script."""

    def __init__(
        self,
        args: argparse.Namespace,
        python: str,
        program_args: Sequence[str],
        add_cmdline_args: Callable[[list[str], argparse.Namespace], None] | None = None,
        *,
        environ: dict[str, str] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if os.name != "posix":
            raise WorkerError("running workers is only supported on POSIX systems for now")
        self.args = args
        self.python = python
        self.program_args = list(program_args)
        self.add_cmdline_args = add_cmdline_args
        self.environ = dict(os.environ if environ is None else environ)
        self.rng = rng or random.Random()
        self.source_folder = perf_source_folder()

    def worker_command(self, task: int, write_fd: int, loops: int) -> list[str]:
        command = [self.python, *self.program_args, *worker_arguments(self.args, task, write_fd, loops)]
        if self.add_cmdline_args is not None:
            self.add_cmdline_args(command, self.args)
        return command

    def worker_env(self) -> dict[str, str]:
        args = self.args
        inherit = list(args.inherit_environ or ())
        if args.hook:
            from perf.measure.hooks import PERF_RECORD_ENVIRON

            inherit += PERF_RECORD_ENVIRON
        return worker_environment(
            self.environ,
            inherit=inherit,
            copy_env=args.copy_env,
            locale=not args.no_locale,
            padding=random_padding(self.rng),
            extra_path=self.source_folder,
        )

    def run_benchmark(self, task: int, name: str, on_progress: Callable[[Progress], None] | None = None) -> Benchmark:
        """All the workers of benchmark number *task* (its call order)."""
        recorder = Recorder(self, task, name)
        rule = stopping_rule(self.args)
        pilot_values = self.args.values
        elapsed: list[float] = []
        start = time.monotonic()
        try:
            while True:
                output = recorder.run_worker()
                elapsed.append(output.elapsed)
                if on_progress is not None:
                    on_progress(Progress(name, recorder.count, self.args.processes, output, time.monotonic() - start))
                if self.args.adaptive_values and recorder.count == PILOT_PROCESSES:
                    self.args.values = choose_values(recorder.result(), elapsed) or pilot_values
                if rule is None:
                    if recorder.count >= self.args.processes:
                        break
                elif rule.done(recorder.count, rule.precision(recorder.result().get_process_means())):
                    break
        finally:
            self.args.values = pilot_values  # the next benchmark has its own pilot
        return recorder.result()


class Recorder:
    """The workers of one benchmark, run one at a time: the first
    calibrates the loops (unless ``--loops``), the next ones reuse them."""

    def __init__(self, manager: Manager, task: int, name: str, total: int | None = None) -> None:
        self.manager = manager
        self.task = task
        self.name = name
        self.total = manager.args.processes if total is None else total
        self.loops: int = manager.args.loops
        self.count = 0
        self.benchmark: Benchmark | None = None

    def run_worker(self, metadata: dict[str, Any] | None = None) -> WorkerOutput:
        """Run the next worker; add *metadata* to the runs it sent."""
        manager = self.manager
        read_fd, write_fd = os.pipe()
        command = manager.worker_command(self.task, write_fd, self.loops)
        what = f"worker {self.count + 1}/{self.total} of {self.name!r}"
        output = run_worker(command, manager.worker_env(), (read_fd, write_fd), timeout=manager.args.timeout, what=what)
        sent = output.benchmark.get_name()
        if sent != self.name:
            raise WorkerError(
                f"{what} measured {sent!r} instead: does the script run the same benchmarks, in the same "
                "order, in every process (custom options must reach workers through add_cmdline_args)?"
            )
        if metadata:
            output.benchmark.update_metadata(metadata)
        if self.benchmark is None:
            self.benchmark = output.benchmark
        else:
            self.benchmark.add_runs(output.benchmark)
        if not self.loops:
            self.loops = output.benchmark.get_runs()[-1].get_loops()
        self.count += 1
        return output

    def result(self) -> Benchmark:
        assert self.benchmark is not None
        return self.benchmark


#: metadata of the runs of an interleaved comparison: the pair (1-based),
#: the seed that decided the order in each pair (perf.analysis.benchmarks
#: pairs runs by them), the position in the pair
POSITION_KEY = "ab_position"


def pair_order(seed: int, pairs: int) -> list[tuple[int, int]]:
    """The order of the two sides in each pair: ``(0, 1)`` (reference
    first) or ``(1, 0)``, drawn from *seed* (so a run can be replayed)."""
    rng = random.Random(seed)
    return [(0, 1) if rng.random() < 0.5 else (1, 0) for _ in range(pairs)]


def run_interleaved(
    managers: Sequence[Manager],
    task: int,
    name: str,
    pairs: int,
    seed: int,
    *,
    on_progress: Callable[[int, Progress], None] | None = None,
) -> list[Benchmark]:
    """Run the workers of two sides (reference, changed) as *pairs*
    consecutive pairs, the order inside each pair drawn from *seed*
    (design/statistics.md R6): drift of the machine hits both sides of a
    pair alike and cancels in a paired comparison.  Each side calibrates its
    own loops in its first worker.  Every run records its pair, the seed and
    its position in the pair (:data:`PAIR_KEY`, :data:`SEED_KEY`,
    :data:`POSITION_KEY`).  With --target-precision, *pairs* is the most
    pairs, and the run stops earlier once the paired interval of the ratio
    is precise enough.  *on_progress* gets the side and the progress."""
    recorders = [Recorder(manager, task, name, pairs) for manager in managers]
    rule = stopping_rule(managers[0].args)
    start = time.monotonic()
    for pair, order in enumerate(pair_order(seed, pairs), 1):
        for position, side in enumerate(order, 1):
            metadata = {PAIR_KEY: pair, SEED_KEY: seed, POSITION_KEY: position}
            output = recorders[side].run_worker(metadata)
            if on_progress is not None:
                on_progress(side, Progress(name, pair, pairs, output, time.monotonic() - start))
        if rule is not None:
            means = [recorder.result().get_process_means() for recorder in recorders]
            if rule.done(pair, rule.paired_precision(*means)):
                break
    return [recorder.result() for recorder in recorders]
