"""Commits measured together in rounds: their process means, pooled over sessions.

A session of ``perf bisect`` or ``history changes --confirm``
(:meth:`perf.history.worktrees.CommitMeasurer.rounds`) runs one worker of
every commit per round, in a new order each round; every run records its
round (``ab_pair``) and its session (``ab_seed``).  :class:`Rounds` keeps
each commit's process mean under (session, round), so that two commits
measured in the same sessions pair again round by round (the load of that
moment hits both), and the rounds of a later session of the same commits
pool with the earlier ones (doc/design.rst, R6).  A comparison is a
contrast of the commits' process means whose noise is estimated from
every commit of its rounds (:mod:`perf.analysis.contrasts`).

Time off the CPU: with the wall clock, a worker that other processes took
the CPU from is slower by the time it waited.  Each worker records the
share of its values' wall time it spent on the CPU (``cpu_share``); when
every reference commit (GOOD and BAD; the two commits of ``--confirm``)
keeps the CPU (its least disturbed process spent at least
:data:`perf.analysis.interference.CPU_BOUND_SHARE` of it), each process
mean is multiplied by its share, as ``compare_to`` does for separate
recordings: what remains is about the CPU time (``--clock cpu``).  Code
that waits by itself (I/O, sleep, a child program) keeps its wall times,
so a change that makes it wait stays visible.

Must not: run anything, print, or decide a bisection (the comparisons are
:mod:`perf.analysis.compare`'s).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple, Sequence

from perf.analysis.compare import Comparison
from perf.analysis.contrasts import contrast
from perf.analysis.interference import CPU_BOUND_SHARE
from perf.analysis.outlook import Outlook, rounds_to_narrow
from perf.analysis.statistics import stdev
from perf.errors import WorkerError

if TYPE_CHECKING:
    from perf.model.benchmark import Benchmark

#: (session number, round in that session)
Key = tuple[int, int]
#: the default budget of ``perf bisect`` and ``--confirm``: seconds of wall time
DEFAULT_BUDGET = 20 * 60.0
#: the fewest rounds worth a session
MIN_ROUNDS = 3
#: the share of the distance to a decision that the half-width must reach
#: for a decision to be likely (the estimates of the time needed)
LIKELY = 2 / 3


class Measured(NamedTuple):
    """What a session gave: each benchmark's result per commit."""

    results: dict[str, list[Benchmark]]
    #: wall time of the session's workers, seconds (the budget counts it)
    seconds: float
    #: wall time spent before them (worktrees, builds), seconds
    setup: float = 0.0


class Process(NamedTuple):
    """One worker: its mean value and the share of its values' wall time
    it spent on the CPU (None: not recorded)."""

    mean: float
    cpu_share: float | None

    def corrected(self) -> float:
        return self.mean * self.cpu_share if self.cpu_share else self.mean


def processes(benchmark: Benchmark) -> dict[int, Process]:
    """The workers of one commit in one session, by round (``ab_pair``)."""
    found: dict[int, Process] = {}
    for run in benchmark.get_runs():
        if not run.values:
            continue
        round_ = run._get("ab_pair")
        if not isinstance(round_, int) or round_ in found:
            raise WorkerError(f"{benchmark.get_name()}: a run without its round, or two runs in one round")
        share = run._get("cpu_share")
        share = float(share) if isinstance(share, (int, float)) and not isinstance(share, bool) else None
        found[round_] = Process(math.fsum(run.values) / len(run.values), share)
    return found


class Rounds:
    """The process means of the commits of one benchmark, by (session,
    round).  *references*: the commits whose workers decide whether the
    time off the CPU is left out (see the module's doc)."""

    def __init__(self, references: Sequence[str]) -> None:
        self.references = tuple(references)
        self._processes: dict[str, dict[Key, Process]] = {}
        self.cpu_clock = False

    def add(self, session: int, commits: Sequence[str], results: Sequence[Benchmark]) -> None:
        """The results of one session (one Benchmark per commit)."""
        for commit, benchmark in zip(commits, results):
            if benchmark.get_clock() == "cpu":
                self.cpu_clock = True
            mine = self._processes.setdefault(commit, {})
            for round_, process in processes(benchmark).items():
                mine[(session, round_)] = process

    def commits(self) -> list[str]:
        return list(self._processes)

    @property
    def cpu_time(self) -> bool:
        """Whether the process means are multiplied by their CPU share: the
        wall clock, every worker's share recorded, and every reference
        keeps the CPU."""
        if self.cpu_clock or not self.references:
            return False
        for commit in self.references:
            shares = [process.cpu_share for process in self._processes.get(commit, {}).values()]
            if not shares or None in shares or max(share or 0.0 for share in shares) < CPU_BOUND_SHARE:
                return False
        return all(process.cpu_share is not None for mine in self._processes.values() for process in mine.values())

    def paired(self, commits: Sequence[str], raw: bool = False) -> list[list[float]]:
        """For each commit, its process means in the rounds where every one
        of *commits* was measured (in the same order); *raw*: as timed."""
        measured = [self._processes.get(commit, {}) for commit in commits]
        keys = sorted(set.intersection(*(set(mine) for mine in measured))) if measured else []
        correct = self.cpu_time and not raw
        return [[mine[key].corrected() if correct else mine[key].mean for key in keys] for mine in measured]

    def rounds(self, *commits: str) -> int:
        """The rounds in which all of *commits* were measured."""
        return len(self.paired(commits)[0]) if commits else 0

    def contrast(self, weighted: Sequence[tuple[str, float]], confidence: float = 0.95) -> Comparison:
        """The contrast of *weighted* commits (commit, weight; the weights
        sum to 0) over the rounds where all of them were measured; the
        other commits measured in every one of those rounds add to the
        estimate of the noise (:func:`perf.analysis.contrasts.contrast`)."""
        commits = [commit for commit, _ in weighted]
        keys = set.intersection(*(set(self._processes.get(commit, {})) for commit in commits))
        others = [commit for commit, mine in self._processes.items() if commit not in commits and keys <= mine.keys()]
        logs = [[math.log(mean) for mean in means] for means in self.paired([*commits, *others])]
        return contrast(logs, [weight for _, weight in weighted] + [0.0] * len(others), confidence=confidence)

    def compare(self, reference: str, changed: str, confidence: float = 0.95) -> Comparison:
        """*changed* against *reference*, paired by round (above 1: slower)."""
        return self.contrast([(reference, -1.0), (changed, 1.0)], confidence)

    def position(self, commit: str, good: str, bad: str, confidence: float = 0.95) -> Comparison:
        """*commit* against the geometric midpoint of *good* and *bad*, round
        by round (the mean of log(C/GOOD) and log(C/BAD))."""
        return self.contrast([(commit, 1.0), (good, -0.5), (bad, -0.5)], confidence)

    def spread(self, reference: str, changed: str, raw: bool = False) -> float | None:
        """The standard deviation of the per-round log ratio of two commits
        (how far back-to-back processes of the two moved apart; None with
        fewer than 2 rounds); *raw*: of the times as measured."""
        reference_means, changed_means = self.paired((reference, changed), raw)
        if len(reference_means) < 2:
            return None
        return stdev([math.log(new / old) for old, new in zip(reference_means, changed_means)])


def rounds_needed(comparison: Comparison, half_width: float) -> int | None:
    """The rounds (pairs) in all after which the interval of *comparison*
    would likely be no wider than +-*half_width* (log scale): the rounds
    so far times (its half-width / *half_width*) squared (doc/design.rst,
    R3); None when it cannot be estimated."""
    return rounds_to_narrow(half_width_of(comparison), comparison.reference_processes, half_width)


def half_width_of(comparison: Comparison) -> float:
    """The half-width of the interval of *comparison* on the log scale
    (inf when it has no bounds)."""
    if not comparison.low > 0 or not math.isfinite(comparison.high):
        return math.inf
    return math.log(comparison.high / comparison.low) / 2


class Waiting(NamedTuple):
    """What the next session of a search is measured for: the interval
    that must decide, how far it is from deciding, and what that likely
    still costs."""

    #: what must be decided: a candidate commit (``perf bisect``) or a
    #: benchmark (``--confirm``); None: BAD against GOOD
    subject: str | None
    #: its interval so far, at the confidence that decides
    interval: Comparison
    #: the half-width of that interval, and the half-width under which it
    #: decides where it stands now (:func:`perf.analysis.outlook.decisive_half_width`),
    #: log scale
    half_width: float
    needed: float
    #: how many are undecided, the subject among them
    undecided: int
    #: what the decision likely still costs (None: not estimated)
    outlook: Outlook | None


class Budget:
    """Wall time to spend on sessions, and what they cost so far."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        #: wall time spent in all; of the workers, and their count
        self.spent = 0.0
        self.running = 0.0
        self.workers = 0

    def per_worker(self) -> float | None:
        """Seconds per worker so far (None: none ran)."""
        return self.running / self.workers if self.workers else None

    def per_round(self, workers: int) -> float | None:
        """Seconds per round of *workers* workers so far (None: none ran)."""
        per_worker = self.per_worker()
        return None if per_worker is None else per_worker * workers

    def rounds_left(self, workers: int) -> int | None:
        """The rounds of *workers* workers that the rest of the budget pays
        for (None: unknown, no worker ran or none took any time)."""
        per_round = self.per_round(workers)
        if not per_round:
            return None
        return max(0, int((self.seconds - self.spent) // per_round))

    def fit(self, commits: int, rounds: int, fewest: int) -> int | None:
        """The rounds of a session of *commits* that the budget leaves:
        *rounds*, or fewer (None: not even *fewest*).  Before any session,
        *rounds*: the first one always runs."""
        if self.per_worker() is None:
            return rounds
        left = self.rounds_left(commits)
        count = rounds if left is None else min(rounds, left)
        return count if count >= min(fewest, rounds) else None

    def add(self, seconds: float, setup: float, workers: int) -> None:
        """A session of *workers* ran in *seconds*, after *setup* seconds
        (worktrees, builds)."""
        self.spent += seconds + setup
        self.running += seconds
        self.workers += workers
