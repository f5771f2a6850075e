"""perf bisect and compare_commits with real workers on a small example
repository (a 5x regression, so that a few tiny processes tell it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import helpers
import pytest

from perf.history.confirm import compare_commits
from perf.history.git import Repository

pytestmark = pytest.mark.integration

TINY = ["-p", "4", "-n", "2", "--min-time", "0.005", "--clock", "cpu"]  # calibrated loops; CPU time: shared machines


def example_repo(path, commits, regression):
    return helpers.example_repo(path, commits, regression, slowdown=4.0)


def test_bisect_names_the_first_bad_commit(tmp_path, monkeypatch):
    monkeypatch.setenv("PERF_LOCK_DIR", str(tmp_path / "locks"))
    repo = example_repo(tmp_path / "repo", commits=6, regression=3)
    output = tmp_path / "bisect.json"
    command = [sys.executable, "-m", "perf", "bisect", "HEAD~5", "HEAD", "--json", str(output), "--", "bench.py"]
    completed = subprocess.run(command + TINY, cwd=repo.path, capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[-1] == f"First bad commit: {repo.first_bad} checksum: cover the trailer block"
    assert lines[0] == "Step 1, session 1: GOOD, BAD and 3 commits, 4 rounds (0 sec of 20 min spent)"
    assert "Benchmark: checksum (the script's only one)" in lines
    document = json.loads(output.read_text())
    assert document["first_bad"] == repo.first_bad
    assert document["references"]["ratio"] > 2
    assert document["benchmark"] == "checksum"
    assert all(candidate["rounds"] >= 4 for step in document["steps"] for candidate in step["candidates"])
    # every worktree is gone
    worktrees = subprocess.run(["git", "worktree", "list"], cwd=repo.path, capture_output=True, text=True, check=True)
    assert worktrees.stdout.count("\n") == 1


def test_compare_commits_in_timeit_mode(tmp_path, monkeypatch):
    monkeypatch.setenv("PERF_LOCK_DIR", str(tmp_path / "locks"))
    repo = example_repo(tmp_path / "repo", commits=3, regression=2)
    repository = Repository(repo.path)
    budget = [
        "-p",
        "4",
        "-n",
        "2",
        "--min-time",
        "0.005",
        "--clock",
        "cpu",
    ]  # calibrated loops; CPU time: shared machines
    args = [
        "-m",
        "perf",
        "timeit",
        *budget,
        "--name",
        "sum",
        "-s",
        "import checksum",
        "checksum.checksum(checksum.DATA)",
    ]
    remeasurement = compare_commits(repository, repo.commits[0], repo.commits[-1], args)
    assert list(remeasurement.comparisons) == ["sum"]
    assert remeasurement.sessions == 1  # a 5x slowdown: decided at once
    comparison = remeasurement.comparisons["sum"]
    assert comparison.paired
    assert comparison.reference_processes == 4
    assert comparison.ratio > 2 and comparison.verdict == "slower"
    worktrees = os.path.join(repo.path, ".git", "worktrees")
    assert not os.path.exists(worktrees) or not os.listdir(worktrees)


def test_an_unknown_benchmark_is_refused_with_the_scripts_list(tmp_path):
    repo = example_repo(tmp_path / "repo", commits=3, regression=2)
    env = {**os.environ, "PERF_LOCK_DIR": str(tmp_path / "locks")}
    command = [sys.executable, "-m", "perf", "bisect", "HEAD~2", "HEAD", "-b", "nope", "--", "bench.py", *TINY]
    completed = subprocess.run(command, cwd=repo.path, capture_output=True, text=True, check=False, env=env)
    assert (completed.returncode, completed.stdout) == (2, "")
    assert completed.stderr == "ERROR: -b nope: the script has no such benchmark (its benchmarks: checksum)\n"


def test_a_benchmark_that_fails_in_a_worktree_is_one_error(tmp_path):
    repo = example_repo(tmp_path / "repo", commits=3, regression=2)
    env = {**os.environ, "PERF_LOCK_DIR": str(tmp_path / "locks")}
    command = [sys.executable, "-m", "perf", "bisect", "HEAD~2", "HEAD", "--", "missing.py", *TINY]
    completed = subprocess.run(command, cwd=repo.path, capture_output=True, text=True, check=False, env=env)
    assert completed.returncode == 1
    assert completed.stderr.startswith("ERROR: ")
    assert "missing.py" in completed.stderr
    assert "Traceback" not in completed.stderr.splitlines()[0]
