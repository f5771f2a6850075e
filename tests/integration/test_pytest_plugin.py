"""perf's pytest plugin in real pytest sessions (subprocesses), as its users run it."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent

pytestmark = pytest.mark.integration


def run_pytest(folder, *args, env=None):
    environ = dict(os.environ, PYTHONPATH=str(ROOT))
    environ.pop("PYTEST_ADDOPTS", None)
    environ.pop("PYTEST_XDIST_WORKER", None)
    environ.update(env or {})
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, env=environ, check=False)


def write(folder, name, text):
    (folder / name).write_text(textwrap.dedent(text))


SUITE = """
    import asyncio, os, sys, unittest
    import pytest

    def record(tag):
        with open("pids.txt", "a") as file:
            file.write(f"{tag} {os.getpid()}\\n")

    def test_pid(benchmark):
        result = benchmark(lambda: record("fn") or 42)
        record("after")  # a worker ends the test in benchmark()
        assert result == 42
        assert benchmark.stats.stats.min > 0

    @pytest.fixture(scope="module", params=["a", "bb"])
    def word(request):
        return request.param * 10

    @pytest.mark.parametrize("n", [10, 100])
    def test_params(benchmark, word, n):
        assert benchmark(str.join, "", [word] * n) == word * n

    async def twice(x):
        await asyncio.sleep(0)
        return 2 * x

    def test_async(benchmark):
        assert benchmark(twice, 21) == 42

    def test_pedantic(benchmark):
        calls = []
        benchmark.pedantic(calls.append, args=(1,), rounds=3, iterations=2)
        assert len(calls) == 7

    @pytest.fixture(scope="session")
    def numbers():
        return [3, 1, 2]

    @pytest.mark.benchmark(group="g", min_rounds=7)
    def test_marked(benchmark, numbers):
        assert benchmark(sorted, numbers) == [1, 2, 3]

    def test_left_out_by_k(benchmark):
        record("left out")
        benchmark(len, "a")

    class TestCase(unittest.TestCase):
        @pytest.fixture(autouse=True)
        def setupBenchmark(self, benchmark):
            self.benchmark = benchmark

        def test_method(self):
            self.benchmark(sum, range(10))
"""


def test_a_session_measures_in_worker_processes_and_writes_both_files(tmp_path):
    write(tmp_path, "test_suite.py", SUITE)
    result = run_pytest(
        tmp_path,
        "--perf-budget",
        "fast",
        "--perf-output",
        "perf.json",
        "--benchmark-json",
        "ptb.json",
        "-k",
        "not left_out",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    output = result.stdout
    assert "perf: measuring 9 benchmark tests in 3 worker processes ..." in output
    # the pedantic test is measured in pytest's process
    assert "perf: worker process 3/3: 8/9 benchmarks measured in" in output
    assert "perf: 1 benchmark tests use benchmark.pedantic: they run in pytest's process" in output

    records = [line.split() for line in (tmp_path / "pids.txt").read_text().splitlines()]
    parents = {pid for tag, pid in records if tag == "after"}
    workers = {pid for tag, pid in records if tag == "fn"} - parents
    assert len(parents) == 1
    assert len(workers) >= 3  # fn ran in 3 processes besides pytest's own
    assert not [tag for tag, _ in records if tag == "left"]

    import pyperf

    suite = pyperf.BenchmarkSuite.load(str(tmp_path / "perf.json"))
    names = sorted(suite.get_benchmark_names())
    assert names == sorted(
        [
            "test_suite.py::test_pid",
            "test_suite.py::test_params[a-10]",
            "test_suite.py::test_params[a-100]",
            "test_suite.py::test_params[bb-10]",
            "test_suite.py::test_params[bb-100]",
            "test_suite.py::test_async",
            "test_suite.py::test_pedantic",
            "test_suite.py::test_marked",
            "test_suite.py::TestCase::test_method",
        ]
    )
    for name in names:
        benchmark = suite.get_benchmark(name)
        processes = [run for run in benchmark.get_runs() if run.values]
        where = benchmark.get_runs()[-1].get_metadata()["pytest_measured_in"]
        if name.endswith("test_pedantic"):
            assert (len(processes), where) == (1, "pytest process")
        else:
            assert (len(processes), where) == (3, "worker processes")
    marked = suite.get_benchmark("test_suite.py::test_marked")
    assert marked.get_nvalue() >= 7  # min_rounds: values over all the processes

    document = json.loads((tmp_path / "ptb.json").read_text())
    assert list(document) == ["machine_info", "commit_info", "benchmarks", "datetime", "version"]
    entries = {entry["fullname"]: entry for entry in document["benchmarks"]}
    assert set(entries) == set(names)
    entry = entries["test_suite.py::test_params[bb-100]"]
    assert (entry["name"], entry["param"]) == ("test_params[bb-100]", "bb-100")
    assert entry["params"] == {"word": "bb", "n": 100}  # the parameters, not the fixture's value
    assert entries["test_suite.py::test_marked"]["group"] == "g"
    stats = entry["stats"]
    for field in ("min", "max", "mean", "stddev", "rounds", "median", "iqr", "q1", "q3", "ops", "total", "data"):
        assert field in stats
    assert stats["rounds"] == len(stats["data"]) == 9  # 3 processes x 3 values
    assert "group 'g': 1 benchmark" in output
    assert "test_params[bb-100]" in output


FAILING = """
    import os, sys

    IN_WORKER = any(argument.startswith("--perf-worker") for argument in sys.argv)

    def test_raises(benchmark):
        benchmark(lambda: 1 / 0)

    def test_fails_in_workers_only(benchmark):
        def fn():
            if IN_WORKER:
                raise RuntimeError("only in a worker")
        benchmark(fn)

    def test_crashes_the_worker(benchmark):
        def fn():
            if IN_WORKER:
                os._exit(3)
        benchmark(fn)

    def test_after_the_crash(benchmark):
        benchmark(len, "abc")

    def test_fixture_asked_late(request):
        benchmark = request.getfixturevalue("benchmark")
        assert benchmark(len, "abc") == 3
        assert benchmark.stats.measured_in == "pytest process"
"""


def test_a_failing_function_fails_its_test_with_the_error_tail(tmp_path):
    write(tmp_path, "test_failing.py", FAILING)
    result = run_pytest(tmp_path, "--perf-budget", "fast", "-rA")
    assert result.returncode == 1
    output = result.stdout
    assert "FAILED test_failing.py::test_raises - ZeroDivisionError: division by zero" in output
    assert "BenchmarkFailed: it failed in a worker process:" in output
    assert "RuntimeError: only in a worker" in output
    assert "a worker process died while measuring it (exit status 3)" in output
    assert "PASSED test_failing.py::test_after_the_crash" in output
    assert "PASSED test_failing.py::test_fixture_asked_late" in output  # measured in pytest's process
    assert "Traceback" not in result.stderr


COMPARED = """
    import os

    N = int(os.environ["SIZE"])

    def test_sum(benchmark):
        benchmark(sum, range(N))
"""


def test_gates_fail_the_session_on_a_slowdown(tmp_path):
    write(tmp_path, "test_compared.py", COMPARED)
    before = run_pytest(
        tmp_path,
        "--perf-budget",
        "fast",
        "--perf-output",
        "before.json",
        "--benchmark-autosave",
        env={"SIZE": "100"},
    )
    assert before.returncode == 0, before.stdout + before.stderr
    assert len(list((tmp_path / ".benchmarks").glob("*/0001_*.json"))) == 1
    after = run_pytest(
        tmp_path,
        "--perf-budget",
        "fast",
        "--perf-compare",
        "before.json",
        "--perf-fail-on-slowdown",
        "5",
        "--benchmark-compare",
        "--benchmark-compare-fail",
        "mean:5%",
        env={"SIZE": "5000"},
    )
    output = after.stdout
    assert after.returncode == 1, output + after.stderr
    assert "1 passed" in output
    assert "perf: compared with before.json" in output
    assert "SLOWDOWN: " in output
    assert "perf: FAILED: 1 slower beyond +5% with their whole interval" in output
    assert "Performance has regressed:" in output
    assert "Field 'mean' has failed PercentageRegressionCheck" in output


def test_a_usage_error_is_one_line_and_keeps_the_files(tmp_path):
    write(tmp_path, "test_compared.py", COMPARED)
    (tmp_path / "perf.json").write_text("kept")
    result = run_pytest(tmp_path, "--perf-compare", "missing.json", "--perf-output", "perf.json", env={"SIZE": "1"})
    assert result.returncode == 4
    assert result.stderr.startswith("ERROR: --perf-compare: ")
    assert len(result.stderr.strip().splitlines()) == 1
    assert (tmp_path / "perf.json").read_text() == "kept"


def test_collect_only_runs_no_worker(tmp_path):
    write(tmp_path, "test_suite.py", SUITE)
    for option in ("--collect-only", "--setup-plan", "--benchmark-skip"):
        result = run_pytest(tmp_path, option)
        assert result.returncode == 0, result.stdout
        assert "perf: measuring" not in result.stdout
    assert not (tmp_path / "pids.txt").exists()


def test_under_xdist_the_benchmarks_are_measured_first(tmp_path):
    pytest.importorskip("xdist")
    write(tmp_path, "test_suite.py", SUITE)
    result = run_pytest(
        tmp_path,
        "-n",
        "2",
        "--perf-budget",
        "fast",
        "--perf-output",
        "perf.json",
        "-k",
        "not left_out and not pedantic",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    output = result.stdout
    assert ", measured before xdist runs the tests in parallel; benchmark.pedantic runs once, unmeasured" in output
    assert "perf: measuring 8 benchmark tests in 3 worker processes ..." in output
    records = [line.split() for line in (tmp_path / "pids.txt").read_text().splitlines()]
    xdist_workers = {pid for tag, pid in records if tag == "after"}
    assert len({pid for tag, pid in records if tag == "fn"} - xdist_workers) >= 3
    import pyperf

    suite = pyperf.BenchmarkSuite.load(str(tmp_path / "perf.json"))
    assert len(suite.get_benchmark_names()) == 8  # reported by xdist's workers to the controller
    for benchmark in suite.get_benchmarks():
        assert len([run for run in benchmark.get_runs() if run.values]) == 3
    assert "test_params[bb-100]" in output


def test_under_xdist_pedantic_runs_once(tmp_path):
    pytest.importorskip("xdist")
    write(
        tmp_path,
        "test_pedantic.py",
        "def test_p(benchmark):\n    calls = []\n"
        "    benchmark.pedantic(calls.append, args=(1,), rounds=3)\n    assert calls == [1]\n"
        "    assert benchmark.stats is None\n",
    )
    result = run_pytest(tmp_path, "-n", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    # the first worker finds it pedantic; no other process is started for it
    assert "perf: worker process 1/6: 0/1 benchmarks measured" in result.stdout
    assert "perf: worker process 2/6" not in result.stdout
    assert "perf: 1 benchmark tests use benchmark.pedantic: they run once, unmeasured, under xdist" in result.stdout


@pytest.mark.parametrize("autoload", ["", "1"], ids=["autoload", "no autoload"])
def test_loaded_by_name_too(tmp_path, autoload):
    write(tmp_path, "test_which.py", "def test_which(benchmark):\n    assert benchmark(len, 'ab') == 2\n")
    environ = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": autoload} if autoload else {}
    result = run_pytest(tmp_path, "-W", "error", "-p", "perf.pytest_plugin", "--benchmark-disable", env=environ)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


FAKE_PLUGIN = """
    import pytest

    @pytest.fixture
    def benchmark():
        return "the other plugin's fixture"
"""


def test_with_pytest_benchmark_installed_perf_stays_off(tmp_path):
    site = tmp_path / "site"
    info = site / "pytest_benchmark-5.2.3.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pytest-benchmark\nVersion: 5.2.3\n")
    (info / "entry_points.txt").write_text("[pytest11]\nbenchmark = fake_benchmark_plugin\n")
    write(site, "fake_benchmark_plugin.py", FAKE_PLUGIN)
    write(tmp_path, "test_which.py", "def test_which(benchmark):\n    print('FIXTURE', benchmark)\n")
    pythonpath = f"{ROOT}{os.pathsep}{site}"
    result = run_pytest(tmp_path, "-s", "test_which.py", env={"PYTHONPATH": pythonpath})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "perf: pytest-benchmark is installed, so perf's pytest plugin is off" in result.stdout
    assert "FIXTURE the other plugin's fixture" in result.stdout
    result = run_pytest(
        tmp_path, "-s", "-p", "no:benchmark", "--benchmark-disable", "test_which.py", env={"PYTHONPATH": pythonpath}
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FIXTURE <perf.pytest_plugin.fixture.BenchmarkFixture object" in result.stdout
