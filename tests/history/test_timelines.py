"""A store's timelines (perf.history.timelines), from a store's index as
HistoryStore.points() gives it: commits in order, recordings of one
commit pooled, the drift shared by a recording taken out, changes found."""

from __future__ import annotations

import random
from typing import NamedTuple

import pytest

from perf.history.timelines import Entry, build_timeline, timelines


class Recording(NamedTuple):
    path: str
    commit: str
    date: str
    machine: str


class Point(NamedTuple):
    benchmark: str
    unit: str
    recording: Recording
    process_means: tuple
    probes: tuple = ()
    probe_source: str = ""
    session: str = ""
    rounds: tuple = ()
    shares: tuple = ()


class FakeStore:
    """What timelines() reads of a HistoryStore: recordings in order and
    their points."""

    def __init__(self, points):
        self._points = points

    def recordings(self, machine=None):
        seen = {}
        for point in self._points:
            if machine in (None, point.recording.machine):
                seen.setdefault(point.recording.path, point.recording)
        return list(seen.values())

    def points(self, benchmarks=None, machine=None):
        return [
            point
            for point in self._points
            if (benchmarks is None or point.benchmark in benchmarks) and machine in (None, point.recording.machine)
        ]


def commit_id(index):
    return f"{index:040x}"


def history(*, commits=30, benchmarks=8, machine="m1", steps=(), drifts=None, seed=5, skip=()):
    """Points of *commits* recordings of *benchmarks* benchmarks; *steps*:
    (benchmark, first commit, factor); *skip*: (benchmark, commit) absent."""
    rng = random.Random(seed)
    points = []
    for index in range(commits):
        recording = Recording(
            f"results/{machine}/{index}.json", commit_id(index), f"2026-10-{1 + index % 28:02d}", machine
        )
        drift = drifts[index] if drifts else rng.gauss(0.0, 0.003)
        for bench in range(benchmarks):
            if (bench, index) in skip:
                continue
            level = 0.010 * (1 + bench) * (1 + drift)
            for who, at, factor in steps:
                if who == bench and index >= at:
                    level *= factor
            means = tuple(level * (1 + rng.gauss(0.0, 0.02)) for _ in range(20))
            points.append(Point(f"b{bench}", "second", recording, means))
    return points


def test_a_timeline_per_benchmark_and_machine_sorted():
    store = FakeStore(history(benchmarks=3) + history(benchmarks=2, machine="m0", seed=6))
    found = timelines(store)
    assert [(timeline.benchmark, timeline.machine) for timeline in found] == [
        ("b0", "m0"),
        ("b0", "m1"),
        ("b1", "m0"),
        ("b1", "m1"),
        ("b2", "m1"),
    ]
    assert all(len(timeline.commits) == 30 for timeline in found)
    assert [len(timeline.commits) for timeline in timelines(store, machine="m0")] == [30, 30]


def test_points_are_the_measured_means_with_their_intervals():
    (timeline,) = timelines(FakeStore(history(benchmarks=1)), detect=False)
    point = timeline.commits[0]
    assert point.commit == commit_id(0)
    assert point.date == "2026-10-01"
    assert point.processes == 20
    assert point.recordings == 1
    assert point.low < point.mean < point.high
    assert point.mean == pytest.approx(0.010, rel=0.03)
    assert timeline.changes == timeline.spikes == ()


def test_a_step_is_a_change_with_full_commit_ids():
    found = {timeline.benchmark: timeline for timeline in timelines(FakeStore(history(steps=[(3, 20, 1.05)])))}
    (change,) = found["b3"].changes
    assert (change.before, change.after, change.index) == (commit_id(19), commit_id(20), 20)
    assert change.direction == "slower"
    assert change.ci_low < change.ratio < change.ci_high
    assert change.ratio == pytest.approx(1.05, rel=0.01)
    assert all(not found[name].changes for name in found if name != "b3")


def test_selecting_benchmarks_keeps_the_drift_of_all():
    rng = random.Random(9)
    drifts = [rng.gauss(0.0, 0.02) for _ in range(30)]
    points = history(drifts=drifts, steps=[(2, 28, 1.04)])
    (selected,) = timelines(FakeStore(points), benchmarks=["b2"])
    assert [change.after for change in selected.changes] == [commit_id(28)]
    # alone, the benchmark cannot tell a 4 % step two commits ago from a 2 % drift
    (alone,) = timelines(FakeStore([point for point in points if point.benchmark == "b2"]))
    assert alone.changes == ()


def test_a_recording_slow_for_every_benchmark_is_a_spike_not_a_change():
    drifts = [0.0] * 30
    drifts[12] = 0.15
    found = timelines(FakeStore(history(drifts=drifts)))
    assert all(timeline.changes == () for timeline in found)
    assert all([spike.commit for spike in timeline.spikes] == [commit_id(12)] for timeline in found)


def test_a_benchmark_missing_at_some_commits_has_a_shorter_timeline():
    store = FakeStore(history(benchmarks=6, skip={(1, 4), (1, 5), (1, 17)}, steps=[(1, 20, 0.95)]))
    found = {timeline.benchmark: timeline for timeline in timelines(store)}
    commits = [point.commit for point in found["b1"].commits]
    assert len(commits) == 27
    assert commit_id(4) not in commits
    (change,) = found["b1"].changes
    assert (change.before, change.after, change.direction) == (commit_id(19), commit_id(20), "faster")


def test_recordings_of_one_commit_are_pooled():
    rng = random.Random(2)
    entries = []
    for index in range(12):
        for copy in range(2 if index == 3 else 1):
            means = tuple(0.01 * (1 + rng.gauss(0.0, 0.02)) for _ in range(10))
            entries.append(Entry(commit_id(index), None, f"r{index}-{copy}", means))
    timeline = build_timeline("b", "m", "second", entries, {})
    assert len(timeline.commits) == 12
    assert timeline.commits[3].processes == 20
    assert timeline.commits[3].recordings == 2


def test_the_speed_probe_takes_the_machine_out_of_a_single_benchmark():
    """One benchmark, the machine 4 % slower for five recordings in a row:
    without probes that is a change (and its revert); the probes of those
    processes ran 4 % slower too, so it is the machine."""
    rng = random.Random(4)
    points = []
    for index in range(30):
        machine = 1.04 if 10 <= index < 15 else 1.0
        recording = Recording(f"r{index}", commit_id(index), None, "m")
        means = tuple(0.01 * machine * (1 + rng.gauss(0.0, 0.01)) for _ in range(20))
        probes = tuple(1e-3 * machine * (1 + rng.gauss(0.0, 0.005)) for _ in range(20))
        points.append((recording, means, probes))
    without = FakeStore([Point("b", "second", recording, means) for recording, means, _ in points])
    assert [change.index for change in timelines(without)[0].changes] == [10, 15]
    with_probes = FakeStore([Point("b", "second", recording, means, probes) for recording, means, probes in points])
    (timeline,) = timelines(with_probes)
    assert timeline.changes == ()
    # the points shown are the measurements as recorded
    assert timeline.commits[12].mean == pytest.approx(0.0104, rel=0.01)


def _interpreter_history(kind):
    """The history of an interpreter (issue 21): commits 0-9 built as
    "3.11", 10-19 as "3.12", which runs the benchmark 25 % slower; with
    perf's first probe (*kind* "python"), 3.12 also runs the probe 10 %
    faster, as the real ones did; a native probe runs alike in both."""
    rng = random.Random(8)
    points = []
    for index in range(20):
        newer = index >= 10
        recording = Recording(f"r{index}", commit_id(index), None, "m")
        means = tuple(0.01 * (1.25 if newer else 1.0) * (1 + rng.gauss(0.0, 0.01)) for _ in range(20))
        probe = 0.9 if newer and kind == "python" else 1.0
        probes = tuple(1e-4 * probe * (1 + rng.gauss(0.0, 0.005)) for _ in range(20))
        source = f"python\ncpython\n{'3.12.1' if newer else '3.11.7'}" if kind == "python" else kind
        points.append(Point("b", "second", recording, means, probes, source))
    return points


@pytest.mark.parametrize("kind", ["python", "zlib"])
def test_the_history_of_an_interpreter_keeps_its_real_difference(kind):
    (timeline,) = timelines(FakeStore(_interpreter_history(kind)))
    (change,) = timeline.changes
    assert change.index == 10 and change.direction == "slower"
    assert change.ratio == pytest.approx(1.25, rel=0.01)


def test_perfs_first_probe_compared_across_interpreters_would_distort_it():
    # what the timeline said before probes of different sources were kept
    # apart: the 10 % of the probe taken out of a real 25 %
    points = [point._replace(probe_source="python") for point in _interpreter_history("python")]
    (change,) = timelines(FakeStore(points))[0].changes
    assert change.ratio > 1.3


def _session_history(step=1.08, rounds=12, with_session=True):
    """One history record session of 24 commits: +*step* at commit 14,
    reverted at commit 20; each round a load slowed every commit alike by
    0-40 % (runs of slow rounds, as a busy machine makes)."""
    rng = random.Random(11)
    load, slow = [], False
    for _ in range(rounds):
        slow = rng.random() < (0.7 if slow else 0.3)
        load.append(rng.uniform(0.2, 0.4) if slow else 0.0)
    points = []
    for index in range(24):
        level = 0.01 * (step if 14 <= index < 20 else 1.0)
        recording = Recording(f"r{index}", commit_id(index), None, "m")
        means = tuple(level * (1 + load[r]) * (1 + rng.gauss(0.0, 0.01)) for r in range(rounds))
        session = ("777", tuple(range(1, rounds + 1))) if with_session else ("", ())
        points.append(Point("b", "second", recording, means, (), "", *session))
    return points


def test_a_session_takes_out_the_load_its_rounds_shared():
    (timeline,) = timelines(FakeStore(_session_history(step=1.04)))
    assert [(change.index, change.direction) for change in timeline.changes] == [(14, "slower"), (20, "faster")]
    assert timeline.changes[0].ratio == pytest.approx(1.04, rel=0.01)
    # the same values without their rounds: the load drowns a 4 % step
    (alone,) = timelines(FakeStore(_session_history(step=1.04, with_session=False)))
    assert alone.changes == ()


def test_the_cpu_share_leaves_out_the_time_off_the_cpu():
    rng = random.Random(2)
    points = []
    for index in range(24):
        level = 0.01 * (1.08 if index >= 12 else 1.0)
        # a run of recordings that lost a third of the CPU in every process:
        # a step, in wall time (the other recordings say the code keeps the CPU)
        share = 0.66 if 4 <= index < 9 else 0.999
        means = tuple(level / share * (1 + rng.gauss(0.0, 0.01)) for _ in range(10))
        recording = Recording(f"r{index}", commit_id(index), None, "m")
        points.append(Point("b", "second", recording, means, shares=(share,) * 10))
    (timeline,) = timelines(FakeStore(points))
    assert [change.index for change in timeline.changes] == [12]
    without = [point._replace(shares=()) for point in points]
    assert [change.index for change in timelines(FakeStore(without))[0].changes] != [12]


def test_code_that_waits_by_itself_keeps_its_wall_times():
    # a benchmark that sleeps half of its time: low shares everywhere; a
    # change that makes it wait longer is a change
    points = []
    for index in range(20):
        level = 0.01 * (1.5 if index >= 10 else 1.0)
        share = 0.5 / (1.5 if index >= 10 else 1.0)
        recording = Recording(f"r{index}", commit_id(index), None, "m")
        points.append(Point("b", "second", recording, (level,) * 10, shares=(share,) * 10))
    (timeline,) = timelines(FakeStore(points))
    assert [change.index for change in timeline.changes] == [10]
