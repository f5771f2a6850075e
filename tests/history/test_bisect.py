"""perf bisect's decisions, on fake measurements (no worker, no timing).

The fake machine answers each session as CommitMeasurer.rounds() does:
for every benchmark, one result per commit, one run per round with the
round and the session (``ab_pair``, ``ab_seed``) and the worker's CPU
share; its process means are chosen (a speed per commit, a drift per
round that every commit of the round shares, noise per process, and
processes that lose the CPU)."""

from __future__ import annotations

import math
import random

import pytest

import perf
from perf.analysis.compare import compare_paired_process_means
from perf.analysis.outlook import Outlook, outlook
from perf.errors import UsageError
from perf.history.bisect import (
    BAD,
    CLEAREST,
    DIFFERENT,
    GIVEN,
    GOOD,
    ONLY,
    UNDECIDED,
    BisectEvents,
    Estimate,
    clearest,
    clearness,
    side_of,
    split,
)
from perf.history.bisect_run import bisect_commits
from perf.history.rounds import Measured, Rounds, half_width_of

COMMITS = [f"{index:02d}" + "0" * 38 for index in range(31)]


class FakeMachine:
    """Sessions of commits whose true times are *speeds* (benchmark ->
    commit -> seconds): each round shares a drift, each process has its
    own noise; a process loses the CPU with probability *steal* (then it
    kept 50-80 % of it, and its wall time grows to match); *shares*: the
    workers record their CPU share.  A worker takes *seconds*."""

    def __init__(self, speeds, *, noise=0.01, drift=0.05, steal=0.0, shares=True, seed=0, seconds=0.5):
        self.speeds = speeds
        self.noise, self.drift, self.steal, self.shares = noise, drift, steal, shares
        self.rng = random.Random(seed)
        self.seconds = seconds
        self.sessions = []

    def __call__(self, commits, benchmarks, rounds):
        self.sessions.append((list(commits), None if benchmarks is None else list(benchmarks), rounds))
        names = [name for name in (self.speeds if benchmarks is None else benchmarks) if name in self.speeds]
        results = {name: self._benchmark(name, commits, rounds) for name in names}
        return Measured(results, self.seconds * rounds * len(commits) * len(names))

    def _benchmark(self, name, commits, rounds):
        runs = [[] for _ in commits]
        for round_ in range(1, rounds + 1):
            drift = 1.0 + abs(self.rng.gauss(0.0, self.drift))  # the machine slows every commit of the round
            for index in self.rng.sample(range(len(commits)), len(commits)):
                cpu = self.speeds[name][commits[index]] * drift * math.exp(self.rng.gauss(0.0, self.noise))
                share = 0.999 if self.rng.random() >= self.steal else self.rng.uniform(0.5, 0.8)
                metadata = {"name": name, "ab_pair": round_, "ab_seed": len(self.sessions)}
                if self.shares:
                    metadata["cpu_share"] = share
                runs[index].append(perf.Run([cpu / share], metadata=metadata, collect_metadata=False))
        return [perf.Benchmark(commit_runs) for commit_runs in runs]

    def measured(self):
        return {commit for commits, _, _ in self.sessions for commit in commits}


def history(first_bad, effect=1.05, count=30):
    """GOOD = COMMITS[0]; the commits after it, the one at *first_bad*
    (1-based) and later running *effect* times slower (benchmark "b")."""
    speeds = {commit: (effect if index >= first_bad else 1.0) for index, commit in enumerate(COMMITS[: count + 1])}
    return COMMITS[0], COMMITS[1 : count + 1], {"b": speeds}


def subject(commit):
    return f"subject of {commit[:2]}"


def bisect(good, commits, machine, **options):
    options.setdefault("rounds", 10)
    return bisect_commits(good, commits, machine, subject, **options)


@pytest.mark.parametrize("first_bad", list(range(1, 31)))
def test_finds_the_first_bad_commit_wherever_it_is(first_bad):
    good, commits, speeds = history(first_bad)
    machine = FakeMachine(speeds, seed=first_bad)
    result = bisect(good, commits, machine)
    assert result.first_bad == COMMITS[first_bad]
    assert (result.reason, result.more) == (None, None)
    assert result.remaining == (COMMITS[first_bad],)
    # every session: GOOD, BAD, then at most 3 candidates
    for session, _, rounds in machine.sessions:
        assert session[:2] == [good, commits[-1]] and 2 <= len(session) <= 5 and rounds == 10
    # each step splits the range in 4: 29 commits take 3 steps
    assert len(result.steps) <= 3
    assert result.measured == len(machine.measured()) <= 2 + 3 * 3
    for step in result.steps:
        assert step.reference_verdict == DIFFERENT
        for judgement in step.candidates:
            expected = BAD if commits.index(judgement.commit) + 1 >= first_bad else GOOD
            # a candidate the range left behind needs no verdict
            assert judgement.verdict == expected or (
                judgement.verdict == UNDECIDED and judgement.commit not in step.remaining[:-1]
            )
            assert judgement.subject == subject(judgement.commit)
    assert result.choice.benchmark == "b" and result.choice.reason == ONLY


def test_a_speedup_is_bisected_too():
    good, commits, speeds = history(7, effect=0.9)
    result = bisect(good, commits, FakeMachine(speeds))
    assert result.first_bad == COMMITS[7]
    assert result.references.ratio < 1


def test_a_step_compares_each_candidate_with_good_and_with_bad():
    good, commits, speeds = history(20)
    machine = FakeMachine(speeds)
    result = bisect(good, commits, machine)
    first = result.steps[0]
    assert [commits.index(judgement.commit) for judgement in first.candidates] == [7, 14, 21]
    assert [judgement.verdict for judgement in first.candidates] == [GOOD, GOOD, BAD]
    good_like = first.candidates[0]
    assert good_like.good.ratio == pytest.approx(1.0, abs=0.02)
    assert good_like.bad.ratio == pytest.approx(1 / 1.05, abs=0.02)
    assert good_like.position.high < 1
    assert good_like.rounds == 10 and first.sessions == 1 and first.rounds == 10
    assert first.remaining == tuple(commits[15:22])  # after commit 15 (index 14), up to commit 22
    assert result.references.ratio == pytest.approx(1.05, abs=0.01)


@pytest.mark.parametrize(
    ("low", "high", "expected"), [(-1, 28, [6, 13, 21]), (-1, 3, [0, 1, 2]), (4, 6, [5]), (4, 5, [])]
)
def test_split_the_range_in_equal_parts(low, high, expected):
    assert split(low, high) == expected


def test_good_and_bad_alike_stop_at_once():
    good, commits, speeds = history(31)  # no regression at all
    machine = FakeMachine(speeds, noise=0.001, drift=0.0)
    result = bisect(good, commits, machine)
    assert result.first_bad is None
    assert result.reason == "GOOD and BAD perform alike"
    assert result.remaining == tuple(commits)
    assert len(machine.sessions) == 1
    assert [step.reference_verdict for step in result.steps] == ["alike"]
    assert all(judgement.verdict == UNDECIDED for judgement in result.steps[0].candidates)


class AlternatingMachine(FakeMachine):
    """No randomness: in each round, every commit but GOOD is *spread*
    times slower and faster in turn, so intervals are centred on the true
    ratios and their width is known."""

    spread = 1.01

    def _benchmark(self, name, commits, rounds):
        runs = [[] for _ in commits]
        for round_ in range(1, rounds + 1):
            for index, commit in enumerate(commits):
                noise = 1.0 if index == 0 else self.spread ** (1 if round_ % 2 else -1)
                metadata = {"name": name, "ab_pair": round_, "ab_seed": len(self.sessions), "cpu_share": 1.0}
                runs[index].append(
                    perf.Run([self.speeds[name][commit] * noise], metadata=metadata, collect_metadata=False)
                )
        return [perf.Benchmark(commit_runs) for commit_runs in runs]


def bisect_indistinguishable_references():
    """A 2 % regression under +-20 % per process: hundreds of rounds would
    tell GOOD and BAD apart, 600 s do not.  Returns (result, events,
    machine, commits)."""
    good, commits, speeds = history(10, effect=1.02)
    machine = AlternatingMachine(speeds, seconds=1.0)
    machine.spread = 1.2
    events = Recorder()
    return bisect(good, commits, machine, budget=600, events=events), events, machine, commits


def test_references_that_cannot_be_told_apart_use_the_budget_then_say_so():
    result, events, machine, commits = bisect_indistinguishable_references()
    assert result.first_bad is None
    assert result.reason.startswith("the budget is spent: GOOD and BAD cannot be told apart yet after ")
    # sessions of 5 commits x 10 rounds take 50 s: 12 fit in 600 s
    assert len(machine.sessions) == 12 and result.spent == pytest.approx(600)
    assert result.remaining == tuple(commits)
    more = result.more
    assert more.commits == 5 and more.seconds_per_round == pytest.approx(5.0)
    assert more.rounds > 100 and more.seconds == more.rounds * 5.0
    # the rounds needed scale as (half-width / needed half-width)^2
    references = result.references
    half_width = math.log(references.high / references.low) / 2
    distance = abs(math.log(references.ratio))
    needed = 120 * (half_width / (2 / 3 * distance)) ** 2
    assert more.rounds == pytest.approx(needed - 120, abs=2)
    assert [session for _, session, _, _ in events.sessions] == list(range(1, 13))


def test_the_last_session_takes_what_is_left_of_the_budget():
    good, commits, speeds = history(10, effect=1.02)
    machine = AlternatingMachine(speeds, seconds=1.0)
    machine.spread = 1.2
    bisect(good, commits, machine, budget=50 + 50 + 20)  # 2 sessions, then 20 s: 4 rounds of 5 commits
    assert [rounds for _, _, rounds in machine.sessions] == [10, 10, 4]


def test_a_step_the_budget_does_not_reach_is_not_reported():
    good, commits, speeds = history(17)
    machine = AlternatingMachine(speeds, seconds=1.0)
    result = bisect(good, commits, machine, budget=60)  # one session of 50 s, then not 3 rounds of 5 commits
    assert len(machine.sessions) == 1
    assert [step.number for step in result.steps] == [1]
    assert result.reason == "the budget is spent: 7 commits are left"
    assert result.remaining == tuple(commits[15:22])
    # 7 commits need 2 more steps of 3 candidates; a step took 10 rounds of 5 commits so far
    assert result.more == Estimate(20, 5, 5.0)


def test_a_first_session_runs_whatever_the_budget():
    good, commits, speeds = history(10)
    machine = FakeMachine(speeds)
    result = bisect(good, commits, machine, budget=1)
    assert len(machine.sessions) == 1
    assert result.first_bad is None and result.reason.startswith("the budget is spent")


def test_a_candidate_between_good_and_bad_is_never_guessed():
    # the candidate runs at the geometric midpoint: unlike GOOD, unlike BAD
    good, commits, speeds = history(16)
    middle = commits[14]  # the second candidate of the first step
    speeds["b"][middle] = math.sqrt(1.05)
    machine = AlternatingMachine(speeds, seconds=0.1)
    result = bisect(good, commits, machine, budget=60)
    assert result.first_bad is None
    (step,) = result.steps
    rounds = {judgement.commit: judgement.rounds for judgement in step.candidates}[middle]
    assert rounds == sum(count for _, _, count in machine.sessions) > 100  # 60 s: 5 s, then 3 s a session
    assert result.reason == (
        f"the budget is spent: 1 commit is neither like GOOD nor like BAD yet after {rounds} rounds ({middle[:10]}); "
        f"{middle[:10]} performs between them, unlike both"
    )
    # the first candidate is GOOD-like, the third BAD-like: the range left holds the one between
    assert result.remaining == tuple(commits[8:22])
    verdicts = {judgement.commit: judgement.verdict for judgement in step.candidates}
    assert verdicts == {commits[7]: GOOD, middle: UNDECIDED, commits[21]: BAD}
    # later sessions: GOOD, BAD and the undecided one; more rounds would not place it
    assert [len(commits_) for commits_, _, _ in machine.sessions] == [5] + [3] * (len(machine.sessions) - 1)
    assert result.more is None


def test_an_undecided_candidate_is_measured_until_the_budget_is_spent():
    # noisy: the candidate's interval stays across the midpoint and across GOOD's level
    good, commits, speeds = history(16)
    machine = AlternatingMachine(speeds, seconds=0.1)
    machine.spread = 1.5
    result = bisect(good, commits, machine, budget=60)
    assert result.first_bad is None
    assert result.reason.startswith("the budget is spent: ")
    assert result.remaining[0] == commits[0] and COMMITS[16] in result.remaining
    assert result.more is not None and result.more.rounds > 0


def test_a_candidate_that_needs_more_rounds_gets_them_within_one_step():
    good, commits, speeds = history(5)
    machine = FakeMachine(speeds, noise=0.06, drift=0.0, seed=4)
    result = bisect(good, commits, machine)
    assert result.first_bad == COMMITS[5]
    assert max(step.sessions for step in result.steps) > 1
    sessions = [len(commits_) for commits_, _, _ in machine.sessions]
    assert sessions[0] == 5 and min(sessions) < 5  # the decided candidates were left out


def test_good_like_after_bad_like_is_not_one_change():
    good, commits, speeds = history(5)
    speeds["b"][commits[14]] = 1.0  # a GOOD-like commit after the regression (reverted, then back)
    machine = AlternatingMachine(speeds)
    result = bisect(good, commits, machine)
    assert result.first_bad is None
    assert result.reason == (
        f"{commits[7][:10]} performs like BAD but the later {commits[14][:10]} like GOOD: "
        "not one change between GOOD and BAD"
    )
    assert result.remaining == tuple(commits)


def several(first_bad=12, changed="b", effect=1.11):
    """Benchmarks a, b, c; only *changed* changes."""
    good, commits, speeds = history(first_bad, effect=effect)
    flat = {commit: 1.0 for commit in [good, *commits]}
    return good, commits, {name: speeds["b"] if name == changed else dict(flat) for name in ("a", "b", "c")}


def test_several_benchmarks_follow_the_one_that_differs_most():
    good, commits, speeds = several()
    events = Recorder()
    machine = FakeMachine(speeds)
    result = bisect(good, commits, machine, events=events)
    assert result.first_bad == COMMITS[12]
    choice = result.choice
    assert (choice.benchmark, choice.reason) == ("b", CLEAREST)
    assert [name for name, _ in choice.comparisons] == ["a", "b", "c"]
    assert events.choices == [choice]
    # the first session measured them all; the next ones only the one followed
    assert machine.sessions[0][1] is None
    assert all(benchmarks == ["b"] for _, benchmarks, _ in machine.sessions[1:])


def test_the_benchmark_given_is_followed():
    good, commits, speeds = several(changed="b")
    speeds["c"] = history(20, effect=1.03)[2]["b"]  # c changes too, less clearly, at commit 20
    machine = FakeMachine(speeds, noise=0.002, drift=0.0)
    result = bisect(good, commits, machine, benchmark="c")
    assert result.first_bad == COMMITS[20]
    assert (result.choice.benchmark, result.choice.reason) == ("c", GIVEN)
    assert all(benchmarks == ["c"] for _, benchmarks, _ in machine.sessions)


def test_an_unknown_benchmark_given_is_refused():
    good, commits, speeds = several()
    with pytest.raises(UsageError, match="-b nope: the script has no such benchmark"):
        bisect(good, commits, FakeMachine(speeds), benchmark="nope")


def test_several_benchmarks_alike_stop():
    good, commits, speeds = several(effect=1.0)
    result = bisect(good, commits, FakeMachine(speeds, noise=0.001, drift=0.0))
    assert result.reason == "GOOD and BAD perform alike in all 3 benchmarks"
    assert result.choice is None


def comparison(low, high):
    return compare_paired_process_means([1.0, 1.0], [1.0, 1.0])._replace(low=low, high=high)


def test_the_clearest_interval_is_the_furthest_from_one():
    assert clearness(comparison(1.02, 1.04)) == pytest.approx(math.log(1.02))
    assert clearness(comparison(0.9, 0.95)) == pytest.approx(-math.log(0.95))
    assert clearness(comparison(0.99, 1.2)) < 0
    pairs = [("a", comparison(0.99, 1.2)), ("b", comparison(1.02, 1.5)), ("c", comparison(0.9, 0.97))]
    assert clearest(pairs) == "c"  # 0.97 is further from 1 than 1.02


def test_time_off_the_cpu_is_left_out():
    """A wall clock on a busy machine: 30 % of the processes lose 20-50 %
    of the CPU.  With the workers' CPU share the process means are
    about their CPU time and the bisection ends in 3 steps of one session;
    without it, the same machine needs many more sessions."""
    good, commits, speeds = history(17)
    with_shares = FakeMachine(speeds, steal=0.3, seed=5)
    result = bisect(good, commits, with_shares, budget=3600)
    assert result.first_bad == COMMITS[17] and result.cpu_time
    used, as_timed = result.spread
    assert used < 0.03 < as_timed  # the per-round spread of BAD/GOOD
    without = FakeMachine(speeds, steal=0.3, seed=5, shares=False)
    blind = bisect(good, commits, without, budget=3600)
    assert not blind.cpu_time and blind.spread[0] == blind.spread[1]
    assert blind.first_bad in (COMMITS[17], None)
    assert len(without.sessions) >= 2 * len(with_shares.sessions)


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
    assert side_of(comparison(low, high), bad_is_slower) == verdict


class Recorder(BisectEvents):
    def __init__(self):
        self.sessions = []
        self.starts = []
        self.steps = []
        self.choices = []

    def measuring(self, start):
        self.sessions.append((start.step, start.session, list(start.commits), start.rounds))
        self.starts.append(start)

    def chosen(self, choice):
        self.choices.append(choice)

    def step(self, step):
        self.steps.append(step)


def test_events_say_each_session_and_step():
    good, commits, speeds = history(9)
    events = Recorder()
    result = bisect(good, commits, FakeMachine(speeds), events=events)
    assert events.steps == list(result.steps)
    step, session, commits_, rounds = events.sessions[0]
    assert (step, session, len(commits_), rounds) == (1, 1, 5, 10)
    assert events.choices == [result.choice]


class Keeping(AlternatingMachine):
    """Keeps what each session gave, to check what the next one waits for."""

    def __call__(self, commits, benchmarks, rounds):
        measured = super().__call__(commits, benchmarks, rounds)
        self.results = [*getattr(self, "results", []), (list(commits), measured.results["b"])]
        return measured


def test_each_session_says_what_the_step_waits_for():
    good, commits, speeds = history(17)
    speeds["b"][commits[21]] = 1.055  # further from the midpoint than the others: nearer a verdict
    machine = Keeping(speeds, seconds=0.5)
    machine.spread = 1.08
    events = Recorder()
    bisect(good, commits, machine, events=events)
    first, second = events.starts[:2]
    # nothing measured, nothing timed yet
    assert (first.step, first.session, first.waiting, first.seconds) == (1, 1, None, None)
    assert (second.step, second.session, second.spent, second.budget) == (1, 2, 25.0, 1200.0)
    assert second.seconds == 25.0  # 10 rounds of 5 workers, 0.5 s each
    # the rounds so far, as the search pools them
    rounds = Rounds((good, commits[-1]))
    rounds.add(1, *machine.results[0])
    candidates = [commits[7], commits[14], commits[21]]
    positions = {commit: rounds.position(commit, good, commits[-1], 0.99) for commit in candidates}
    waiting = second.waiting
    assert waiting.subject == commits[21] == max(candidates, key=lambda commit: clearness(positions[commit]))
    assert (waiting.interval, waiting.undecided) == (positions[commits[21]], 3)
    assert waiting.half_width == pytest.approx(math.log(waiting.interval.high / waiting.interval.low) / 2)
    assert waiting.needed == pytest.approx(abs(math.log(waiting.interval.ratio)))
    # deciding likely takes the 95 % intervals to two thirds of half the distance between GOOD and BAD
    widest = max(half_width_of(rounds.position(commit, good, commits[-1])) for commit in candidates)
    expected = outlook(
        widest, 10, 2 / 3 * math.log(1.05) / 2, sessions=(10, 10), seconds_per_round=2.5, most=(1200 - 25) // 2.5
    )
    assert waiting.outlook == expected and expected.decided and expected.rounds % 10 == 0
    # a later step: its candidates have no rounds yet, but a session's time is known
    later = next(start for start in events.starts if start.step == 2)
    assert (later.session, later.waiting, later.seconds) == (1, None, len(later.commits) * 10 * 0.5)


def test_the_session_waits_for_good_and_bad_until_they_differ():
    result, events, _machine, _commits = bisect_indistinguishable_references()
    waiting = events.starts[1].waiting
    assert waiting.subject is None and waiting.interval.confidence == 0.99 and waiting.undecided == 1
    references = waiting.interval
    assert not references.different
    band = math.log1p(0.01)
    assert waiting.needed == pytest.approx(max(abs(math.log(references.ratio)), band - abs(math.log(references.ratio))))
    # the budget ends the step first: 550 s left, 5 s a round
    assert waiting.outlook == Outlook(110, 550.0, False)
    assert events.starts[-1].waiting.outlook == Outlook(10, 50.0, False)
    assert result.more.rounds > 100


def test_the_budget_counts_the_workers_of_every_benchmark():
    # 3 benchmarks, 1 s a worker: the first session (all of them) takes 150 s,
    # the next ones (the one followed) 50 s each
    good, commits, speeds = several()
    machine = FakeMachine(speeds, noise=0.03, seconds=1.0)
    result = bisect(good, commits, machine, budget=150 + 50 + 25)
    sessions = [(benchmarks, rounds) for _, benchmarks, rounds in machine.sessions]
    assert sessions[:2] == [(None, 10), (["b"], 10)]  # 50 s left after it, not 3 times that
    assert result.spent <= 225
