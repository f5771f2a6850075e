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
from typing import Callable, Mapping, NamedTuple, Sequence

from perf.errors import PerfError
from perf.measure.parent.counting import Counted, Pair, count_pairs, counted_run, without_notes
from perf.measure.parent.workers import Watch, run_command
from perf.measure.protocol import DONE, ERROR, LISTED, PARENT, START, BatchSpec, Event, decode_events, spec_argument
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.platform.lock import Holder
from perf.storage.files import dumps

#: lines of a worker's output quoted in an error
TAIL_LINES = 20
#: a worker still running after this many seconds says how far it is, and again after as long
PROGRESS_EVERY = 10.0
#: the exit statuses of a worker that sent no event and did not fail: pytest's "passed" and "no tests"
CLEAN_EXITS = (0, 5)

#: the command line of a worker without its spec, given a path prefix for files of its own
Command = Callable[[str], list[str]]


#: the stages of a run: worker processes that time, and for counts the worker
#: process that calibrates the loops, then the samples (pairs of processes)
TIMING, CALIBRATION, SAMPLE = "timing", "calibration", "sample"


class Progress(NamedTuple):
    """How far the worker processes are (with counts: the samples)."""

    process: int
    processes: int
    measured: int
    seconds: float
    #: False while the process still runs (a long one says how far it is)
    ended: bool = True
    stage: str = TIMING


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

    def command_line(self, spec: BatchSpec, name: str) -> list[str]:
        """The command line of a worker on *spec* (its pipe's end), named
        *name* in the temporary folder (its spec, basetemp and cache)."""
        prefix = os.path.join(self.folder, name)
        spec.save(prefix + ".spec")
        return [*self.command(prefix), spec_argument(prefix + ".spec")]

    def pair(self, test: str, file: str, loops: int, seed: int, name: str) -> Pair:
        """The pair of workers under cachegrind that count *test* alone (of
        *file*), *loops* and twice as many, with hash seed *seed*; their
        files are *name* with ``a`` and ``b``."""
        from perf.measure.child.metric import get_metric

        counter = get_metric("instructions")

        def command(half: str, total: int, write_fd: int) -> list[str]:
            spec = BatchSpec([test], {test: total}, [file], write_fd, metric="instructions")
            return counter.command(self.command_line(spec, name + half))

        return Pair(command, dict(os.environ, PYTHONHASHSEED=str(seed)), loops, f"the workers counting {test}")

    def run(self, spec: BatchSpec, name: str, watch: Watch | None = None) -> tuple[list[Event], int, str]:
        """Run one worker on *spec*: its events, its exit status and the end of its output."""
        read_fd, write_fd = os.pipe()
        try:
            command = self.command_line(spec._replace(pipe=write_fd), name)
        except BaseException:
            os.close(read_fd)
            os.close(write_fd)
            raise
        pipe, what = (read_fd, write_fd), "a worker"
        finished = run_command(
            command, None, pipe, timeout=None, what=what, cwd=self.cwd, check=False, merge_output=True, watch=watch
        )
        return decode_events(finished.data), finished.status, _tail(finished.stderr)

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


def _tail(output: bytes) -> str:
    return "\n".join(without_notes(output.decode("utf-8", "replace")).splitlines()[-TAIL_LINES:])


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


def list_tests(command: Command, cwd: str) -> dict[str, str]:
    """The tests a worker lists, in order, each with its file, from one
    worker that runs none; WorkerError with the end of its output when it fails."""
    from perf.errors import WorkerError

    with tempfile.TemporaryDirectory(prefix="perf-pytest-") as folder:
        workers = _Workers(command, cwd, [], folder, lambda progress: None)
        events, status, tail = workers.run(BatchSpec([], {}, [], 0, list_only=True), "list")
    if status not in CLEAN_EXITS:
        message = f"the worker that lists the benchmark tests failed (exit status {status})"
        raise WorkerError(f"{message}; its last output:\n{tail}")
    return {event.test: event.detail for event in events if event.kind == LISTED}


def count_batches(
    tests: Mapping[str, str], samples: int, *, command: Command, cwd: str, on_progress: Callable[[Progress], None]
) -> Outcomes:
    """Counts of each test of *tests* (node id -> its file) for
    ``--perf-metric instructions``, without the CPU lock: a worker without
    valgrind calibrates the loops *L* of every test (for a tenth of the
    budget's time: the workers know the metric from the pytest command)
    and gives each run its metadata; then, *samples* times, each test is
    counted alone by a pair of workers under cachegrind, *L* and 2 *L*
    loops and the sample's number as hash seed
    (:func:`perf.measure.parent.counting.count_pairs`); as many pairs at
    once as this process has pairs of CPUs."""
    outcomes = Outcomes()
    with tempfile.TemporaryDirectory(prefix="perf-pytest-") as folder:
        workers = _Workers(command, cwd, sorted(set(tests.values())), folder, on_progress)
        timed = Outcomes()
        start = time.monotonic()
        workers.process(list(tests), timed, Progress(1, 1, 0, start, False, CALIBRATION))
        on_progress(Progress(1, 1, len(timed.runs), time.monotonic() - start, stage=CALIBRATION))
        outcomes.apply([event for event in timed.events if event.kind in (ERROR, PARENT)])
        at_once = max(1, _cpus() // 2)
        for sample in range(1, samples + 1):
            start = reported = time.monotonic()
            left = [test for test in tests if test in timed.runs and test not in outcomes.errors]
            counted = 0
            for first in range(0, len(left), at_once):
                chunk = left[first : first + at_once]
                pairs = [
                    workers.pair(test, tests[test], timed.loops[test], sample, f"count{sample}-{first + index}")
                    for index, test in enumerate(chunk)
                ]
                for test, pair in zip(chunk, count_pairs(pairs, timeout=None, cwd=cwd, check=False, merge_output=True)):
                    outcome = _counted(test, pair, timed.runs[test].get_runs()[-1], sample)
                    if isinstance(outcome, str):
                        outcomes.fail([test], outcome)
                    else:
                        outcomes.apply([Event(DONE, test, dumps(Benchmark([outcome])))])
                        counted += 1
                if time.monotonic() - reported >= PROGRESS_EVERY and first + at_once < len(left):
                    reported = time.monotonic()
                    on_progress(Progress(sample, samples, counted, reported - start, False, SAMPLE))
            on_progress(Progress(sample, samples, counted, time.monotonic() - start, stage=SAMPLE))
    return outcomes


def _cpus() -> int:
    """The CPUs this process may run on (its workers too)."""
    from perf.platform.cpus import get_cpu_affinity

    return len(get_cpu_affinity() or ()) or os.cpu_count() or 1


def _counted(test: str, pair: Counted, timed: Run, sample: int) -> Run | str:
    """The run of sample number *sample* of *test* from its *pair*, or why
    there is none (the test's error, or the workers' end)."""
    for finished in pair.finished:
        events = {event.kind: event for event in decode_events(finished.data) if event.test == test}
        if ERROR in events:
            return events[ERROR].detail
        if DONE not in events:
            message = f"a worker process under valgrind did not count it (exit status {finished.status})"
            return f"{message}; its last output:\n{_tail(finished.stderr)}"
    if pair.counts is None:
        return "cachegrind wrote no counts for a worker process that counted it"
    duration = max(finished.elapsed for finished in pair.finished)
    try:
        return counted_run(timed, pair.counts, seed=sample, duration=duration, what=test)
    except PerfError as exc:
        return str(exc)
