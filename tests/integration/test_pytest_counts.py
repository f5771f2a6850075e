"""pytest --perf-metric instructions in real pytest sessions: with a fake
valgrind (exact counts per loop, fast), and once with the real one when it
is installed."""

from __future__ import annotations

import json
import shutil

import pytest
from test_pytest_plugin import run_pytest, write

pytestmark = pytest.mark.integration

SUITE = """
    import os
    import pytest

    def test_sorted(benchmark):
        assert benchmark(sorted, [3, 1, 2]) == [1, 2, 3]

    @pytest.mark.parametrize("n", [10, 100])
    def test_join(benchmark, n):
        assert len(benchmark(str.join, "", ["a"] * n)) == n

    def test_pedantic(benchmark):
        calls = []
        benchmark.pedantic(calls.append, args=(1,), rounds=3, iterations=2)
        assert len(calls) == 7

    def test_fails_when_counted(benchmark):
        def function():
            if "PERF_COUNT_FILE" in os.environ:  # only under (the fake) valgrind
                raise ValueError("not here")
        benchmark(function)

    def test_plain():
        pass
"""


def test_each_test_is_counted_alone_per_loop_and_saved(fake_valgrind, tmp_path):
    write(tmp_path, "test_suite.py", SUITE)
    result = run_pytest(
        tmp_path, "--perf-metric", "instructions", "--perf-output", "counts.json", "--benchmark-json", "ptb.json"
    )
    output = result.stdout
    assert result.returncode == 1, output + result.stderr  # the test that fails under valgrind
    assert "perf: counting the instructions of 5 benchmark tests under valgrind ..." in output
    assert "perf: loops calibrated in a worker process without valgrind: 4/5 benchmarks in " in output
    assert "perf: sample 1/2 (hash seed 1): 3/5 benchmarks counted in " in output
    assert "perf: sample 2/2 (hash seed 2): 3/5 benchmarks counted in " in output
    assert "they run in pytest's process, not counted (their rounds are times)" in output
    assert "FAILED test_suite.py::test_fails_when_counted - perf.pytest_plugin" in output
    assert "BenchmarkFailed: it failed in a worker process:" in output
    assert "ValueError: not here" in output
    assert "5 passed" in output  # test_pedantic's rounds ran as it expects
    table = output[output.index("Name (instructions per call)") :].splitlines()
    assert table[2].split()[:6] == ["test_sorted", "1,000.0", "±0.0", "(0.0%)", "0.0", "1,000.0"]

    import perf

    suite = perf.BenchmarkSuite.load(str(tmp_path / "counts.json"))
    assert sorted(suite.get_benchmark_names()) == [
        "test_suite.py::test_join[100]",
        "test_suite.py::test_join[10]",
        "test_suite.py::test_sorted",
    ]
    for benchmark in suite:
        assert benchmark.get_unit() == "integer"
        runs = benchmark.get_runs()
        assert [run.values for run in runs] == [(fake_valgrind.IR_PER_LOOP,)] * 2
        assert [run.get_metadata()["hash_seed"] for run in runs] == [1, 2]
        metadata = runs[0].get_metadata()
        assert metadata["counter_source"].startswith("cachegrind 3.99.0; I1 32768,8,64")
        assert (metadata["i1_misses"], metadata["d1_misses"]) == (10, 1)
        assert metadata["pytest_measured_in"] == "worker processes"
        assert "cpu_share" not in metadata and "python_version" in metadata

    entries = json.loads((tmp_path / "ptb.json").read_text())["benchmarks"]
    assert {entry["perf"]["unit"] for entry in entries} == {"instructions"}
    assert {entry["stats"]["mean"] for entry in entries} == {fake_valgrind.IR_PER_LOOP}
    assert {entry["stats"]["rounds"] for entry in entries} == {2}


def test_counts_under_xdist_before_the_tests_run_in_parallel(fake_valgrind, tmp_path):
    write(tmp_path, "test_suite.py", SUITE)
    result = run_pytest(tmp_path, "-n", "2", "--perf-metric", "instructions", "-k", "sorted or join")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "perf: sample 2/2 (hash seed 2): 3/3 benchmarks counted in " in result.stdout
    assert "test_join[100]                1,000.0" in result.stdout


def test_without_valgrind_one_line_and_a_usage_error_before_anything_runs(no_valgrind, tmp_path):
    write(tmp_path, "test_suite.py", "def test_x(benchmark):\n    open('ran', 'w').close()\n")
    result = run_pytest(tmp_path, "--perf-metric", "instructions")
    assert result.returncode == 4  # pytest's usage error
    assert result.stderr.strip().splitlines() == [
        "ERROR: --perf-metric instructions counts under valgrind, which is not installed: install it (apt-get "
        "install valgrind, or dnf install valgrind)"
    ]
    assert not (tmp_path / "ran").exists()


def test_an_option_without_meaning_for_counts_is_a_usage_error(fake_valgrind, tmp_path):
    write(tmp_path, "test_suite.py", "def test_x(benchmark):\n    open('ran', 'w').close()\n")
    result = run_pytest(tmp_path, "--perf-metric", "instructions", "--benchmark-min-rounds", "10")
    assert result.returncode == 4
    assert "ERROR: --perf-metric instructions cannot be used with --benchmark-min-rounds: " in result.stderr
    assert not (tmp_path / "ran").exists()


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_real_cachegrind_counts_of_two_samples_agree(tmp_path):
    write(tmp_path, "test_real.py", "def test_sorted(benchmark):\n    benchmark(sorted, list(range(100, 0, -1)))\n")
    result = run_pytest(tmp_path, "--perf-metric", "instructions", "--perf-output", "counts.json")
    assert result.returncode == 0, result.stdout + result.stderr
    import perf

    (benchmark,) = perf.BenchmarkSuite.load(str(tmp_path / "counts.json"))
    values = benchmark.get_values()
    assert len(values) == 2
    # hash seeds 1 and 2: the same work, in heaps of another history (malloc's paths differ by 0.2 %
    # here; one hash seed counted twice agrees to 0.01 %)
    assert abs(values[1] / values[0] - 1) < 0.01
    assert 1_000 < values[0] < 100_000  # sorting 100 ints, not a pytest start-up
