"""A benchmark whose first call is slow (a cache, a lazy import, generated
code: 300 ms) and whose later calls take a fraction of a millisecond must be
calibrated on warm calls (issue 29): its values span many loops, and no
value carries the cold call.  Real processes: a bench script, timeit with a
cold setup, the pytest plugin, and ``benchmark.pedantic`` (left as the user
set it: its rounds are timed as they come)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from perf.storage.files import load_benchmark

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent

pytestmark = pytest.mark.integration

#: the module-level state of a benchmark that builds something on first use
COLD_MODULE = """
    import time

    built = []


    def work():
        if not built:
            time.sleep(0.3)  # the first call builds a converter, a cache...
            built.append(True)
        return sum(range(2000))
"""
#: no value per call may come near the cold call (warm calls take ~0.05 ms)
FAR_BELOW_COLD = 0.05
TINY = ["-p", "2", "-n", "2", "-w", "1", "--min-time", "0.01"]


def _run(command, cwd):
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(cwd)]))
    environ.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(command, cwd=cwd, env=environ, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _write(folder, name, text):
    (folder / name).write_text(textwrap.dedent(text))


def _assert_calibrated_warm(benchmark):
    runs = benchmark.get_runs()
    calibration = [run for run in runs if run.is_calibration_loops()]
    assert calibration, "the first worker calibrates"
    steps = [loops for loops, _ in calibration[0].warmups]
    assert steps[:2] == [1, 1], "the cold first call is timed again, warm"
    value_runs = [run for run in runs if run.values]
    assert all(run.get_loops() > 1 for run in value_runs)
    assert max(value for run in value_runs for value in run.values) < FAR_BELOW_COLD


def test_bench_func(tmp_path):
    _write(tmp_path, "coldmod.py", COLD_MODULE)
    _write(
        tmp_path,
        "bench.py",
        """
        import perf
        import coldmod

        perf.Runner().bench_func("cold", coldmod.work)
        """,
    )
    _run([sys.executable, "bench.py", *TINY, "-q", "-o", "out.json"], tmp_path)
    _assert_calibrated_warm(load_benchmark(str(tmp_path / "out.json")))


def test_timeit_with_a_cold_setup(tmp_path):
    _write(tmp_path, "coldmod.py", COLD_MODULE)
    command = [sys.executable, "-m", "perf", "timeit", *TINY, "-q", "-o", "out.json"]
    _run([*command, "-s", "import coldmod", "coldmod.work()"], tmp_path)
    _assert_calibrated_warm(load_benchmark(str(tmp_path / "out.json")))


def test_the_pytest_plugin_and_pedantic(tmp_path):
    _write(tmp_path, "coldmod.py", COLD_MODULE)
    _write(tmp_path, "pedantic_cold.py", COLD_MODULE)
    _write(
        tmp_path,
        "test_cold.py",
        """
        import coldmod
        import pedantic_cold

        def test_cold(benchmark):
            assert benchmark(coldmod.work) == sum(range(2000))

        def test_pedantic_cold(benchmark):
            benchmark.pedantic(pedantic_cold.work, rounds=3, iterations=1)
        """,
    )
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--perf-budget", "fast"]
    _run([*command, "--perf-output", "perf.json", "--benchmark-json", "ptb.json", "test_cold.py"], tmp_path)
    from perf.storage.files import load

    suite = load(str(tmp_path / "perf.json"))
    names = suite.get_benchmark_names()
    (cold,) = [suite.get_benchmark(name) for name in names if name.endswith("test_cold")]
    _assert_calibrated_warm(cold)
    (pedantic,) = [suite.get_benchmark(name) for name in names if name.endswith("test_pedantic_cold")]
    (run,) = pedantic.get_runs()
    # as the user set it: one call per round, no warmup, the cold round kept
    assert run.get_loops() == 1
    assert len(run.values) == 3
    assert run.values[0] >= 0.3
    with open(tmp_path / "ptb.json") as file:
        rounds = {item["name"]: item["stats"]["rounds"] for item in json.load(file)["benchmarks"]}
    assert rounds["test_pedantic_cold"] == 3
