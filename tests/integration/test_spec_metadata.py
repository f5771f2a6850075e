"""Every metadata key doc/compatibility.rst (metadata keys) says the runner
sets, checked in files written by real worker processes.

The spec's list: ``name``, ``unit``, ``loops``, ``inner_loops``,
``duration``, calibration keys, ``hooks``, ``command``,
``command_max_rss``, ``timeit_*``, and with memory tracking ``warmups`` /
``values`` (counts), with pyperf's value formats (``unit`` always present,
``second`` for timings; ``timeit_*`` as reprs joined by spaces; ``command``
shell-quoted).  Of the calibration keys, perf writes ``calibrate_loops``
only: it sizes the loops inside the first worker and finds a JIT's warm-up
by steady-state detection (``steady_state``, ``steady_state_warmups``), so
``recalibrate_loops``, ``calibrate_warmups`` and ``recalibrate_warmups``
are read but never written (doc/json_format.rst).
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from perf.storage.files import load

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
FAST = ["-p", "2", "-n", "2", "-w", "1", "--min-time", "0.001"]

pytestmark = pytest.mark.integration

#: the keys of spec section 2.6 "Set by the runner", and where they apply
RUNNER_KEYS = {
    "name": "every benchmark",
    "unit": "every benchmark",
    "loops": "every benchmark",
    "inner_loops": "inner_loops=",
    "duration": "every run",
    "calibrate_loops": "the first worker's calibration run",
    "hooks": "--hook",
    "command": "bench_command",
    "command_max_rss": "bench_command",
    "timeit_stmt": "timeit",
    "timeit_setup": "timeit with a setup",
    "timeit_teardown": "timeit with a teardown",
    "warmups": "memory tracking",
    "values": "memory tracking",
}
#: read, never written (see the module documentation)
NOT_WRITTEN = ("recalibrate_loops", "calibrate_warmups", "recalibrate_warmups")

SCRIPT = """
    import sys

    import perf as pyperf


    class Counter:
        def __init__(self):
            self.samples = 0

        def __enter__(self):
            self.samples += 1

        def __exit__(self, *exc):
            pass

        def teardown(self, metadata):
            metadata["counted_samples"] = self.samples


    class Descriptor:
        name = "counter"

        def load(self):
            return Counter


    runner = pyperf.Runner(hooks=[Descriptor()])
    runner.bench_func("func", sum, range(10), inner_loops=10)
    runner.timeit("timeit", stmt="sorted(x)", setup="x = list(range(50))", teardown="del x")
    runner.bench_command("command", [sys.executable, "-S", "-c", "import os; os._exit(0)"])
    """


def run(command, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=180, check=False)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spec")
    (folder / "bench.py").write_text(textwrap.dedent(SCRIPT))
    output = folder / "out.json"
    done = run([sys.executable, "bench.py", *FAST, "--hook", "counter", "-o", str(output)], folder)
    assert done.returncode == 0, done.stderr
    return load(str(output))


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    folder = tmp_path_factory.mktemp("memory")
    output = folder / "mem.json"
    done = run(
        [sys.executable, "-m", "perf", "timeit", *FAST, "--track-memory", "-o", str(output), "b'x' * 10**5"], folder
    )
    assert done.returncode == 0, done.stderr
    return load(str(output)).get_benchmarks()[0]


def keys_written(benchmarks):
    return {key for benchmark in benchmarks for run in benchmark.get_runs() for key in run.get_metadata()}


def test_every_runner_key_of_the_spec_is_written(suite, memory):
    written = keys_written([*suite, memory])
    assert sorted(key for key in RUNNER_KEYS if key not in written) == []
    assert sorted(key for key in NOT_WRITTEN if key in written) == []


def test_unit_is_always_present_and_second_for_timings(suite, memory):
    for benchmark in suite:
        assert benchmark.get_metadata()["unit"] == "second"
        assert all(run.get_metadata()["unit"] == "second" for run in benchmark.get_runs())
    assert memory.get_metadata()["unit"] == "byte"


def test_values_formats_are_pyperf_s(suite):
    timeit = suite.get_benchmark("timeit").get_metadata()
    assert timeit["timeit_stmt"] == "'sorted(x)'"
    assert timeit["timeit_setup"] == "'x = list(range(50))'"
    assert timeit["timeit_teardown"] == "'del x'"
    command = suite.get_benchmark("command").get_metadata()
    assert command["command"] == f"{sys.executable} -S -c 'import os; os._exit(0)'"
    # each run's own maximum RSS
    assert all(run.get_metadata()["command_max_rss"] > 0 for run in suite.get_benchmark("command").get_runs())
    func = suite.get_benchmark("func").get_metadata()
    assert func["inner_loops"] == 10
    assert func["hooks"] == "counter"
    # the hook's own metadata: per run (each worker counts its samples)
    assert all(run.get_metadata()["counted_samples"] > 0 for run in suite.get_benchmark("func").get_runs())


def test_memory_values_are_integer_bytes_with_their_sample_counts(memory):
    for run in memory.get_runs():
        assert all(type(value) is int for value in run.values)
        if run.values:
            metadata = run.get_metadata()
            assert (metadata["warmups"], metadata["values"]) == (1, 2)


def test_timings_record_the_loop_overhead_but_never_subtract_it(suite):
    from perf.collect.python import python_has_jit

    if python_has_jit():  # a cold empty loop says nothing of the compiled one
        assert all("loop_overhead" not in run.get_metadata() for benchmark in suite for run in benchmark.get_runs())
        return
    for name in ("func", "timeit"):
        benchmark = suite.get_benchmark(name)
        for run in benchmark.get_runs():
            if run.values:
                assert 0 < run.get_metadata()["loop_overhead"] < min(run.values)
    assert "loop_overhead" not in suite.get_benchmark("command").get_metadata()
