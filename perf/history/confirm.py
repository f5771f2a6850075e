"""``history changes --confirm``: the two commits around a change measured
again, together, and what that shows.

:func:`compare_commits` measures the commit before a change and the one
after it in sessions of rounds (:meth:`perf.history.worktrees.CommitMeasurer.rounds`:
one worker of each per round, in a new order every round, both with the
same loops), pairs them by round (:class:`perf.history.rounds.Rounds`:
with the wall clock, the time off the CPU is left out when both keep
it), and compares each benchmark as ``compare_to`` compares pairs.  A
benchmark whose interval is inconclusive is measured again, its sessions
pooled, up to :data:`MAX_SESSIONS`, while the budget allows
(:func:`remeasure`, which takes the sessions as a function so that its
decisions can be tested without timing).

:func:`outcome` says what the re-measurement shows of a change:
:data:`CONFIRMED` (the change's direction: the whole interval beyond the
1 % margin), :data:`REFUTED` (no change: the whole interval within it),
:data:`INCONCLUSIVE` (it still contains 1 and reaches beyond the margin:
nothing shown), or :data:`NOT_CONFIRMED` (a change under 1 %, or the
other way).

Must not: print or exit.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

from perf.analysis.compare import DEFAULT_MARGIN, FASTER, INCONCLUSIVE, NO_CHANGE, SLOWER, Comparison
from perf.analysis.outlook import decisive_half_width, outlook
from perf.history.rounds import DEFAULT_BUDGET, LIKELY, MIN_ROUNDS, Budget, Measured, Rounds, Waiting, half_width_of

if TYPE_CHECKING:
    from perf.history.git import Repository
    from perf.history.worktrees import BuildEvents

#: sessions measured at most for one pair of commits while inconclusive
MAX_SESSIONS = 3

CONFIRMED = "confirmed"
REFUTED = "refuted"
NOT_CONFIRMED = "not confirmed"

#: measure(pair, benchmarks, rounds) -> one session of the two commits
Measure = Callable[[Sequence[str], Sequence[str], int], Measured]


class Remeasurement(NamedTuple):
    """What the sessions of one pair of commits showed."""

    #: each benchmark measured: the commit after against the one before
    comparisons: dict[str, Comparison]
    sessions: int
    #: wall time of those sessions, seconds
    seconds: float
    #: seconds per pair of workers (None: nothing measured)
    seconds_per_pair: float | None = None
    #: the budget was spent before the first session
    skipped: bool = False


class ConfirmSession(NamedTuple):
    """A session of a pair of commits starts: what it measures, and what for."""

    #: its number (1-based), and the most sessions of a pair
    session: int
    sessions: int
    #: the benchmarks it measures: all of them, then those still inconclusive
    benchmarks: tuple[str, ...]
    rounds: int
    #: the inconclusive benchmark furthest from a verdict, whose interval
    #: the pair waits for (None: nothing measured yet)
    waiting: Waiting | None = None
    #: about how long the session takes (None: no worker timed yet)
    seconds: float | None = None


class ConfirmEvents:
    """What a re-measurement reports; the defaults ignore it."""

    def measuring(self, start: ConfirmSession) -> None:
        """A session of the pair starts."""


def outcome(direction: str, comparison: Comparison) -> str:
    """CONFIRMED, REFUTED, INCONCLUSIVE or NOT_CONFIRMED: what *comparison*
    shows of a change in *direction* (``slower`` or ``faster``)."""
    if comparison.verdict == direction:
        return CONFIRMED
    if comparison.verdict == NO_CHANGE:
        return REFUTED
    if comparison.verdict == INCONCLUSIVE:
        return INCONCLUSIVE
    return NOT_CONFIRMED


def other_direction(direction: str, comparison: Comparison) -> bool:
    """Whether *comparison* shows a change the other way than *direction*."""
    return comparison.verdict in (SLOWER, FASTER) and comparison.verdict != direction


def remeasure(
    pair: Sequence[str],
    benchmarks: Sequence[str],
    measure: Measure,
    *,
    rounds: int,
    budget: Budget,
    max_sessions: int = MAX_SESSIONS,
    events: ConfirmEvents | None = None,
) -> Remeasurement:
    """Sessions of the two commits *pair* (before, after): the first one
    of *benchmarks*, the next ones of those still inconclusive, pooled, up
    to *max_sessions* and while *budget* allows."""
    events = events or ConfirmEvents()
    pools: dict[str, Rounds] = {}
    pending = list(benchmarks)
    before, after = pair
    sessions, seconds = 0, 0.0
    while pending and sessions < max_sessions:
        count = budget.fit(len(pair) * len(pending), rounds, MIN_ROUNDS)
        if count is None:
            break
        sessions += 1
        events.measuring(
            _start(pools, pair, pending, numbers=(sessions, max_sessions), sizes=(count, rounds), budget=budget)
        )
        measured = measure(pair, pending, count)
        budget.add(measured.seconds, measured.setup, count * len(pair) * len(pending))
        seconds += measured.seconds + measured.setup
        for name, results in measured.results.items():
            pools.setdefault(name, Rounds(pair)).add(sessions, pair, results)
        pending = [name for name in pending if pools[name].compare(before, after).verdict == INCONCLUSIVE]
    comparisons = {name: pools[name].compare(before, after) for name in benchmarks if name in pools}
    per_pair = budget.per_worker()
    return Remeasurement(
        comparisons, sessions, seconds, None if per_pair is None else per_pair * len(pair), skipped=not sessions
    )


def _start(
    pools: dict[str, Rounds],
    pair: Sequence[str],
    pending: Sequence[str],
    *,
    numbers: tuple[int, int],
    sizes: tuple[int, int],
    budget: Budget,
) -> ConfirmSession:
    """The event of session *numbers* (this one, the most) of *pending*
    benchmarks in *sizes* rounds (this session's, a full one's)."""
    workers = len(pair) * len(pending)
    per_round = budget.per_round(workers)
    session, most = numbers
    limit = sizes[0] + (most - session) * sizes[1]
    left = budget.rounds_left(workers)
    limit = limit if left is None else min(limit, left)
    waits = [
        _waiting(name, pools[name].compare(pair[0], pair[1]), sizes, per_round, limit)
        for name in pending
        if name in pools
    ]
    waiting = max(waits, key=_distance, default=None)
    if waiting is not None:
        waiting = waiting._replace(undecided=len(waits))
    seconds = None if per_round is None else per_round * sizes[0]
    return ConfirmSession(session, most, tuple(pending), sizes[0], waiting, seconds)


def _distance(waiting: Waiting) -> float:
    """How far an interval is from a verdict: its half-width over the one it needs."""
    return waiting.half_width / waiting.needed if waiting.needed > 0 else math.inf


def _waiting(name: str, comparison: Comparison, sizes: tuple[int, int], per_round: float | None, limit: int) -> Waiting:
    """What an inconclusive benchmark waits for: an interval that excludes
    1 or fits in the 1 % band, and what that likely still costs (until
    its half-width is :data:`~perf.history.rounds.LIKELY` of the one that
    decides where it stands, as ``perf bisect`` estimates GOOD and BAD)."""
    needed = decisive_half_width(comparison.ratio, math.log1p(DEFAULT_MARGIN))
    half_width = half_width_of(comparison)
    found = outlook(
        half_width,
        comparison.reference_processes,
        LIKELY * needed,
        sessions=sizes,
        seconds_per_round=per_round,
        most=limit,
    )
    return Waiting(name, comparison, half_width, needed, 1, found)


def compare_commits(
    repository: Repository,
    before: str,
    after: str,
    args: Sequence[str],
    *,
    benchmarks: Sequence[str] | None = None,
    python: str | None = None,
    build_command: str | None = None,
    budget: Budget | None = None,
    events: BuildEvents | None = None,
    confirm_events: ConfirmEvents | None = None,
) -> Remeasurement:
    """Measure the revisions *before* and *after* together (``ARGS``:
    *args*) and compare each of *benchmarks* that the script has (default:
    all of them), *after* against *before* (paired by round: above 1,
    *after* is slower); see :func:`remeasure`."""
    from perf.history.worktrees import CommitMeasurer, parse_command

    pair = (repository.resolve(before), repository.resolve(after))
    command = parse_command(args, python)
    budget = budget or Budget(DEFAULT_BUDGET)
    rounds = command.plan.options.processes
    if budget.fit(len(pair), rounds, MIN_ROUNDS) is None:
        return Remeasurement({}, 0, 0.0, budget.per_worker(), skipped=True)
    with CommitMeasurer(repository, command, build_command, events, ("perf", "history", "changes")) as measurer:
        names = measurer.benchmarks(pair[0])
        chosen = [name for name in (names if benchmarks is None else benchmarks) if name in names]
        return remeasure(pair, chosen, measurer.measure, rounds=rounds, budget=budget, events=confirm_events)
