"""Where a run's results go: ``-o`` and ``--append`` files, per side.

:class:`ResultWriter` writes each benchmark as soon as it is measured
(atomic writes: :mod:`perf.storage.files`), keeps a run whose file cannot
take it in a fallback file rather than lose it, saves what a failed or
interrupted suite measured, and checks, before anything runs, that an
``--append`` file can take the runs this run will record.

Must not: print, spawn processes, or exit.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple, Sequence

from perf.errors import IncompatibleRunError, PerfError, ResultFileError
from perf.model.metadata import INCOMPLETE_KEY

if TYPE_CHECKING:
    from perf.measure.child.tasks import Task
    from perf.measure.options import RunOptions
    from perf.model.benchmark import Benchmark
    from perf.model.suite import BenchmarkSuite


class Measured(NamedTuple):
    """What the workers of one benchmark measured when its run stopped."""

    name: str
    #: the processes (pairs, rounds) planned
    total: int
    #: the processes every side finished
    done: int
    #: the runs of each side (None: none)
    benchmarks: Sequence[Benchmark | None]
    #: why it stopped early (``interrupted after 8 of 24 processes``), saved
    #: as :data:`INCOMPLETE_KEY`; ``""``: it is complete
    incomplete: str


class PartialSave(NamedTuple):
    """What :meth:`ResultWriter.save_partial` kept of a stopped run."""

    #: the files written (one per side); empty: the run writes no file
    where: str
    #: the benchmarks saved complete
    complete: list[str]
    #: (name, processes finished, processes planned) of each benchmark saved
    #: marked incomplete
    incomplete: list[tuple[str, int, int]]
    #: the benchmarks without a finished process: nothing saved
    not_run: list[str]
    #: the files that could not take their runs
    errors: list[str]


class PlannedRun(NamedTuple):
    """What the workers of one benchmark will record, known before they run."""

    name: str
    #: the metadata of the task (a statement's, a script's ``metadata=``)
    metadata: Mapping[str, Any]
    #: None: not known here (its worker knows it)
    inner_loops: int | None


def planned_run(task: Task, metadata: Mapping[str, Any]) -> PlannedRun:
    """What the workers of *task* will record (*metadata*: the runner's)."""
    return PlannedRun(task.name, {**metadata, **task.metadata}, task.inner_loops)


class ResultWriter:
    """The result files of a run with the options *options* (``-o`` or
    ``--append``; with two sides, one file per side named after its
    label)."""

    def __init__(self, options: RunOptions, paths: tuple[str, ...] = ()) -> None:
        self.options = options
        self.path = options.append or options.output
        self.paths = paths
        self._written: set[str] = set()
        #: the --append files that exist, loaded before the run
        self.existing: dict[str, BenchmarkSuite] = {}

    def load_appends(self) -> None:
        """Load the existing --append files now: a broken file is reported
        before the run, not after it."""
        from perf.storage.files import load

        if self.options.append:
            self.existing = {path: load(path) for path in self.paths if os.path.exists(path)}

    def check_append(self, side: int, planned: PlannedRun, collected: Mapping[str, Any]) -> None:
        """Refuse now, before the lock and the workers, a benchmark whose
        --append file (of *side*) could not take the runs this run will
        record (:meth:`perf.Benchmark.check_run`: unit, inner loops,
        interpreter, host...); *collected*: the metadata the side's workers
        collect."""
        from perf.measure.child.clock import record_clock
        from perf.measure.child.metric import metric_of
        from perf.model.metadata import CHECKED_KEYS, DEFAULT_UNIT
        from perf.model.run import Run

        path = self.paths[side] if self.paths else None
        suite = self.existing.get(path) if path else None
        existing = None if suite is None else {bench.get_name(): bench for bench in suite}.get(planned.name)
        if existing is None:
            return  # no file yet, or a new benchmark of the file
        metadata = {key: value for key, value in collected.items() if key in CHECKED_KEYS}
        metadata.update(planned.metadata)
        inner_loops = planned.inner_loops
        if inner_loops is None:
            # listed by the worker: its options are known to the worker only
            inner_loops = existing.get_metadata().get("inner_loops")
        metadata["name"] = planned.name
        metadata.pop("inner_loops", None)
        if inner_loops:
            metadata["inner_loops"] = inner_loops
        metadata.update(metric_of(self.options).recorded())
        metadata.setdefault("unit", DEFAULT_UNIT)
        record_clock(metadata, self.options.clock)  # as the worker records it
        try:
            existing.check_run(Run((1,), metadata=metadata, collect_metadata=False))
        except IncompatibleRunError as exc:
            raise IncompatibleRunError(f"{path}: {exc} (nothing was run)") from None

    def save(self, benchmark: Benchmark, side: int | None = None) -> None:
        """Write the runs of *benchmark* (*side* 0 or 1: to the file of that
        side); if the file cannot take them, keep them in another file
        rather than lose a long run, and raise ResultFileError saying where."""
        from perf.storage import files

        if not self.path:
            return
        path = self.path if side is None else self.paths[side]
        try:
            if self.options.append or path in self._written:
                files.add_runs(path, benchmark)
            else:
                files.dump(benchmark, path)
                self._written.add(path)
        except PerfError as exc:
            root, ext = os.path.splitext(path[:-3] if path.endswith(".gz") else path)
            other = f"{root}-{os.getpid()}{ext}"
            files.add_runs(other, benchmark)  # several benchmarks of a suite may land there
            message = f"{exc}; the results of {benchmark.get_name()!r} were saved to {other}"
            raise ResultFileError(None, message) from None

    def save_all(self, results: Iterable[Sequence[Benchmark]]) -> None:
        """Save every result (all of them, even when one file fails), then
        raise one ResultFileError naming every failure."""
        errors = []
        for benchmarks in results:
            for side, benchmark in enumerate(benchmarks):
                try:
                    self.save(benchmark, side if len(benchmarks) > 1 else None)
                except PerfError as exc:
                    errors.append(str(exc))
        if errors:
            raise ResultFileError(None, "; ".join(errors))

    def save_partial(self, measured: Iterable[Measured]) -> PartialSave:
        """A run failed or was interrupted: save the processes its workers
        finished rather than lose them, the runs of an unfinished benchmark
        marked :data:`INCOMPLETE_KEY`, and say what was saved (without a
        file, what would have been).  Writes are atomic: a second Ctrl-C
        during the save leaves every file as it was before that write."""
        saved = PartialSave(" and ".join(self.paths), [], [], [], [])
        for item in measured:
            if not any(item.benchmarks):
                saved.not_run.append(item.name)
                continue
            for side, benchmark in enumerate(item.benchmarks):
                if benchmark is not None and self.path:
                    kept = mark_incomplete(benchmark, item.incomplete) if item.incomplete else benchmark
                    try:
                        self.save(kept, side if len(item.benchmarks) > 1 else None)
                    except PerfError as exc:
                        saved.errors.append(str(exc))
            if item.incomplete:
                saved.incomplete.append((item.name, item.done, item.total))
            else:
                saved.complete.append(item.name)
        return saved


def mark_incomplete(benchmark: Benchmark, note: str) -> Benchmark:
    """A copy of *benchmark* whose runs say that its run stopped early
    (*note*, such as ``interrupted after 8 of 24 processes``): a string
    metadata value, which pyperf loads and shows like any other."""
    from perf.model.benchmark import Benchmark

    marked = Benchmark(benchmark.get_runs())
    marked.update_metadata({INCOMPLETE_KEY: note})
    return marked
