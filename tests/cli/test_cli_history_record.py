"""python -m perf history record: checks before measuring, one line per
revision, one-line errors (the measured command is a fake: no worker)."""

from __future__ import annotations

import pytest
from helpers import example_repo, fake_measurer

from perf.cli.main import main
from perf.history import record as record_module
from perf.history.store import HistoryStore

# their budgets and progress lines are a CPython's, whatever runs the tests
pytestmark = pytest.mark.usefixtures("no_jit_budget")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return example_repo(tmp_path_factory.mktemp("record") / "repo", commits=4, regression=2)


@pytest.fixture
def runs(monkeypatch):
    """The fake sessions (no worker runs): their ``sessions`` log."""
    fake = fake_measurer()
    monkeypatch.setattr(record_module, "CommitMeasurer", fake)
    return fake


def measured(fake):
    """The commits the fake measured, session after session."""
    return [commit for session in fake.sessions for commit in session]


def run(capsys, *args):
    status = main(["history", "record", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def test_one_line_per_revision(repo, tmp_path, capsys, runs):
    store = tmp_path / "store"
    status, out, err = run(capsys, store, "HEAD~3", "HEAD", "--repo", repo.path, "--machine", "m1", "--", "bench.py")
    assert status == 0
    assert err == "." * 48 + "\n"  # a dot per worker when stderr is not a terminal, as the runner
    lines = out.splitlines()
    assert len(lines) == 3
    assert lines[0] == "Measuring 2 revisions together: 24 rounds of 2 processes"
    assert lines[1].startswith(f"Recorded {repo.commits[0][:10]} 2026-10-01T12:00:00+00:00: results/m1/")
    assert lines[2].startswith(f"Recorded {repo.commits[-1][:10]} 2026-10-04T12:00:00+00:00: results/m1/")
    with HistoryStore(str(store)) as opened:
        assert [recording.commit for recording in opened.recordings()] == [repo.commits[0], repo.commits[-1]]
    assert measured(runs) == [repo.commits[0], repo.commits[-1]]


def test_a_build_is_announced(repo, tmp_path, capsys, runs):
    status, out, _ = run(
        capsys, tmp_path / "s", "HEAD", "--repo", repo.path, "--build", "true", "--", "bench.py", "-p", "3"
    )
    assert status == 0
    assert out.splitlines()[:2] == ["Measuring 1 revision: 3 processes", f"Building {repo.commits[-1][:10]}..."]


def test_bounded_worktrees_record_in_batches(repo, tmp_path, capsys, runs):
    status, out, _ = run(
        capsys, tmp_path / "s", *repo.commits, "--repo", repo.path, "--max-worktrees", "3", "--", "b.py"
    )
    assert status == 0
    measuring = [line for line in out.splitlines() if line.startswith("Measuring")]
    assert measuring == [
        "Measuring 3 revisions together (batch 1/2): 24 rounds of 3 processes",
        "Measuring 2 revisions together (batch 2/2): 24 rounds of 2 processes",
    ]
    assert measured(runs) == [*repo.commits[:3], *repo.commits[2:]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "--", "bench.py"], "ERROR: unknown revision: nope\n"),
        (["HEAD", "HEAD~9", "--", "bench.py"], "ERROR: unknown revision: HEAD~9\n"),
        (["HEAD"], "ERROR: missing the command to measure after --"),
        (["HEAD", "--"], "ERROR: missing the command to measure after --"),
        (["HEAD", "--", "bench.py", "-o", "x.json"], "ERROR: -o cannot be given after --"),
        (["HEAD", "HEAD~1", "--", "bench.py", "--target-precision", "1"], "ERROR: --target-precision cannot be"),
        (["HEAD", "--max-worktrees", "1", "--", "bench.py"], "ERROR: --max-worktrees must be at least 2, got 1"),
        (["HEAD", "--max-worktrees", "0", "--", "bench.py"], "ERROR: argument --max-worktrees: "),
    ],
)
def test_bad_input_is_refused_before_measuring(repo, tmp_path, capsys, runs, args, message):  # noqa: PLR0917
    status, _out, err = run(capsys, tmp_path / "store", "--repo", repo.path, *args)
    assert status == 2
    assert err.startswith(message) and err.count("\n") == 1
    assert measured(runs) == []
    assert not (tmp_path / "store").exists()  # nothing created either


def test_not_a_git_repository(tmp_path, capsys, runs):
    status, _, err = run(capsys, tmp_path / "store", "HEAD", "--repo", tmp_path, "--", "bench.py")
    assert (status, err) == (2, f"ERROR: not a git repository: {tmp_path}\n")


def test_a_folder_that_is_not_a_store(repo, tmp_path, capsys, runs):
    (tmp_path / "notes.txt").write_text("mine\n")
    status, _, err = run(capsys, tmp_path, "HEAD", "--repo", repo.path, "--", "bench.py")
    assert status == 1
    assert err == f"ERROR: {tmp_path} is not a perf history store (it has no perf-history.json and is not empty)\n"
    assert measured(runs) == []
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def test_a_failing_run_names_the_revision_and_keeps_the_ones_before(repo, tmp_path, capsys, runs, monkeypatch):
    store = tmp_path / "store"
    status, _out, _err = run(capsys, store, "HEAD~1", "HEAD", "--repo", repo.path, "--", "bench.py")
    assert status == 0
    status, _out, err = run(capsys, store, "HEAD~3", "HEAD~2", "--repo", repo.path, "--", "bench.py", "--fail")
    assert status == 1
    assert err == f"ERROR: worker 1/24 of 'checksum' ({repo.commits[0][:10]}) failed with exit code 1\n"
    with HistoryStore(str(store)) as opened:
        assert len(opened.recordings()) == 2


def test_a_failing_build(repo, tmp_path, capsys, runs):
    status, _out, err = run(capsys, tmp_path / "s", "HEAD", "--repo", repo.path, "--build", "exit 4", "--", "bench.py")
    assert status == 1
    assert err.startswith(f"ERROR: {repo.commits[-1][:10]}: the build 'exit 4' failed with exit status 4")
    assert measured(runs) == []
    # the store it would have created is not left behind, empty
    assert not (tmp_path / "s").exists()


def test_python_missing_in_the_worktree(repo, tmp_path, capsys, runs):
    status, _out, err = run(capsys, tmp_path / "s", "HEAD", "--repo", repo.path, "--python", "./python", "--", "b.py")
    assert status == 2
    assert err == f"ERROR: --python: ./python: no such executable in the worktree of {repo.commits[-1][:10]}\n"
