"""python -m perf history changes --confirm: the command line is checked
before anything is read or measured, each pair of commits is measured
once, and only the changes the re-measurement shows too are kept."""

from __future__ import annotations

import json
import subprocess

import pytest

import perf
from perf.analysis.compare import compare_paired_process_means
from perf.analysis.outlook import Outlook
from perf.cli.main import main
from perf.history.confirm import ConfirmSession, Remeasurement
from perf.history.rounds import Waiting
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


def timeline(name, ids, ratio):
    return Timeline(
        name,
        "m1",
        "second",
        (point(ids[0], 1.0), point(ids[1], ratio)),
        (Change(name, "m1", ids[0], ids[1], 1, ratio, ratio - 0.01, ratio + 0.01, "slower"),),
        (),
    )


def sessions(benchmarks):
    """The starts of three sessions: all the benchmarks, then "noisy" still
    inconclusive (likely decided after the second, then not after the third)."""
    noisy = paired(1.02, spread=0.2)
    waiting = Waiting("noisy", noisy, 0.153, 0.0093, 1, Outlook(10, 30.0, True))
    return [
        ConfirmSession(1, 3, tuple(benchmarks), 10),
        ConfirmSession(2, 3, ("noisy",), 10, waiting, 30.0),
        ConfirmSession(3, 3, ("noisy",), 10, waiting._replace(outlook=Outlook(10, 30.0, False)), 30.0),
    ]


@pytest.fixture
def measured(monkeypatch, store, repo):
    """Three timelines with a change each, between the repository's first
    two commits; the re-measurement shows "up" 1.08x (confirmed), "flat"
    1.00x (refuted) and "noisy" an interval that contains 1 (inconclusive)."""
    _, ids = repo
    found = [timeline("up", ids, 1.08), timeline("flat", ids, 1.05), timeline("noisy", ids, 1.05)]
    monkeypatch.setattr("perf.history.timelines.timelines", lambda *args, **kwargs: list(found))
    calls = []
    results = {"up": paired(1.08), "flat": paired(1.0), "noisy": paired(1.02, spread=0.2)}

    def compare_commits(repository, before, after, args, *, benchmarks=None, python=None, budget=None, **kwargs):
        calls.append((before, after, list(args), list(benchmarks), python, budget.seconds))
        for start in sessions(benchmarks):  # the sessions say when they start, and what for
            kwargs["confirm_events"].measuring(start)
        comparisons = {name: results[name] for name in benchmarks if name in results}
        return Remeasurement(comparisons, 3, 90.0, 1.5)

    monkeypatch.setattr("perf.history.confirm.compare_commits", compare_commits)
    return found, calls, results


def test_confirm_tells_confirmed_refuted_and_inconclusive_apart(store, repo, measured, capsys):
    path, ids = repo
    status, out, err = run(capsys, "changes", store, "--confirm", "--repo", path, "--", "bench.py", "-p", "4")
    assert status == 0
    _, calls, _ = measured
    # one measurement for the three benchmarks of the same pair of commits, within the default budget
    assert calls == [(ids[0], ids[1], ["bench.py", "-p", "4"], ["flat", "noisy", "up"], None, 1200)]
    lines = err.splitlines()
    assert lines[:3] == [
        f"Measuring {ids[0][:10]} and {ids[1][:10]} together...",
        "    session 2: noisy still inconclusive at 0.999x [0.858x .. 1.164x], +-16.5 %, needs under +-0.9 %; "
        "10 more pairs; this pair: about 30 s",
        "    session 3: noisy still inconclusive at 0.999x [0.858x .. 1.164x], +-16.5 %, needs under +-0.9 %; "
        "10 more pairs; likely still inconclusive at its last session, in about 30 s",
    ]
    del lines[1:3]
    assert lines[1].startswith(f"up on m1, {ids[1][:10]}: re-measured 1.08") and lines[1].endswith(
        "(3 sessions, 10 pairs): confirmed"
    )
    assert lines[2].endswith(": refuted, no change (the whole interval within 1 %)")
    assert ": inconclusive, not shown (about " in lines[3] and lines[3].endswith(" would likely decide it)")
    table, summary = out.splitlines()[:-1], out.splitlines()[-1]
    assert table[0].split() == ["benchmark", "machine", "before", "after", "ratio", "95%", "CI", "direction"]
    assert [row.split()[0] for row in table[1:]] == ["up"]
    assert summary == "1 change confirmed, 1 refuted (no change), 1 inconclusive (not shown)."


def test_an_inconclusive_measurement_is_never_called_no_change(store, repo, measured, capsys):
    path, _ = repo
    found, _, _ = measured
    del found[:2]  # only "noisy"
    status, out, err = run(capsys, "changes", store, "--confirm", "--repo", path, "--", "bench.py")
    assert status == 0
    assert err.count("inconclusive, not shown") == 1
    assert "No change" not in out and "no change" not in out
    assert out == "0 changes confirmed, 1 inconclusive (not shown).\n"


def test_json_keeps_the_confirmed_changes_and_the_summary_goes_to_stderr(store, repo, measured, capsys):
    path, _ = repo
    status, out, err = run(capsys, "changes", store, "--confirm", "--repo", path, "--json", "--", "bench.py")
    assert status == 0
    assert [change["benchmark"] for change in json.loads(out)] == ["up"]
    assert err.splitlines()[-1] == "1 change confirmed, 1 refuted (no change), 1 inconclusive (not shown)."


def test_a_spent_budget_is_said(store, repo, measured, monkeypatch, capsys):
    path, _ = repo
    monkeypatch.setattr(
        "perf.history.confirm.compare_commits", lambda *args, **kwargs: Remeasurement({}, 0, 0.0, None, skipped=True)
    )
    status, out, err = run(capsys, "changes", store, "--confirm", "--repo", path, "--budget", "90s", "--", "bench.py")
    assert status == 0
    assert err.count("not re-measured: the budget was spent (not shown)") == 3
    assert "Measuring" not in err
    assert out == "0 changes confirmed, 3 not measured (not shown).\n"


def test_a_benchmark_the_command_does_not_measure_is_not_confirmed(store, repo, measured, monkeypatch, capsys):
    path, _ = repo
    monkeypatch.setattr("perf.history.confirm.compare_commits", lambda *args, **kwargs: Remeasurement({}, 1, 1.0))
    status, out, err = run(capsys, "changes", store, "--confirm", "--repo", path, "--", "bench.py")
    assert status == 0
    assert "not measured by the command (no benchmark of that name)" in err
    assert out == "0 changes confirmed, 3 not measured (not shown).\n"


def test_without_changes_nothing_is_measured(store, repo, measured, capsys):
    path, _ = repo
    found, calls, _ = measured
    found[:] = [found[0]._replace(changes=())]
    status, out, _ = run(capsys, "changes", store, "--confirm", "--repo", path, "--", "bench.py")
    assert (status, out, calls) == (0, "No change detected in 1 timeline.\n", [])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--confirm"], "history changes --confirm needs the command to measure after --: -- bench.py [options]"),
        (["--", "bench.py"], "history changes takes a command after -- only with --confirm: bench.py"),
        (["--build", "make"], "--repo, --build, --python and --budget apply to history changes --confirm"),
        (["--budget", "10m"], "--repo, --build, --python and --budget apply to history changes --confirm"),
        (["--confirm", "--budget", "0", "--", "b.py"], "argument --budget: must be more than 0 seconds, got '0'"),
        (["--confirm", "--budget", "1y", "--", "b.py"], "argument --budget: expected a duration such as 20m, "),
        (["--confirm", "--", "b.py", "-p", "1"], "after --: -p must be at least 2: a session needs 2 rounds or more"),
    ],
)
def test_bad_command_lines(store, capsys, args, message):
    status, _, err = run(capsys, "changes", store, *args)
    assert status == 2 and err.startswith(f"ERROR: {message}") and err.count("\n") == 1, err


def test_a_commit_the_repository_lacks_is_an_error_before_measuring(store, repo, measured, capsys):
    path, _ = repo
    found, calls, _ = measured
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
