"""Change points of a timeline of commits (perf.analysis.changepoints).

Timelines are drawn from seeded generators: each test is deterministic, and
its numbers are far from the thresholds they test."""

from __future__ import annotations

import math
import random

import pytest

from perf.analysis import changepoints
from perf.analysis.changepoints import CommitSummary, find_changes, recording_drift, summarize
from perf.analysis.segments import split_threshold


def commit(level, rng, processes=20, noise=0.02, drift=0.0):
    """A commit at *level* (seconds): *processes* process means."""
    shift = rng.gauss(0.0, drift)
    return [level * (1 + shift) * (1 + rng.gauss(0.0, noise)) for _ in range(processes)]


def timeline(levels, seed=1, drift=0.005, **options):
    rng = random.Random(seed)
    return [summarize(commit(level, rng, drift=drift, **options)) for level in levels]


def test_summary_is_the_log_scale_mean_and_spread():
    summary = summarize([1.0, math.e])
    assert summary.level == pytest.approx(0.5)
    assert summary.spread == pytest.approx(0.5)
    assert summary.processes == 2
    assert summarize([2.0], shift=0.1).level == pytest.approx(math.log(2.0) - 0.1)
    assert math.isnan(summarize([2.0]).spread)


def test_an_empty_or_flat_timeline_has_no_change():
    assert find_changes([]).changes == ()
    found = find_changes(timeline([1.0] * 60))
    assert found.changes == ()
    assert found.spikes == ()


def test_a_step_is_one_change_at_its_commit_with_its_ratio():
    found = find_changes(timeline([1.0] * 30 + [1.05] * 30))
    (change,) = found.changes
    assert change.position == 30
    assert change.comparison.ratio == pytest.approx(1.05, rel=0.005)
    assert change.comparison.low < 1.05 < change.comparison.high
    assert change.comparison.verdict == "slower"
    # the fitted levels are the two segments
    assert found.levels[0] == pytest.approx(0.0, abs=0.003)
    assert found.levels[-1] == pytest.approx(math.log(1.05), abs=0.003)


def test_a_faster_change():
    (change,) = find_changes(timeline([1.0] * 20 + [0.97] * 20)).changes
    assert change.position == 20
    assert change.comparison.ratio < 1
    assert change.comparison.verdict == "faster"


def test_a_lone_spike_is_not_a_change():
    levels = [1.0] * 40
    levels[17] = 1.25
    found = find_changes(timeline(levels))
    assert found.changes == ()
    (spike,) = found.spikes
    assert spike.position == 17
    assert spike.ratio == pytest.approx(1.25, rel=0.02)


def test_two_spikes_side_by_side_are_both_spikes():
    levels = [1.0] * 40
    levels[20] = levels[21] = 1.3
    found = find_changes(timeline(levels))
    assert found.changes == ()
    assert [spike.position for spike in found.spikes] == [20, 21]


def test_a_change_that_reverts_later_is_two_changes():
    found = find_changes(timeline([1.0] * 20 + [1.05] * 6 + [1.0] * 20))
    assert [(change.position, change.comparison.verdict) for change in found.changes] == [
        (20, "slower"),
        (26, "faster"),
    ]


def test_two_commits_at_the_end_are_enough_one_is_not():
    assert [change.position for change in find_changes(timeline([1.0] * 40 + [1.03] * 2)).changes] == [40]
    assert find_changes(timeline([1.0] * 40 + [1.03])).changes == ()


def test_changes_within_the_margin_are_not_reported():
    levels = [1.0] * 30 + [1.006] * 30
    assert find_changes(timeline(levels, drift=0.0, processes=200)).changes == ()
    # ... unless the margin is smaller
    assert len(find_changes(timeline(levels, drift=0.0, processes=200), margin=0.002).changes) == 1


def test_the_drift_between_recordings_is_estimated_from_the_timeline():
    quiet = find_changes(timeline([1.0] * 80, drift=0.0))
    drifting = find_changes(timeline([1.0] * 80, drift=0.02))
    assert quiet.between < 0.003
    assert drifting.between == pytest.approx(0.02, rel=0.3)


def test_drift_widens_the_interval_of_a_change():
    narrow = find_changes(timeline([1.0] * 30 + [1.1] * 30, drift=0.0)).changes[0].comparison
    wide = find_changes(timeline([1.0] * 30 + [1.1] * 30, drift=0.02)).changes[0].comparison
    assert (wide.high - wide.low) > 3 * (narrow.high - narrow.low)


def test_a_commit_with_one_process_borrows_the_spread_of_the_others():
    commits = timeline([1.0] * 10 + [1.1] * 10)
    commits[5] = CommitSummary(commits[5].level, math.nan, 1)
    (change,) = find_changes(commits).changes
    assert change.position == 10


def test_the_split_threshold_grows_with_the_timeline():
    assert split_threshold(300, 0.01) > split_threshold(60, 0.01) > split_threshold(10, 0.01) > 2
    # a stretch is one test among many more
    assert split_threshold(60, 0.01, tests=60 * 30) > split_threshold(60, 0.01)


def drifting_machine(steps=(), commits=40, benchmarks=12, seed=3):
    """benchmark -> [(recording, summary)]: recordings share a 2 % drift;
    *steps*: (benchmark or None for all, first commit, factor)."""
    rng = random.Random(seed)
    drifts = [rng.gauss(0.0, 0.02) for _ in range(commits)]
    table = {}
    for bench in range(benchmarks):
        points = []
        for index in range(commits):
            level = 1.0 + bench
            for who, at, factor in steps:
                if who in (None, bench) and index >= at:
                    level *= factor
            points.append((f"r{index}", summarize(commit(level * (1 + drifts[index]), rng))))
        table[f"b{bench}"] = points
    return table, drifts


def test_the_drift_a_recording_shares_across_benchmarks_is_found():
    table, drifts = drifting_machine()
    drift = recording_drift(table, [f"r{i}" for i in range(40)])
    for index, expected in enumerate(drifts):
        assert drift[f"r{index}"] == pytest.approx(expected - sum(drifts) / len(drifts), abs=0.006)


def test_taking_the_shared_drift_out_finds_a_small_step_of_one_benchmark():
    table, _ = drifting_machine(steps=[(4, 37, 1.03)])
    drift = recording_drift(table, [f"r{i}" for i in range(40)])
    corrected = [
        CommitSummary(summary.level - drift[name], summary.spread, summary.processes) for name, summary in table["b4"]
    ]
    assert [change.position for change in find_changes(corrected).changes] == [37]
    # without the correction, three commits after a 3 % step do not stand out of a 2 % drift
    assert find_changes([summary for _, summary in table["b4"]]).changes == ()


def test_a_step_of_every_benchmark_is_not_taken_for_drift():
    table, _ = drifting_machine(steps=[(None, 20, 1.08)])
    drift = recording_drift(table, [f"r{i}" for i in range(40)])
    assert max(abs(value) for value in drift.values()) < 0.06
    for name, points in table.items():
        corrected = [
            CommitSummary(summary.level - drift[recording], summary.spread, summary.processes)
            for recording, summary in points
        ]
        assert [change.position for change in find_changes(corrected).changes] == [20], name


def test_recordings_with_few_benchmarks_get_no_drift():
    table, _ = drifting_machine(benchmarks=changepoints.MIN_BENCHMARKS - 1)
    assert recording_drift(table, [f"r{i}" for i in range(40)]) == {}


def test_two_spikes_among_three_commits_are_not_a_change(monkeypatch):
    levels = [1.0] * 40
    levels[20] = levels[22] = 1.06
    commits = timeline(levels, drift=0.01, seed=1)
    assert find_changes(commits).changes == ()
    # the rule that holds it: a short segment needs all its commits on its side
    monkeypatch.setattr("perf.analysis.segments.STRICT_BELOW", 0)
    assert find_changes(commits).changes != ()


# -- commits measured together (groups) -------------------------------------------------


def test_no_drift_between_commits_of_one_group():
    levels = [0.0, 0.01, -0.01, 0.3, 0.29, 0.31]
    errors = [1e-4] * 6
    assert changepoints.between_variance(levels, errors, [0] * 6) == 0.0
    # only the differences between groups count: here one, too few to estimate
    assert changepoints.between_variance(levels, errors, [0, 0, 0, 1, 1, 1]) == changepoints.UNLINKED_DRIFT**2
    # alone, the step is clipped as a change and the processes' error remains
    assert changepoints.between_variance(levels, errors) == pytest.approx(1e-4)


def test_a_group_sees_a_small_step_that_drift_would_hide():
    # each commit's recording drifts by 2 %: alone, a 3 % step two commits
    # from the end is drift; measured together, the drift is shared
    rng = random.Random(3)
    levels = [1.0] * 20 + [1.03] * 3
    drifts = [rng.gauss(0.0, 0.02) for _ in levels]
    together = [summarize(commit(level, rng, drift=0.0)) for level in levels]
    alone = [summarize(commit(level * (1 + shift), rng, drift=0.0)) for level, shift in zip(levels, drifts)]
    assert find_changes(alone).changes == ()
    (change,) = find_changes(together, groups=[0] * len(levels)).changes
    assert change.position == 20
    assert change.comparison.ratio == pytest.approx(1.03, rel=0.005)


def test_a_boundary_between_unlinked_sessions_is_not_a_change():
    # two sessions recorded on different days, sharing no commit: the
    # second ran 5 % slower; nothing tells that drift from a change
    rng = random.Random(4)
    summaries = [summarize(commit(1.0, rng, drift=0.0)) for _ in range(10)]
    summaries += [summarize(commit(1.05, rng, drift=0.0)) for _ in range(10)]
    groups = [0] * 10 + [1] * 10
    assert find_changes(summaries, groups=groups).changes == ()
    assert len(find_changes(summaries, groups=[0] * 20).changes) == 1  # one session: a change
    # a change inside one of them: the unlinked boundary's drift weighs on
    # every split that mixes the two, so it must be large to be found
    # (link the sessions by a shared commit: :func:`perf.analysis.sessions.align_sessions`)
    for ratio, found in ((1.1, 0), (1.25, 1)):
        inside = summaries[:15] + [item._replace(level=item.level + math.log(ratio)) for item in summaries[15:]]
        changes = find_changes(inside, groups=groups).changes
        assert [change.position for change in changes] == [15] * found
        assert [change.position for change in find_changes(inside, groups=[0] * 20).changes] == [10, 15]


def test_groups_of_one_commit_are_the_drift_model_of_before():
    summaries = timeline([1.0] * 30 + [1.05] * 30, drift=0.01)
    plain, grouped = find_changes(summaries), find_changes(summaries, groups=list(range(60)))
    assert grouped.changes == plain.changes and grouped.between == plain.between
