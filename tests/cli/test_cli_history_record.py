"""python -m perf history record: checks before measuring, one line per
revision, one-line errors (the measured command is a fake: no worker)."""

from __future__ import annotations

import pytest
from helpers import example_repo

import perf
from perf.cli.main import main
from perf.history import record as record_module
from perf.history.store import HistoryStore


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return example_repo(tmp_path_factory.mktemp("record") / "repo", commits=4, regression=2)


@pytest.fixture
def runs(monkeypatch):
    calls = []

    def fake(worktree, command, commit):
        calls.append(commit)
        if "--fail" in command:
            raise perf.errors.PerfError(f"{commit[:10]}: bench.py --fail failed with exit status 1")
        value = 1e-3 * (1 + int(commit[:6], 16) / 2**24)  # one file per commit
        runs = [perf.Run([value, 1.1 * value], metadata={"name": "checksum"}, collect_metadata=False)] * 2
        perf.Benchmark(runs).dump(command[-1])

    monkeypatch.setattr(record_module, "run_command", fake)
    return calls


def run(capsys, *args):
    status = main(["history", "record", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def test_one_line_per_revision(repo, tmp_path, capsys, runs):
    store = tmp_path / "store"
    status, out, err = run(capsys, store, "HEAD~3", "HEAD", "--repo", repo.path, "--machine", "m1", "--", "bench.py")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"Recorded {repo.commits[0][:10]} 2026-10-01T12:00:00+00:00: results/m1/")
    assert lines[1].startswith(f"Recorded {repo.commits[-1][:10]} 2026-10-04T12:00:00+00:00: results/m1/")
    with HistoryStore(str(store)) as opened:
        assert [recording.commit for recording in opened.recordings()] == [repo.commits[0], repo.commits[-1]]
    assert runs == [repo.commits[0], repo.commits[-1]]


def test_a_build_is_announced(repo, tmp_path, capsys, runs):
    status, out, _ = run(capsys, tmp_path / "s", "HEAD", "--repo", repo.path, "--build", "true", "--", "bench.py")
    assert status == 0
    assert out.splitlines()[0] == f"Building {repo.commits[-1][:10]}..."


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "--", "bench.py"], "ERROR: unknown revision: nope\n"),
        (["HEAD", "HEAD~9", "--", "bench.py"], "ERROR: unknown revision: HEAD~9\n"),
        (["HEAD"], "ERROR: missing the command to measure after --"),
        (["HEAD", "--"], "ERROR: missing the command to measure after --"),
        (["HEAD", "--", "bench.py", "-o", "x.json"], "ERROR: -o cannot be given after --"),
    ],
)
def test_bad_input_is_refused_before_measuring(repo, tmp_path, capsys, runs, args, message):  # noqa: PLR0917
    status, _out, err = run(capsys, tmp_path / "store", "--repo", repo.path, *args)
    assert status == 2
    assert err.startswith(message) and err.count("\n") == 1
    assert runs == []
    assert not (tmp_path / "store").exists()  # nothing created either


def test_not_a_git_repository(tmp_path, capsys, runs):
    status, _, err = run(capsys, tmp_path / "store", "HEAD", "--repo", tmp_path, "--", "bench.py")
    assert (status, err) == (2, f"ERROR: not a git repository: {tmp_path}\n")


def test_a_folder_that_is_not_a_store(repo, tmp_path, capsys, runs):
    (tmp_path / "notes.txt").write_text("mine\n")
    status, _, err = run(capsys, tmp_path, "HEAD", "--repo", repo.path, "--", "bench.py")
    assert status == 1
    assert err == f"ERROR: {tmp_path} is not a perf history store (it has no perf-history.json and is not empty)\n"
    assert runs == []
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def test_a_failing_run_names_the_revision_and_keeps_the_ones_before(repo, tmp_path, capsys, runs, monkeypatch):
    store = tmp_path / "store"
    status, _out, err = run(capsys, store, "HEAD~1", "HEAD", "--repo", repo.path, "--", "bench.py")
    assert (status, err) == (0, "")
    status, _out, err = run(capsys, store, "HEAD~3", "HEAD~2", "--repo", repo.path, "--", "bench.py", "--fail")
    assert status == 1
    assert err == f"ERROR: {repo.commits[0][:10]}: bench.py --fail failed with exit status 1\n"
    with HistoryStore(str(store)) as opened:
        assert len(opened.recordings()) == 2


def test_a_failing_build(repo, tmp_path, capsys, runs):
    status, _out, err = run(capsys, tmp_path / "s", "HEAD", "--repo", repo.path, "--build", "exit 4", "--", "bench.py")
    assert status == 1
    assert err.startswith(f"ERROR: {repo.commits[-1][:10]}: the build 'exit 4' failed with exit status 4")
    assert runs == []
    # the store it would have created is not left behind, empty
    assert not (tmp_path / "s").exists()


def test_python_missing_in_the_worktree(repo, tmp_path, capsys, runs):
    status, _out, err = run(capsys, tmp_path / "s", "HEAD", "--repo", repo.path, "--python", "./python", "--", "b.py")
    assert status == 2
    assert err == f"ERROR: --python: ./python: no such executable in the worktree of {repo.commits[-1][:10]}\n"
