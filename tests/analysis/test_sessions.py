"""perf.analysis.sessions: the drift that commits measured together share
(round effects, offsets of linked sessions, groups), on constructed data."""

from __future__ import annotations

import math
import random

import pytest

from perf.analysis.sessions import Recorded, adjust, align_sessions, commit_groups, round_effects
from perf.analysis.statistics import mean, variance


def session(name, levels, rounds=10, load=None, *, noise=0.01, seed=1, start=1):
    """The recordings of one session: commit ``c<i>`` at log level
    *levels[i]*, one process per round, *load[r]* added to every process
    of round r (a load that came and went)."""
    rng = random.Random(seed)
    load = load or [0.0] * rounds
    numbers = tuple(range(start, start + rounds))
    return [
        Recorded(f"c{index}", name, tuple(level + load[r] + rng.gauss(0.0, noise) for r in range(rounds)), numbers)
        for index, level in enumerate(levels)
    ]


def test_round_effects_take_out_a_load_that_hit_every_commit():
    rng = random.Random(5)
    load = [rng.choice([0.0, 0.0, 0.3]) for _ in range(20)]  # a third of the rounds 35 % slower
    recordings = session("s", [0.0, 0.0, 0.1, 0.1], rounds=20, load=load, noise=0.005)
    raw_spread = mean([variance(item.logs) for item in recordings])
    adjusted = round_effects(recordings)
    for values in adjusted:
        assert variance(values.logs) < raw_spread / 50  # the load is gone
        assert values.spread_factor == pytest.approx(4 / 3)
    # the commits' difference is kept
    levels = [mean(values.logs) for values in adjusted]
    assert levels[2] - levels[0] == pytest.approx(0.1, abs=0.005)


def test_rounds_a_commit_missed_and_lone_rounds():
    recordings = session("s", [0.0, 0.2], rounds=6, load=[0.0, 0.5, 0.0, 0.5, 0.0, 0.5], noise=0.0)
    # the second commit missed rounds 5 and 6; it alone measured round 7
    second = recordings[1]
    recordings[1] = second._replace(logs=(*second.logs[:4], 0.2), rounds=(1, 2, 3, 4, 7))
    adjusted = round_effects(recordings)
    assert adjusted[1].logs[-1] == pytest.approx(0.2)  # alone in its round: kept as it was
    assert mean(adjusted[1].logs[:4]) - mean(adjusted[0].logs[:4]) == pytest.approx(0.2, abs=1e-9)


def test_recordings_without_rounds_keep_their_values():
    alone = Recorded("c0", "", (0.1, 0.2, 0.3))
    assert round_effects([alone]) == [(alone.logs, 1.0)]
    pair = [alone, Recorded("c1", "", (0.4, 0.5))]
    assert [values.logs for values in round_effects(pair)] == [pair[0].logs, pair[1].logs]


def test_sessions_that_share_commits_are_aligned():
    # two batches of a recording: c0-c3 and c2-c5, the second on a machine
    # 6 % slower; c2 and c3 are in both
    first = session("a", [0.0, 0.0, 0.0, 0.0], noise=0.002, seed=1)
    second = [
        item._replace(commit=f"c{index + 2}")
        for index, item in enumerate(session("b", [0.06, 0.06, 0.06 + 0.1, 0.06 + 0.1], noise=0.002, seed=2))
    ]
    recordings = first + second
    aligned = align_sessions(recordings, round_effects(first) + round_effects(second))
    by_commit = {}
    for item, values in zip(recordings, aligned):
        by_commit.setdefault(item.commit, []).append(mean(values.logs))
    assert max(by_commit["c2"]) - min(by_commit["c2"]) < 0.005  # both recordings of c2 now agree
    assert mean(by_commit["c5"]) - mean(by_commit["c0"]) == pytest.approx(0.1, abs=0.005)
    groups = commit_groups(recordings)
    assert len(set(groups.values())) == 1  # linked by c2 and c3


def test_adjust_is_round_effects_then_alignment():
    recordings = session("a", [0.0, 0.05], load=[0.2 * (r % 2) for r in range(10)], noise=0.001)
    adjusted = adjust(recordings)
    assert all(variance(values.logs) < 1e-5 for values in adjusted)


def test_commits_recorded_alone_are_groups_of_their_own():
    alone = [Recorded(f"c{index}", "", (0.0, 0.1)) for index in range(3)]
    together = session("s", [0.0, 0.0], rounds=2)
    groups = commit_groups([*alone, *[item._replace(commit=f"d{i}") for i, item in enumerate(together)]])
    assert len({groups["c0"], groups["c1"], groups["c2"]}) == 3
    assert groups["d0"] == groups["d1"] and groups["d0"] not in {groups["c0"], groups["c1"], groups["c2"]}
    # a commit recorded twice alone: one group, its own; its recordings are
    # pooled as they are (each has its own drift: averaging them halves it)
    twice = [Recorded("c0", "", (0.0,)), Recorded("c0", "", (0.1,))]
    assert commit_groups(twice) == {"c0": 0}
    assert [values.logs for values in adjust(twice)] == [(0.0,), (0.1,)]


def test_logs_are_not_changed_in_place():
    recordings = session("s", [0.0, 0.1], rounds=4, load=[0.0, 0.3, 0.0, 0.3])
    before = [item.logs for item in recordings]
    adjust(recordings)
    assert [item.logs for item in recordings] == before
    assert all(math.isfinite(value) for item in recordings for value in item.logs)
