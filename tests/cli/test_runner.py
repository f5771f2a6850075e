"""perf.Runner in this process: exit statuses, a worker run in place
(``--worker`` without ``--pipe``), and the checks made before the CPU lock.

The workers run in place here (a few loops of a trivial function): nothing
is spawned; tests/integration/test_runner_process.py runs real workers.
"""

from __future__ import annotations

import pytest

from perf.cli.runner import Runner
from perf.measure.parent import probe as probe_module
from perf.measure.parent.probe import PythonProbe
from perf.measure.parent.session import Session
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.storage.files import dump, load

#: keep the classes alive: Runner tells them apart by id()
_CLASSES = []

#: a worker run in place, measuring little
IN_PLACE = ["--worker", "-l", "1", "-n", "2", "-w", "0"]


def new_runner(**kwargs):
    """A fresh Runner subclass: only one Runner per class and process."""
    _CLASSES.append(type("TestRunner", (Runner,), {}))
    return _CLASSES[-1](**kwargs)


def exit_of(call, capsys):
    """The exit status and the stderr of *call* (which must exit)."""
    with pytest.raises(SystemExit) as info:
        call()
    return info.value.code, capsys.readouterr().err


@pytest.fixture
def no_lock(monkeypatch):
    """Fail if the runner goes as far as taking the CPU lock."""

    def locked(self):
        raise AssertionError("the CPU lock was taken")

    monkeypatch.setattr(Session, "lock", locked)


# -- exit statuses -------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--proceses", "3"], "unrecognized arguments: --proceses 3 (did you mean --processes?)"),
        (["--proceses=3"], "unrecognized arguments: --proceses=3 (did you mean --processes?)"),
        (["--track-memroy"], "unrecognized arguments: --track-memroy (did you mean --track-memory?)"),
        (["-p", "0"], "argument -p/--processes: must be >= 1, got '0'"),
        (["--lock", "never"], "argument --lock: invalid choice: 'never' (choose from 'wait', 'fail', 'none')"),
        (["--python-names", "a:b"], "--python-names requires --compare-to"),
        (["--python", "/no/such/python"], "--python: /no/such/python: no such executable"),
    ],
)
def test_usage_errors_exit_two(argv, message, capsys):
    status, err = exit_of(lambda: new_runner().parse_args(argv), capsys)
    assert (status, err) == (2, f"ERROR: {message}\n")


def test_a_broken_append_file_is_not_a_usage_error(tmp_path, capsys):
    path = tmp_path / "broken.json"
    path.write_text("{")
    status, err = exit_of(lambda: new_runner().parse_args(["--append", str(path)]), capsys)
    assert status == 1
    assert err.startswith(f"ERROR: {path}: not a valid JSON document: ")


def test_the_lock_of_another_run_is_not_a_usage_error(monkeypatch, capsys):
    from perf.platform import lock

    class Holder:
        cpu = 0

        def describe(self):
            return "pid 1234"

    monkeypatch.setattr(lock.CpuLock, "acquire", lambda self, wait, on_wait: [Holder()])
    runner = new_runner()
    runner.parse_args(["--lock", "fail", "--affinity", "0"])
    status, err = exit_of(lambda: runner.bench_func("f", sum, [1]), capsys)
    assert (status, err) == (
        1,
        "ERROR: another benchmark is running on CPU 0 (pid 1234): wait for it to finish, or use --lock wait\n",
    )


def test_a_statement_that_does_not_compile(capsys):
    """A usage error of python -m perf timeit, an error of a bench script."""
    status, err = exit_of(lambda: new_runner().timeit("bad", "1 +"), capsys)
    assert status == 1
    assert err.startswith("ERROR: invalid stmt '1 +': ") and err.count("\n") == 1


# -- a worker run in place -------------------------------------------------------------


def test_worker_in_place_writes_the_output_file(tmp_path, capsys):
    output = tmp_path / "out.json"
    runner = new_runner()
    runner.parse_args([*IN_PLACE, "-o", str(output)])
    runner.bench_func("first", sum, [1, 2])
    runner.bench_func("second", sum, [3])
    assert capsys.readouterr().out.startswith("first: Mean +- std dev: ")
    suite = load(str(output))
    assert suite.get_benchmark_names() == ["first", "second"]
    assert [len(run.values) for run in suite.get_benchmark("first").get_runs()] == [2]


def test_worker_in_place_appends(tmp_path):
    output = tmp_path / "out.json"
    for _ in range(2):
        runner = new_runner()
        runner.parse_args([*IN_PLACE, "--append", str(output)])
        runner.bench_func("f", sum, [1])
    assert load(str(output)).get_benchmark("f").get_nrun() == 2


def test_worker_in_place_refuses_an_incompatible_append_file_before_measuring(tmp_path, capsys):
    output = tmp_path / "out.json"
    runner = new_runner()
    runner.parse_args([*IN_PLACE, "--append", str(output)])
    runner.bench_func("f", sum, [1])
    before = output.read_bytes()

    def never(*args):
        raise AssertionError("measured")

    runner = new_runner()
    runner.parse_args([*IN_PLACE, "--append", str(output), "--track-memory"])
    status, err = exit_of(lambda: runner.bench_func("f", never), capsys)
    assert (status, err) == (
        1,
        f"ERROR: {output}: benchmark 'f': incompatible run: metadata 'unit' is 'byte' in the run but 'second' "
        "in the benchmark (nothing was run)\n",
    )
    assert output.read_bytes() == before


def test_worker_in_place_zero_raises_pyperf_value_error():
    """As pyperf: the script can catch it."""
    runner = new_runner()
    runner.parse_args(IN_PLACE)
    with pytest.raises(ValueError, match=r"^benchmark function returned zero$") as info:
        runner.bench_time_func("zero", lambda loops: 0.0)
    assert "0 seconds" in str(info.value.__cause__)


def test_worker_with_a_pipe_reports_a_zero_in_one_line(capsys):
    runner = new_runner()
    runner.parse_args([*IN_PLACE, "--pipe", "999"])
    status, err = exit_of(lambda: runner.bench_time_func("zero", lambda loops: 0.0), capsys)
    assert status == 1
    assert err == ("ERROR: a value of 1 loops took 0 seconds: the clock is too coarse (use more loops or --min-time)\n")


def test_worker_verbose_memory_values_are_bytes(capsys):
    pytest.importorskip("_tracemalloc")  # PyPy has no tracemalloc
    runner = new_runner()
    runner.parse_args([*IN_PLACE, "-v", "--tracemalloc"])
    runner.bench_func("alloc", lambda: [0] * 100_000)
    lines = capsys.readouterr().out.splitlines()
    values = [line for line in lines if line.startswith("Value ")]
    assert len(values) == 2
    for line in values:
        assert line.split(": ", 1)[1].split(" (")[0].endswith(("kB", "KiB", "MiB", "bytes", "byte")), line
        assert " sec" not in line and "ms" not in line
    assert lines[-1].startswith("alloc: Mean +- std dev: ")
    assert lines[-1].split(": ")[-1].split()[1] in ("kB", "KiB", "MiB", "bytes")


# -- errors known before the lock ------------------------------------------------------


def _file_with(path, name, **metadata):
    run = Run([1.0, 2.0], metadata={"name": name, **metadata}, collect_metadata=True)
    dump(Benchmark([run]), str(path))


def test_append_of_another_unit_is_refused_before_the_lock(tmp_path, capsys, no_lock):
    output = tmp_path / "out.json"
    _file_with(output, "timeit", unit="byte")
    runner = new_runner()
    runner.parse_args(["--append", str(output)])
    status, err = exit_of(lambda: runner.bench_func("timeit", sum, [1]), capsys)
    assert (status, err) == (
        1,
        f"ERROR: {output}: benchmark 'timeit': incompatible run: metadata 'unit' is 'second' in the run but 'byte' "
        "in the benchmark (nothing was run)\n",
    )


def test_append_of_another_python_is_refused_before_the_lock(tmp_path, capsys, no_lock):
    output = tmp_path / "out.json"
    _file_with(output, "f", python_version="2.7.18 (64-bit)", inner_loops=3)
    runner = new_runner()
    runner.parse_args(["--append", str(output)])
    status, err = exit_of(lambda: runner.bench_func("f", sum, [1], inner_loops=3), capsys)
    assert status == 1
    assert err.startswith(f"ERROR: {output}: benchmark 'f': incompatible run: metadata 'python_version' is ")
    assert err.endswith(" in the run but '2.7.18 (64-bit)' in the benchmark (nothing was run)\n")


def test_append_of_other_inner_loops_is_refused_before_the_lock(tmp_path, capsys, no_lock):
    output = tmp_path / "out.json"
    _file_with(output, "f")
    runner = new_runner()
    runner.parse_args(["--append", str(output)])
    status, err = exit_of(lambda: runner.bench_func("f", sum, [1], inner_loops=10), capsys)
    assert status == 1
    assert "metadata 'inner_loops' is 10 in the run but missing in the benchmark (nothing was run)" in err


def test_append_of_a_new_or_a_compatible_benchmark_passes_the_check(tmp_path):
    from perf.measure.parent.saving import PlannedRun

    output = tmp_path / "out.json"
    _file_with(output, "other", unit="byte")
    runner = new_runner()
    runner.parse_args(["--append", str(output)])
    runner.session.check_appends(["f"], lambda name: PlannedRun(name, {}, None))  # a new benchmark of the file
    same = tmp_path / "same.json"
    runner = new_runner()
    runner.parse_args([*IN_PLACE, "--append", str(same)])
    runner.bench_func("f", sum, [1])
    runner = new_runner()
    runner.parse_args(["--append", str(same)])
    runner.session.check_appends(["f"], lambda name: PlannedRun(name, {}, None))


def test_another_interpreter_is_probed_once_before_the_lock(tmp_path, monkeypatch):
    calls = []

    def probe(python, env):
        calls.append((python, dict(env)))
        return PythonProbe("pypy", {"python_version": "3.10.14"})

    monkeypatch.setattr(probe_module, "probe_python", probe)
    other = tmp_path / "python"
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    runner = new_runner()
    args = runner.parse_args(["--python", str(other), "--inherit-environ", "SECRET"])
    assert [python for python, _ in calls] == [str(other)]
    assert "PYTHONPATH" in calls[0][1]  # the worker environment: perf's source folder
    assert args.processes == 6  # the JIT budget: the probe said pypy


def test_an_interpreter_that_cannot_import_perf_is_a_usage_error(tmp_path, monkeypatch, capsys):
    from perf.errors import UsageError

    def probe(python, env):
        raise UsageError(f"{python} cannot import perf: ModuleNotFoundError: No module named 'perf'")

    monkeypatch.setattr(probe_module, "probe_python", probe)
    other = tmp_path / "python"
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    status, err = exit_of(lambda: new_runner().parse_args(["--compare-to", str(other)]), capsys)
    assert (status, err) == (
        2,
        f"ERROR: --compare-to: {other} cannot import perf: ModuleNotFoundError: No module named 'perf'\n",
    )


# -- --clock cpu -------------------------------------------------------------------------


@pytest.fixture
def cpu_clock(monkeypatch):
    """The clock of --clock cpu, replaced by a fake clock that moves 1 ns
    per reading: only the benchmarked code below moves it further."""
    from helpers import FakeClock

    from perf.measure.child import clock

    fake = FakeClock(step=1e-9)
    monkeypatch.setitem(clock.CLOCKS, "cpu", fake)
    return fake


def test_cpu_clock_reaches_the_time_functions(tmp_path, cpu_clock):
    """bench_func, its empty loop, bench_async_func and timeit read the
    clock of --clock cpu: each call of the code takes 1 ms of it."""

    def work():
        cpu_clock.now += 1e-3

    async def async_work():
        work()

    output = tmp_path / "out.json"
    runner = new_runner()
    runner.parse_args([*IN_PLACE, "--clock", "cpu", "-q", "-o", str(output)])
    runner.bench_func("func", work)
    runner.bench_async_func("async", async_work)
    runner.timeit("timeit", "work()", globals={"work": work})
    suite = load(str(output))
    for benchmark in suite:
        assert benchmark.get_values() == pytest.approx((1e-3, 1e-3), rel=1e-4), benchmark.get_name()
        assert benchmark.get_clock() == "cpu"
        assert benchmark.get_metadata()["clock"] == "cpu"
    # the empty loop reads it too: a few readings, no work (no empty loop
    # is timed on a JIT runtime)
    from perf.collect.python import python_has_jit

    if not python_has_jit():
        overhead = suite.get_benchmark("func").get_metadata()["loop_overhead"]
        assert 0 < overhead < 1e-6


def test_wall_clock_runs_record_no_clock(tmp_path, cpu_clock):
    output = tmp_path / "out.json"
    runner = new_runner()
    runner.parse_args([*IN_PLACE, "-q", "-o", str(output)])
    runner.bench_func("func", lambda: None)
    assert cpu_clock.calls == 0
    assert "clock" not in load(str(output)).get_benchmark("func").get_metadata()


def test_bench_time_func_refuses_the_cpu_clock(capsys, no_lock):
    runner = new_runner()
    runner.parse_args(["--clock", "cpu"])
    status, err = exit_of(lambda: runner.bench_time_func("sort", lambda loops: 1.0), capsys)
    assert (status, err) == (
        2,
        "ERROR: --clock cpu cannot be used with bench_time_func() ('sort'): the function times itself, so perf "
        "cannot choose its clock\n",
    )


def test_bench_command_refuses_the_cpu_clock(capsys, no_lock):
    runner = new_runner()
    runner.parse_args(["--clock", "cpu"])
    status, err = exit_of(lambda: runner.bench_command("true", ["true"]), capsys)
    assert (status, err) == (
        2,
        "ERROR: --clock cpu cannot be used with bench_command() ('true'): the command runs in another process, "
        "whose CPU time the worker's thread clock does not count\n",
    )


def test_the_worker_listing_the_benchmarks_refuses_bench_time_func(capsys):
    """A later benchmark of a shuffled suite: refused before any value."""
    runner = new_runner()
    runner.parse_args(["--worker", "--worker-list", "--clock", "cpu"])
    runner.bench_func("first", sum, [1])
    status, err = exit_of(lambda: runner.bench_time_func("sort", lambda loops: 1.0), capsys)
    assert status == 2
    assert err.startswith("ERROR: --clock cpu cannot be used with bench_time_func() ('sort'): ")


def test_the_worker_of_another_benchmark_skips_bench_time_func(cpu_clock):
    runner = new_runner()
    runner.parse_args([*IN_PLACE, "--pipe", "999", "--worker-task", "1", "--clock", "cpu"])
    assert runner.bench_time_func("sort", lambda loops: 1.0) is None


def test_append_of_cpu_clock_runs_to_a_wall_clock_file_is_refused_before_the_lock(tmp_path, capsys, no_lock):
    output = tmp_path / "out.json"
    _file_with(output, "f")
    runner = new_runner()
    runner.parse_args(["--append", str(output), "--clock", "cpu"])
    status, err = exit_of(lambda: runner.bench_func("f", sum, [1]), capsys)
    assert (status, err) == (
        1,
        f"ERROR: {output}: benchmark 'f': incompatible run: metadata 'clock' is 'cpu' in the run but missing in "
        "the benchmark (nothing was run)\n",
    )


def test_append_of_wall_clock_runs_to_a_cpu_clock_file_is_refused_before_the_lock(tmp_path, capsys, no_lock):
    output = tmp_path / "out.json"
    _file_with(output, "f", clock="cpu")
    runner = new_runner()
    runner.parse_args(["--append", str(output)])
    status, err = exit_of(lambda: runner.bench_func("f", sum, [1]), capsys)
    assert (status, err) == (
        1,
        f"ERROR: {output}: benchmark 'f': incompatible run: metadata 'clock' is missing in the run but 'cpu' in "
        "the benchmark (nothing was run)\n",
    )


def test_append_of_cpu_clock_runs_to_a_cpu_clock_file(tmp_path, cpu_clock):
    output = tmp_path / "out.json"
    for _ in range(2):
        runner = new_runner()
        runner.parse_args([*IN_PLACE, "-q", "--clock", "cpu", "--append", str(output)])
        runner.bench_func("f", sum, [1])
    assert load(str(output)).get_benchmark("f").get_nrun() == 2


# -- add_cmdline_args: pyperf's callback, wrapped for the session ---------------------------


def test_add_cmdline_args_gets_the_parsed_namespace_and_extends_each_worker_command():
    seen = []

    def add_cmdline_args(command, args):
        seen.append(args)
        command += ["--size", str(args.size)]

    runner = new_runner(add_cmdline_args=add_cmdline_args)
    runner.argparser.add_argument("--size", type=int, default=3)
    args = runner.parse_args(["-n", "4", "--size", "7"])
    command = runner.session.launchers()[0].worker_command(0, 9, 0)
    assert command[-2:] == ["--size", "7"]
    assert seen == [args]
    assert seen[0] is runner.args


def test_a_measuring_worker_checks_its_options_without_a_session():
    runner = new_runner()
    runner.parse_args(["--worker", "--pipe", "9", "--worker-task", "0", "-n", "2", "-l", "1"])
    assert runner.session is None
    assert (runner.options.worker, runner.options.pipe, runner.options.values) == (True, 9, 2)
