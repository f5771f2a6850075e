"""The worker processes of a pytest session, both sides.

The parent (pytest's own process) writes a :class:`WorkerSpec` — the node
ids of the benchmark tests, their loops, the budget — and runs ``python -m
pytest`` with the user's arguments and ``--perf-worker SPEC``, one process
after another (:func:`run_workers`).  Each worker is a fresh interpreter:
its own hash seed, memory layout and caches, perf's unit of replication.
It collects only the files of those tests, runs them, and for each one
the fixture measures the function (:class:`WorkerRecorder` writes one JSON
line per event), then ends the test.

The first process calibrates the loops of each test; the later ones reuse
them.  Under xdist, pytest's own process collects nothing: a first worker
only lists the benchmark tests (:func:`list_benchmarks`), and the
outcomes go to xdist's workers in a file (:meth:`Outcomes.save`).

A worker that dies while measuring a test marks that test failed with the
tail of its output, and a new worker measures the tests after it.

Must not: print (progress goes through a callback), decide budgets.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Any, Callable, NamedTuple, Sequence

from perf.model.benchmark import Benchmark
from perf.pytest_plugin.options import PytestBudget

#: lines of a worker's output (or of a traceback) kept in an error
TAIL_LINES = 20

#: options of the user's command line that a worker must not repeat:
#: they stop at the first failure, debug, or filter on a cache
_DROPPED_FLAGS = frozenset(
    {
        "-x",
        "--exitfirst",
        "--pdb",
        "--trace",
        "--sw",
        "--stepwise",
        "--sw-skip",
        "--stepwise-skip",
        "--lf",
        "--last-failed",
        "--ff",
        "--failed-first",
        "--nf",
        "--new-first",
    }
)
#: the same, taking a value (``--maxfail 2`` or ``--maxfail=2``)
_DROPPED_WITH_VALUE = frozenset(
    {"--maxfail", "--pdbcls", "--lfnf", "--last-failed-no-failures", "--junitxml", "--junit-xml", "--basetemp"}
)


class WorkerSpec(NamedTuple):
    """What one worker process measures."""

    #: node ids of the benchmark tests, in the session's order
    nodeids: Sequence[str]
    #: loops of each test (absent: calibrate them)
    loops: dict[str, int]
    budget: PytestBudget
    #: the JSON-lines file the worker appends its events to
    output: str
    #: the files of those tests (the worker collects nothing else)
    paths: Sequence[str]
    #: only list the tests that use the fixture ("listed" events), run none
    list_only: bool = False

    def save(self, path: str) -> None:
        data = self._asdict()
        data["budget"] = self.budget._asdict()
        with open(path, "w", encoding="utf-8") as file:
            json.dump(data, file)

    @classmethod
    def load(cls, path: str) -> WorkerSpec:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        data["budget"] = PytestBudget(**data["budget"])
        return cls(**data)


def worker_arguments(arguments: Sequence[str]) -> list[str]:
    """The user's pytest arguments without those a worker must not repeat
    (``-x``, ``--pdb``, ``--lf``, ``--maxfail``, ``--junitxml``, ``--basetemp``...)."""
    kept: list[str] = []
    skip_value = False
    for argument in arguments:
        if skip_value:
            skip_value = False
            continue
        name = argument.split("=", 1)[0]
        if argument in _DROPPED_FLAGS:
            continue
        if name in _DROPPED_WITH_VALUE:
            skip_value = "=" not in argument
            continue
        if len(argument) > 2 and argument[0] == "-" and argument[1] != "-" and set(argument[1:]) <= set("vqsxl"):
            flags = argument.replace("x", "")  # -xvs: -vs
            if flags != "-":
                kept.append(flags)
            continue
        kept.append(argument)
    return kept


class WorkerRecorder:
    """The worker side: which tests to measure, and their events."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.wanted = set(spec.nodeids)

    def loops(self, nodeid: str) -> int:
        return self.spec.loops.get(nodeid, 0)

    def _write(self, event: dict[str, Any]) -> None:
        with open(self.spec.output, "a", encoding="utf-8") as file:
            file.write(json.dumps(event) + "\n")
            file.flush()

    def start(self, nodeid: str) -> None:
        self._write({"event": "start", "nodeid": nodeid})

    def done(self, nodeid: str, benchmark: Benchmark) -> None:
        from perf.storage.files import dumps

        self._write({"event": "done", "nodeid": nodeid, "benchmark": dumps(benchmark)})

    def failed(self, nodeid: str, error: BaseException) -> None:
        lines = "".join(traceback.format_exception(type(error), error, error.__traceback__)).splitlines()
        tail = "\n".join(lines[-TAIL_LINES:])
        self._write({"event": "error", "nodeid": nodeid, "tail": f"it failed in a worker process:\n{tail}"})

    def pedantic(self, nodeid: str) -> None:
        self._write({"event": "pedantic", "nodeid": nodeid})

    def listed(self, nodeid: str, path: str) -> None:
        self._write({"event": "listed", "nodeid": nodeid, "path": path})


class Progress(NamedTuple):
    """How far the worker processes are."""

    process: int
    processes: int
    measured: int
    seconds: float
    #: False while the process still runs (a long one says how far it is)
    ended: bool = True


class Outcomes:
    """What the workers measured: each test's runs, or its error."""

    def __init__(self) -> None:
        self.runs: dict[str, Benchmark] = {}
        self.errors: dict[str, str] = {}
        self.pedantic: set[str] = set()
        self.loops: dict[str, int] = {}

    def get(self, nodeid: str) -> Benchmark | str | None:
        if nodeid in self.errors:
            return self.errors[nodeid]
        return self.runs.get(nodeid)

    def save(self, path: str) -> None:
        """Write these outcomes for xdist's workers (:meth:`load`)."""
        from perf.storage.files import dumps

        data = {
            "runs": {nodeid: dumps(benchmark) for nodeid, benchmark in self.runs.items()},
            "errors": self.errors,
            "pedantic": sorted(self.pedantic),
        }
        with open(path, "w", encoding="utf-8") as file:
            json.dump(data, file)

    @classmethod
    def load(cls, path: str) -> Outcomes:
        from perf.storage.files import loads_benchmark

        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        outcomes = cls()
        for nodeid, text in data["runs"].items():
            outcomes.add(nodeid, loads_benchmark(text))
        outcomes.errors.update(data["errors"])
        outcomes.pedantic.update(data["pedantic"])
        return outcomes

    def add(self, nodeid: str, benchmark: Benchmark) -> None:
        if nodeid in self.runs:
            self.runs[nodeid].add_runs(benchmark)
        else:
            self.runs[nodeid] = benchmark
            self.loops[nodeid] = int(benchmark.get_runs()[-1].get_loops())


def _tail(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            lines = file.read().splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-TAIL_LINES:])


def _read_events(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
    except OSError:
        return []
    events = []
    for line in lines:
        try:
            events.append(json.loads(line))
        except ValueError:
            break  # a line cut by a crash
    return events


def _apply(events: list[dict[str, Any]], outcomes: Outcomes) -> tuple[set[str], str | None]:
    """Record the events of one worker; (the tests it finished, the test
    it started and never finished)."""
    from perf.storage.files import loads_benchmark

    finished: set[str] = set()
    started = None
    for event in events:
        nodeid = event["nodeid"]
        kind = event["event"]
        if kind == "start":
            started = nodeid
            continue
        if kind == "listed":
            continue
        finished.add(nodeid)
        started = None
        if kind == "done":
            outcomes.add(nodeid, loads_benchmark(event["benchmark"]))
        elif kind == "error":
            outcomes.errors[nodeid] = event["tail"]
        elif kind == "pedantic":
            outcomes.pedantic.add(nodeid)
    return finished, started


def _worker_arguments(command: Sequence[str], prefix: str, cache: bool) -> list[str]:
    """*command* with the worker's spec (``PREFIX.spec``), its own basetemp
    and, when pytest's cache plugin is on, its own cache folder (the user's
    ``--lf`` and cache are left alone)."""
    # one token each: a separate path would move pytest's rootdir
    arguments = [*command, f"--perf-worker={prefix}.spec", f"--basetemp={prefix}.tmp"]
    if cache:
        arguments.append(f"--override-ini=cache_dir={prefix}.cache")
    return arguments


#: a worker still running after this many seconds says how far it is, and
#: again after as long
PROGRESS_EVERY = 10.0


def _wait(
    worker: subprocess.Popen[bytes], events: str, ongoing: Progress, on_progress: Callable[[Progress], None]
) -> int:
    """Wait for *worker* to exit; every PROGRESS_EVERY seconds, tell
    *on_progress* how many tests it measured so far (*ongoing*: the
    process, the tests measured before it started, and its start time in
    place of seconds).  Returns its exit status."""
    while True:
        try:
            return worker.wait(timeout=PROGRESS_EVERY)
        except subprocess.TimeoutExpired:
            done = sum(1 for event in _read_events(events) if event["event"] == "done")
            seconds = time.monotonic() - ongoing.seconds
            on_progress(ongoing._replace(measured=ongoing.measured + done, seconds=seconds))
        except BaseException:  # Ctrl-C: do not leave the worker running
            worker.kill()
            worker.wait()
            raise


def run_workers(
    nodeids: Sequence[str],
    paths: Sequence[str],
    budget: PytestBudget,
    *,
    command: Sequence[str],
    cwd: str,
    on_progress: Callable[[Progress], None],
    environ: dict[str, str] | None = None,
    cache: bool = True,
) -> Outcomes:
    """Run ``budget.processes`` worker processes one after another, each
    measuring every test of *nodeids* not yet failed; *command* is the
    pytest command line a ``--perf-worker SPEC`` is added to.  *cache*:
    pytest's cache plugin is on (each worker gets a cache of its own, so
    ``--lf`` and the user's cache are left alone)."""
    outcomes = Outcomes()
    with tempfile.TemporaryDirectory(prefix="perf-pytest-") as folder:
        for process in range(1, budget.processes + 1):
            start = time.monotonic()
            measured = 0
            remaining = [nodeid for nodeid in nodeids if nodeid not in outcomes.errors]
            remaining = [nodeid for nodeid in remaining if nodeid not in outcomes.pedantic]
            if not remaining:
                break  # every test failed or is pedantic: no process has anything to measure
            attempt = 0
            while remaining:
                attempt += 1
                prefix = os.path.join(folder, f"process{process}-{attempt}")
                spec = WorkerSpec(remaining, dict(outcomes.loops), budget, prefix + ".events", paths)
                spec.save(prefix + ".spec")
                arguments = _worker_arguments(command, prefix, cache)
                with open(prefix + ".log", "wb") as log:
                    worker = subprocess.Popen(
                        arguments, cwd=cwd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=environ
                    )
                    ongoing = Progress(process, budget.processes, measured, start, ended=False)
                    status = _wait(worker, spec.output, ongoing, on_progress)
                events = _read_events(spec.output)
                finished, crashed = _apply(events, outcomes)
                measured += sum(1 for nodeid in finished if nodeid in outcomes.runs)
                if crashed is not None:
                    outcomes.errors[crashed] = (
                        f"a worker process died while measuring it (exit status {status}); its last output:\n"
                        + _tail(prefix + ".log")
                    )
                    remaining = [nodeid for nodeid in remaining if nodeid not in finished and nodeid != crashed]
                    continue
                if not events and status not in (0, 5):
                    tail = _tail(prefix + ".log")
                    for nodeid in remaining:
                        outcomes.errors[nodeid] = (
                            f"a worker process (pytest) failed before measuring anything (exit status {status}); "
                            f"its last output:\n{tail}"
                        )
                break
            on_progress(Progress(process, budget.processes, measured, time.monotonic() - start, True))
    return outcomes


def list_benchmarks(
    command: Sequence[str], cwd: str, environ: dict[str, str] | None = None, cache: bool = True
) -> tuple[list[str], list[str]]:
    """Under xdist pytest's own process collects nothing: a worker lists
    the tests that use the fixture, and their files, and runs none
    (*cache*: as for :func:`run_workers`).  Raises WorkerError with the
    worker's last output when it fails."""
    from perf.errors import WorkerError

    with tempfile.TemporaryDirectory(prefix="perf-pytest-") as folder:
        prefix = os.path.join(folder, "list")
        WorkerSpec([], {}, PytestBudget(1, 1, 0, 0.0), prefix + ".events", [], list_only=True).save(prefix + ".spec")
        arguments = _worker_arguments(command, prefix, cache)
        with open(prefix + ".log", "wb") as log:
            status = subprocess.call(arguments, cwd=cwd, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=environ)
        events = [event for event in _read_events(prefix + ".events") if event["event"] == "listed"]
        if status not in (0, 5):
            raise WorkerError(
                f"the worker that lists the benchmark tests failed (exit status {status}); its last output:\n"
                + _tail(prefix + ".log")
            )
    return [event["nodeid"] for event in events], sorted({event["path"] for event in events})


def pytest_command(arguments: Sequence[str]) -> list[str]:
    """``python -m pytest`` with the user's arguments, for workers."""
    return [sys.executable, "-m", "pytest", *worker_arguments(arguments)]
