"""history record with real workers: each revision measured in its
worktree (bench script or -m perf timeit), added to the store."""

from __future__ import annotations

import os
import subprocess
import sys

import helpers
import pytest

import perf
from perf.history.store import HistoryStore

pytestmark = pytest.mark.integration

TINY = ["-p", "2", "-n", "2", "--min-time", "0.005", "--clock", "cpu"]  # calibrated loops; CPU time: shared machines


def example_repo(path, commits, regression):
    return helpers.example_repo(path, commits, regression, slowdown=4.0)


def record(cwd, env_dir, *args):
    env_vars = {"PERF_LOCK_DIR": str(env_dir / "locks")}
    command = [sys.executable, "-m", "perf", "history", "record", *map(str, args)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env={**os.environ, **env_vars})


@pytest.mark.parametrize(
    "args",
    [
        ["bench.py", *TINY],
        [
            "-m",
            "perf",
            "timeit",
            *TINY,
            "--name",
            "checksum",
            "-s",
            "import checksum",
            "checksum.checksum(checksum.DATA)",
        ],
    ],
    ids=["script", "timeit"],
)
def test_record_measures_each_revision_in_its_worktree(tmp_path, args):
    repo = example_repo(tmp_path / "repo", commits=3, regression=2)
    store = tmp_path / "store"
    completed = record(repo.path, tmp_path, store, "HEAD~2", "HEAD", "--machine", "m1", "--", *args)
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0] == "Measuring 2 revisions together: 2 rounds of 2 processes"
    assert [line.split()[:2] for line in lines[1:]] == [
        ["Recorded", repo.commits[0][:10]],
        ["Recorded", repo.commits[-1][:10]],
    ]
    with HistoryStore(str(store)) as opened:
        recordings = opened.recordings()
        assert [recording.commit for recording in recordings] == [repo.commits[0], repo.commits[-1]]
        assert recordings[0].date == "2026-10-01T12:00:00+00:00"
        points = opened.points(["checksum"])
        assert [len(point.process_means) for point in points] == [2, 2]
        # the worktree's module was measured: the regression makes it 5 times slower
        assert min(points[1].process_means) > 2 * max(points[0].process_means)


def test_a_failing_run_names_the_revision_and_keeps_the_batches_before(tmp_path):
    repo = example_repo(tmp_path / "repo", commits=3, regression=2)
    # bench.py fails at the last commit only
    subprocess.run(["git", "rm", "-q", "bench.py"], cwd=repo.path, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "drop the benchmark"], cwd=repo.path, check=True)
    store = tmp_path / "store"
    revisions = ["HEAD~3", "HEAD~2", "HEAD~1", "HEAD"]
    completed = record(repo.path, tmp_path, store, *revisions, "--max-worktrees", "2", "--", "bench.py", *TINY)
    assert completed.returncode == 1
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo.path, capture_output=True, text=True, check=True
    ).stdout
    error = completed.stderr.lstrip(".\n")  # after the progress dots
    assert error.startswith(f"ERROR: worker 1/2 of 'checksum' ({head[:10]}) failed with exit code 2"), error
    assert "bench.py" in error and "[Errno 2] No such file or directory" in error  # PyPy does not quote the path
    with HistoryStore(str(store)) as opened:
        # the batches before it: [commit 0, 1] and [1, 2] (they share commit 1)
        commits = [recording.commit for recording in opened.recordings()]
        assert commits == [repo.commits[0], repo.commits[1], repo.commits[1], repo.commits[2]]


def test_every_batch_is_timed_with_the_loops_of_the_first(tmp_path):
    repo = example_repo(tmp_path / "repo", commits=3, regression=2)
    store = tmp_path / "store"
    args = ["-p", "2", "-n", "2", "--min-time", "0.005"]  # calibrated loops, each side would differ
    completed = record(repo.path, tmp_path, store, *repo.commits, "--max-worktrees", "2", "--", "bench.py", *args)
    assert completed.returncode == 0, completed.stderr
    loops = set()
    with HistoryStore(str(store)) as opened:
        recordings = opened.recordings()
    assert len(recordings) == 4  # two batches: [0, 1], [1, 2]
    for recording in recordings:
        suite = perf.BenchmarkSuite.load(os.path.join(str(store), recording.path))
        loops |= {run.get_loops() for benchmark in suite for run in benchmark.get_runs() if run.values}
    assert len(loops) == 1, loops
