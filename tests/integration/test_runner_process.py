"""Real bench scripts, ``timeit`` and ``command`` runs in subprocesses.

The scripts are written for pyperf (``import perf as pyperf``) and use every
Runner method, custom options, several benchmarks per script.  Budgets are
tiny (-p 2 -n 2, --min-time 1 ms): these tests check behaviour, not speed.
"""

from __future__ import annotations

import json
import os
import pathlib
import platform
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from perf.measure.parent.schedule import pair_order
from perf.measure.parent.sides import python_labels
from perf.model.metadata import CHECKED_KEYS
from perf.storage.files import load, load_benchmark

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
FAST = ["-p", "2", "-n", "2", "-w", "1", "--min-time", "0.001"]

pytestmark = pytest.mark.integration


def environ():
    return dict(os.environ, PYTHONPATH=str(ROOT))


def run(command, cwd, timeout=120, **kwargs):
    return subprocess.run(
        command, cwd=cwd, env=environ(), capture_output=True, text=True, timeout=timeout, check=False, **kwargs
    )


def perf(*args, cwd=ROOT, **kwargs):
    return run([sys.executable, "-m", "perf", *args], cwd, **kwargs)


def script(tmp_path, source, name="bench.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


PYPERF_STYLE = """
    import asyncio
    import sys

    import perf as pyperf


    def add_cmdline_args(cmd, args):
        cmd.extend(("--size", str(args.size)))


    def time_sort(loops, size):
        data = list(range(size, 0, -1))
        t0 = pyperf.perf_counter()
        for _ in range(loops):
            sorted(data)
        return pyperf.perf_counter() - t0


    async def nothing():
        await asyncio.sleep(0)


    runner = pyperf.Runner(add_cmdline_args=add_cmdline_args)
    runner.argparser.add_argument("--size", type=int, default=10)
    runner.metadata["description"] = "a pyperf-style script"
    args = runner.parse_args()
    runner.metadata["size"] = args.size
    runner.bench_time_func("sort", time_sort, args.size)
    runner.bench_time_func("sort_inner", time_sort, args.size, inner_loops=10)
    runner.bench_func("func", sum, range(args.size))
    runner.bench_async_func("async", nothing, loop_factory=asyncio.new_event_loop)
    runner.timeit("timeit", stmt="sorted(x)", setup="x = list(range(50))")
    runner.bench_command("command", [sys.executable, "-c", "pass"])
    """


def test_pyperf_style_script_runs_unchanged(tmp_path):
    bench = script(tmp_path, PYPERF_STYLE)
    output = tmp_path / "out.json"
    result = run([sys.executable, str(bench), *FAST, "--size", "37", "-o", str(output)], tmp_path)
    assert result.returncode == 0, result.stderr
    suite = load(str(output))
    assert suite.get_benchmark_names() == ["sort", "sort_inner", "func", "async", "timeit", "command"]
    for benchmark in suite:
        runs = benchmark.get_runs()
        # the first worker calibrated the loops and kept its values
        assert runs[0].get_metadata()["calibrate_loops"] >= 1
        assert [len(r.values) for r in runs] == [0, 2, 2]
        metadata = benchmark.get_metadata()
        assert metadata["description"] == "a pyperf-style script"
        assert metadata["size"] == 37  # the custom option reached the workers
        for value_run in runs[1:]:
            run_metadata = value_run.get_metadata()
            assert 0 <= run_metadata["env_padding"] <= 4095
            assert run_metadata["timer_call_cost"] > 0
    assert suite.get_benchmark("sort_inner").get_metadata()["inner_loops"] == 10
    assert suite.get_benchmark("timeit").get_metadata()["timeit_setup"] == "'x = list(range(50))'"
    assert suite.get_benchmark("command").get_metadata()["command"].endswith(" -c pass")
    for name in ("sort", "func", "timeit", "command"):
        assert f"{name}: Mean +- std dev: " in result.stdout


def test_append_adds_runs_and_keeps_earlier_ones(tmp_path):
    bench = script(tmp_path, "import perf\nperf.Runner().bench_func('f', sum, range(10))\n")
    output = tmp_path / "out.json"
    for _ in range(2):
        result = run([sys.executable, str(bench), *FAST, "--append", str(output)], tmp_path)
        assert result.returncode == 0, result.stderr
    benchmark = load(str(output)).get_benchmark("f")
    assert benchmark.get_nrun() == 6
    assert benchmark.get_nvalue() == 8


def test_output_refuses_an_existing_file_before_running(tmp_path):
    bench = script(tmp_path, "import perf\nperf.Runner().bench_func('f', sum, range(10))\n")
    output = tmp_path / "out.json"
    output.write_text("precious")
    result = run([sys.executable, str(bench), *FAST, "-o", str(output)], tmp_path)
    assert result.returncode == 1  # as pyperf: the file is in the way, the command line is right
    assert result.stderr.strip().splitlines() == [
        f"ERROR: {output}: the file already exists (use --append to add runs to it)"
    ]
    assert output.read_text() == "precious"


def test_worker_option_directly(tmp_path):
    bench = script(
        tmp_path, "import perf\nr = perf.Runner()\nr.bench_func('a', sum, [1])\nr.bench_func('b', sum, [2])\n"
    )
    result = run([sys.executable, str(bench), "--worker", "--worker-task", "1", "-l", "100", "-n", "3"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("b: Mean +- std dev: ")
    assert "a:" not in result.stdout


def test_timeit_command_line(tmp_path):
    output = tmp_path / "timeit.json"
    result = perf("timeit", *FAST, "-o", str(output), "-s", "x = list(range(100))", "sorted(x)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("Mean +- std dev: ")
    assert "95% CI: " in result.stdout
    benchmark = load(str(output)).get_benchmark("timeit")
    assert benchmark.get_metadata()["timeit_stmt"] == "'sorted(x)'"  # its repr, as pyperf stores it
    assert benchmark.get_nvalue() == 4


def test_command_measures_a_program(tmp_path):
    output = tmp_path / "command.json"
    result = perf("command", *FAST, "-o", str(output), "--", sys.executable, "-c", "pass")
    assert result.returncode == 0, result.stderr
    benchmark = load(str(output)).get_benchmark("command")
    assert benchmark.get_metadata()["command"].endswith("-c pass")
    for run in benchmark.get_runs():
        assert run.get_metadata()["command_max_rss"] > 1024


def test_command_track_memory_values_are_bytes(tmp_path):
    output = tmp_path / "command.json"
    result = perf("command", *FAST, "--track-memory", "-o", str(output), "--", sys.executable, "-c", "pass")
    assert result.returncode == 0, result.stderr
    benchmark = load(str(output)).get_benchmark("command")
    assert benchmark.get_unit() == "byte"
    assert min(benchmark.get_values()) > 1024


def test_track_memory_in_a_script(tmp_path):
    bench = script(tmp_path, "import perf\nperf.Runner().bench_func('alloc', lambda: bytearray(10**6))\n")
    output = tmp_path / "mem.json"
    result = run([sys.executable, str(bench), *FAST, "--track-memory", "-o", str(output)], tmp_path)
    assert result.returncode == 0, result.stderr
    assert load(str(output)).get_benchmark("alloc").get_unit() == "byte"


# -- failures -------------------------------------------------------------------


def test_exception_in_benchmark_is_shown_once_with_its_traceback(tmp_path):
    bench = script(
        tmp_path,
        """
        import perf

        def broken():
            raise ZeroDivisionError("the benchmark is broken")

        perf.Runner().bench_func("broken", broken)
        """,
    )
    output = tmp_path / "out.json"
    result = run([sys.executable, str(bench), *FAST, "-o", str(output)], tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("ERROR: worker 1/2 of 'broken' failed with exit code 1; last lines of its stderr:")
    assert result.stderr.count("ZeroDivisionError: the benchmark is broken") == 1
    assert "Traceback" in result.stderr
    assert "line 5, in broken" in result.stderr
    assert "/perf/" not in result.stderr  # perf's own frames are left out
    assert not output.exists()


def _sleeper(tmp_path, marker):
    return script(
        tmp_path,
        f"""
        import subprocess, sys, time
        import perf

        def hang():
            # a grandchild too: it must not survive the worker
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "{marker}"])
            time.sleep(60)

        perf.Runner().bench_func("hang", hang)
        """,
    )


def _processes_with(marker):
    result = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True, check=False)
    return result.stdout.split()


def test_timeout_exits_124_and_leaves_no_orphan(tmp_path):
    marker = f"perf-test-marker-{os.getpid()}-timeout"
    bench = _sleeper(tmp_path, marker)
    output = tmp_path / "out.json"
    result = run([sys.executable, str(bench), *FAST, "--timeout", "2", "-o", str(output)], tmp_path)
    assert result.returncode == 124
    assert result.stderr.strip().splitlines()[-1] == (
        "ERROR: worker 1/2 of 'hang' ran longer than the timeout (2 s) and was stopped"
    )
    assert not output.exists()
    time.sleep(0.2)
    assert _processes_with(marker) == []


def _interrupt_group(command, cwd, ready):
    """Start *command* in its own process group as a terminal would, send
    SIGINT to the whole group (Ctrl-C) once *ready()*, and return the
    finished process and its stderr."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=environ(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a suite started in the background of a shell (nohup ... &) ignores
        # SIGINT, and children inherit that: the runner must see Ctrl-C
        preexec_fn=lambda: (signal.signal(signal.SIGINT, signal.SIG_DFL), os.setpgrp()),  # noqa: PLW1509
    )
    deadline = time.monotonic() + 60
    while not ready() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    return process, stderr


def test_ctrl_c_stops_the_worker_without_traceback(tmp_path):
    marker = f"perf-test-marker-{os.getpid()}-sigint"
    bench = _sleeper(tmp_path, marker)
    process, stderr = _interrupt_group([sys.executable, str(bench), *FAST], tmp_path, lambda: _processes_with(marker))
    assert process.returncode == 130
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == "Interrupted before any worker finished: nothing was saved"
    time.sleep(0.2)
    assert _processes_with(marker) == []


def _started(folder, count):
    """True once *count* workers ran their setup (each adds a file)."""
    return lambda: len(os.listdir(folder)) >= count


def test_ctrl_c_saves_the_finished_processes_of_one_benchmark(tmp_path):
    """Done when of issue 23: a terminal's Ctrl-C during a one-benchmark
    ``timeit -o`` keeps the processes that finished, marked incomplete, in
    a file pyperf loads; exit status 130."""
    started = tmp_path / "started"
    started.mkdir()
    output = tmp_path / "t.json"
    setup = f"import os, time; open(os.path.join({str(started)!r}, str(os.getpid())), 'w').close()"
    command = [sys.executable, "-m", "perf", "timeit", "-p", "40", "-n", "2", "-w", "0", "--loops", "1"]
    command += ["-s", setup, "-o", str(output), "time.sleep(0.05)"]
    process, stderr = _interrupt_group(command, tmp_path, _started(started, 5))
    assert process.returncode == 130
    assert "Traceback" not in stderr
    line = stderr.strip().splitlines()[-1]
    match = re.fullmatch(
        f"Interrupted: saved to {re.escape(str(output))}: timeit \\((\\d+) of 40 processes, marked incomplete\\)",
        line,
    )
    assert match, line
    finished = int(match.group(1))
    assert 4 <= finished < 40
    benchmark = load_benchmark(str(output))
    assert len(benchmark.get_process_means()) == finished
    assert benchmark.get_metadata()["incomplete"] == f"interrupted after {finished} of 40 processes"
    check = perf("check", str(output))
    assert f"incomplete: all processes come from a run that stopped early (interrupted after {finished}" in check.stdout
    # show says so first (issue 29)
    first = perf("show", str(output)).stdout.splitlines()[0]
    assert first.startswith(
        f"incomplete: all processes come from a run that stopped early (interrupted after {finished}"
    )
    pyperf = pytest.importorskip("pyperf")
    loaded = pyperf.Benchmark.load(str(output))
    assert loaded.get_nrun() == finished
    assert loaded.get_metadata()["incomplete"] == f"interrupted after {finished} of 40 processes"


def test_ctrl_c_keeps_the_pairs_both_sides_finished(tmp_path):
    """An interleaved --compare-to run keeps its complete pairs: both files
    hold the same pairs, 1 to k."""
    started = tmp_path / "started"
    started.mkdir()
    output = tmp_path / "ab.json"
    setup = f"import os, time; open(os.path.join({str(started)!r}, str(os.getpid())), 'w').close()"
    command = [sys.executable, "-m", "perf", "timeit", "-p", "30", "-n", "2", "-w", "0", "--loops", "1"]
    command += ["--compare-to", sys.executable, "-s", setup, "-o", str(output), "time.sleep(0.05)"]
    process, stderr = _interrupt_group(command, tmp_path, _started(started, 7))
    assert process.returncode == 130, stderr
    labels = python_labels(sys.executable, sys.executable)
    pairs = []
    for label in labels:
        benchmark = load_benchmark(str(tmp_path / f"ab-{label}.json"))
        runs = [run for run in benchmark.get_runs() if run.values]
        pairs.append([run.get_metadata()["ab_pair"] for run in runs])
        assert benchmark.get_metadata()["incomplete"].startswith("interrupted after ")
    assert pairs[0] == pairs[1] == list(range(1, len(pairs[0]) + 1))
    assert len(pairs[0]) >= 3
    assert f"({len(pairs[0])} of 30 processes, marked incomplete)" in stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("options", [[], ["--no-shuffle"]])
@pytest.mark.parametrize(
    ("liar", "message"),
    [
        ("args.worker_list", "ERROR: the worker listing the script's benchmarks sent an invalid list: "),
        ("not args.worker_list", "ERROR: worker 1/2 of 'f' sent an invalid result: "),
    ],
)
def test_garbage_on_the_pipe(tmp_path, options, liar, message):
    """In both orders, a worker of a bench script first lists its
    benchmarks, then others measure them: garbage from either is an error."""
    bench = script(
        tmp_path,
        f"""
        import os
        import perf

        runner = perf.Runner()
        args = runner.parse_args()
        if args.pipe is not None and {liar}:
            os.write(args.pipe, b"this is not JSON")
            os._exit(0)
        runner.bench_func("f", sum, [1])
        """,
    )
    result = run([sys.executable, str(bench), *FAST, *options], tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith(message)
    assert len(result.stderr.strip().splitlines()) == 1


def test_worker_crash_by_signal(tmp_path):
    bench = script(
        tmp_path, "import os, signal, perf\nperf.Runner().bench_func('f', os.kill, os.getpid(), signal.SIGKILL)\n"
    )
    result = run([sys.executable, str(bench), *FAST], tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip() == "ERROR: worker 1/2 of 'f' was killed by signal SIGKILL"


@pytest.mark.parametrize(
    "options, message",
    [
        (["-p", "0"], "argument -p/--processes: must be >= 1, got '0'"),
        (["--min-time", "-1"], "argument --min-time: must be a number of seconds > 0, got '-1'"),
        (["--timeout", "abc"], "argument --timeout: invalid number of seconds: 'abc'"),
        (["--affinity", "x"], "argument --affinity: invalid CPU list 'x'"),
        (["--python-names", "a:b"], "--python-names requires --compare-to"),
        (["--hook", "nope"], "--hook: unknown hook 'nope'"),
        (["--calibrate-loops"], "--calibrate-loops requires --worker"),
    ],
)
def test_bad_option_is_one_line(tmp_path, options, message):
    result = perf("timeit", *options, "pass")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ERROR: {message}"), result.stderr


def test_timeit_syntax_error_is_one_line():
    result = perf("timeit", "1 +")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["ERROR: invalid stmt '1 +': SyntaxError: invalid syntax (line 1)"]


@pytest.mark.skipif(sys.version_info < (3, 10), reason="the compiler's message of 3.10+")
def test_timeit_setup_syntax_error_names_it_as_python_does():
    result = perf("timeit", "-s", "x = (", "x")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "ERROR: invalid setup 'x = (': SyntaxError: '(' was never closed (line 1)"
    ]


def test_command_program_not_found():
    result = perf("command", "--", "no-such-program-xyz")
    assert result.returncode == 2
    assert result.stderr.strip() == "ERROR: no-such-program-xyz: program not found"


def test_json_pipe_payload_is_a_benchmark(tmp_path):
    """The worker protocol: one JSON document of a 1- or 2-run benchmark."""
    read_fd, write_fd = os.pipe()
    command = [
        sys.executable,
        "-m",
        "perf",
        "timeit",
        "--worker",
        "--pipe",
        str(write_fd),
        "-l",
        "10",
        "-n",
        "2",
        "pass",
    ]
    process = subprocess.Popen(command, env=environ(), cwd=ROOT, pass_fds=(write_fd,))
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        data = json.loads(pipe.read())
    assert process.wait(60) == 0
    assert data["version"] == "1.0"
    assert len(data["benchmarks"][0]["runs"]) == 1


# -- other interpreters ------------------------------------------------------------


def _pyenv_python(exclude):
    """Another CPython from pyenv (found with ``pyenv root``), or None."""
    try:
        root = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    versions = pathlib.Path(root, "versions")
    for version in sorted(versions.glob("3.1[0-9]*"), reverse=True):
        python = version / "bin" / "python"
        if python.exists() and os.path.realpath(python) != os.path.realpath(exclude):
            return str(python)
    return None


def _pyenv_venv(tmp_path):
    """A virtual environment of another CPython from pyenv, and that
    CPython's version (the name of its pyenv folder); None without one."""
    python = _pyenv_python(sys.executable)
    if python is None:
        return None
    folder = tmp_path / "vref"
    subprocess.run([python, "-m", "venv", "--without-pip", str(folder)], check=True, capture_output=True)
    return str(folder / "bin" / "python"), pathlib.Path(python).parent.parent.name


def test_compare_to_another_cpython(tmp_path):
    reference = _pyenv_python(sys.executable)
    if reference is None:
        pytest.skip("no other CPython installed with pyenv")
    bench = script(tmp_path, PYPERF_STYLE)
    result = run([sys.executable, str(bench), *FAST, "--compare-to", reference, "--python-names", "ref:new"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ref: sort: Mean +- std dev: " in result.stdout
    assert "new: sort: Mean +- std dev: " in result.stdout
    assert "sort: Mean +- std dev: [ref] " in result.stdout
    # the verdict of the paired comparison of the interleaved workers
    assert "interleaved pairs" in result.stdout


def test_compare_to_interleaves_pairs_and_saves_both_sides(tmp_path):
    """timeit --compare-to: workers alternate in pairs whose order comes
    from a recorded seed; -o writes one file per side; compare_to pairs
    them again."""
    found = _pyenv_venv(tmp_path)
    if found is None:
        pytest.skip("no other CPython installed with pyenv")
    reference, version = found
    output = tmp_path / "ab.json"
    argv = ["timeit", "-p", "4", "-n", "2", "--min-time", "0.001", "--compare-to", reference, "-o", str(output)]
    result = perf(*argv, "sorted(range(100))")
    assert result.returncode == 0, result.stderr
    assert "4 interleaved pairs" in result.stdout
    # a virtual environment's folder (vref) says nothing of what differs: the versions label the sides
    labels = version, platform.python_version()
    sides = [tmp_path / f"ab-{label}.json" for label in labels]
    assert f"{labels[0]}: Mean +- std dev: " in result.stdout
    assert f"{labels[1]}: Mean +- std dev: " in result.stdout
    assert f"Mean +- std dev: [{labels[0]}] " in result.stdout
    assert sorted(path.name for path in tmp_path.glob("ab*")) == sorted(path.name for path in sides)
    runs = []
    for path in sides:
        benchmark = load_benchmark(str(path))
        runs.append([run.get_metadata() for run in benchmark.get_runs() if run.values])
    ref_runs, new_runs = runs
    assert [m["ab_pair"] for m in ref_runs] == [m["ab_pair"] for m in new_runs] == [1, 2, 3, 4]
    seeds = {m["ab_seed"] for m in ref_runs + new_runs}
    assert len(seeds) == 1
    # the recorded positions are the order the seed gives
    expected = pair_order(seeds.pop(), 4)
    assert [(m["ab_position"], n["ab_position"]) for m, n in zip(ref_runs, new_runs)] == [
        (order.index(0) + 1, order.index(1) + 1) for order in expected
    ]
    assert ref_runs[0]["python_executable"] != new_runs[0]["python_executable"]
    compared = perf("compare_to", "-v", *map(str, sides))
    assert compared.returncode == 0, compared.stderr
    assert "4 interleaved pairs" in compared.stdout
    assert "WARNING" not in compared.stdout  # the drift warning is for separate recordings
    # the note on the builds of the two sides (no warning: comparing them is the point)
    assert f"\nPython builds: ab-{labels[0]} {labels[0]} (" in compared.stdout
    # -o refuses to run when a side's file exists
    again = perf(*argv, "sorted(range(100))")
    assert again.returncode == 1
    assert again.stderr.strip() == f"ERROR: {sides[0]}: the file already exists (use --append to add runs to it)"


def _pypy():
    import shutil

    return shutil.which("pypy3")


PYPY_SCRIPT = """
    import perf

    def work():
        return sorted(str(i) for i in range(100))

    perf.Runner().bench_func("work", work)
    """


@pytest.mark.skipif(_pypy() is None, reason="PyPy (pypy3) is not installed")
@pytest.mark.parametrize("kind", ["timeit", "script"])
def test_pypy_records_steady_state(tmp_path, kind):
    output = tmp_path / "pypy.json"
    options = ["-p", "2", "-n", "3", "--min-time", "0.01", "-o", str(output)]
    if kind == "timeit":
        command = [_pypy(), "-m", "perf", "timeit", *options, "sorted(range(100))"]
    else:
        command = [_pypy(), str(script(tmp_path, PYPY_SCRIPT)), *options]
    result = run(command, tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr
    (benchmark,) = load(str(output)).get_benchmarks()
    value_runs = [run for run in benchmark.get_runs() if run.values]
    assert len(value_runs) == 2
    for value_run in value_runs:
        metadata = value_run.get_metadata()
        assert metadata["steady_state"] in ("flat", "warmup", "slowdown", "no steady state")
        assert metadata["steady_state_warmups"] >= 0
        assert len(value_run.warmups) >= 20  # at least two windows of warmups were examined


def test_append_to_a_broken_file_fails_before_running(tmp_path):
    bench = script(tmp_path, "import perf\nperf.Runner().bench_func('f', sum, range(10))\n")
    output = tmp_path / "out.json"
    output.write_text("[1, 2")
    result = run([sys.executable, str(bench), *FAST, "--append", str(output)], tmp_path)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"ERROR: {output}: ")
    assert result.stdout == ""
    assert output.read_text() == "[1, 2"


def test_results_are_kept_when_the_append_file_cannot_take_them(tmp_path):
    """The file changed during the run (another unit for the same name):
    the runs go to another file instead of being lost."""
    bench = script(
        tmp_path,
        """
        import sys
        import perf

        def spoil(*args):
            # another perf process wrote an incompatible benchmark meanwhile
            bench = perf.Benchmark([perf.Run([1.0], metadata={"name": "f", "unit": "byte"})])
            bench.dump(sys.argv[-1], replace=True)

        runner = perf.Runner()
        runner.parse_args()
        if not runner.args.worker:
            spoil()
        runner.bench_func("f", sum, range(10))
        """,
    )
    output = tmp_path / "out.json"
    result = run([sys.executable, str(bench), *FAST, "--append", str(output)], tmp_path)
    assert result.returncode == 1
    rescue = tmp_path / f"out-{result.stderr.split('out-')[1].split('.json')[0]}.json"
    assert result.stderr.strip().endswith(f"the results of 'f' were saved to {rescue}")
    assert load(str(rescue)).get_benchmark("f").get_nvalue() == 4


def test_timeit_several_statements_and_duplicate(tmp_path):
    output = tmp_path / "timeit.json"
    result = perf(
        "timeit", *FAST, "-o", str(output), "-s", "x = 1", "-s", "y = 2", "--duplicate", "10", "x + y", "y + x"
    )
    assert result.returncode == 0, result.stderr
    benchmark = load(str(output)).get_benchmark("timeit")
    metadata = benchmark.get_metadata()
    assert metadata["timeit_stmt"] == "'x + y' 'y + x'"
    assert metadata["timeit_setup"] == "'x = 1' 'y = 2'"
    assert metadata["inner_loops"] == 10  # one loop iteration runs the statements 10 times


def test_a_worker_measuring_another_benchmark_is_an_error(tmp_path):
    """A custom option that does not reach the workers changes the name:
    in both orders, the worker listing the benchmarks finds it out first."""
    bench = script(
        tmp_path,
        """
        import perf

        runner = perf.Runner()
        runner.argparser.add_argument("--size", type=int, default=1000)
        args = runner.parse_args()
        runner.bench_func(f"sorted({args.size})", sorted, range(args.size))
        """,
    )
    for options in ([], ["--no-shuffle"]):
        result = run([sys.executable, str(bench), *FAST, "--size", "5000", *options], tmp_path)
        assert result.returncode == 1
        assert result.stderr.startswith(
            "ERROR: the worker that listed the script's benchmarks found 'sorted(1000)', but the script starts "
            "with 'sorted(5000)': "
        )


def test_a_measuring_worker_that_disagrees_with_the_list_is_an_error(tmp_path):
    """The list agrees, but a measuring worker declares another benchmark."""
    bench = script(
        tmp_path,
        """
        import perf

        runner = perf.Runner()
        args = runner.parse_args()
        measuring = args.worker and not args.worker_list
        runner.bench_func("other" if measuring else "f", sum, [1])
        """,
    )
    result = run([sys.executable, str(bench), *FAST, "--no-shuffle"], tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("ERROR: worker 1/2 of 'f' measured 'other' instead: ")


def test_command_compare_to_interleaves_two_programs(tmp_path):
    """python -m perf command --compare-to "REF ARGS" -- PROGRAM: one file
    per side, paired comparison, the command lines as labels."""
    output = tmp_path / "sleep.json"
    result = perf(
        "command", "-p", "3", "-n", "2", "--compare-to", "sleep 0.02", "-o", str(output), "--", "sleep", "0.01"
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("sleep 0.02: Mean +- std dev: ")
    assert lines[1].startswith("sleep 0.01: Mean +- std dev: ")
    assert "-> [sleep 0.01] " in lines[3] and "x faster [" in lines[3]
    assert "3 interleaved pairs" in lines[4]
    # the files are named after the labels
    reference = load_benchmark(str(tmp_path / "sleep-sleep-0.02.json"))
    changed = load_benchmark(str(tmp_path / "sleep-sleep-0.01.json"))
    assert reference.get_metadata()["command"].endswith("sleep 0.02")
    assert changed.get_metadata()["command"].endswith("sleep 0.01")
    assert reference.get_name() == changed.get_name() == "command"


def test_target_precision_stops_between_its_bounds(tmp_path):
    common = ["timeit", "-n", "2", "--min-time", "0.001", "--min-processes", "3"]
    # a loose target is reached early (the exact count depends on the
    # machine: the rule itself is tested with fixed numbers in
    # tests/measure/test_stopping.py)
    loose = perf(
        *common, "--max-processes", "12", "--target-precision", "99", "-o", str(tmp_path / "loose.json"), "pass"
    )
    assert loose.returncode == 0, loose.stderr
    assert 3 <= len(load_benchmark(str(tmp_path / "loose.json")).get_process_means()) < 12
    assert "Target precision not reached" not in loose.stdout
    # an impossible one stops at the maximum, and says so
    tight = perf(
        *common, "--max-processes", "5", "--target-precision", "0.0001", "-o", str(tmp_path / "tight.json"), "pass"
    )
    assert tight.returncode == 0, tight.stderr
    assert len(load_benchmark(str(tmp_path / "tight.json")).get_process_means()) == 5
    assert "Target precision not reached: +-" in tight.stdout
    assert "after 5 processes (target +-0.0001%, stopped by the --max-processes)" in tight.stdout


def test_a_default_run_stops_between_10_processes_and_its_budget_and_says_why(tmp_path):
    # -n and --min-time keep it short; the processes are left to the rule
    output = tmp_path / "default.json"
    result = perf("timeit", "-n", "2", "--min-time", "0.002", "-o", str(output), "pass")
    assert result.returncode == 0, result.stderr
    processes = len(load_benchmark(str(output)).get_process_means())
    assert 10 <= processes <= 24
    last = result.stdout.splitlines()[-1]
    if processes < 24:
        assert last.startswith("Stopped on precision: +-") and last.endswith(
            f"after {processes} processes (target +-1%)"
        )
    else:
        assert last.startswith("Target precision not reached") or last.startswith("Stopped on precision")
    assert "Not enough samples" not in result.stdout  # the line above is the runner's one judgement


def test_the_next_worker_starts_ahead_and_every_worker_reports(tmp_path):
    # a script whose import takes longer than a warmup: the current worker
    # waits for the next one, and the run is complete either way
    path = script(
        tmp_path,
        """
        import time
        time.sleep(0.2)
        import perf
        perf.Runner().bench_func("slow_import", sum, range(100))
        """,
    )
    for extra in ({}, {"PERF_NO_STANDBY": "1"}):
        output = tmp_path / f"out{len(extra)}.json"
        command = [sys.executable, str(path), "-p", "4", "-n", "2", "--min-time", "0.005", "-o", str(output)]
        result = subprocess.run(
            command, cwd=tmp_path, env={**environ(), **extra}, capture_output=True, text=True, timeout=120, check=False
        )
        assert result.returncode == 0, result.stderr
        assert len(load_benchmark(str(output)).get_process_means()) == 4


def test_adaptive_values_after_the_pilot(tmp_path):
    output = tmp_path / "adaptive.json"
    result = perf("timeit", "-p", "8", "--min-time", "0.001", "--adaptive-values", "-o", str(output), "pass")
    assert result.returncode == 0, result.stderr
    counts = [len(run.values) for run in load_benchmark(str(output)).get_runs() if run.values]
    # the pilot: the interpreter's default values per process (2; 10 on a JIT)
    assert counts[:6] == [counts[0]] * 6 and counts[0] in (2, 10)
    assert len(set(counts[6:])) == 1 and 2 <= counts[6] <= 10


def test_target_precision_with_compare_to_can_go_beyond_the_default_budget(tmp_path):
    # the default budget is 24 processes: --max-processes 25 must be reachable
    output = tmp_path / "tp.json"
    argv = ["timeit", "-n", "1", "--min-time", "0.0005", "--compare-to", sys.executable, "--target-precision", "0.0001"]
    result = perf(*argv, "--min-processes", "2", "--max-processes", "25", "-o", str(output), "pass")
    assert result.returncode == 0, result.stderr
    assert "25 interleaved pairs" in result.stdout
    assert "Target precision not reached" in result.stdout


SUITE = """
    import os
    import sys
    import perf

    runner = perf.Runner()
    names = ["a", "b", "c"]
    if "--worker-list" in sys.argv and os.path.exists("LIE"):
        names.reverse()  # the listing worker sees other benchmarks than the parent
    for name in names:
        runner.bench_func(name, sum, range(100))
    """


def _execution_order(suite):
    """(round, name) of every worker, by date (the calibrating worker's
    two runs share one date)."""
    rows = set()
    for benchmark in suite.get_benchmarks():
        for run in benchmark.get_runs():
            metadata = run.get_metadata()
            rows.add((metadata["date"], metadata.get("schedule_round"), benchmark.get_name()))
    return [(number, name) for _, number, name in sorted(rows)]


def test_suite_runs_in_shuffled_rounds_replayed_by_the_seed(tmp_path):
    bench = script(tmp_path, SUITE)
    output = tmp_path / "suite.json"
    result = run([sys.executable, str(bench), *FAST[:2], "-p", "4", "-q", "-o", str(output)], tmp_path)
    assert result.returncode == 0, result.stderr
    # printed and saved in the order the script declares them
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["a", "b", "c"]
    suite = load(str(output))
    assert suite.get_benchmark_names() == ["a", "b", "c"]
    seeds = {run.get_metadata()["schedule_seed"] for b in suite.get_benchmarks() for run in b.get_runs()}
    assert len(seeds) == 1
    order = _execution_order(suite)
    assert [number for number, _ in order] == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    import random

    rng = random.Random(f"order:{seeds.pop()}")
    replay = [name for _ in range(4) for name in rng.sample(["a", "b", "c"], 3)]
    assert [name for _, name in order] == replay


def test_no_shuffle_runs_benchmarks_one_after_the_other(tmp_path):
    bench = script(tmp_path, SUITE)
    output = tmp_path / "suite.json"
    result = run([sys.executable, str(bench), *FAST, "--no-shuffle", "-q", "-o", str(output)], tmp_path)
    assert result.returncode == 0, result.stderr
    suite = load(str(output))
    assert _execution_order(suite) == [(None, "a")] * 2 + [(None, "b")] * 2 + [(None, "c")] * 2
    assert all("schedule_seed" not in run.get_metadata() for b in suite.get_benchmarks() for run in b.get_runs())


def test_suite_declaring_other_benchmarks_to_the_listing_worker(tmp_path):
    bench = script(tmp_path, SUITE)
    (tmp_path / "LIE").touch()
    result = run([sys.executable, str(bench), *FAST, "-o", str(tmp_path / "x.json")], tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "ERROR: the worker that listed the script's benchmarks found 'c', 'b', 'a', but the script starts "
        "with 'a': does it declare the same benchmarks in every process (custom options must reach workers "
        "through add_cmdline_args)?\n"
    )
    assert not (tmp_path / "x.json").exists()


def test_suite_compare_to_interleaves_pairs_inside_shuffled_rounds(tmp_path):
    found = _pyenv_venv(tmp_path)
    if found is None:
        pytest.skip("no other CPython installed with pyenv")
    reference, version = found
    bench = script(tmp_path, SUITE)
    output = tmp_path / "ab.json"
    argv = [sys.executable, str(bench), *FAST, "--compare-to", reference, "-o", str(output)]
    result = run(argv, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("; 2 interleaved pairs") == 3
    paths = [str(tmp_path / f"ab-{label}.json") for label in (version, platform.python_version())]
    sides = [load(path) for path in paths]
    pair_seeds = []
    for name in ("a", "b", "c"):
        runs = [[run.get_metadata() for run in side.get_benchmark(name).get_runs() if run.values] for side in sides]
        assert [m["ab_pair"] for m in runs[0]] == [m["ab_pair"] for m in runs[1]] == [1, 2]
        assert [m["schedule_round"] for m in runs[0]] == [1, 2]
        pair_seeds.append(runs[0][0]["ab_seed"])
    # one schedule seed; benchmark i's pairs are drawn from seed + i
    schedule = {
        run.get_metadata()["schedule_seed"] for side in sides for b in side.get_benchmarks() for run in b.get_runs()
    }
    assert len(schedule) == 1
    seed = schedule.pop()
    assert pair_seeds == [seed, seed + 1, seed + 2]
    compared = perf("compare_to", "-v", *paths)
    assert compared.returncode == 0, compared.stderr
    assert compared.stdout.count("; 2 interleaved pairs") == 3  # each benchmark paired again


def test_adaptive_values_with_compare_to_has_a_pilot_per_side(tmp_path):
    output = tmp_path / "ab.json"
    argv = ["timeit", "-p", "8", "--min-time", "0.001", "--adaptive-values", "--compare-to", sys.executable]
    result = perf(*argv, "-o", str(output), "pass")
    assert result.returncode == 0, result.stderr
    assert "8 interleaved pairs" in result.stdout
    for side in ("ref", "changed"):
        counts = [len(run.values) for run in load_benchmark(str(tmp_path / f"ab-{side}.json")).get_runs() if run.values]
        assert len(counts) == 8
        assert counts[:6] == [counts[0]] * 6
        assert len(set(counts[6:])) == 1 and 2 <= counts[6] <= 10


def test_ctrl_c_in_the_second_benchmark_of_a_script_in_order(tmp_path):
    """--no-shuffle: the first benchmark was saved complete, the second
    keeps its finished processes, the third did not run; one line says so."""
    started = tmp_path / "started"
    started.mkdir()
    bench = script(
        tmp_path,
        f"""
        import os, sys, time
        import perf

        def slow():
            time.sleep(0.05)

        if "--worker-task" in sys.argv and sys.argv[sys.argv.index("--worker-task") + 1] == "1":
            open(os.path.join({str(started)!r}, str(os.getpid())), "w").close()
        runner = perf.Runner()
        runner.bench_func("first", sorted, [3, 2, 1])
        runner.bench_func("second", slow)
        runner.bench_func("third", sorted, [1, 2, 3])
        """,
    )
    output = tmp_path / "s.json"
    command = [sys.executable, str(bench), "-p", "30", "-n", "2", "-w", "0", "--loops", "1", "--min-time", "0.001"]
    command += ["--no-shuffle", "-q", "-o", str(output)]
    process, stderr = _interrupt_group(command, tmp_path, _started(started, 4))
    assert process.returncode == 130
    line = stderr.strip().splitlines()[-1]
    match = re.fullmatch(
        f"Interrupted: saved to {re.escape(str(output))}: first \\(complete\\), "
        "second \\((\\d+) of 30 processes, marked incomplete\\); not run: third",
        line,
    )
    assert match, line
    suite = load(str(output))
    assert suite.get_benchmark_names() == ["first", "second"]
    assert len(suite.get_benchmark("first").get_process_means()) == 30
    assert "incomplete" not in suite.get_benchmark("first").get_metadata()
    second = suite.get_benchmark("second")
    assert len(second.get_process_means()) == int(match.group(1))
    assert second.get_metadata()["incomplete"] == f"interrupted after {match.group(1)} of 30 processes"


def test_free_threading_variables_reach_the_workers(tmp_path):
    check = "import os; assert (os.environ['PYTHON_GIL'], os.environ['PYTHON_CPU_COUNT']) == ('1', '3')"
    command = [sys.executable, "-m", "perf", "timeit", *FAST, "-q", "-s", check, "pass"]
    result = subprocess.run(
        command,
        cwd=tmp_path,
        env={**environ(), "PYTHON_GIL": "1", "PYTHON_CPU_COUNT": "3"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    # and the check is real: without them, the worker fails
    assert perf("timeit", *FAST, "-q", "-s", check, "pass", cwd=tmp_path).returncode == 1


def test_a_hook_registered_only_for_pyperf_runs_in_the_workers(tmp_path):
    from helpers import fake_hook_package

    fake_hook_package(tmp_path)
    output = tmp_path / "hooked.json"
    command = [sys.executable, "-m", "perf", "timeit", *FAST, "-q", "--hook", "only_pyperf", "-o", str(output), "pass"]
    result = subprocess.run(
        command,
        cwd=tmp_path,
        env={**environ(), "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    runs = [run for run in load_benchmark(str(output)).get_runs() if run.values]
    assert [run.get_metadata().get("fake_hook") for run in runs] == ["ran", "ran"]


THREE_WITH_A_FAILING_MIDDLE = """
    import os
    import sys
    import perf

    def middle():
        # the second worker of 'middle' fails (the first one leaves its pid)
        if "--worker-task" in sys.argv:
            if not os.path.exists("RAN"):
                with open("RAN", "w") as file:
                    file.write(str(os.getpid()))
            with open("RAN") as file:
                if file.read() != str(os.getpid()):
                    raise ValueError("the second worker of middle")

    runner = perf.Runner()
    runner.bench_func("first", sorted, [3, 2, 1])
    runner.bench_func("middle", middle)
    runner.bench_func("last", sorted, [1, 2, 3])
    """


@pytest.mark.parametrize("order", [[], ["--no-shuffle"]])
def test_a_failing_benchmark_does_not_lose_the_others(tmp_path, order):
    """Done when of issue 23: a 3-benchmark script whose middle benchmark
    raises in its second worker; the other two run to completion (in their
    shuffled rounds, or one after the other) and are saved complete, the
    failure names 'middle' with its worker's error, and the exit status is 1."""
    bench = script(tmp_path, THREE_WITH_A_FAILING_MIDDLE)
    output = tmp_path / "three.json"
    result = run([sys.executable, str(bench), *FAST, "-p", "3", "-q", "-o", str(output), *order], tmp_path)
    assert result.returncode == 1
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["first", "last"]
    lines = result.stderr.splitlines()
    assert lines[0] == "ERROR: worker 2/3 of 'middle' failed with exit code 1; last lines of its stderr:"
    assert "    ValueError: the second worker of middle" in lines
    assert f"1 of 3 processes of 'middle' saved to {output}, marked incomplete" in lines
    assert lines[-1] == f"ERROR: 1 of 3 benchmarks failed: 'middle'; the 2 others were saved to {output}"
    suite = load(str(output))
    assert suite.get_benchmark_names() == ["first", "middle", "last"]
    for name in ("first", "last"):
        benchmark = suite.get_benchmark(name)
        assert len(benchmark.get_process_means()) == 3
        assert "incomplete" not in benchmark.get_metadata()
        assert ("schedule_round" in benchmark.get_runs()[0].get_metadata()) == (not order)
    middle = suite.get_benchmark("middle")
    assert len(middle.get_process_means()) == 1
    assert middle.get_metadata()["incomplete"] == "failed after 1 of 3 processes"


# -- issue 13: usage errors, --worker in place, errors known early ------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["-m", "perf", "timeit", "--proceses", "3", "pass"],
        ["-m", "perf", "command", "--proceses=3", "--", "true"],
        ["BENCH", "--proceses", "3"],
    ],
)
def test_unknown_option_suggests_the_closest_one(tmp_path, argv):
    bench = script(tmp_path, "import perf\nperf.Runner().bench_func('f', sum, [1])\n")
    argv = [str(bench) if arg == "BENCH" else arg for arg in argv]
    result = run([sys.executable, *argv], tmp_path)
    assert result.returncode == 2
    unknown = {"timeit": "--proceses", "command": "--proceses=3"}.get(
        argv[2] if argv[0] == "-m" else "", "--proceses 3"
    )
    assert result.stderr == f"ERROR: unrecognized arguments: {unknown} (did you mean --processes?)\n"
    assert result.stdout == ""


def test_timeit_bad_inner_loops_is_a_usage_error():
    result = perf("timeit", "--duplicate", "0", "pass")
    assert (result.returncode, result.stderr) == (2, "ERROR: argument --duplicate: must be >= 1, got '0'\n")


def test_timeit_worker_in_place_writes_the_output_file(tmp_path):
    """python -m perf timeit --worker: what runs under perf record or a debugger."""
    output = tmp_path / "out.json"
    base = ["timeit", "--worker", "-l", "10", "-n", "3", "-w", "0"]
    argv = [*base, "-o", str(output), "pass"]
    result = perf(*argv)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Mean +- std dev: ")
    benchmark = load_benchmark(str(output))
    assert benchmark.get_name() == "timeit" and benchmark.get_nvalue() == 3
    # an existing -o file is refused before measuring
    before = output.read_bytes()
    again = perf(*argv)
    assert (again.returncode, again.stdout) == (1, "")
    assert again.stderr == f"ERROR: {output}: the file already exists (use --append to add runs to it)\n"
    assert output.read_bytes() == before
    # --append adds to it
    assert perf(*base, "--append", str(output), "pass").returncode == 0
    assert load_benchmark(str(output)).get_nvalue() == 6


def test_worker_in_place_zero_is_a_value_error_the_script_catches(tmp_path):
    bench = script(
        tmp_path,
        """
        import perf
        runner = perf.Runner()
        try:
            runner.bench_time_func("zero", lambda loops: 0.0)
        except ValueError as exc:
            print("caught:", exc)
        """,
    )
    result = run([sys.executable, str(bench), "--worker", "-l", "1", "-n", "1", "-w", "0"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "caught: benchmark function returned zero\n"


def test_timeit_track_memory_worker_verbose_lines_are_bytes():
    result = perf("timeit", "--worker", "-l", "1", "-n", "2", "-w", "0", "-v", "--track-memory", "x = [0] * 10**5")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    values = [line for line in lines if line.startswith("Value ")]
    assert len(values) == 2
    for line in values + lines[-1:]:
        assert re.search(r"\d (bytes|kB|MB|KiB|MiB)\b", line), line
        assert " sec" not in line, line


def test_append_of_another_unit_is_refused_before_any_worker(tmp_path):
    output = tmp_path / "out.json"
    assert perf("timeit", *FAST, "-o", str(output), "pass").returncode == 0
    before = output.read_bytes()
    result = perf("timeit", *FAST, "--track-memory", "--append", str(output), "pass")
    assert result.returncode == 1
    assert result.stderr == (
        f"ERROR: {output}: benchmark 'timeit': incompatible run: metadata 'unit' is 'byte' in the run but "
        "'second' in the benchmark (nothing was run)\n"
    )
    assert output.read_bytes() == before


def _fake_python(tmp_path, body):
    python = tmp_path / "bin" / "python"
    python.parent.mkdir(exist_ok=True)
    python.write_text("#!/bin/sh\n" + body)
    python.chmod(0o755)
    return python


def test_compare_to_an_interpreter_that_cannot_import_perf(tmp_path):
    python = _fake_python(
        tmp_path,
        "echo 'Traceback (most recent call last):' >&2\n"
        "echo \"ModuleNotFoundError: No module named 'perf'\" >&2\nexit 1\n",
    )
    result = perf("timeit", *FAST, "--compare-to", str(python), "pass")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"ERROR: --compare-to: {python} cannot import perf: ModuleNotFoundError: No module named 'perf'\n"
    )


def test_python_that_cannot_run(tmp_path):
    python = tmp_path / "python"
    python.write_bytes(b"\x7fELF garbage")
    python.chmod(0o755)
    result = perf("timeit", *FAST, "--python", str(python), "pass")
    assert result.returncode == 2
    assert result.stderr.startswith(f"ERROR: --python: {python}: cannot run it: ")
    missing = perf("timeit", *FAST, "--python", str(tmp_path / "nope"), "pass")
    assert (missing.returncode, missing.stderr) == (2, f"ERROR: --python: {tmp_path / 'nope'}: no such executable\n")


def test_probe_of_this_interpreter():
    from perf.measure.environment import runner_environment
    from perf.measure.options import RunOptions
    from perf.measure.parent.probe import probe_python

    probe = probe_python(sys.executable, runner_environment(RunOptions()))
    assert probe.implementation == sys.implementation.name
    assert probe.metadata["python_executable"] == sys.executable
    assert probe.metadata["python_implementation"]
    assert set(probe.metadata) <= set(CHECKED_KEYS)


def test_timeit_with_the_cpu_clock(tmp_path):
    output = tmp_path / "cpu.json"
    result = perf("timeit", "--clock", "cpu", *FAST, "-o", str(output), "sum(range(100))")
    assert result.returncode == 0, result.stderr
    benchmark = load(str(output)).get_benchmark("timeit")
    assert benchmark.get_nvalue() == 4
    for run in benchmark.get_runs():  # the calibration run too
        assert run.get_metadata()["clock"] == "cpu"
    assert all(value > 0 for value in benchmark.get_values())
    assert benchmark.get_metadata()["timer"].startswith(time.get_clock_info("thread_time").implementation)


def test_command_refuses_the_cpu_clock_before_running_anything(tmp_path):
    marker = tmp_path / "ran"
    result = perf("command", "--clock", "cpu", "--", sys.executable, "-c", f"open({str(marker)!r}, 'w')")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "ERROR: --clock cpu cannot be used with python -m perf command: the program runs in another process, "
        "whose CPU time the worker's thread clock does not count"
    ]
    assert not marker.exists()
