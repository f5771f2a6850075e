"""history record: revisions measured together in worktrees, batches,
progress, builds, the store (real git repositories; the sessions are a
fake that runs no worker, tests/helpers.fake_measurer)."""

from __future__ import annotations

import os
import sys

import helpers
import pytest

from perf.errors import BuildError, UsageError, WorkerError
from perf.history import record as record_module
from perf.history.git import Repository
from perf.history.record import RecordEvents, RecordOptions, batches, parse_args, record
from perf.history.store import HistoryStore
from perf.history.worktrees import worktree_python

# their budgets and progress lines are a CPython's, whatever runs the tests
pytestmark = pytest.mark.usefixtures("no_jit_budget")


def example_repo(path, commits=6, regression=3):
    return helpers.example_repo(path, commits, regression)


@pytest.fixture
def repo(tmp_path):
    return example_repo(tmp_path / "repo")


@pytest.fixture
def measurer(monkeypatch):
    fake = helpers.fake_measurer()
    monkeypatch.setattr(record_module, "CommitMeasurer", fake)
    return fake


def command(*args):
    return parse_args(["bench.py", *args], None, 2)


class Events(RecordEvents):
    def __init__(self):
        self.seen = []
        self.progress_seen = []

    def building(self, commit):
        self.seen.append(("building", commit))

    def measuring(self, commits, batch, batches):
        self.seen.append(("measuring", tuple(commits), batch, batches))

    def progress(self, progress):
        self.progress_seen.append(progress)

    def recorded(self, commit, recordings):
        assert [recording.commit for recording in recordings] == [commit]
        self.seen.append(("recorded", commit))


def test_the_revisions_are_measured_together_and_added(repo, tmp_path, measurer):
    repository = Repository(repo.path)
    commits = [repo.commits[0], repo.commits[-1]]
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        recordings = record(store, repository, commits, command("-p", "3"), options=RecordOptions(machine="m1"))
        assert [recording.commit for recording in recordings] == commits
        assert [recording.date for recording in recordings] == [repository.date(commit) for commit in commits]
        assert {recording.machine for recording in recordings} == {"m1"}
        assert [recording.branch for recording in recordings] == [None, None]
        points = store.points(["checksum"])
        # each commit measured in its own worktree (the regression made checksum.py longer)
        assert points[0].process_means[0] < points[1].process_means[0]
        assert [len(point.process_means) for point in points] == [3, 3]
    assert measurer.sessions == [commits]  # one session, both revisions in it


def test_the_branch_is_given_to_the_store(repo, tmp_path, measurer):
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        (recording,) = record(
            store, Repository(repo.path), repo.commits[:1], command(), options=RecordOptions(branch="main")
        )
    assert recording.branch == "main"


def test_batches_of_bounded_worktrees_overlap():
    commits = [f"c{index}" for index in range(10)]
    assert batches(commits, None) == [commits]
    assert batches(commits, 10) == [commits]
    assert batches(commits, 4) == [commits[0:4], commits[2:6], commits[4:8], commits[6:10]]
    assert batches(commits, 6) == [commits[0:6], commits[4:10]]
    assert batches(commits, 3) == [commits[0:3], commits[2:5], commits[4:7], commits[6:9], commits[8:10]]
    assert batches(commits[:2], 2) == [commits[:2]]
    with pytest.raises(UsageError, match="--max-worktrees must be at least 2"):
        batches(commits, 1)


def test_batches_are_sessions_and_their_worktrees_are_released(repo, tmp_path, measurer):
    events = Events()
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        recordings = record(
            store, Repository(repo.path), repo.commits, command(), options=RecordOptions(max_worktrees=4), events=events
        )
    assert measurer.sessions == [repo.commits[0:4], repo.commits[2:6]]
    # the commits the batches share are recorded in both
    assert [recording.commit for recording in recordings] == [*repo.commits[0:4], *repo.commits[2:6]]
    measuring = [event for event in events.seen if event[0] == "measuring"]
    assert measuring == [("measuring", tuple(repo.commits[0:4]), 1, 2), ("measuring", tuple(repo.commits[2:6]), 2, 2)]
    assert not [name for name in os.listdir(tmp_path) if name.startswith("perf-worktree")]


def test_a_failing_batch_keeps_the_ones_before(repo, tmp_path, measurer):
    build = f'test "$(git rev-parse HEAD)" != {repo.commits[4]}'
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        with pytest.raises(BuildError, match=f"^{repo.commits[4][:10]}: the build .* failed with exit status 1"):
            record(
                store,
                Repository(repo.path),
                repo.commits,
                command(),
                options=RecordOptions(build=build, max_worktrees=4),
            )
        assert [recording.commit for recording in store.recordings()] == repo.commits[0:4]


def test_a_failing_worker_names_its_revision(repo, tmp_path, measurer):
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        with pytest.raises(WorkerError, match=rf"\({repo.commits[0][:10]}\) failed"):
            record(store, Repository(repo.path), repo.commits[:2], parse_args(["bench.py", "--fail"], None, 2))
        assert store.recordings() == []


def test_events_build_measure_progress_record(repo, tmp_path, measurer):
    events = Events()
    options = RecordOptions(build="echo built > built.txt")
    commits = repo.commits[:2]
    clock = helpers.FakeClock(step=2.0)  # a worker every 2 s
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        record(store, Repository(repo.path), commits, command("-p", "3"), options=options, events=events, clock=clock)
    assert events.seen == [
        ("measuring", tuple(commits), 1, 1),
        ("building", commits[0]),  # the worktrees are built when the session needs them
        ("building", commits[1]),
        ("recorded", commits[0]),
        ("recorded", commits[1]),
    ]
    progress = events.progress_seen
    assert [(item.done, item.total) for item in progress] == [(done, 6) for done in range(1, 7)]
    assert [item.round for item in progress] == [1, 1, 2, 2, 3, 3]
    assert [item.commit for item in progress] == commits * 3
    # time from the first worker on (it calibrates; builds come before it)
    assert [item.elapsed for item in progress] == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    # nothing said before 2 rounds are done, then 2 s a worker
    assert [item.left for item in progress] == [None, None, None, 4.0, 2.0, 0.0]


@pytest.mark.parametrize(
    ("elapsed", "done", "left", "per_round", "expected"),
    [
        (6.0, 4, 2, 2, 4.0),  # 3 workers after the first in 6 s: 2 s each
        (6.0, 3, 3, 2, None),  # 1.5 rounds: say nothing
        (0.0, 1, 5, 0.5, None),  # one worker: nothing to time
        (10.0, 6, 0, 2, 0.0),
        (30.0, 31, 90, 10, 90.0),  # a later batch: workers of every batch so far
    ],
)
def test_the_time_left_counts_from_the_first_worker_after_2_rounds(elapsed, done, left, per_round, expected):
    assert record_module.time_left(elapsed, done, left, per_round) == expected


def test_python_inside_the_worktree(repo, tmp_path, measurer):
    options = RecordOptions(python="./python", build=f"ln -s {sys.executable} python")
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        record(store, Repository(repo.path), repo.commits[:1], parse_args(["bench.py"], "./python", 1), options=options)
    assert len(measurer.sessions) == 1


def test_python_missing_in_the_worktree(repo, tmp_path, measurer):
    store = HistoryStore.open_or_create(str(tmp_path / "store"))
    options = RecordOptions(python="./python")
    with pytest.raises(UsageError, match=r"^--python: \./python: no such executable in the worktree of "):
        record(store, Repository(repo.path), repo.commits[:1], parse_args(["bench.py"], "./python", 1), options=options)
    store.close()
    assert measurer.sessions == []


def test_worktree_python(tmp_path):
    assert worktree_python(str(tmp_path), None, "a" * 40) == sys.executable
    assert worktree_python(str(tmp_path), sys.executable, "a" * 40) == sys.executable
    (tmp_path / "python").write_text("")
    with pytest.raises(UsageError, match="no such executable"):
        worktree_python(str(tmp_path), "./python", "a" * 40)  # not executable
    (tmp_path / "python").chmod(0o755)
    assert worktree_python(str(tmp_path), "./python", "a" * 40) == str(tmp_path / "python")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (None, "missing the command to measure after --"),
        ([], "missing the command to measure after --"),
        (["-c", "pass"], "must be a bench script or -m perf timeit, not -c"),
        (["-m", "pyperformance"], "not -m"),
        (["bench.py", "-o", "x.json"], "-o cannot be given after --"),
        (["bench.py", "--output=x.json"], "-o cannot be given after --"),
        (["bench.py", "--append", "x.json"], "--append cannot be given"),
        (["bench.py", "--target-precision", "1"], "--target-precision cannot be given after -- with several"),
    ],
)
def test_parse_args_refuses(args, message):
    with pytest.raises(UsageError, match=message):
        parse_args(args, None, 2)


def test_parse_args_gives_the_runners_budget():
    assert parse_args(["bench.py"], None, 2).plan.options.processes == 24
    assert parse_args(["bench.py", "-p", "3"], None, 2).plan.options.processes == 3
    timeit = parse_args(["-m", "perf", "timeit", "1+1"], None, 1)
    assert timeit.plan.options.processes == 24 and timeit.extra == ("1+1",)
    # one revision: --target-precision is the runner's, as in a plain run
    assert parse_args(["bench.py", "--target-precision", "1"], None, 1).plan.options.target_precision == 0.01
