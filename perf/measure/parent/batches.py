"""Batch workers: several tests measured in each process (the pytest plugin's).

A batch worker is a command line that ends with the ``--perf-worker`` file
of its :class:`~perf.measure.protocol.BatchSpec` and sends one event per
test on its pipe.  :func:`run_batches` holds the CPU lock and runs
*processes* of them one after another through
:func:`~perf.measure.parent.workers.run_command`, says how far they are,
and gathers their :class:`Outcomes`.  The first process calibrates the
loops of each test; the later ones reuse them.  A worker that dies while
measuring a test fails that test with the end of its output, and a new
worker measures the tests after it.  :func:`list_tests` only lists them.

Must not: print (progress goes through a callback), or exit.
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import Callable, NamedTuple, Sequence

from perf.measure.parent.workers import Watch, run_command
from perf.measure.protocol import DONE, ERROR, LISTED, PARENT, START, BatchSpec, Event, decode_events, spec_argument
from perf.model.benchmark import Benchmark
from perf.platform.lock import Holder

#: lines of a worker's output quoted in an error
TAIL_LINES = 20
#: a worker still running after this many seconds says how far it is, and again after as long
PROGRESS_EVERY = 10.0
#: the exit statuses of a worker that sent no event and did not fail: pytest's "passed" and "no tests"
CLEAN_EXITS = (0, 5)

#: the command line of a worker without its spec, given a path prefix for files of its own
Command = Callable[[str], list[str]]


class Progress(NamedTuple):
    """How far the worker processes are."""

    process: int
    processes: int
    measured: int
    seconds: float
    #: False while the process still runs (a long one says how far it is)
    ended: bool = True


class Outcomes:
    """What the workers measured: each test's runs, or its error; and the
    events that said so, which :meth:`save` writes for other processes."""

    def __init__(self) -> None:
        self.runs: dict[str, Benchmark] = {}
        self.errors: dict[str, str] = {}
        #: the tests a worker left to the parent process (pytest-benchmark's pedantic mode)
        self.in_parent: set[str] = set()
        self.loops: dict[str, int] = {}
        self.events: list[Event] = []

    def get(self, test: str) -> Benchmark | str | None:
        return self.errors[test] if test in self.errors else self.runs.get(test)

    def save(self, path: str) -> None:
        with open(path, "wb") as file:
            file.writelines(event.line() for event in self.events)

    @classmethod
    def load(cls, path: str) -> Outcomes:
        outcomes = cls()
        with open(path, "rb") as file:
            outcomes.apply(decode_events(file.read()))
        return outcomes

    def apply(self, events: Sequence[Event]) -> tuple[set[str], str | None]:
        """Record *events* (of one worker); (the tests they finished, the
        test started and never finished)."""
        from perf.storage.files import loads_benchmark

        self.events.extend(events)
        finished: set[str] = set()
        started = None
        for event in events:
            if event.kind in (START, LISTED):
                started = event.test if event.kind == START else started
                continue
            finished.add(event.test)
            started = None
            if event.kind == DONE:
                self.add(event.test, loads_benchmark(event.detail))
            elif event.kind == ERROR:
                self.errors[event.test] = event.detail
            elif event.kind == PARENT:
                self.in_parent.add(event.test)
        return finished, started

    def add(self, test: str, benchmark: Benchmark) -> None:
        if test in self.runs:
            self.runs[test].add_runs(benchmark)
        else:
            self.runs[test] = benchmark
            self.loops[test] = int(benchmark.get_runs()[-1].get_loops())

    def fail(self, tests: Sequence[str], message: str) -> None:
        """The parent's error of *tests* (a worker died), as an event."""
        self.apply([Event(ERROR, test, message) for test in tests])


def _watch(ongoing: Progress, on_progress: Callable[[Progress], None]) -> Watch:
    """Every PROGRESS_EVERY seconds, how many tests the worker measured so
    far (*ongoing*: the tests measured before it, its start in place of seconds)."""

    def report(data: bytes) -> None:
        done = sum(1 for event in decode_events(data) if event.kind == DONE)
        on_progress(ongoing._replace(measured=ongoing.measured + done, seconds=time.monotonic() - ongoing.seconds))

    return Watch(PROGRESS_EVERY, report)


class _Workers(NamedTuple):
    """How the workers start: their command and folder, the files of the
    tests, a temporary folder for their own files; who hears how far they are."""

    command: Command
    cwd: str
    files: Sequence[str]
    folder: str
    on_progress: Callable[[Progress], None]

    def run(self, spec: BatchSpec, name: str, watch: Watch | None = None) -> tuple[list[Event], int, str]:
        """Run one worker on *spec*: its events, its exit status and the end of its output."""
        prefix = os.path.join(self.folder, name)
        read_fd, write_fd = os.pipe()
        try:
            spec._replace(pipe=write_fd).save(prefix + ".spec")
        except BaseException:
            os.close(read_fd)
            os.close(write_fd)
            raise
        command = [*self.command(prefix), spec_argument(prefix + ".spec")]
        pipe, what = (read_fd, write_fd), "a worker"
        finished = run_command(
            command, None, pipe, timeout=None, what=what, cwd=self.cwd, check=False, merge_output=True, watch=watch
        )
        tail = "\n".join(finished.stderr.decode("utf-8", "replace").splitlines()[-TAIL_LINES:])
        return decode_events(finished.data), finished.status, tail

    def process(self, tests: list[str], outcomes: Outcomes, ongoing: Progress) -> int:
        """Worker process number ``ongoing.process`` on *tests* and, after a
        crash, a new worker on the tests after it; how many it measured."""
        measured = attempt = 0
        while tests:
            attempt += 1
            spec = BatchSpec(tests, dict(outcomes.loops), self.files, 0)
            watch = _watch(ongoing._replace(measured=measured), self.on_progress)
            events, status, tail = self.run(spec, f"process{ongoing.process}-{attempt}", watch)
            finished, crashed = outcomes.apply(events)
            measured += sum(1 for test in finished if test in outcomes.runs)
            if crashed is None:
                if not events and status not in CLEAN_EXITS:
                    message = f"a worker process (pytest) failed before measuring anything (exit status {status})"
                    outcomes.fail(tests, f"{message}; its last output:\n{tail}")
                break
            outcomes.fail(
                [crashed], f"a worker process died while measuring it (exit status {status}); its last output:\n{tail}"
            )
            tests = [test for test in tests if test not in finished and test != crashed]
        return measured


def _lock(on_wait: Callable[[list[Holder]], None]) -> Callable[[], None]:
    """Hold the CPU lock of perf runs, waiting for it: two benchmark
    sessions at once would slow each other down.  Returns its release."""
    from perf.platform.cpus import get_cpu_affinity
    from perf.platform.lock import CpuLock

    lock = CpuLock(sorted(get_cpu_affinity() or range(os.cpu_count() or 1)), command=("pytest",))
    lock.acquire(wait=True, on_wait=on_wait)
    return lock.release


def run_batches(
    tests: Sequence[str],
    files: Sequence[str],
    processes: int,
    *,
    command: Command,
    cwd: str,
    on_progress: Callable[[Progress], None],
    on_lock_wait: Callable[[list[Holder]], None],
) -> Outcomes:
    """Run *processes* batch workers one after another, in the folder *cwd*
    and under the CPU lock, each on every test of *tests* (in the files
    *files*) not yet failed."""
    outcomes = Outcomes()
    release = _lock(on_lock_wait)
    try:
        with tempfile.TemporaryDirectory(prefix="perf-pytest-") as folder:
            workers = _Workers(command, cwd, files, folder, on_progress)
            for process in range(1, processes + 1):
                left = [test for test in tests if test not in outcomes.errors and test not in outcomes.in_parent]
                if not left:
                    break  # every test failed or runs in the parent: no process has anything to measure
                start = time.monotonic()
                measured = workers.process(left, outcomes, Progress(process, processes, 0, start, False))
                on_progress(Progress(process, processes, measured, time.monotonic() - start))
    finally:
        release()
    return outcomes


def list_tests(command: Command, cwd: str) -> tuple[list[str], list[str]]:
    """The tests a worker lists and their files, from one worker that runs
    none; WorkerError with the end of its output when it fails."""
    from perf.errors import WorkerError

    with tempfile.TemporaryDirectory(prefix="perf-pytest-") as folder:
        workers = _Workers(command, cwd, [], folder, lambda progress: None)
        events, status, tail = workers.run(BatchSpec([], {}, [], 0, list_only=True), "list")
    if status not in CLEAN_EXITS:
        message = f"the worker that lists the benchmark tests failed (exit status {status})"
        raise WorkerError(f"{message}; its last output:\n{tail}")
    listed = [event for event in events if event.kind == LISTED]
    return [event.test for event in listed], sorted({event.detail for event in listed})
