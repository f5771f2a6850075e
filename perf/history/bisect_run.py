"""``perf bisect``, started: the worktrees of a repository, their sessions, and the search.

:func:`bisect` measures the commits between GOOD and BAD of a repository
through a :class:`perf.history.worktrees.CommitMeasurer`;
:func:`bisect_commits` runs the search
(:class:`perf.history.bisect_search.Search`) on any way to measure
(:mod:`perf.history.bisect` explains the method).

Must not: print or exit.
"""

from __future__ import annotations

from typing import Callable, Sequence

from perf.errors import UsageError
from perf.history.bisect import (
    ARITY,
    GIVEN,
    BisectEvents,
    BisectResult,
    Choice,
    Measure,
    SessionStart,
    Step,
)
from perf.history.bisect_search import Search
from perf.history.git import Repository
from perf.history.rounds import DEFAULT_BUDGET
from perf.history.worktrees import CommitMeasurer, MeasuredCommand


def bisect_commits(
    good: str,
    commits: Sequence[str],
    measure: Measure,
    subject: Callable[[str], str],
    *,
    rounds: int,
    budget: float = DEFAULT_BUDGET,
    benchmark: str | None = None,
    events: BisectEvents | None = None,
    arity: int = ARITY,
) -> BisectResult:
    """Bisect *commits* (after GOOD, oldest first, BAD last) with
    *measure*; *subject(commit)* names the candidates; *rounds*: the rounds
    of a full session; *budget*: seconds; *benchmark*: the one to follow
    (default: see :class:`Choice`)."""
    search = Search(good, commits, measure, subject, limits=(rounds, budget, arity), events=events or BisectEvents())
    if benchmark is not None:
        search.follow(Choice(benchmark, GIVEN, ()))
    return search.run()


def bisect(
    repository: Repository,
    good: str,
    bad: str,
    command: MeasuredCommand,
    *,
    build_command: str | None = None,
    budget: float = DEFAULT_BUDGET,
    benchmark: str | None = None,
    events: BisectEvents | None = None,
) -> BisectResult:
    """Bisect between the revisions *good* and *bad* of *repository*;
    UsageError when *benchmark* is not one of the script's (listed by a
    worker before anything is measured)."""
    good, bad = repository.resolve(good), repository.resolve(bad)
    commits = repository.commits_between(good, bad)
    reporter = events or BisectEvents()
    with CommitMeasurer(repository, command, build_command, reporter) as measurer:
        names = measurer.benchmarks(good)
        if benchmark is not None and benchmark not in names:
            raise UsageError(f"-b {benchmark}: the script has no such benchmark (its benchmarks: {', '.join(names)})")
        return bisect_commits(
            good, commits, measurer.measure, repository.subject, rounds=command.plan.options.processes,
            budget=budget, benchmark=benchmark, events=_Releasing(measurer, reporter),
        )  # fmt: skip


class _Releasing(BisectEvents):
    """Passes the events on, and removes the worktrees of the candidates
    of a step that ended (measured no more)."""

    def __init__(self, measurer: CommitMeasurer, reporter: BisectEvents) -> None:
        self.measurer, self.reporter = measurer, reporter

    def building(self, commit: str) -> None:
        self.reporter.building(commit)

    def measuring(self, start: SessionStart) -> None:
        self.reporter.measuring(start)

    def chosen(self, choice: Choice) -> None:
        self.reporter.chosen(choice)

    def step(self, step: Step) -> None:
        for judgement in step.candidates:
            self.measurer.release(judgement.commit)
        self.reporter.step(step)
