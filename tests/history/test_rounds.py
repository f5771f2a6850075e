"""Commits measured in rounds: process means paired by (session, round),
the time off the CPU left out, the rounds an interval needs, the budget."""

from __future__ import annotations

import math

import pytest

import perf
from perf.analysis.compare import compare_paired_process_means
from perf.errors import WorkerError
from perf.history.rounds import Budget, Rounds, processes, rounds_needed

G, B, C = "g" * 40, "b" * 40, "c" * 40


def result(means, session, shares=None, clock=None, rounds=None):
    runs = []
    for index, mean in enumerate(means):
        metadata = {"name": "x", "ab_pair": (rounds or range(1, len(means) + 1))[index], "ab_seed": session}
        if shares is not None:
            metadata["cpu_share"] = shares[index]
        if clock:
            metadata["clock"] = clock
        runs.append(perf.Run([mean, mean], metadata=metadata, collect_metadata=False))
    return perf.Benchmark(runs)


def test_commits_pair_by_session_and_round():
    rounds = Rounds((G, B))
    rounds.add(1, (G, B, C), [result([1.0, 2.0], 1), result([1.1, 2.2], 1), result([1.0, 2.0], 1)])
    # a later session of GOOD and BAD only, its rounds numbered from 1 again
    rounds.add(2, (G, B), [result([3.0, 4.0, 5.0], 2), result([3.3, 4.4, 5.5], 2)])
    assert rounds.rounds(G, B) == 5 and rounds.rounds(C, G, B) == 2
    good, bad = rounds.paired((G, B))
    assert good == [1.0, 2.0, 3.0, 4.0, 5.0] and bad == pytest.approx([1.1, 2.2, 3.3, 4.4, 5.5])
    assert rounds.compare(G, B).ratio == pytest.approx(1.1)
    assert rounds.compare(G, B).reference_processes == 5
    position = rounds.position(C, G, B)
    assert position.ratio == pytest.approx(1 / math.sqrt(1.1)) and position.reference_processes == 2


def test_time_off_the_cpu_is_left_out_when_the_references_keep_it():
    rounds = Rounds((G, B))
    # GOOD's second process lost half the CPU: its wall time doubled
    rounds.add(1, (G, B), [result([1.0, 2.0, 1.0], 1, [0.99, 0.5, 0.99]), result([1.1, 1.1, 1.1], 1, [1.0] * 3)])
    assert rounds.cpu_time
    assert rounds.paired((G,)) == [pytest.approx([0.99, 1.0, 0.99])]
    assert rounds.paired((G,), raw=True) == [[1.0, 2.0, 1.0]]
    assert rounds.spread(G, B) < 0.01 < rounds.spread(G, B, raw=True)


@pytest.mark.parametrize(
    ("good_shares", "clock", "why"),
    [
        ([0.6, 0.7, 0.6], None, "GOOD waits by itself (I/O, sleep): its time off the CPU is its own"),
        ([0.99, 0.5, 0.99], "cpu", "--clock cpu: the values are already CPU time"),
        (None, None, "no CPU share recorded (pyperf's workers)"),
    ],
)
def test_the_times_are_kept_as_measured(good_shares, clock, why):
    rounds = Rounds((G, B))
    bad_shares = None if good_shares is None else [1.0] * 3
    rounds.add(1, (G, B), [result([1.0, 2.0, 1.0], 1, good_shares, clock), result([1.1] * 3, 1, bad_shares, clock)])
    assert not rounds.cpu_time, why
    assert rounds.paired((G,)) == [[1.0, 2.0, 1.0]]


def test_a_run_without_its_round_is_an_error():
    benchmark = perf.Benchmark([perf.Run([1.0], metadata={"name": "x"}, collect_metadata=False)])
    with pytest.raises(WorkerError, match="x: a run without its round"):
        processes(benchmark)
    with pytest.raises(WorkerError, match="two runs in one round"):
        processes(result([1.0, 1.0], 1, rounds=[1, 1]))


def test_rounds_needed_scale_as_the_square_of_the_half_width():
    comparison = compare_paired_process_means([1.0] * 10, [1.0 + 0.05 * (-1) ** i for i in range(10)])
    half_width = math.log(comparison.high / comparison.low) / 2
    assert rounds_needed(comparison, half_width) == 10
    assert rounds_needed(comparison, half_width / 2) == 40
    assert rounds_needed(comparison, half_width * 2) == 10  # never fewer than so far
    assert rounds_needed(comparison._replace(low=0.0), 0.01) is None


def test_budget_fits_full_sessions_then_what_is_left():
    budget = Budget(100)
    assert budget.fit(5, 10, 3) == 10  # nothing known yet: the first session runs
    budget.add(50.0, 5.0, 50)  # 1 s a worker, 5 s of worktrees
    assert budget.spent == 55 and budget.per_worker() == 1.0
    assert budget.fit(3, 10, 3) == 10
    assert budget.fit(5, 10, 3) == 9  # 45 s left: 9 rounds of 5 workers
    budget.add(40.0, 0.0, 40)
    assert budget.fit(5, 10, 3) is None  # 5 s left: not 3 rounds
    assert budget.fit(2, 10, 3) is None and budget.fit(1, 10, 3) == 5
