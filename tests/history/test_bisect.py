"""perf bisect's decisions, on fake measurements (no worker, no timing)."""

from __future__ import annotations

import math
import random

import pytest

from perf.analysis.compare import compare_paired_process_means
from perf.errors import WorkerError
from perf.history.bisect import (
    ALIKE,
    BAD,
    DIFFERENT,
    GOOD,
    UNDECIDED,
    BisectEvents,
    bisect_commits,
    combine,
    side_of,
)

COMMITS = [f"{index:02d}" + "0" * 38 for index in range(31)]


class FakeMachine:
    """Measures commits whose true times are *speeds* (commit -> seconds):
    each pair shares a drift, each process has its own noise (seeded)."""

    def __init__(self, speeds, noise=0.01, pairs=10, seed=0, benchmarks=("b",)):
        self.speeds = speeds
        self.noise = noise
        self.pairs = pairs
        self.rng = random.Random(seed)
        self.benchmarks = benchmarks
        self.calls = []

    def __call__(self, reference, changed):
        self.calls.append((reference, changed))
        result = []
        for index, name in enumerate(self.benchmarks):
            scale = 1.0 + index
            ref_means, new_means = [], []
            for _ in range(self.pairs):
                drift = 1.0 + abs(self.rng.gauss(0.0, 0.05))  # the machine slows both sides of a pair
                ref_means.append(scale * self.speeds[reference] * drift * math.exp(self.rng.gauss(0.0, self.noise)))
                new_means.append(scale * self.speeds[changed] * drift * math.exp(self.rng.gauss(0.0, self.noise)))
            result.append((name, ref_means, new_means))
        return result

    def measured(self):
        return {commit for call in self.calls for commit in call}


class AlternatingMachine(FakeMachine):
    """No randomness: the changed side is 1 % slow and 1 % fast in turn,
    so the interval is centred on the true ratio."""

    def __call__(self, reference, changed):
        self.calls.append((reference, changed))
        spread = getattr(self, "spread", 1.01)
        noise = [spread if index % 2 else 1 / spread for index in range(self.pairs)]
        return [("b", [self.speeds[reference]] * self.pairs, [self.speeds[changed] * n for n in noise])]


def history(first_bad, effect=1.05, count=30):
    """GOOD = COMMITS[0]; the commits after it, the one at *first_bad*
    (1-based) and later running *effect* times slower."""
    speeds = {commit: (effect if index >= first_bad else 1.0) for index, commit in enumerate(COMMITS[: count + 1])}
    return COMMITS[0], COMMITS[1 : count + 1], speeds


def subject(commit):
    return f"subject of {commit[:2]}"


@pytest.mark.parametrize("first_bad", list(range(1, 31)))
def test_finds_the_first_bad_commit_wherever_it_is(first_bad):
    good, commits, speeds = history(first_bad)
    machine = FakeMachine(speeds, seed=first_bad)
    result = bisect_commits(good, commits, machine, subject)
    assert result.first_bad == COMMITS[first_bad]
    assert result.reason is None
    assert result.remaining == (COMMITS[first_bad],)
    # GOOD, BAD and a binary search over the 29 commits between
    assert result.measured == len(machine.measured()) <= math.log2(len(commits)) + 3
    assert [step.verdict for step in result.steps[:1]] == [DIFFERENT]
    for step in result.steps[1:]:
        assert step.verdict == (BAD if commits.index(step.commit) + 1 >= first_bad else GOOD)
        assert step.subject == subject(step.commit)


def test_a_speedup_is_bisected_too():
    good, commits, speeds = history(7, effect=0.9)
    result = bisect_commits(good, commits, FakeMachine(speeds), subject)
    assert result.first_bad == COMMITS[7]
    assert result.steps[0].good.ratio < 1


def test_each_step_compares_the_candidate_with_good_and_with_bad():
    good, commits, speeds = history(20)
    machine = FakeMachine(speeds)
    result = bisect_commits(good, commits, machine, subject)
    assert machine.calls[0] == (good, commits[-1])
    candidate = result.steps[1].commit
    assert machine.calls[1:3] == [(good, candidate), (commits[-1], candidate)]
    step = result.steps[1]
    assert step.good.ratio == pytest.approx(1.0, abs=0.02)  # commit 15 is good
    assert step.bad.ratio == pytest.approx(1 / 1.05, abs=0.02)
    assert step.processes == 10 and step.rounds == 1


def test_good_and_bad_alike_stop_at_once():
    good, commits, speeds = history(31)  # no regression at all
    machine = FakeMachine(speeds, noise=0.001)
    result = bisect_commits(good, commits, machine, subject, max_rounds=3)
    assert result.first_bad is None
    assert result.reason == "GOOD and BAD perform alike"
    assert [step.verdict for step in result.steps] == [ALIKE]
    assert result.steps[0].bad is None


def test_a_difference_that_stays_unclear_is_not_bisected():
    good, commits, speeds = history(10, effect=1.004)
    machine = FakeMachine(speeds, noise=0.05)
    result = bisect_commits(good, commits, machine, subject, max_rounds=2)
    assert result.first_bad is None
    assert result.steps[0].verdict in (ALIKE, UNDECIDED)
    assert len(machine.calls) <= 2


def test_a_small_but_real_difference_is_bisected():
    # 1.3 %: the interval excludes 1 but reaches into the 1 % band
    good, commits, speeds = history(10, effect=1.013)
    machine = AlternatingMachine(speeds, pairs=10)
    machine.spread = 1.004
    result = bisect_commits(good, commits, machine, subject, max_rounds=1)
    assert result.steps[0].good.verdict == "small change"
    assert result.steps[0].verdict == DIFFERENT
    assert result.first_bad == COMMITS[10]


def test_references_that_cannot_be_told_apart_are_not_called_alike():
    good, commits, speeds = history(10, effect=1.05)
    machine = AlternatingMachine(speeds, pairs=2)  # 2 pairs: too wide an interval
    machine.spread = 1.2
    result = bisect_commits(good, commits, machine, subject, max_rounds=1)
    assert result.steps[0].verdict == UNDECIDED
    assert result.reason == "GOOD and BAD cannot be told apart after 1 rounds"


def test_a_candidate_between_good_and_bad_is_never_guessed():
    # the candidate runs at the geometric midpoint: neither like GOOD nor like BAD
    good, commits, speeds = history(16)
    middle = commits[14]  # the first candidate
    speeds[middle] = math.sqrt(1.05)
    events = Recorder()
    machine = AlternatingMachine(speeds)
    result = bisect_commits(good, commits, machine, subject, max_rounds=3, events=events)
    assert result.first_bad is None
    last = result.steps[-1]
    assert last.commit == middle and last.verdict == UNDECIDED
    assert last.rounds == 3 and last.processes == 30  # pooled over the rounds
    assert "neither like GOOD nor like BAD after 3 rounds" in result.reason
    # the range left: after the last GOOD-like commit, up to the first BAD-like one
    assert result.remaining[0] == commits[0] and result.remaining[-1] == commits[-1]
    assert middle in result.remaining
    assert [(changed, round_) for changed, _, round_ in events.calls[1:]] == [
        (middle, 1),
        (middle, 1),
        (middle, 2),
        (middle, 2),
        (middle, 3),
        (middle, 3),
    ]
    assert events.steps == list(result.steps)


def test_a_noisy_candidate_gets_more_rounds_and_is_then_decided():
    good, commits, speeds = history(5)
    machine = FakeMachine(speeds, noise=0.04, pairs=3, seed=11)
    result = bisect_commits(good, commits, machine, subject, max_rounds=6)
    rounds = [step.rounds for step in result.steps]
    assert max(rounds) > 1
    assert result.first_bad in (COMMITS[5], None)


class Recorder(BisectEvents):
    def __init__(self):
        self.calls = []
        self.steps = []

    def measuring(self, changed, reference, round_):
        self.calls.append((changed, reference, round_))

    def step(self, step):
        self.steps.append(step)


def test_combine_takes_the_geometric_mean_of_the_benchmarks_pair_by_pair():
    reference, changed = combine([("a", [1.0, 2.0, 5.0], [4.0, 8.0]), ("b", [4.0, 8.0], [1.0, 2.0, 3.0])])
    assert reference == pytest.approx([2.0, 4.0])  # pairs beyond the shortest are left out
    assert changed == pytest.approx([2.0, 4.0])


def test_combine_refuses_a_command_without_benchmarks():
    with pytest.raises(WorkerError, match="ran no benchmark"):
        combine([])


def test_several_benchmarks_are_bisected_on_their_geometric_mean():
    good, commits, speeds = history(12)
    result = bisect_commits(good, commits, FakeMachine(speeds, benchmarks=("x", "y", "z")), subject)
    assert result.first_bad == COMMITS[12]


@pytest.mark.parametrize(
    ("low", "high", "bad_is_slower", "verdict"),
    [
        (1.01, 1.03, True, BAD),
        (0.97, 0.99, True, GOOD),
        (0.99, 1.01, True, UNDECIDED),
        (1.01, 1.03, False, GOOD),
        (0.97, 0.99, False, BAD),
        (0.99, 1.01, False, UNDECIDED),
    ],
)
def test_side_of_needs_the_whole_interval_on_one_side(low, high, bad_is_slower, verdict):
    comparison = compare_paired_process_means([1.0, 1.0], [1.0, 1.0])._replace(low=low, high=high)
    assert side_of(comparison, bad_is_slower) == verdict
