"""Concurrent ``python -m perf history add``: processes adding different
files to one store at once (the first ones creating it) lose nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import perf
from perf.history.store import HistoryStore
from perf.storage import files

ROOT = Path(__file__).resolve().parents[2]

PROCESSES = 8
FILES_PER_PROCESS = 3


def write_result(path, commit, benchmarks=20):
    suite = perf.BenchmarkSuite(
        [
            perf.Benchmark(
                [
                    perf.Run(
                        [1e-3 * (1 + number) * (1 + 0.001 * process)] * 3,
                        metadata={"name": f"bench{number}", "commit_id": commit, "hostname": "m1"},
                        collect_metadata=False,
                    )
                    for process in range(5)
                ]
            )
            for number in range(benchmarks)
        ]
    )
    files.dump(suite, str(path))
    return str(path)


def test_concurrent_adds_lose_nothing(tmp_path):
    store = tmp_path / "store"
    commands = []
    commits = []
    for worker in range(PROCESSES):
        sources = []
        for number in range(FILES_PER_PROCESS):
            commit = f"{worker:02x}{number:02x}" * 10
            commits.append(commit)
            sources.append(write_result(tmp_path / f"{worker}-{number}.json", commit))
        commands.append([sys.executable, "-m", "perf", "history", "add", str(store), *sources])
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    children = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment, cwd=ROOT)
        for command in commands
    ]
    outputs = [child.communicate(timeout=120) for child in children]
    for child, (out, err) in zip(children, outputs):
        assert (child.returncode, err) == (0, "")
        assert out.count("Added ") == FILES_PER_PROCESS

    with HistoryStore(str(store), sync=False) as opened:
        # the index as the adds left it, before any sync on open
        assert sorted(recording.commit for recording in opened.recordings()) == sorted(commits)
        assert len(opened.points()) == PROCESSES * FILES_PER_PROCESS * 20
    sidecars = list((store / "results" / "m1").glob("*.history.json"))
    assert len(sidecars) == PROCESSES * FILES_PER_PROCESS
    leftovers = [name for name in os.listdir(store / "results" / "m1") if name.endswith(".tmp")]
    assert leftovers == []
