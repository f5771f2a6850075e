"""history changes --confirm's re-measurement: sessions pooled while
inconclusive, up to 3, within the budget, and what they show of a change
(fake sessions: no worker, no timing)."""

from __future__ import annotations

import math
from typing import ClassVar

import pytest

import perf
from perf.analysis.compare import INCONCLUSIVE, compare_paired_process_means
from perf.analysis.outlook import Outlook, decisive_half_width, outlook
from perf.history.confirm import (
    CONFIRMED,
    MAX_SESSIONS,
    NOT_CONFIRMED,
    REFUTED,
    ConfirmEvents,
    ConfirmSession,
    compare_commits,
    other_direction,
    outcome,
    remeasure,
)
from perf.history.git import Repository
from perf.history.rounds import LIKELY, Budget, Measured

PAIR = ("a" * 40, "b" * 40)


def benchmark(name, means, session, share=0.99):
    runs = [
        perf.Run([mean], metadata={"name": name, "ab_pair": number, "ab_seed": session, "cpu_share": share})
        for number, mean in enumerate(means, 1)
    ]
    return perf.Benchmark(runs)


class Sessions:
    """Each benchmark's ratio after/before; its pairs move by its *spread*
    (after only, up and down in turn; default 0.2 %); 1 s a worker."""

    def __init__(self, ratios, spreads=None):
        self.ratios = ratios
        self.spreads = spreads or {}
        self.calls = []

    def __call__(self, pair, benchmarks, rounds):
        self.calls.append((list(benchmarks), rounds))
        session = len(self.calls)
        results = {}
        for name in benchmarks:
            spread = self.spreads.get(name, 0.002)
            after = [self.ratios[name] * (1 + spread * (1 if i % 2 else -1)) for i in range(rounds)]
            results[name] = [benchmark(name, [1.0] * rounds, session), benchmark(name, after, session)]
        return Measured(results, float(rounds * len(pair) * len(benchmarks)))


def test_a_decided_pair_takes_one_session():
    sessions = Sessions({"up": 1.08, "flat": 1.0})
    remeasurement = remeasure(PAIR, ["flat", "up"], sessions, rounds=10, budget=Budget(600))
    assert remeasurement.sessions == 1 and sessions.calls == [(["flat", "up"], 10)]
    assert remeasurement.comparisons["up"].verdict == "slower"
    assert remeasurement.comparisons["flat"].verdict == "no change"
    assert remeasurement.seconds == 40 and remeasurement.seconds_per_pair == 2


def test_an_inconclusive_benchmark_is_measured_again_up_to_3_sessions_pooled():
    sessions = Sessions({"noisy": 1.02, "up": 1.08}, {"noisy": 0.3})  # 30 pairs do not decide 2 % +-30 %
    remeasurement = remeasure(PAIR, ["noisy", "up"], sessions, rounds=10, budget=Budget(600))
    assert remeasurement.sessions == MAX_SESSIONS == 3
    # only the inconclusive one is measured again
    assert sessions.calls == [(["noisy", "up"], 10), (["noisy"], 10), (["noisy"], 10)]
    noisy = remeasurement.comparisons["noisy"]
    assert noisy.verdict == INCONCLUSIVE and noisy.reference_processes == 30
    assert remeasurement.comparisons["up"].reference_processes == 10


def test_the_budget_bounds_the_sessions():
    sessions = Sessions({"noisy": 1.02}, {"noisy": 0.3})
    budget = Budget(50)  # 20 s a session: the third would not fit
    remeasurement = remeasure(PAIR, ["noisy"], sessions, rounds=10, budget=budget)
    assert [rounds for _, rounds in sessions.calls] == [10, 10, 5]  # the last one takes what is left
    assert remeasurement.sessions == 3 and budget.spent == 50
    later = remeasure(PAIR, ["noisy"], sessions, rounds=10, budget=budget)
    assert later.skipped and later.comparisons == {} and len(sessions.calls) == 3


class Starts(ConfirmEvents):
    def __init__(self):
        self.starts = []

    def measuring(self, start):
        self.starts.append(start)


def test_each_session_says_what_it_waits_for_and_how_long_it_likely_takes():
    events = Starts()
    sessions = Sessions({"noisy": 1.02, "up": 1.08}, {"noisy": 0.3})  # 1 s a worker
    remeasure(PAIR, ["noisy", "up"], sessions, rounds=10, budget=Budget(600), events=events)
    first, second, third = events.starts
    # nothing measured, nothing timed yet
    assert first == ConfirmSession(1, MAX_SESSIONS, ("noisy", "up"), 10)
    # the interval of the first session, against the half-width that decides it where it stands
    alone = Sessions({"noisy": 1.02}, {"noisy": 0.3})
    after_one = remeasure(PAIR, ["noisy"], alone, rounds=10, budget=Budget(600), max_sessions=1)
    interval = after_one.comparisons["noisy"]
    assert (second.session, second.benchmarks, second.rounds, second.seconds) == (2, ("noisy",), 10, 20.0)
    waiting = second.waiting
    assert (waiting.subject, waiting.interval, waiting.undecided) == ("noisy", interval, 1)
    assert waiting.half_width == pytest.approx(math.log(interval.high / interval.low) / 2)
    assert waiting.needed == pytest.approx(decisive_half_width(interval.ratio, math.log1p(0.01)))
    # +-30 % per pair: far more rounds than the two sessions left, 2 s a round
    assert waiting.outlook == Outlook(20, 40.0, False)
    assert third.waiting.outlook == Outlook(10, 20.0, False)


def test_a_likely_decision_is_estimated_in_whole_sessions():
    events = Starts()
    sessions = Sessions({"close": 1.03}, {"close": 0.042})  # a 3 % change, +-4.2 % per pair
    remeasure(PAIR, ["close"], sessions, rounds=10, budget=Budget(600), events=events)
    waiting = events.starts[1].waiting
    assert waiting.interval.verdict == INCONCLUSIVE
    expected = outlook(
        waiting.half_width, 10, LIKELY * waiting.needed, sessions=(10, 10), seconds_per_round=2.0, most=20
    )
    # 26 rounds in all: 16 more, two sessions
    assert waiting.outlook == expected == Outlook(20, 40.0, True)


def test_the_pair_waits_for_the_benchmark_furthest_from_a_verdict():
    events = Starts()
    sessions = Sessions({"wide": 1.02, "narrower": 1.02}, {"wide": 0.3, "narrower": 0.05})
    remeasure(PAIR, ["narrower", "wide"], sessions, rounds=10, budget=Budget(600), events=events)
    waiting = events.starts[1].waiting
    assert (waiting.subject, waiting.undecided) == ("wide", 2)


def test_the_budget_limits_the_estimate():
    events = Starts()
    sessions = Sessions({"noisy": 1.02}, {"noisy": 0.3})
    remeasure(PAIR, ["noisy"], sessions, rounds=10, budget=Budget(50), events=events)
    # 20 s a session: 30 s left after the first, 15 rounds of 2 s
    assert events.starts[1].waiting.outlook == Outlook(15, 30.0, False)


def comparison(ratio, spread=0.002, count=10):
    reference = [1.0 + spread * ((i % 3) - 1) for i in range(count)]
    return compare_paired_process_means(
        reference, [value * ratio * (1 + spread * (2 * (i % 2) - 1)) for i, value in enumerate(reference)]
    )


@pytest.mark.parametrize(
    ("direction", "ratio", "spread", "expected"),
    [
        ("slower", 1.08, 0.002, CONFIRMED),
        ("faster", 0.92, 0.002, CONFIRMED),
        ("slower", 1.0, 0.002, REFUTED),
        ("slower", 1.02, 0.2, INCONCLUSIVE),
        ("slower", 1.006, 0.002, REFUTED),  # under 1 %, shown so
        ("slower", 1.009, 0.002, NOT_CONFIRMED),  # a change that reaches into the 1 % band
        ("slower", 0.92, 0.002, NOT_CONFIRMED),  # the other way
    ],
)
def test_outcome(direction, ratio, spread, expected):
    measured = comparison(ratio, spread)
    assert outcome(direction, measured) == expected
    assert other_direction(direction, measured) == (expected == NOT_CONFIRMED and ratio < 1)


class FakeSession:
    """perf.measure.parent.session.Session without workers: its sides' loops are
    what a worker would use (a side's options, else calibrated: the same
    for every side with shared loops, else each side its own); each
    benchmark's pairs move by +-30 % (inconclusive whatever the count)."""

    sessions: ClassVar[list] = []

    def __init__(self, plan, **_):
        self.plan = plan

    def lock(self):
        pass

    def unlock(self):
        pass

    def list_benchmarks(self):
        return ["checksum"]

    def run(self, benchmarks, *, shuffle=False, seed=None, shared_loops=False):
        number = len(self.sessions) + 1
        loops = [
            side.options.loops or (100 if shared_loops else 100 + index) for index, side in enumerate(self.plan.sides)
        ]
        self.sessions.append(([side.options.loops for side in self.plan.sides], loops))
        rounds = self.plan.sides[0].options.processes
        results = []
        for _, name in benchmarks:
            sides = []
            for index, count in enumerate(loops):
                runs = [
                    perf.Run(
                        [1.0 + (0.3 if (i + index) % 2 else -0.3)],
                        metadata={"name": name, "loops": count, "ab_pair": i + 1, "ab_seed": number, "cpu_share": 1.0},
                    )
                    for i in range(rounds)
                ]
                sides.append(perf.Benchmark(runs))
            results.append(sides)
        return results


@pytest.fixture
def fake_sessions(monkeypatch):
    FakeSession.sessions = []
    monkeypatch.setattr("perf.measure.parent.session.Session", FakeSession)
    return FakeSession.sessions


def test_an_inconclusive_pair_gets_3_sessions_timed_alike(tmp_path, fake_sessions):
    """The report of issue 22: --confirm re-measured a real change once and
    called it inconclusive.  Before this was fixed, the first session's two
    commits calibrated their own loops, so that session was thrown away and
    measured again; the loops "pinned" for the next sessions never reached
    the workers (a side's options are what its workers read), so every
    later session calibrated again, each commit its own."""
    from helpers import example_repo

    repo = example_repo(tmp_path / "repo", commits=3, regression=2)
    repository = Repository(repo.path)
    remeasurement = compare_commits(repository, repo.commits[0], repo.commits[-1], ["bench.py", "-p", "10"])
    assert remeasurement.sessions == 3
    assert remeasurement.comparisons["checksum"].reference_processes == 30  # 3 sessions pooled
    assert len(fake_sessions) == 3  # none thrown away
    given, used = zip(*fake_sessions)
    # the first session calibrates, once for both commits; the next ones run with those loops
    assert given == ([0, 0], [100, 100], [100, 100])
    assert all(len(set(loops)) == 1 for loops in used)
