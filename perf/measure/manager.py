"""The parent side: spawn workers one after another and gather their runs.

Workers run strictly one at a time (two at once would measure each
other).  Each gets a fresh pipe for its result (JSON of a one- or two-run
benchmark), its standard error captured (its last lines explain a
failure), a clean environment with a random padding (see
:mod:`perf.measure.environment`), and its own session, so that a timeout
or Ctrl-C stops it and everything it started: no orphan is left behind.

The first worker calibrates the loops and keeps its values; the others
reuse its loop count.

:func:`probe_python` runs another interpreter once, as its workers will
start, to check that it can import perf before any worker does.

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
from perf.errors import PerfError, UsageError, WorkerError, WorkerTimeoutError
from perf.measure.allocation import PILOT_PROCESSES
from perf.measure.allocation import pilot_values as choose_values
from perf.measure.environment import random_padding, runner_environment
from perf.measure.options import worker_arguments
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


def run_process(
    command: list[str], env: dict[str, str], pipe: tuple[int, int], *, timeout: float | None, what: str
) -> tuple[bytes, bytes, float]:
    """Run one worker to completion: what it sent through the pipe, its
    stderr and its wall time; raise WorkerError on any failure."""
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
        return bytes(worker.result), stderr, time.monotonic() - worker.started
    except BaseException:
        worker.kill()
        raise
    finally:
        worker.close()


def run_worker(
    command: list[str], env: dict[str, str], pipe: tuple[int, int], *, timeout: float | None, what: str
) -> WorkerOutput:
    """Run one worker to completion and decode the benchmark it sent."""
    data, stderr, elapsed = run_process(command, env, pipe, timeout=timeout, what=what)
    benchmark = _decode(data, what, stderr)
    return WorkerOutput(benchmark, stderr.decode("utf-8", "replace"), elapsed)


def _decode(data: bytes, what: str, stderr: bytes) -> Benchmark:
    from perf.storage.files import loads_benchmark

    if not data:
        message = f"{what} exited without sending a result (did the script call the same benchmarks in a worker?)"
        raise WorkerError(_with_stderr(message, stderr))
    try:
        return loads_benchmark(data)
    except (PerfError, ValueError) as exc:
        raise WorkerError(f"{what} sent an invalid result: {exc}") from None


class PythonProbe(NamedTuple):
    """What another interpreter said when it was run once as a worker starts."""

    #: ``sys.implementation.name`` (``cpython``, ``pypy``...)
    implementation: str
    #: the metadata its runs will carry that decides whether they can join
    #: earlier runs (:data:`perf.model.metadata.CHECKED_KEYS`); None when
    #: its perf could not say
    metadata: dict[str, Any] | None


#: run by :func:`probe_python`: import perf (a failure ends with a
#: traceback), then print what the parent wants to know as JSON (the keys
#: are filled in; the code stays valid Python 2, to fail on the import)
_PROBE_CODE = """\
import json, sys
import perf
try:
    from perf.collect import collect_metadata
    collected = collect_metadata()
    metadata = dict((key, collected[key]) for key in KEYS if key in collected)
except Exception:
    metadata = None
sys.stdout.write("\\n" + json.dumps({"implementation": sys.implementation.name, "metadata": metadata}) + "\\n")
"""


def probe_python(python: str, env: dict[str, str], timeout: float = 60.0) -> PythonProbe:
    """Run *python* once with the environment *env* of its workers: check
    that it can import perf, and learn its implementation and the metadata
    its runs will record.  Raises :class:`~perf.errors.UsageError` naming
    *python* and the last line of the error when it cannot."""
    import json

    from perf.model.metadata import CHECKED_KEYS

    code = _PROBE_CODE.replace("KEYS", repr(list(CHECKED_KEYS)))
    try:
        result = subprocess.run(
            [python, "-c", code],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except OSError as exc:
        raise UsageError(f"{python}: cannot run it: {exc.strerror or exc}") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"{python}: no answer within {timeout:g} s to: python -c 'import perf'") from None
    if result.returncode != 0:
        lines = [line.strip() for line in result.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        reason = lines[-1] if lines else _describe_exit(result.returncode)
        raise UsageError(f"{python} cannot import perf: {reason}")
    try:
        answer = json.loads(result.stdout.decode("utf-8", "replace").rstrip().rpartition("\n")[2])
        metadata = answer["metadata"]
        return PythonProbe(str(answer["implementation"]), metadata if isinstance(metadata, dict) else None)
    except (ValueError, KeyError, TypeError):
        return PythonProbe("", None)


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

    def worker_command(
        self, task: int, write_fd: int, loops: int, values: int | None = None, *, listing: bool = False
    ) -> list[str]:
        """The command line of a worker of benchmark number *task*: *loops*
        0 calibrates them; *values* per process (default: ``--values``);
        *listing*: a worker that only lists the benchmarks."""
        arguments = worker_arguments(self.args, task, write_fd, loops, values)
        if listing:
            arguments.append("--worker-list")
        command = [self.python, *self.program_args, *arguments]
        if self.add_cmdline_args is not None:
            self.add_cmdline_args(command, self.args)
        return command

    def list_benchmarks(self) -> list[str]:
        """The names of the benchmarks the script declares, in order, from
        a worker run with ``--worker-list`` (it measures nothing)."""
        import json

        read_fd, write_fd = os.pipe()
        command = self.worker_command(0, write_fd, 0, listing=True)
        what = "the worker listing the script's benchmarks"
        pipe = (read_fd, write_fd)
        data, stderr, _ = run_process(command, self.worker_env(), pipe, timeout=self.args.timeout, what=what)
        try:
            names = [json.loads(line) for line in data.decode("utf-8").splitlines()]
        except ValueError as exc:
            raise WorkerError(f"{what} sent an invalid list: {exc}") from None
        if not names or not all(isinstance(name, str) for name in names):
            raise WorkerError(_with_stderr(f"{what} sent no benchmark name", stderr))
        return names

    def worker_env(self) -> dict[str, str]:
        return runner_environment(self.args, self.environ, random_padding(self.rng))


class Recorder:
    """The workers of one benchmark, run one at a time: the first
    calibrates the loops (unless ``--loops``), the next ones reuse them.
    With ``--adaptive-values``, the values per process after a pilot of
    :data:`PILOT_PROCESSES` come from what the pilot measured."""

    def __init__(self, manager: Manager, task: int, name: str, total: int | None = None) -> None:
        self.manager = manager
        self.task = task
        self.name = name
        self.total = manager.args.processes if total is None else total
        self.loops: int = manager.args.loops
        self.values: int = manager.args.values
        self.count = 0
        self.benchmark: Benchmark | None = None
        #: wall time of each worker (the cost the adaptive values weigh)
        self.elapsed: list[float] = []

    def run_worker(self, metadata: dict[str, Any] | None = None) -> WorkerOutput:
        """Run the next worker; add *metadata* to the runs it sent."""
        manager = self.manager
        read_fd, write_fd = os.pipe()
        command = manager.worker_command(self.task, write_fd, self.loops, self.values)
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
        self.elapsed.append(output.elapsed)
        if manager.args.adaptive_values and self.count == PILOT_PROCESSES:
            self.values = choose_values(self.result(), self.elapsed) or self.values
        return output

    def result(self) -> Benchmark:
        assert self.benchmark is not None
        return self.benchmark


#: metadata of the runs of an interleaved comparison: the pair (1-based),
#: the seed that decided the order in each pair (perf.analysis.benchmarks
#: pairs runs by them), the position in the pair
POSITION_KEY = "ab_position"
#: metadata of the runs of a shuffled suite: the seed of the benchmark
#: order and the round (1-based) the worker ran in
SCHEDULE_SEED_KEY = "schedule_seed"
ROUND_KEY = "schedule_round"


def _first_side(rng: random.Random) -> tuple[int, int]:
    return (0, 1) if rng.random() < 0.5 else (1, 0)


def pair_order(seed: int, pairs: int) -> list[tuple[int, int]]:
    """The order of the two sides in each pair: ``(0, 1)`` (reference
    first) or ``(1, 0)``, drawn from *seed* (so a run can be replayed)."""
    rng = random.Random(seed)
    return [_first_side(rng) for _ in range(pairs)]


class Unit:
    """One benchmark of a schedule: its recorder, or the recorders of the
    two sides of an interleaved comparison (reference, changed), which run
    as pairs in the order :func:`pair_order` draws from *pair_seed*."""

    def __init__(self, recorders: Sequence[Recorder], total: int, pair_seed: int) -> None:
        self.recorders = list(recorders)
        self.name = self.recorders[0].name
        #: the most workers (pairs) it may run
        self.total = total
        self.pair_seed = pair_seed
        self.count = 0
        self.finished = False
        self._orders = random.Random(pair_seed)

    def step(self, metadata: dict[str, Any], rule: Any, on_output: Callable[[int, WorkerOutput], None]) -> None:
        """Run one worker (one pair), then decide whether it is finished."""
        self.count += 1
        if len(self.recorders) == 1:
            on_output(0, self.recorders[0].run_worker(metadata))
        else:
            for position, side in enumerate(_first_side(self._orders), 1):
                pair = {PAIR_KEY: self.count, SEED_KEY: self.pair_seed, POSITION_KEY: position}
                on_output(side, self.recorders[side].run_worker({**metadata, **pair}))
        if self.count >= self.total:
            self.finished = True
        elif rule is not None:
            means = [recorder.result().get_process_means() for recorder in self.recorders]
            precision = rule.precision(means[0]) if len(means) == 1 else rule.paired_precision(*means)
            self.finished = rule.done(self.count, precision)

    def results(self) -> list[Benchmark]:
        return [recorder.result() for recorder in self.recorders]

    def measured(self) -> list[Benchmark | None]:
        """The runs of each side so far (None: no worker finished)."""
        return [recorder.benchmark for recorder in self.recorders]


def run_schedule(
    units: Sequence[Unit],
    seed: int,
    *,
    shuffle: bool = False,
    rule: Any = None,
    on_progress: Callable[[int, Progress], None] | None = None,
) -> None:
    """Run the workers of *units* (benchmarks) in rounds: each round runs
    one worker (one pair) of every unfinished unit.  With *shuffle* (a
    suite), the order of the units in each round is drawn from *seed*
    (design/statistics.md R6: slow drift then spreads over all benchmarks
    instead of hitting the last ones), and every run records the seed and
    its round (:data:`SCHEDULE_SEED_KEY`, :data:`ROUND_KEY`).  A unit stops
    after its *total* workers, or earlier when *rule* (--target-precision)
    finds its interval precise enough.  *on_progress* gets the side and
    the progress: of the unit alone, or of all workers when there are
    several units."""
    order = random.Random(f"order:{seed}")
    planned = sum(unit.total * len(unit.recorders) for unit in units)
    done = 0
    start = time.monotonic()
    active = list(units)
    round_ = 0
    while active:
        round_ += 1
        metadata = {SCHEDULE_SEED_KEY: seed, ROUND_KEY: round_} if shuffle else {}
        for unit in order.sample(active, len(active)) if shuffle else active:

            def on_output(side: int, output: WorkerOutput, unit: Unit = unit) -> None:
                nonlocal done
                done += 1
                if on_progress is None:
                    return
                elapsed = time.monotonic() - start
                if len(units) == 1:
                    on_progress(side, Progress(unit.name, unit.count, unit.total, output, elapsed))
                else:
                    on_progress(side, Progress(f"{len(units)} benchmarks", done, planned, output, elapsed))

            unit.step(metadata, rule, on_output)
        active = [unit for unit in active if not unit.finished]


def plan_benchmarks(managers: Sequence[Manager], benchmarks: Sequence[tuple[int, str]], seed: int) -> list[Unit]:
    """The units of *benchmarks* (task number, name), for :func:`run_schedule`.

    One manager: each benchmark's workers.  Two (reference, changed):
    interleaved pairs (design/statistics.md R6), machine drift hitting both
    sides of a pair alike so that it cancels in the paired comparison; each
    side calibrates its own loops in its first worker, and the order in
    the pairs of benchmark *i* is drawn from ``seed + i`` (recorded as
    :data:`SEED_KEY`, with :data:`PAIR_KEY` and :data:`POSITION_KEY`).  Each
    benchmark gets the largest process budget of the managers (its pairs);
    --target-precision may stop it earlier."""
    total = max(manager.args.processes for manager in managers)
    return [
        Unit([Recorder(manager, task, name, total) for manager in managers], total, (seed + index) % 2**31)
        for index, (task, name) in enumerate(benchmarks)
    ]
