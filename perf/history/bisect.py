"""``perf bisect``: the first commit between GOOD and BAD that performs like BAD.

Each step measures GOOD, BAD and up to :data:`ARITY` candidates that split
the commits left into equal parts, all in one session
(:meth:`perf.history.worktrees.CommitMeasurer.rounds`): in every round one
worker of each commit runs, in a new order, so a load that comes and goes
hits all of them alike and any two pair again by round
(:class:`perf.history.rounds.Rounds`; with the wall clock, the time other
processes took the CPU is left out when the code keeps it).  After each
session:

* BAD against GOOD, every session so far pooled: "no change" (the whole
  95 % interval within 1 %) stops the bisection ("GOOD and BAD perform
  alike"); until a :data:`DECISION_CONFIDENCE` interval excludes 1, the
  step is measured again; then the candidates are judged.
* A candidate C is judged by its paired ratio to the geometric midpoint of
  GOOD and BAD (round by round, the mean of ``log(C/GOOD)`` and
  ``log(C/BAD)``): BAD-like when the whole :data:`DECISION_CONFIDENCE`
  interval lies on BAD's side of 1, GOOD-like when it lies on GOOD's
  side, undecided otherwise (the noise of these comparisons is estimated
  from every commit of their rounds: :mod:`perf.analysis.contrasts`).
  The range narrows to the commits after the last GOOD-like candidate, up
  to the first BAD-like one; a GOOD-like candidate after a BAD-like one
  stops the bisection (not one change).
* While a candidate inside the range is undecided, the step measures
  another session of GOOD, BAD and the undecided candidates, and pools
  it; then the next step splits the range left.

Sessions run while the budget (seconds of wall time) allows: when the
next one would not fit, the bisection stops with the range left and an
estimate of the time that would likely decide it (the rounds needed scale
as the square of the interval's half-width over the half-width needed).
It never guesses.

A script with several benchmarks: the bisection follows the one
given (``-b``), else the first sessions measure them all and it follows
the one whose BAD/GOOD interval lies furthest from 1 (:func:`clearest`),
once one interval excludes 1 (:class:`Choice` says which, and why).

The search itself is :class:`perf.history.bisect_search.Search`, started
by :mod:`perf.history.bisect_run`; this module holds what they share.

Each session starts with a :class:`SessionStart`: what it measures, and
what the step waits for (a :class:`perf.history.rounds.Waiting`: BAD
against GOOD until they differ, then the undecided candidate nearest to
a verdict) with about how long that likely takes
(:func:`perf.analysis.outlook.outlook`, from the targets of the final
estimate).

Must not: print or exit (what happens is reported through
:class:`BisectEvents`); the statistics are :mod:`perf.analysis`'s.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple, Sequence

from perf.analysis.compare import NO_CHANGE, Comparison
from perf.history.rounds import Measured, Waiting
from perf.history.worktrees import BuildEvents

#: candidates measured with GOOD and BAD in each step (they split the range in 4)
ARITY = 3
#: the confidence of the intervals that decide: GOOD and BAD differ, a
#: candidate is like one of them.  Looked at after every session, 95 %
#: intervals gave 6 wrong answers in 150 bisections of a fake machine with
#: 8 % noise per process (tests/history/test_bisect.py's); 99 % none in
#: 200 (190 right, 10 undecided within 20 minutes)
DECISION_CONFIDENCE = 0.99

#: verdicts of a candidate
GOOD = "good"
BAD = "bad"
UNDECIDED = "undecided"
#: verdicts of BAD against GOOD (or UNDECIDED)
ALIKE = "alike"
DIFFERENT = "different"

#: why a benchmark is followed
GIVEN = "given"
ONLY = "only"
CLEAREST = "clearest"


#: measure(commits, benchmarks (None: all), rounds) -> one session
Measure = Callable[[Sequence[str], "Sequence[str] | None", int], Measured]


class Judgement(NamedTuple):
    """A candidate of a step, as the rounds so far place it."""

    commit: str
    subject: str
    #: the candidate against GOOD, and against BAD (above 1: slower)
    good: Comparison
    bad: Comparison
    #: the candidate against the geometric midpoint of GOOD and BAD, its
    #: interval at DECISION_CONFIDENCE (the one that decides)
    position: Comparison
    #: GOOD, BAD or UNDECIDED
    verdict: str
    rounds: int


class Step(NamedTuple):
    """One step: its candidates, measured with GOOD and BAD."""

    number: int
    #: BAD against GOOD, every session so far pooled
    references: Comparison
    #: DIFFERENT, ALIKE or UNDECIDED
    reference_verdict: str
    candidates: tuple[Judgement, ...]
    #: the commits that may be the first bad one after this step
    remaining: tuple[str, ...]
    sessions: int
    #: rounds of this step's sessions, and their wall time
    rounds: int
    seconds: float


class SessionStart(NamedTuple):
    """A session of a step starts: what it measures, and what for."""

    step: int
    #: the session's number in its step
    session: int
    #: GOOD, BAD, then the candidates
    commits: tuple[str, ...]
    rounds: int
    #: wall time spent so far, and the budget, seconds
    spent: float
    budget: float
    #: what the step waits for: BAD against GOOD until they differ, then
    #: the undecided candidate nearest to a verdict (None: nothing of it
    #: measured yet)
    waiting: Waiting | None = None
    #: about how long the session takes (None: no round timed yet)
    seconds: float | None = None


class Choice(NamedTuple):
    """The benchmark a bisection follows, and why."""

    benchmark: str
    #: GIVEN (-b), ONLY (the script's only one) or CLEAREST
    reason: str
    #: BAD against GOOD for every benchmark measured before the choice
    comparisons: tuple[tuple[str, Comparison], ...]


class Estimate(NamedTuple):
    """About how much more measuring would likely decide a bisection."""

    rounds: int
    #: commits per round (GOOD, BAD and the undecided candidates)
    commits: int
    seconds_per_round: float

    @property
    def seconds(self) -> float:
        return self.rounds * self.seconds_per_round


class BisectResult(NamedTuple):
    #: the first commit that performs like BAD (None: cannot decide)
    first_bad: str | None
    steps: tuple[Step, ...]
    #: why it cannot decide (None when found)
    reason: str | None
    #: the commits that may still be the first bad one (oldest first)
    remaining: tuple[str, ...]
    choice: Choice | None
    #: BAD against GOOD at the end, every session pooled (None: no benchmark followed)
    references: Comparison | None
    #: the per-round spread of BAD against GOOD (log), as used and as timed
    spread: tuple[float | None, float | None]
    #: whether the process means were multiplied by their CPU share
    cpu_time: bool
    #: wall time spent, and the budget, seconds
    spent: float
    budget: float
    #: cannot decide: about how much more would likely decide it (None: unknown)
    more: Estimate | None

    @property
    def measured(self) -> int:
        """Commits measured: GOOD, BAD and the candidates."""
        return 2 + len({judgement.commit for step in self.steps for judgement in step.candidates})


class BisectEvents(BuildEvents):
    """What a bisection reports while it runs; the defaults ignore it."""

    def measuring(self, start: SessionStart) -> None:
        """A session starts."""

    def chosen(self, choice: Choice) -> None:
        """The benchmark to follow is known."""

    def step(self, step: Step) -> None:
        """A step ended (decided, or the bisection stops there)."""


def clearness(comparison: Comparison) -> float:
    """How far the interval of a ratio lies from 1 (log scale): positive
    when it excludes 1 (the distance of its nearer bound), negative when
    it contains 1."""
    if comparison.low <= 0 or not math.isfinite(comparison.high):
        return -math.inf
    return max(math.log(comparison.low), -math.log(comparison.high))


def clearest(comparisons: Sequence[tuple[str, Comparison]]) -> str:
    """The benchmark whose interval lies furthest from 1 (the first of equals)."""
    return max(comparisons, key=lambda item: clearness(item[1]))[0]


def reference_verdict(comparison: Comparison, decisive: Comparison) -> str:
    """DIFFERENT when the *decisive* interval (:data:`DECISION_CONFIDENCE`)
    excludes 1, ALIKE when the 95 % one lies within the 1 % band, else
    UNDECIDED."""
    if decisive.different:
        return DIFFERENT
    return ALIKE if comparison.verdict == NO_CHANGE else UNDECIDED


def side_of(comparison: Comparison, bad_is_slower: bool) -> str:
    """GOOD, BAD or UNDECIDED: where the whole interval of a position lies."""
    if comparison.low > 1.0:
        return BAD if bad_is_slower else GOOD
    if comparison.high < 1.0:
        return GOOD if bad_is_slower else BAD
    return UNDECIDED


def split(low: int, high: int, arity: int = ARITY) -> list[int]:
    """Up to *arity* indices strictly between *low* and *high* that split
    the range in equal parts."""
    inside = high - low - 1
    if inside <= arity:
        return list(range(low + 1, high))
    return sorted({low + round(part * (high - low) / (arity + 1)) for part in range(1, arity + 1)})
