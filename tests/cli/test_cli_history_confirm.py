"""python -m perf history changes --confirm: the command line is checked
before anything is read or measured, each pair of commits is measured
once, and only the changes the re-measurement shows too are kept."""

from __future__ import annotations

import json
import subprocess

import pytest

import perf
from perf.analysis.compare import compare_paired_process_means
from perf.cli.main import main
from perf.history.timelines import Change, CommitPoint, Timeline
from perf.storage import files


def run(capsys, *args):
    status = main(["history", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def point(commit, mean):
    return CommitPoint(commit, None, mean, mean * 0.99, mean * 1.01, 20, 1)


@pytest.fixture
def store(tmp_path, capsys):
    """A store with one recording (the timelines themselves are faked)."""
    runs = [perf.Run([1e-3, 1.1e-3], metadata={"name": "up"}, collect_metadata=False) for _ in range(3)]
    files.dump(perf.Benchmark(runs), str(tmp_path / "a.json"))
    path = tmp_path / "store"
    assert run(capsys, "add", path, tmp_path / "a.json", "--commit", "a" * 40)[0] == 0
    return path


def git(path, *args):
    return subprocess.run(["git", *args], cwd=path, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    """A git repository with three commits; their ids."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q")
    git(path, "config", "user.name", "T")
    git(path, "config", "user.email", "t@example.org")
    ids = []
    for number in range(3):
        (path / "m.py").write_text(f"X = {number}\n")
        git(path, "add", "m.py")
        git(path, "commit", "-q", "-m", f"commit {number}")
        ids.append(git(path, "rev-parse", "HEAD"))
    return path, ids


def paired(ratio, spread=0.002, count=10):
    reference = [1.0 + spread * ((i % 3) - 1) for i in range(count)]
    return compare_paired_process_means(
        reference, [value * ratio * (1 + spread * (2 * (i % 2) - 1)) for i, value in enumerate(reference)]
    )


@pytest.fixture
def measured(monkeypatch, store, repo):
    """Two timelines with a change each, between the repository's commits;
    compare_commits measures 1.08x for "up" and 1.00x for "flat"."""
    _, ids = repo
    found = [
        Timeline(
            "up",
            "m1",
            "second",
            (point(ids[0], 1.0), point(ids[1], 1.08)),
            (Change("up", "m1", ids[0], ids[1], 1, 1.08, 1.07, 1.09, "slower"),),
            (),
        ),
        Timeline(
            "flat",
            "m1",
            "second",
            (point(ids[0], 1.0), point(ids[1], 1.05)),
            (Change("flat", "m1", ids[0], ids[1], 1, 1.05, 1.04, 1.06, "slower"),),
            (),
        ),
    ]
    monkeypatch.setattr("perf.history.timelines.timelines", lambda *args, **kwargs: list(found))
    calls = []

    def compare_commits(repository, before, after, args, *, python=None, build_command=None, events=None, max_rounds=1):
        calls.append((before, after, list(args), python, build_command, max_rounds))
        return {"up": paired(1.08), "flat": paired(1.0)}

    monkeypatch.setattr("perf.history.bisect.compare_commits", compare_commits)
    return found, calls


def test_confirm_keeps_the_changes_measured_again(store, repo, measured, capsys):
    path, ids = repo
    status, out, err = run(capsys, "changes", store, "--confirm", "--repo", path, "--json", "--", "bench.py", "-p", "4")
    assert status == 0
    assert [change["benchmark"] for change in json.loads(out)] == ["up"]
    _, calls = measured
    # one measurement for the two benchmarks of the same pair of commits
    assert calls == [(ids[0], ids[1], ["bench.py", "-p", "4"], None, None, 3)]
    lines = err.splitlines()
    assert lines[0] == f"Measuring {ids[0][:10]} and {ids[1][:10]} interleaved..."
    assert lines[1].startswith(f"up on m1, {ids[1][:10]}: re-measured 1.08")
    assert lines[1].endswith(": confirmed")
    assert lines[2].endswith(": not confirmed")


def test_an_inconclusive_measurement_is_not_reported(store, repo, measured, monkeypatch, capsys):
    path, _ = repo
    wide = compare_paired_process_means([1.0, 1.2, 0.9, 1.1], [1.1, 1.0, 1.05, 1.15])
    assert wide.verdict == "inconclusive"
    monkeypatch.setattr("perf.history.bisect.compare_commits", lambda *args, **kwargs: {"up": wide, "flat": wide})
    status, out, err = run(capsys, "changes", store, "--confirm", "--repo", path, "--", "bench.py")
    assert status == 0
    assert err.count("inconclusive, not reported (measure it with a larger budget)") == 2
    assert "No change" in out


def test_a_benchmark_the_command_does_not_measure_is_not_confirmed(store, repo, measured, monkeypatch, capsys):
    path, _ = repo
    monkeypatch.setattr("perf.history.bisect.compare_commits", lambda *args, **kwargs: {})
    status, out, err = run(capsys, "changes", store, "--confirm", "--repo", path, "--", "bench.py")
    assert status == 0
    assert "not measured by the command (no benchmark of that name)" in err
    assert "No change" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--confirm"], "history changes --confirm needs the command to measure after --: -- bench.py [options]"),
        (["--", "bench.py"], "history changes takes a command after -- only with --confirm: bench.py"),
        (["--build", "make"], "--repo, --build and --python apply to history changes --confirm"),
    ],
)
def test_bad_command_lines(store, capsys, args, message):
    status, _, err = run(capsys, "changes", store, *args)
    assert (status, err) == (2, f"ERROR: {message}\n")


def test_a_commit_the_repository_lacks_is_an_error_before_measuring(store, repo, measured, capsys):
    path, _ = repo
    found, calls = measured
    found[0] = found[0]._replace(changes=(found[0].changes[0]._replace(after="f" * 40),))
    status, _, err = run(capsys, "changes", store, "--confirm", "--repo", path, "--", "bench.py")
    assert status == 2
    assert err.startswith("ERROR: unknown revision: ffffffff")
    assert calls == []


def test_a_folder_that_is_not_a_repository(store, tmp_path, measured, capsys):
    status, _, err = run(capsys, "changes", store, "--confirm", "--repo", tmp_path, "--", "bench.py")
    assert status == 2
    assert "not a git repository" in err


def test_main_passes_the_command_after_double_dash():
    assert main(["history", "changes", "/nonexistent", "--", "x"]) == 2
