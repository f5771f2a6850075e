"""The search of ``perf bisect``: steps of sessions, decisions, the budget.

:class:`Search` carries out what :mod:`perf.history.bisect` describes:
each step measures GOOD, BAD and the candidates that split the range,
session after session while a candidate inside the range is undecided
and the budget allows; the rounds of every session are pooled per
benchmark (:class:`perf.history.rounds.Rounds`).

Must not: print, exit, run anything itself (sessions come from the
*measure* function), or guess: a step that the budget leaves undecided
ends the bisection with the range left.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

from perf.analysis.compare import DEFAULT_MARGIN, NO_CHANGE, Comparison
from perf.analysis.outlook import Outlook, decisive_half_width, outlook
from perf.errors import UsageError
from perf.history.bisect import (
    ALIKE,
    BAD,
    CLEAREST,
    DECISION_CONFIDENCE,
    DIFFERENT,
    GOOD,
    ONLY,
    UNDECIDED,
    BisectEvents,
    BisectResult,
    Choice,
    Estimate,
    Judgement,
    Measure,
    SessionStart,
    Step,
    clearest,
    clearness,
    reference_verdict,
    side_of,
    split,
)
from perf.history.git import short
from perf.history.rounds import LIKELY, MIN_ROUNDS, Budget, Measured, Rounds, Waiting, half_width_of, rounds_needed

#: why a bisection stops undecided, and the estimate of what would decide it
Stop = tuple[str, "Estimate | None"]


class Search:
    """One bisection: *limits* are the rounds of a full session, the budget
    (seconds) and the candidates per step."""

    def __init__(
        self,
        good: str,
        commits: Sequence[str],
        measure: Measure,
        subject: Callable[[str], str],
        *,
        limits: tuple[int, float, int],
        events: BisectEvents,
    ) -> None:
        self.good, self.bad = good, commits[-1]
        self.commits = list(commits)
        self.index = {commit: index for index, commit in enumerate(self.commits)}
        self.measure, self.subject, self.events = measure, subject, events
        self.session_rounds, budget, self.arity = limits
        #: commits[low] performs like GOOD (-1: GOOD), commits[high] like BAD
        self.low, self.high = -1, len(self.commits) - 1
        self.pools: dict[str, Rounds] = {}
        self.choice: Choice | None = None
        self.verdicts: dict[str, str] = {}
        self.sessions = 0
        self.budget = Budget(budget)
        self.steps: list[Step] = []

    def follow(self, choice: Choice) -> None:
        self.choice = choice
        self.events.chosen(choice)

    def run(self) -> BisectResult:
        number = 0
        while True:
            number += 1
            stop = self._step(number, split(self.low, self.high, self.arity))
            if stop is not None:
                return self._result(None, stop)
            if self.high - self.low <= 1:
                return self._result(self.commits[self.high], None)

    # -- a step --------------------------------------------------------------------

    def _step(self, number: int, candidates: list[int]) -> Stop | None:
        """Sessions of GOOD, BAD and the candidates still undecided inside
        the range, until none is left; a Stop when the bisection ends here."""
        active = [self.commits[index] for index in candidates]
        tally = [0, 0, 0.0]  # sessions, rounds, seconds
        while True:
            commits = [self.good, self.bad, *active]
            count = self._fit(len(commits))
            if count is None:
                if tally[0]:  # a step that measured nothing says nothing
                    self._end_step(number, candidates, tally)
                return self._out_of_budget(active)
            stop = self._session(number, commits, count, tally)
            active = [commit for commit in active if self._inside(commit) and commit not in self.verdicts]
            done = self.choice is not None and self._reference_verdict() == DIFFERENT and not active
            if stop is not None or done:
                self._end_step(number, candidates, tally)
                return stop

    def _inside(self, commit: str) -> bool:
        return self.low < self.index[commit] < self.high

    def _fit(self, commits: int) -> int | None:
        """The rounds of the next session of *commits*: a full session, or
        what is left of the budget (None: not even the fewest rounds)."""
        return self.budget.fit(commits * self._benchmarks(), self.session_rounds, MIN_ROUNDS)

    def _benchmarks(self) -> int:
        """The benchmarks the next session measures: the one followed, or
        all of them before the choice."""
        return 1 if self.choice is not None else max(1, len(self.pools))

    def _session(self, number: int, commits: list[str], count: int, tally: list[float]) -> Stop | None:
        """Measure one session, pool it, then choose, check the references
        and judge the candidates."""
        self.sessions += 1
        tally[0] += 1
        self.events.measuring(self._start(number, int(tally[0]), commits, count))
        followed = None if self.choice is None else [self.choice.benchmark]
        measured = self.measure(commits, followed, count)
        if followed is not None and followed[0] not in measured.results:
            raise UsageError(f"-b {followed[0]}: the script has no such benchmark")
        self.budget.add(measured.seconds, measured.setup, count * len(commits) * max(1, len(measured.results)))
        tally[1] += count
        tally[2] += measured.seconds + measured.setup
        self._pool(measured, commits)
        if self.choice is None:
            stop = self._choose()
            if stop is not None or self.choice is None:
                return stop
        verdict = self._reference_verdict()
        if verdict == ALIKE:
            return "GOOD and BAD perform alike", None
        if verdict == DIFFERENT:
            return self._judge(commits[2:])
        return None

    def _start(self, number: int, session: int, commits: list[str], count: int) -> SessionStart:
        """The event of a session about to measure *commits* in *count* rounds."""
        workers = len(commits) * self._benchmarks()
        per_round = self.budget.per_round(workers)
        waiting = self._waiting(commits[2:], count, workers) if self.pools else None
        seconds = None if per_round is None else per_round * count
        spent, budget = self.budget.spent, self.budget.seconds
        return SessionStart(number, session, tuple(commits), count, spent, budget, waiting, seconds)

    def _waiting(self, candidates: list[str], count: int, workers: int) -> Waiting | None:
        """What a session of *candidates* is measured for: BAD against GOOD
        until they differ, then the candidate nearest to a verdict (the
        :func:`clearness` of its decisive interval), with what deciding
        likely still costs (as :meth:`_out_of_budget` estimates it)."""
        rounds = self._rounds()

        def likely(comparison: Comparison, target: float) -> Outlook | None:
            return outlook(
                half_width_of(comparison),
                comparison.reference_processes,
                target,
                sessions=(count, self.session_rounds),
                seconds_per_round=self.budget.per_round(workers),
                most=self.budget.rounds_left(workers),
            )

        if self.choice is None or self._reference_verdict() != DIFFERENT:
            found = likely(self._references(), self._references_target())
            decisive = rounds.compare(self.good, self.bad, DECISION_CONFIDENCE)
            needed = decisive_half_width(decisive.ratio, math.log1p(DEFAULT_MARGIN))
            return Waiting(None, decisive, half_width_of(decisive), needed, 1, found)
        measured = [commit for commit in candidates if rounds.rounds(commit, self.good, self.bad) >= 2]
        if not measured:
            return None
        positions = {commit: rounds.position(commit, self.good, self.bad, DECISION_CONFIDENCE) for commit in measured}
        nearest = max(measured, key=lambda commit: clearness(positions[commit]))
        widest = max((rounds.position(commit, self.good, self.bad) for commit in measured), key=half_width_of)
        found = likely(widest, self._candidates_target())
        position = positions[nearest]
        return Waiting(
            nearest, position, half_width_of(position), decisive_half_width(position.ratio), len(measured), found
        )

    def _pool(self, measured: Measured, commits: Sequence[str]) -> None:
        """Add a session's results to the rounds of each benchmark."""
        for name, results in measured.results.items():
            self.pools.setdefault(name, Rounds((self.good, self.bad))).add(self.sessions, commits, results)

    def _choose(self) -> Stop | None:
        """Follow the only benchmark, or the clearest one once an interval
        excludes 1; stop when every benchmark performs alike."""
        comparisons = [(name, rounds.compare(self.good, self.bad)) for name, rounds in self.pools.items()]
        decisive = [rounds.compare(self.good, self.bad, DECISION_CONFIDENCE) for rounds in self.pools.values()]
        if len(comparisons) == 1:
            self.follow(Choice(comparisons[0][0], ONLY, tuple(comparisons)))
        elif all(comparison.verdict == NO_CHANGE for _, comparison in comparisons):
            return f"GOOD and BAD perform alike in all {len(comparisons)} benchmarks", None
        elif any(comparison.different for comparison in decisive):
            self.follow(Choice(clearest(comparisons), CLEAREST, tuple(comparisons)))
        return None

    def _rounds(self) -> Rounds:
        """The rounds of the benchmark followed (before the choice: of the
        clearest one so far)."""
        if self.choice is not None:
            return self.pools[self.choice.benchmark]
        comparisons = [(name, rounds.compare(self.good, self.bad)) for name, rounds in self.pools.items()]
        return self.pools[clearest(comparisons)]

    def _references(self) -> Comparison:
        return self._rounds().compare(self.good, self.bad)

    def _reference_verdict(self) -> str:
        rounds = self._rounds()
        return reference_verdict(
            rounds.compare(self.good, self.bad), rounds.compare(self.good, self.bad, DECISION_CONFIDENCE)
        )

    def _judge(self, candidates: Sequence[str]) -> Stop | None:
        """Place each candidate, then narrow the range to the commits after
        the last GOOD-like one, up to the first BAD-like one."""
        rounds = self._rounds()
        bad_is_slower = self._references().ratio > 1.0
        for commit in candidates:
            verdict = side_of(rounds.position(commit, self.good, self.bad, DECISION_CONFIDENCE), bad_is_slower)
            if verdict != UNDECIDED:
                self.verdicts[commit] = verdict
        decided = [(self.index[commit], verdict) for commit, verdict in self.verdicts.items()]
        high = min([index for index, verdict in decided if verdict == BAD and index <= self.high], default=self.high)
        low = max([index for index, verdict in decided if verdict == GOOD and index >= self.low], default=self.low)
        if low > high:
            later, earlier = short(self.commits[low]), short(self.commits[high])
            reason = f"{earlier} performs like BAD but the later {later} like GOOD: not one change between GOOD and BAD"
            return reason, None
        self.low, self.high = low, high
        return None

    def _between(self, commit: str, bad_is_slower: bool) -> bool:
        """Whether *commit* is shown unlike GOOD and unlike BAD, between
        them: more rounds would likely not place it on either side."""
        rounds = self._rounds()
        against_good = rounds.compare(self.good, commit, DECISION_CONFIDENCE)
        against_bad = rounds.compare(self.bad, commit, DECISION_CONFIDENCE)
        if not (against_good.different and against_bad.different):
            return False
        if bad_is_slower:
            return against_good.low > 1.0 and against_bad.high < 1.0
        return against_good.high < 1.0 and against_bad.low > 1.0

    def _end_step(self, number: int, candidates: list[int], tally: list[float]) -> None:
        rounds = self._rounds()
        judgements = []
        for index in candidates:
            commit = self.commits[index]
            count = rounds.rounds(commit, self.good, self.bad)
            if count < 2:
                continue
            judgements.append(
                Judgement(
                    commit,
                    self.subject(commit),
                    rounds.compare(self.good, commit),
                    rounds.compare(self.bad, commit),
                    rounds.position(commit, self.good, self.bad, DECISION_CONFIDENCE),
                    self.verdicts.get(commit, UNDECIDED),
                    count,
                )
            )
        references = self._references()
        remaining = tuple(self.commits[self.low + 1 : self.high + 1])
        step = Step(
            number, references, self._reference_verdict(), tuple(judgements), remaining, int(tally[0]),
            int(tally[1]), tally[2],
        )  # fmt: skip
        self.steps.append(step)
        self.events.step(step)

    # -- the end -------------------------------------------------------------------

    def _out_of_budget(self, active: list[str]) -> Stop:
        """Why the bisection stops when the budget is spent, and about how
        many more rounds would likely decide it."""
        rounds = self._rounds()
        measured = [commit for commit in active if rounds.rounds(commit, self.good, self.bad) >= 2]
        if self.choice is None or self._reference_verdict() != DIFFERENT:
            count = rounds.rounds(self.good, self.bad)
            reason = f"the budget is spent: GOOD and BAD cannot be told apart yet after {count} rounds"
            more, commits = self._references_more(), 2 + len(active)
        elif not measured:
            left = self.high - self.low
            reason = f"the budget is spent: {left} commits are left"
            steps = max(1, math.ceil(math.log(left) / math.log(self.arity + 1)))
            per_step = sum(step.rounds for step in self.steps) / len(self.steps) if self.steps else self.session_rounds
            more, commits = math.ceil(steps * per_step), 2 + min(self.arity, left - 1)
        else:
            names = ", ".join(short(commit) for commit in measured)
            count = rounds.rounds(*measured, self.good, self.bad)
            what = f"{len(measured)} commit{'s are' if len(measured) != 1 else ' is'}"
            reason = f"the budget is spent: {what} neither like GOOD nor like BAD yet after {count} rounds ({names})"
            more, commits = self._candidates_more(measured), 2 + len(measured)
            bad_is_slower = self._references().ratio > 1.0
            between = [short(commit) for commit in measured if self._between(commit, bad_is_slower)]
            if between:
                reason += f"; {', '.join(between)} performs between them, unlike both"
                more = None
        estimate = None
        per_worker = self.budget.per_worker()
        if more is not None and per_worker is not None:
            more = max(more, min(MIN_ROUNDS, self.session_rounds))
            estimate = Estimate(more, commits, per_worker * commits * self._benchmarks())
        return reason, estimate

    def _references_target(self) -> float:
        """The half-width of BAD against GOOD (95 %) that would likely tell
        them apart, or show them alike (whichever the estimate is nearer
        to): :data:`LIKELY` of the one that decides where it stands."""
        return LIKELY * decisive_half_width(self._references().ratio, math.log1p(DEFAULT_MARGIN))

    def _candidates_target(self) -> float:
        """The half-width of a candidate's position (95 %) that would likely
        place it like GOOD or like BAD: :data:`LIKELY` of half the distance
        between them (where either lies from their midpoint)."""
        return LIKELY * abs(math.log(self._references().ratio)) / 2

    def _references_more(self) -> int | None:
        """More rounds that would likely tell GOOD and BAD apart, or show
        them alike."""
        references = self._references()
        needed = rounds_needed(references, self._references_target())
        return None if needed is None else needed - references.reference_processes

    def _candidates_more(self, candidates: list[str]) -> int | None:
        """More rounds that would likely place every one of *candidates*
        like GOOD or like BAD."""
        rounds = self._rounds()
        half = self._candidates_target()
        mores = []
        for commit in candidates:
            position = rounds.position(commit, self.good, self.bad)
            needed = rounds_needed(position, half)
            if needed is None:
                return None
            mores.append(needed - position.reference_processes)
        return max(mores)

    def _result(self, first_bad: str | None, stop: Stop | None) -> BisectResult:
        reason, more = stop if stop is not None else (None, None)
        rounds = self._rounds()
        remaining = (first_bad,) if first_bad else tuple(self.commits[self.low + 1 : self.high + 1])
        return BisectResult(
            first_bad,
            tuple(self.steps),
            reason,
            remaining,
            self.choice,
            self._references(),
            (rounds.spread(self.good, self.bad), rounds.spread(self.good, self.bad, raw=True)),
            rounds.cpu_time,
            self.budget.spent,
            self.budget.seconds,
            more,
        )
