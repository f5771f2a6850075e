"""history record, a revision at a time: worktrees, builds, the store
(real git repositories; the measured command is replaced by a fake that
writes a result file, so no worker runs)."""

from __future__ import annotations

import os
import sys

import helpers
import pytest

import perf
from perf.errors import BuildError, PerfError, UsageError
from perf.history import record as record_module
from perf.history.git import Repository
from perf.history.record import RecordEvents, RecordOptions, check_args, record
from perf.history.store import HistoryStore
from perf.history.worktrees import worktree_python


def example_repo(path, commits=6, regression=3):
    return helpers.example_repo(path, commits, regression)


@pytest.fixture
def repo(tmp_path):
    return example_repo(tmp_path / "repo")


class FakeRuns:
    """Replaces the measured command: writes a result whose value is the
    length of the worktree's checksum.py, and remembers each call."""

    def __init__(self, fail_at=None):
        self.calls = []
        self.fail_at = fail_at

    def __call__(self, worktree, command, commit):
        self.calls.append((worktree, command, commit))
        if commit == self.fail_at:
            raise PerfError(f"{commit[:10]}: bench.py failed with exit status 1")
        assert os.path.exists(os.path.join(worktree, "checksum.py"))
        size = os.path.getsize(os.path.join(worktree, "checksum.py"))
        runs = [perf.Run([size * 1e-6, size * 1.01e-6], metadata={"name": "checksum"}, collect_metadata=False)] * 3
        perf.Benchmark(runs).dump(command[-1])


@pytest.fixture
def fake_runs(monkeypatch):
    fake = FakeRuns()
    monkeypatch.setattr(record_module, "run_command", fake)
    return fake


def test_each_revision_is_measured_in_its_worktree_and_added(repo, tmp_path, fake_runs):
    repository = Repository(repo.path)
    commits = [repo.commits[0], repo.commits[-1]]
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        recordings = record(store, repository, commits, ["bench.py", "-p", "3"], options=RecordOptions(machine="m1"))
        assert [recording.commit for recording in recordings] == commits
        assert [recording.date for recording in recordings] == [repository.date(commit) for commit in commits]
        assert {recording.machine for recording in recordings} == {"m1"}
        assert [recording.branch for recording in recordings] == [None, None]
        assert len(store.recordings()) == 2
    worktree, command, commit = fake_runs.calls[0]
    assert command[:4] == [sys.executable, "bench.py", "-p", "3"]
    assert command[4] == "-o" and command[5].endswith(".json")
    assert commit == commits[0]
    assert not os.path.exists(worktree)  # removed after the revision


def test_the_branch_is_given_to_the_store(repo, tmp_path, fake_runs):
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        (recording,) = record(
            store, Repository(repo.path), repo.commits[:1], ["bench.py"], options=RecordOptions(branch="main")
        )
    assert recording.branch == "main"


def test_revisions_recorded_before_a_failure_stay(repo, tmp_path, monkeypatch):
    fake = FakeRuns(fail_at=repo.commits[2])
    monkeypatch.setattr(record_module, "run_command", fake)
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        with pytest.raises(PerfError, match=repo.commits[2][:10]):
            record(store, Repository(repo.path), repo.commits[:4], ["bench.py"])
        assert [recording.commit for recording in store.recordings()] == repo.commits[:2]
    assert len(fake.calls) == 3  # nothing after the failure


def test_a_failing_build_names_the_revision_and_keeps_what_was_recorded(repo, tmp_path, fake_runs):
    build = f'test "$(git rev-parse HEAD)" != {repo.commits[1]}'
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        with pytest.raises(BuildError, match=f"^{repo.commits[1][:10]}: the build .* failed with exit status 1"):
            record(store, Repository(repo.path), repo.commits[:3], ["bench.py"], options=RecordOptions(build=build))
        assert [recording.commit for recording in store.recordings()] == repo.commits[:1]


def test_the_build_runs_before_the_command(repo, tmp_path, fake_runs):
    events = Events()
    options = RecordOptions(build="echo built > built.txt")
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        record(store, Repository(repo.path), repo.commits[:1], ["bench.py"], options=options, events=events)
    assert events.seen == [("building", repo.commits[0]), ("measuring", repo.commits[0]), ("recorded", repo.commits[0])]


class Events(RecordEvents):
    def __init__(self):
        self.seen = []

    def building(self, commit):
        self.seen.append(("building", commit))

    def measuring(self, commit):
        self.seen.append(("measuring", commit))

    def recorded(self, commit, recordings):
        assert [recording.commit for recording in recordings] == [commit]
        self.seen.append(("recorded", commit))


def test_python_inside_the_worktree(repo, tmp_path, fake_runs):
    options = RecordOptions(python="./python", build=f"ln -s {sys.executable} python")
    with HistoryStore.open_or_create(str(tmp_path / "store")) as store:
        record(store, Repository(repo.path), repo.commits[:1], ["bench.py"], options=options)
    worktree, command, _ = fake_runs.calls[0]
    assert command[0] == os.path.join(worktree, "python")


def test_python_missing_in_the_worktree(repo, tmp_path, fake_runs):
    store = HistoryStore.open_or_create(str(tmp_path / "store"))
    options = RecordOptions(python="./python")
    with pytest.raises(UsageError, match=r"^--python: \./python: no such executable in the worktree of "):
        record(store, Repository(repo.path), repo.commits[:1], ["bench.py"], options=options)
    store.close()
    assert fake_runs.calls == []


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
        (["bench.py", "--output=x.json"], "--output cannot be given after --"),
        (["bench.py", "--append", "x.json"], "--append cannot be given"),
    ],
)
def test_check_args_refuses(args, message):
    with pytest.raises(UsageError, match=message):
        check_args(args)


def test_check_args_accepts_a_script_or_timeit():
    assert check_args(["bench.py", "-p", "3"]) == ["bench.py", "-p", "3"]
    assert check_args(["-m", "perf", "timeit", "1+1"]) == ["-m", "perf", "timeit", "1+1"]
