"""The order in which workers run: rounds, shuffled suites, interleaved
pairs, and where --target-precision stops each benchmark.

The recorders are fakes that log the workers they are asked to run and
return one-run benchmarks with chosen values: no process is started.
"""

from __future__ import annotations

import math

import pytest

from perf.analysis.benchmarks import PAIR_KEY, SEED_KEY
from perf.errors import WorkerError
from perf.measure.parent.schedule import (
    POSITION_KEY,
    ROUND_KEY,
    SCHEDULE_SEED_KEY,
    Progress,
    ScheduledBenchmark,
    pair_order,
    run_schedule,
)
from perf.measure.parent.stopping import StoppingRule
from perf.measure.parent.workers import WorkerOutput
from perf.model.benchmark import Benchmark
from perf.model.run import Run


class FakeRecorder:
    """Stands for perf.measure.parent.schedule.Recorder: logs each worker into
    *log* as ``(name, side, metadata)``; the n-th worker's value is
    ``values[n]`` (cycling), 1.0 by default."""

    def __init__(self, name, log, side=0, values=(1.0,), *, fails_at=None, error=None):
        self.name = name
        self.log = log
        self.side = side
        self.values = values
        self.benchmark = None
        self.count = 0
        #: the worker number (1-based) that raises *error*, as a failing worker does
        self.fails_at = fails_at
        self.error = error
        #: the recorder the schedule named as the next one, worker by worker
        self.followings = []
        #: the wall time of each worker
        self.elapsed = []

    def run_worker(self, metadata=None, standby=None, following=None):
        self.followings.append(following)
        metadata = dict(metadata or {})
        if self.count + 1 == self.fails_at:
            raise self.error or WorkerError(f"worker {self.fails_at} of {self.name!r} failed")
        value = self.values[self.count % len(self.values)]
        self.count += 1
        self.elapsed.append(0.5)
        self.log.append((self.name, self.side, metadata))
        run = Run([value], metadata={"name": self.name, "loops": 1, **metadata}, collect_metadata=False)
        sent = Benchmark([run])
        if self.benchmark is None:
            self.benchmark = sent
        else:
            self.benchmark.add_runs(sent)
        return WorkerOutput(sent, "", 0.5)

    def result(self):
        return self.benchmark


def single_units(names, log, total, **values):
    return [ScheduledBenchmark([FakeRecorder(name, log, values=values.get(name, (1.0,)))], total, 0) for name in names]


def rounds_of(log):
    """The names run in each round, from the recorded round numbers."""
    rounds = {}
    for name, _side, metadata in log:
        rounds.setdefault(metadata[ROUND_KEY], []).append(name)
    return [rounds[number] for number in sorted(rounds)]


# -- one benchmark ----------------------------------------------------------


def test_one_benchmark_runs_its_workers_without_schedule_metadata():
    log = []
    [unit] = single_units(["a"], log, 4)
    run_schedule([unit], 7)
    assert [(name, metadata) for name, _, metadata in log] == [("a", {})] * 4
    assert unit.results()[0].get_nrun() == 4
    assert unit.finished and unit.count == 4


def test_progress_of_one_benchmark_counts_its_workers():
    log, seen = [], []
    run_schedule(single_units(["a"], log, 3), 1, on_progress=lambda side, progress: seen.append((side, progress)))
    assert [(side, progress.name, progress.done, progress.total) for side, progress in seen] == [
        (0, "a", 1, 3),
        (0, "a", 2, 3),
        (0, "a", 3, 3),
    ]
    assert all(isinstance(progress, Progress) and progress.elapsed >= 0 for _, progress in seen)


# -- suites ----------------------------------------------------------------------


def test_shuffled_suite_runs_every_benchmark_once_per_round():
    log = []
    units = single_units(["a", "b", "c", "d"], log, 6)
    run_schedule(units, 1234, shuffle=True)
    rounds = rounds_of(log)
    assert len(rounds) == 6
    assert all(sorted(names) == ["a", "b", "c", "d"] for names in rounds)
    assert all(metadata[SCHEDULE_SEED_KEY] == 1234 for _, _, metadata in log)
    # the rounds are run one after the other, and the order changes between them
    assert [metadata[ROUND_KEY] for _, _, metadata in log] == [number for number in range(1, 7) for _ in range(4)]
    assert len({tuple(names) for names in rounds}) > 1


def test_shuffled_order_is_replayed_from_the_seed():
    first, second, other = [], [], []
    run_schedule(single_units("abcde", first, 5), 99, shuffle=True)
    run_schedule(single_units("abcde", second, 5), 99, shuffle=True)
    run_schedule(single_units("abcde", other, 5), 100, shuffle=True)
    assert rounds_of(first) == rounds_of(second)
    assert rounds_of(first) != rounds_of(other)


def test_shuffled_positions_are_uniform():
    """Over many seeds, each benchmark is first in about a third of the rounds."""
    log = []
    for seed in range(300):
        run_schedule(single_units("abc", log, 2), seed, shuffle=True)
    first_of_round = [log[index][0] for index in range(0, len(log), 3)]
    counts = {name: first_of_round.count(name) for name in "abc"}
    assert sum(counts.values()) == 600
    assert all(150 <= count <= 250 for count in counts.values()), counts


def test_unshuffled_units_take_turns_in_their_order():
    log = []
    run_schedule(single_units("abc", log, 2), 5)
    assert [name for name, _, _ in log] == ["a", "b", "c", "a", "b", "c"]
    assert all(metadata == {} for _, _, metadata in log)


def test_progress_of_a_suite_counts_all_workers():
    log, seen = [], []
    run_schedule(single_units("ab", log, 3), 3, shuffle=True, on_progress=lambda _side, progress: seen.append(progress))
    assert [(progress.name, progress.done, progress.total) for progress in seen] == [
        ("2 benchmarks", done, 6) for done in range(1, 7)
    ]


# -- interleaved pairs ---------------------------------------------------------------


def pair_unit(name, log, total, pair_seed, values=((1.0,), (1.0,))):
    recorders = [FakeRecorder(name, log, side, values[side]) for side in (0, 1)]
    return ScheduledBenchmark(recorders, total, pair_seed)


def test_pairs_follow_pair_order_of_their_seed():
    log = []
    unit = pair_unit("x", log, 8, 4321)
    run_schedule([unit], 4321)
    assert [side for _, side, _ in log] == [side for order in pair_order(4321, 8) for side in order]
    for index, (_, side, metadata) in enumerate(log):
        assert metadata == {PAIR_KEY: index // 2 + 1, SEED_KEY: 4321, POSITION_KEY: index % 2 + 1}, side
    reference, changed = unit.results()
    assert reference.get_nrun() == changed.get_nrun() == 8


def test_pair_order_draws_both_orders():
    orders = pair_order(5, 400)
    assert set(orders) == {(0, 1), (1, 0)}
    assert 150 <= orders.count((0, 1)) <= 250


def test_pairs_of_a_shuffled_suite_keep_their_own_seed_and_count():
    log = []
    units = [pair_unit("x", log, 3, 10), pair_unit("y", log, 3, 11)]
    run_schedule(units, 10, shuffle=True)
    for name, pair_seed in (("x", 10), ("y", 11)):
        runs = [(side, metadata) for run_name, side, metadata in log if run_name == name]
        assert [side for side, _ in runs] == [side for order in pair_order(pair_seed, 3) for side in order]
        assert [metadata[PAIR_KEY] for _, metadata in runs] == [1, 1, 2, 2, 3, 3]
        assert {metadata[SEED_KEY] for _, metadata in runs} == {pair_seed}
        assert {metadata[SCHEDULE_SEED_KEY] for _, metadata in runs} == {10}
    # both workers of a pair run back to back, in the same round
    for index in range(0, len(log), 2):
        assert log[index][0] == log[index + 1][0]
        assert log[index][2][ROUND_KEY] == log[index + 1][2][ROUND_KEY]


# -- rounds of several sides (history record) ---------------------------------------


class LoopRecorder(FakeRecorder):
    """A FakeRecorder that calibrates *calibrated* loops in its first worker
    unless given loops, as Recorder does."""

    def __init__(self, name, log, side, calibrated):
        super().__init__(name, log, side)
        self.loops = 0
        self.calibrated = calibrated
        self.used = []

    def run_worker(self, metadata=None, standby=None, following=None):
        self.used.append(self.loops)
        output = super().run_worker(metadata, standby, following)
        self.loops = self.loops or self.calibrated
        return output


def test_several_sides_run_in_rounds_of_one_worker_each():
    from perf.analysis.benchmarks import paired_process_means

    log = []
    recorders = [FakeRecorder("x", log, side, values=(1.0 + side, 1.1 + side)) for side in range(4)]
    unit = ScheduledBenchmark(recorders, 6, 99)
    run_schedule([unit], 99)
    assert len(log) == 24 and unit.finished
    orders = []
    for number in range(6):
        round_ = log[number * 4 : number * 4 + 4]
        # every side once per round; the round is the pair, positions in order
        assert sorted(side for _, side, _ in round_) == [0, 1, 2, 3]
        assert [metadata for _, _, metadata in round_] == [
            {PAIR_KEY: number + 1, SEED_KEY: 99, POSITION_KEY: position} for position in (1, 2, 3, 4)
        ]
        orders.append(tuple(side for _, side, _ in round_))
    assert len(set(orders)) > 1  # a new order each round
    # drawn from the seed: the same run again gives the same orders
    again = []
    run_schedule([ScheduledBenchmark([FakeRecorder("x", again, side) for side in range(4)], 6, 99)], 99)
    assert [side for _, side, _ in again] == [side for _, side, _ in log]
    # any two sides pair again by their rounds
    results = unit.results()
    assert paired_process_means(results[1], results[3]) == ([2.0, 2.1] * 3, [4.0, 4.1] * 3)


def test_shared_loops_are_the_first_workers_for_every_side():
    log = []
    recorders = [LoopRecorder("x", log, side, calibrated=100 + side) for side in range(3)]
    run_schedule([ScheduledBenchmark(recorders, 2, 5, shared_loops=True)], 5)
    first = log[0][1]  # the side that ran first calibrated
    for recorder in recorders:
        expected = [0, 100 + first] if recorder.side == first else [100 + first, 100 + first]
        assert recorder.used == expected, recorder.side
    # without: each side calibrates its own (two interpreters)
    recorders = [LoopRecorder("x", [], side, calibrated=100 + side) for side in range(2)]
    run_schedule([ScheduledBenchmark(recorders, 2, 5)], 5)
    assert [recorder.used for recorder in recorders] == [[0, 100], [0, 101]]


# -- --target-precision ------------------------------------------------------------


NOISY = (1.0, 1.5, 0.7, 1.3, 0.8)  # never within +-1 %
STEADY = (1.0, 1.001, 0.999)  # within +-1 % from the second process on


def test_precise_benchmark_stops_at_the_minimum():
    log = []
    rule = StoppingRule(0.01, 4, 20)
    [unit] = single_units(["a"], log, 20, a=STEADY)
    run_schedule([unit], 1, rule=rule)
    assert unit.count == 4


def test_noisy_benchmark_stops_at_the_maximum():
    log = []
    rule = StoppingRule(0.01, 4, 9)
    [unit] = single_units(["a"], log, 9, a=NOISY)
    run_schedule([unit], 1, rule=rule)
    assert unit.count == 9
    assert rule.precision(unit.results()[0].get_process_means()) > 0.01


def test_each_benchmark_of_a_suite_stops_on_its_own():
    log = []
    rule = StoppingRule(0.01, 3, 7)
    units = single_units(["steady", "noisy"], log, 7, steady=STEADY, noisy=NOISY)
    run_schedule(units, 8, shuffle=True, rule=rule)
    assert [unit.count for unit in units] == [3, 7]
    rounds = rounds_of(log)
    assert all(sorted(names) == ["noisy", "steady"] for names in rounds[:3])
    assert rounds[3:] == [["noisy"]] * 4


def test_pairs_stop_on_the_precision_of_the_ratio():
    log = []
    rule = StoppingRule(0.01, 5, 30)
    # the same noise on both sides of each pair: the ratio is exact
    unit = pair_unit("x", log, 30, 3, values=(NOISY, tuple(value * 1.1 for value in NOISY)))
    run_schedule([unit], 3, rule=rule)
    assert unit.count == 5
    assert math.isclose(rule.paired_precision(*(b.get_process_means() for b in unit.results())), 0, abs_tol=1e-9)


@pytest.mark.parametrize("minimum", [2, 3, 6])
def test_minimum_is_kept_even_when_precise_at_once(minimum):
    log = []
    rule = StoppingRule(0.5, minimum, 10)
    [unit] = single_units(["a"], log, 10)
    run_schedule([unit], minimum, rule=rule)
    assert unit.count == minimum


# -- a failing worker, an interrupted run -----------------------------------------


def test_a_failing_benchmark_stops_the_whole_schedule_by_default():
    log = []
    units = single_units(["a", "b"], log, 3)
    units[1].recorders[0].fails_at = 2
    with pytest.raises(WorkerError, match="worker 2 of 'b' failed"):
        run_schedule(units, 1, shuffle=True)
    assert len(log) < 6


def test_keep_going_runs_the_others_to_completion_in_their_rounds():
    log = []
    progress = []
    units = single_units(["a", "b", "c"], log, 4)
    units[1].recorders[0].fails_at = 2
    run_schedule(units, 7, shuffle=True, keep_going=True, on_progress=lambda side, p: progress.append(p))
    assert [unit.count for unit in units] == [4, 2, 4]  # b stopped in its second round
    assert [unit.error is None for unit in units] == [True, False, True]
    assert str(units[1].error) == "worker 2 of 'b' failed"
    assert units[1].processes() == 1
    assert [sorted(names) for names in rounds_of(log)] == [["a", "b", "c"], ["a", "c"], ["a", "c"], ["a", "c"]]
    # the progress counts what will run: b's last two workers never will
    assert [(p.done, p.total) for p in progress][-1] == (9, 9)


def test_keep_going_without_shuffle_keeps_the_order():
    log = []
    units = single_units(["a", "b", "c"], log, 2)
    units[0].recorders[0].fails_at = 1
    run_schedule(units, 7, keep_going=True)
    assert units[0].measured() == [None]
    assert [unit.count for unit in units[1:]] == [2, 2]


def test_a_stopped_pair_keeps_only_the_pairs_both_sides_finished():
    log = []
    unit = pair_unit("x", log, 6, 4321)
    # the side that runs second in pair 3 is interrupted
    second = pair_order(4321, 6)[2][1]
    unit.recorders[second].fails_at = 3
    unit.recorders[second].error = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt):
        run_schedule([unit], 4321, keep_going=True)
    assert unit.processes() == 2
    assert [recorder.count for recorder in unit.recorders] == [3 if side != second else 2 for side in (0, 1)]
    for kept in unit.measured():
        assert [run.get_metadata()[PAIR_KEY] for run in kept.get_runs()] == [1, 2]


# -- the next worker, started ahead of its turn -----------------------------------------------


def test_one_benchmark_names_itself_as_next_until_its_last_worker():
    log = []
    [unit] = single_units(["a"], log, 3)
    run_schedule([unit], 7)
    recorder = unit.recorders[0]
    assert recorder.followings == [recorder, recorder, None]


def test_a_suite_names_the_next_benchmark_of_the_round_and_none_after_the_last():
    log = []
    units = single_units(["a", "b", "c"], log, 2)
    run_schedule(units, 7, shuffle=True)
    by_name = {unit.name: unit.recorders[0] for unit in units}
    for round_names in rounds_of(log):
        for index, name in enumerate(round_names):
            following = by_name[name].followings.pop(0)
            expected = by_name[round_names[index + 1]] if index + 1 < len(round_names) else None
            assert following is expected


def test_a_pair_names_its_other_side_then_the_first_side_of_the_next_pair():
    log = []
    recorders = [FakeRecorder("a", log, side) for side in (0, 1)]
    unit = ScheduledBenchmark(recorders, 4, 5)
    run_schedule([unit], 5)
    order = [side for _, side, _ in log]
    followings = [recorders[side].followings.pop(0) for side in order]
    assert followings == [*(recorders[side] for side in order[1:]), None]
