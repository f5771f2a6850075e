"""``perf bisect``: the first commit between GOOD and BAD that performs like BAD.

Every measurement is an interleaved comparison of two commits, each in its
own git worktree, run through the session API
(:class:`perf.measure.session.Session`: two sides that differ by working
folder and ``PYTHONPATH``, workers in pairs on the same machine in the
same minutes).  The measured command (``ARGS`` after ``--``) is a bench
script and its options, or ``-m perf timeit ...``; its runner options
(``-p``, ``-n``...) set the size of one round.

The steps (:func:`bisect_commits`, which takes the measurement as a
function so that its decisions can be tested without timing):

1. BAD against GOOD, in up to *max_rounds* rounds while the interval of
   their ratio is inconclusive.  The bisection goes on when the interval
   excludes 1 (the candidates' intervals then tell whether a difference
   is big enough to bisect); it stops with "cannot decide" when the
   interval lies within the 1 % band ("GOOD and BAD perform alike") or
   still contains 1 ("cannot be told apart").
2. A binary search over the commits between: a candidate C is measured
   against GOOD and against BAD (two sessions).  Its position between
   them is the paired ratio of C to the geometric midpoint of GOOD and
   BAD (pair *i* of each session taken together: the mean of
   ``log(C/GOOD)`` and ``log(C/BAD)``).  C is BAD-like when the whole
   95 % interval of that ratio lies on BAD's side of 1, GOOD-like when it
   lies on GOOD's side; otherwise another round is measured and pooled,
   up to *max_rounds*, and then the bisection stops with the range left
   ("cannot decide"), never a guess.

A script with several benchmarks is reduced to the geometric mean of its
benchmarks, pair by pair.

Must not: print or exit (steps are reported through :class:`BisectEvents`).
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from perf.analysis.compare import INCONCLUSIVE, NO_CHANGE, Comparison, compare_paired_process_means
from perf.analysis.statistics import geometric_mean
from perf.errors import WorkerError
from perf.history.git import Repository, short
from perf.history.worktrees import BuildEvents, CommitMeasurer, MeasuredCommand, PairedMeans

#: rounds measured at most for one decision
DEFAULT_MAX_ROUNDS = 4

#: verdicts of a step
GOOD = "good"
BAD = "bad"
UNDECIDED = "undecided"
ALIKE = "alike"
DIFFERENT = "different"

#: measure(reference commit, changed commit) -> the pairs of one session
Measure = Callable[[str, str], PairedMeans]


class Step(NamedTuple):
    """One decision: a commit against the references."""

    commit: str
    subject: str
    #: the commit against GOOD (changed / reference: above 1 is slower)
    good: Comparison
    #: the commit against BAD (None for the first step: BAD itself)
    bad: Comparison | None
    #: the commit against the midpoint of GOOD and BAD (None: first step)
    position: Comparison | None
    #: GOOD, BAD or UNDECIDED; the first step: DIFFERENT, ALIKE or UNDECIDED
    verdict: str
    #: pairs of processes per comparison (all rounds)
    processes: int
    rounds: int


class BisectResult(NamedTuple):
    #: the first commit that performs like BAD (None: cannot decide)
    first_bad: str | None
    steps: tuple[Step, ...]
    #: why it cannot decide (None when found)
    reason: str | None
    #: the commits that may still be the first bad one (oldest first)
    remaining: tuple[str, ...]

    @property
    def measured(self) -> int:
        """Commits measured: GOOD, then each step's commit."""
        return 1 + len(self.steps)


class BisectEvents(BuildEvents):
    """What a bisection reports while it runs; the defaults ignore it."""

    def measuring(self, changed: str, reference: str, round_: int) -> None:
        """An interleaved session of *changed* against *reference* starts."""

    def step(self, step: Step) -> None:
        """A step is decided (or not)."""


def combine(paired: PairedMeans) -> tuple[list[float], list[float]]:
    """Reference and changed means pair by pair, each the geometric mean
    of the benchmarks' process means of that pair (the pairs beyond the
    shortest benchmark's are left out)."""
    if not paired:
        raise WorkerError("the measured command ran no benchmark")
    count = min(min(len(reference), len(changed)) for _, reference, changed in paired)
    reference = [geometric_mean([means[i] for _, means, _ in paired]) for i in range(count)]
    changed = [geometric_mean([means[i] for _, _, means in paired]) for i in range(count)]
    return reference, changed


class _Pool:
    """Pairs of one comparison pooled over rounds."""

    def __init__(self) -> None:
        self.reference: list[float] = []
        self.changed: list[float] = []

    def add(self, paired: PairedMeans) -> None:
        reference, changed = combine(paired)
        self.reference += reference
        self.changed += changed

    def compare(self) -> Comparison:
        return compare_paired_process_means(self.reference, self.changed)


def position(against_good: _Pool, against_bad: _Pool) -> Comparison:
    """The commit against the geometric midpoint of GOOD and BAD: pair *i*
    of the two sessions together (the mean of log(C/GOOD) and log(C/BAD))."""
    count = min(len(against_good.reference), len(against_bad.reference))
    midpoint = [geometric_mean([against_good.reference[i], against_bad.reference[i]]) for i in range(count)]
    commit = [geometric_mean([against_good.changed[i], against_bad.changed[i]]) for i in range(count)]
    return compare_paired_process_means(midpoint, commit)


def side_of(comparison: Comparison, bad_is_slower: bool) -> str:
    """GOOD, BAD or UNDECIDED: where the whole interval of a position lies."""
    if comparison.low > 1.0:
        return BAD if bad_is_slower else GOOD
    if comparison.high < 1.0:
        return GOOD if bad_is_slower else BAD
    return UNDECIDED


def _reference_step(
    refs: tuple[str, str], measure: Measure, subject: Callable[[str], str], max_rounds: int, events: BisectEvents
) -> Step:
    good, bad = refs
    pool = _Pool()
    for round_ in range(1, max_rounds + 1):
        events.measuring(bad, good, round_)
        pool.add(measure(good, bad))
        comparison = pool.compare()
        if comparison.verdict != INCONCLUSIVE:
            break
    verdict = DIFFERENT if comparison.different else ALIKE if comparison.verdict == NO_CHANGE else UNDECIDED
    return Step(bad, subject(bad), comparison, None, None, verdict, len(pool.reference), round_)


def _candidate_step(
    commit: str,
    refs: tuple[str, str, bool],
    measure: Measure,
    subject: Callable[[str], str],
    limits: tuple[int, BisectEvents],
) -> Step:
    good, bad, bad_is_slower = refs
    max_rounds, events = limits
    against_good, against_bad = _Pool(), _Pool()
    for round_ in range(1, max_rounds + 1):
        events.measuring(commit, good, round_)
        against_good.add(measure(good, commit))
        events.measuring(commit, bad, round_)
        against_bad.add(measure(bad, commit))
        where = position(against_good, against_bad)
        verdict = side_of(where, bad_is_slower)
        if verdict != UNDECIDED:
            break
    processes = min(len(against_good.reference), len(against_bad.reference))
    return Step(
        commit, subject(commit), against_good.compare(), against_bad.compare(), where, verdict, processes, round_
    )


def bisect_commits(
    good: str,
    commits: Sequence[str],
    measure: Measure,
    subject: Callable[[str], str],
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    events: BisectEvents | None = None,
) -> BisectResult:
    """Bisect *commits* (after GOOD, oldest first, BAD last) with
    *measure(reference, changed)*; *subject(commit)* names the steps."""
    events = events or BisectEvents()
    bad = commits[-1]
    first = _reference_step((good, bad), measure, subject, max_rounds, events)
    events.step(first)
    steps = [first]
    if first.verdict != DIFFERENT:
        reason = "GOOD and BAD perform alike"
        if first.verdict == UNDECIDED:
            reason = f"GOOD and BAD cannot be told apart after {first.rounds} rounds"
        return BisectResult(None, tuple(steps), reason, tuple(commits))
    refs = (good, bad, first.good.ratio > 1.0)
    low, high = -1, len(commits) - 1  # commits[low] is good (-1: GOOD), commits[high] is bad
    while high - low > 1:
        middle = (low + high) // 2
        step = _candidate_step(commits[middle], refs, measure, subject, (max_rounds, events))
        events.step(step)
        steps.append(step)
        if step.verdict == UNDECIDED:
            reason = f"{short(step.commit)} is neither like GOOD nor like BAD after {step.rounds} rounds"
            return BisectResult(None, tuple(steps), reason, tuple(commits[low + 1 : high + 1]))
        if step.verdict == BAD:
            high = middle
        else:
            low = middle
    return BisectResult(commits[high], tuple(steps), None, (commits[high],))


def bisect(
    repository: Repository,
    good: str,
    bad: str,
    command: MeasuredCommand,
    *,
    build_command: str | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    events: BisectEvents | None = None,
) -> BisectResult:
    """Bisect between the revisions *good* and *bad* of *repository*."""
    good, bad = repository.resolve(good), repository.resolve(bad)
    commits = repository.commits_between(good, bad)
    reporter = events or BisectEvents()
    with CommitMeasurer(repository, command, build_command, reporter) as measurer:

        def measure(reference: str, changed: str) -> PairedMeans:
            return measurer.measure(reference, changed)

        class Releasing(BisectEvents):
            def measuring(self, changed: str, reference: str, round_: int) -> None:
                reporter.measuring(changed, reference, round_)

            def step(self, step: Step) -> None:
                if step.commit not in (good, bad):
                    measurer.release(step.commit)
                reporter.step(step)

        return bisect_commits(good, commits, measure, repository.subject, max_rounds=max_rounds, events=Releasing())
