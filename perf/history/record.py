"""``history record``: measure git revisions after the fact and add them to a store.

The revisions are measured together, interleaved (issue 22): each gets a
temporary worktree of its commit (:class:`perf.history.worktrees.CommitMeasurer`,
the optional ``--build`` command run in it), then one session runs their
workers in rounds, one process of every revision per round, in a new
random order each round (:meth:`~perf.history.worktrees.CommitMeasurer.record`).
A load that comes and goes then hits every commit alike instead of making
a step in the timeline; every run records its round and the session's
seed (``ab_pair``, ``ab_seed``), so the store knows which recordings were
made together and any two of them pair again.  Every commit is timed with
the loops the first worker calibrated.

``ARGS`` (a bench script and its options, or ``-m perf timeit ...``) gives
the budget of each revision: the runner's by default (24 processes of 2
values), ``-p``/``-n`` otherwise.  With ``--max-worktrees N`` (builds too
large for every revision at once), the revisions are recorded in
interleaved batches of N that overlap by two commits (one when N < 4),
so that the batches' own drift can be tied together by the commits they
share.  One revision is one session of one side: the CI case.

Each batch's commits are added to the store as soon as it is measured:
when a later batch fails, those before it stay recorded.

Must not: print or exit (progress and results go to :class:`RecordEvents`).
"""

from __future__ import annotations

import math
import os
import time
from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

from perf.errors import UsageError
from perf.history.git import Repository, short
from perf.history.worktrees import BuildEvents, CommitMeasurer, MeasuredCommand, parse_command
from perf.measure.parent.session import SessionEvents

if TYPE_CHECKING:
    from perf.history.store import HistoryStore, Recording
    from perf.measure.parent.schedule import Progress
    from perf.model.benchmark import Benchmark


class RecordOptions(NamedTuple):
    """--python, --build, --machine, --branch and --max-worktrees of a recording."""

    python: str | None = None
    build: str | None = None
    machine: str | None = None
    branch: str | None = None
    #: the most worktrees at once (None: every revision in one session)
    max_worktrees: int | None = None


class RecordProgress(NamedTuple):
    """One worker of a recording finished."""

    #: the commit it measured
    commit: str
    #: its round (1-based) and the rounds of the session
    round: int
    rounds: int
    #: the batch (1-based) and the batches
    batch: int
    batches: int
    #: workers done and planned, over every batch
    done: int
    total: int
    #: seconds since the first worker finished, and about how many seconds
    #: are left (None: fewer than 2 rounds done, a guess would be wild)
    elapsed: float
    left: float | None
    #: what the worker wrote on stderr (the benchmarked code's warnings)
    stderr: str = ""


class RecordEvents(BuildEvents):
    """What a recording reports; the defaults ignore it."""

    def measuring(self, commits: Sequence[str], batch: int, batches: int) -> None:
        """A session of *commits* (batch *batch* of *batches*) starts."""

    def progress(self, progress: RecordProgress) -> None:
        """A worker finished."""

    def recorded(self, commit: str, recordings: list[Recording]) -> None:
        """*commit* was measured and added to the store."""


def parse_args(args: Sequence[str] | None, python: str | None, revisions: int) -> MeasuredCommand:
    """ARGS after ``--`` as the runner parses them (the budget of each
    revision: the runner's default unless given; several revisions run in
    rounds, with its processes fixed: they do not stop on precision);
    UsageError for what a recording cannot run."""
    from perf.measure.values import DEFAULT_BUDGET, GivenBudget

    defaults = GivenBudget() if revisions == 1 else GivenBudget(DEFAULT_BUDGET.processes)
    command = parse_command(args, python, defaults=defaults)
    if revisions > 1 and command.plan.options.target_precision:
        raise UsageError(
            "--target-precision cannot be given after -- with several revisions: they are measured "
            "together, in rounds (give -p instead)"
        )
    return command


def batches(commits: Sequence[str], bound: int | None) -> list[list[str]]:
    """The sessions of a recording: every commit in one, or with *bound*
    worktrees at most, batches of *bound* commits that overlap by two (one
    when *bound* < 4); the last one ends with the last commit."""
    if bound is None or bound >= len(commits):
        return [list(commits)]
    if bound < 2:
        raise UsageError(f"--max-worktrees must be at least 2, got {bound}")
    overlap = 2 if bound >= 4 else 1
    found = []
    start = 0
    while True:
        found.append(list(commits[start : start + bound]))
        if start + bound >= len(commits):
            return found
        start += bound - overlap


def time_left(elapsed: float, done: int, left: int, per_round: float) -> float | None:
    """About how long *left* more workers take, when *done* workers are
    done and *elapsed* seconds passed since the first of them finished (the
    first is left out: it calibrates the loops, and the builds come before
    it); *per_round*: the workers of a round.  None before 2 rounds are
    done: a guess would be wild."""
    if done < 2 * per_round or done < 2:
        return None
    return elapsed / (done - 1) * max(0, left)


class _Progress(SessionEvents):
    """The session events of one batch, turned into :class:`RecordProgress`."""

    def __init__(self, events: RecordEvents, commits: Sequence[str], rounds: int, before: int, clock: _Clock) -> None:
        self.events = events
        self.commits = list(commits)
        self.rounds = rounds
        #: (batch, batches) and the workers of the later batches, per benchmark
        self.position = (1, 1)
        self.later = 0
        #: workers done before this batch (all benchmarks), in it, and planned in it
        self.before = before
        self.done = 0
        self.total = rounds * len(commits)
        self.clock = clock

    def listed(self, names: list[str]) -> None:
        self.total *= len(names)
        self.later *= len(names)

    def progress(self, side: int, progress: Progress) -> None:
        self.done += 1
        done, total = self.before + self.done, self.before + self.total + self.later
        elapsed = self.clock.since_first()
        left = time_left(elapsed, done, total - done, self.total / self.rounds)
        round_ = min(self.rounds, math.ceil(self.done * self.rounds / self.total))
        stderr = progress.output.stderr
        self.events.progress(
            RecordProgress(self.commits[side], round_, self.rounds, *self.position, done, total, elapsed, left, stderr)
        )


class _Clock:
    """When the first worker of a recording finished (every batch's
    progress counts from it)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.first: float | None = None

    def since_first(self) -> float:
        now = self.clock()
        if self.first is None:
            self.first = now
        return now - self.first


def record(
    store: HistoryStore,
    repository: Repository,
    commits: Sequence[str],
    command: MeasuredCommand,
    *,
    options: RecordOptions | None = None,
    events: RecordEvents | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> list[Recording]:
    """Measure *commits* (full ids, resolved beforehand) interleaved, in
    sessions of :func:`batches`, and add each commit's result to *store*
    with its date (*options*: --python, --build...; *clock*: the time of
    the progress' estimates)."""
    options = options or RecordOptions()
    events = events or RecordEvents()
    sessions = batches(commits, options.max_worktrees)
    rounds = command.plan.options.processes
    recorded: list[Recording] = []
    timing = _Clock(clock)
    done = 0
    lock = ("perf", "history", "record")
    with CommitMeasurer(repository, command, options.build, events, lock_command=lock) as measurer:
        for index, batch in enumerate(sessions):
            events.measuring(batch, index + 1, len(sessions))
            reporter = _Progress(events, batch, rounds, done, timing)
            reporter.position = (index + 1, len(sessions))
            reporter.later = rounds * sum(len(later) for later in sessions[index + 1 :])
            _names, results = measurer.record(batch, reporter, reporter.listed)
            done += reporter.done
            for side, commit in enumerate(batch):
                recordings = _add(store, repository, commit, [result[side] for result in results], options)
                recorded += recordings
                events.recorded(commit, recordings)
            following = set(sessions[index + 1]) if index + 1 < len(sessions) else set()
            for commit in batch:
                if commit not in following:
                    measurer.release(commit)
    return recorded


def _add(
    store: HistoryStore, repository: Repository, commit: str, benchmarks: Sequence[Benchmark], options: RecordOptions
) -> list[Recording]:
    """Write the benchmarks of *commit* to a file and add it to *store*."""
    import tempfile

    from perf.model.suite import BenchmarkSuite
    from perf.storage.files import dump

    with tempfile.TemporaryDirectory(prefix="perf-record-") as folder:
        path = os.path.join(folder, f"{short(commit)}.json")
        dump(BenchmarkSuite(list(benchmarks)), path)
        return store.add(
            [path], commit=commit, date=repository.date(commit), branch=options.branch, machine=options.machine
        )
