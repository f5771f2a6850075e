"""--metric instructions in real processes: with a fake valgrind (exact,
fast), and once with the real one when it is installed."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent

pytestmark = pytest.mark.integration


def perf(*args, env=None):
    env = dict(env or os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "perf", *args]
    return subprocess.run(command, check=False, capture_output=True, text=True, env=env, cwd=ROOT)


def runs_of(path):
    """Each run's values and metadata (the benchmark's common ones included)."""
    import perf

    return [
        {"values": list(run.values), "metadata": run.get_metadata()}
        for run in perf.Benchmark.load(str(path)).get_runs()
    ]


def test_a_sample_is_the_difference_of_two_workers_per_loop(fake_valgrind, tmp_path):
    output = tmp_path / "counts.json"
    result = perf("timeit", "--metric", "instructions", "--loops", "10", "-o", str(output), "pass")
    assert result.returncode == 0, result.stderr
    runs = runs_of(output)
    assert len(runs) == 2  # two equal samples: exact
    for seed, run in enumerate(runs, 1):
        metadata = run["metadata"]
        assert run["values"] == [fake_valgrind.IR_PER_LOOP]
        assert metadata["loops"] == 10
        assert metadata["unit"] == "integer"
        assert metadata["hash_seed"] == seed
        assert (metadata["i1_misses"], metadata["d1_misses"], metadata["ll_misses"]) == (10, 1, 0.1)
        assert metadata["cycles_estimate"] == 1000 + 10 * 11 + 100 * 0.1
        assert metadata["counter_source"].startswith("cachegrind 3.99.0; I1 32768,8,64")
        assert "cpu_share" not in metadata
        assert metadata["python_version"]  # the timing worker's metadata


def test_samples_of_different_hash_seeds_give_an_interval(fake_valgrind, tmp_path):
    output = tmp_path / "counts.json"
    env = dict(os.environ, FAKE_VALGRIND_SEEDED="1")
    result = perf(
        "timeit",
        "--metric",
        "instructions",
        "-l",
        "4",
        "-p",
        "3",
        "--inherit-environ",
        "FAKE_VALGRIND_SEEDED",
        "-o",
        str(output),
        "pass",
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert [run["values"][0] for run in runs_of(output)] == [1001, 1002, 1003]


def test_counts_take_no_cpu_lock(fake_valgrind, tmp_path):
    from perf.platform.lock import CpuLock

    lock = CpuLock(range(os.cpu_count() or 1), command=["test"])
    assert not lock.acquire(wait=False)
    try:
        result = perf("timeit", "--metric", "instructions", "-l", "2", "--lock", "fail", "-q", "pass")
        assert result.returncode == 0, result.stderr
    finally:
        lock.release()


def test_without_valgrind_one_line_and_exit_two_before_any_worker(no_valgrind, tmp_path):
    output = tmp_path / "counts.json"
    output.write_text("kept")
    result = perf("timeit", "--metric", "instructions", "--append", str(output), "pass")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("ERROR: --metric instructions counts under valgrind, which is not installed: ")
    assert result.stderr.count("\n") == 1
    assert output.read_text() == "kept"


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_real_cachegrind_counts_agree_across_hash_seeds(tmp_path):
    output = tmp_path / "counts.json"
    result = perf("timeit", "--metric", "instructions", "-l", "200", "-o", str(output), "sorted(range(100))")
    assert result.returncode == 0, result.stderr
    runs = runs_of(output)
    values = [run["values"][0] for run in runs]
    # the heap's history follows the hash seed: a seed may move a loop by a few instructions
    # (15 of 12,920 once, in one sample of four), and the run then takes more samples
    assert 2 <= len(values) <= 10
    assert max(values) / min(values) - 1 < 0.005
    assert 5_000 < values[0] < 200_000  # instructions of sorting 100 ints: not a start-up
    assert [run["metadata"]["hash_seed"] for run in runs] == list(range(1, len(runs) + 1))
    assert runs[0]["metadata"]["d1_misses"] >= 0  # a difference below zero is noise around zero: 0


def test_a_process_counts_a_sample_once(fake_valgrind, tmp_path, monkeypatch):
    from perf.api import RunOptions, Timeit, run

    monkeypatch.chdir(tmp_path)
    options = RunOptions.create(metric="instructions", loops=10, mode="timeit")
    first = run(Timeit("pass"), options)
    assert len(fake_valgrind.calls()) == 4  # 2 samples of 2 workers
    again = run(Timeit("pass"), options)
    assert len(fake_valgrind.calls()) == 4  # the same workers: the same counts, not counted again
    assert [run.values for run in again.get_runs()] == [run.values for run in first.get_runs()]
    run(Timeit("pass", setup="x = 1"), options)
    assert len(fake_valgrind.calls()) == 8  # other workers
