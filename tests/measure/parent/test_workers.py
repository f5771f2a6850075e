"""The parent side: worker command lines and environments, running one worker."""

from __future__ import annotations

import os
import random
import re
import signal
import sys
import time

import pytest
from helpers import parse_options

from perf.errors import WorkerError, WorkerTimeoutError
from perf.measure.environment import PADDING_VARIABLE, perf_source_folder
from perf.measure.hooks import PERF_RECORD_ENVIRON
from perf.measure.options import RunOptions
from perf.measure.parent import workers as manager
from perf.measure.parent.launcher import Standby, WorkerLauncher
from perf.measure.parent.sides import Side
from perf.measure.parent.workers import WorkerOutput, run_worker
from perf.measure.parent.workers import describe_exit as _describe_exit
from perf.measure.protocol import decode_benchmark as _decode
from perf.measure.protocol import stderr_tail as _tail
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.storage.files import dumps

TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "bench.py", line 3, in <module>',
    "    1 / 0",
    "ZeroDivisionError: division by zero",
]


def parse(argv=()):
    return parse_options(list(argv), plan=False)


def make_benchmark(name="bench"):
    return Benchmark(
        [Run([1e-3, 2e-3], warmups=[(4, 1.5e-3)], metadata={"name": name, "loops": 4}, collect_metadata=False)]
    )


# -- _tail ---------------------------------------------------------------------


def test_tail_of_short_stderr_is_indented():
    assert _tail(b"one\ntwo\n") == "    one\n    two"


def test_tail_of_empty_stderr():
    assert _tail(b"") == ""
    assert _tail(b"\n\n  \n") == ""


def test_tail_cuts_long_stderr_to_its_last_lines():
    stderr = "".join(f"line {index}\n" for index in range(100)).encode()
    assert _tail(stderr) == "\n".join(f"    line {index}" for index in range(80, 100))
    assert _tail(stderr, lines=3) == "    line 97\n    line 98\n    line 99"


def test_tail_keeps_the_last_traceback_whole():
    noise = [f"noise {index}" for index in range(30)]
    frames = [f'  File "m.py", line {index}, in f\n    f()' for index in range(12)]  # 24 lines
    traceback = [TRACEBACK[0], *"\n".join(frames).splitlines(), TRACEBACK[-1]]
    stderr = "\n".join([*noise, *TRACEBACK, *noise, *traceback]).encode()
    assert len(traceback) > 20
    assert _tail(stderr) == "\n".join("    " + line for line in traceback)


def test_tail_of_a_traceback_followed_by_lines():
    lines = ["before", *TRACEBACK, "after 1", "after 2"]
    assert _tail("\n".join(lines).encode()) == "\n".join("    " + line for line in lines[1:])


def test_tail_of_a_too_long_traceback_is_its_end():
    lines = [TRACEBACK[0], *(f"frame {index}" for index in range(70))]
    assert _tail("\n".join(lines).encode()) == "\n".join(f"    frame {index}" for index in range(50, 70))


def test_tail_replaces_undecodable_bytes():
    assert _tail(b"bad \xff byte") == "    bad \ufffd byte"


# -- _describe_exit ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (-9, "was killed by signal SIGKILL"),
        (-15, "was killed by signal SIGTERM"),
        (-11, "was killed by signal SIGSEGV"),
        (-999, "was killed by signal 999"),
        (1, "failed with exit code 1"),
        (3, "failed with exit code 3"),
        (124, "failed with exit code 124"),
    ],
)
def test_describe_exit(code, expected):
    assert _describe_exit(code) == expected


# -- _decode ----------------------------------------------------------------------


def test_decode_a_benchmark():
    benchmark = _decode(dumps(make_benchmark("decoded")).encode(), "worker 1/2", b"")
    assert benchmark.get_name() == "decoded"
    assert benchmark.get_values() == (1e-3, 2e-3)


def test_decode_nothing_sent():
    with pytest.raises(WorkerError) as info:
        _decode(b"", "worker 1/2 of 'b'", b"")
    assert str(info.value) == (
        "worker 1/2 of 'b' exited without sending a result (did the script call the same benchmarks in a worker?)"
    )


def test_decode_nothing_sent_quotes_stderr():
    with pytest.raises(WorkerError) as info:
        _decode(b"", "w", b"warning: x\n")
    assert str(info.value) == (
        "w exited without sending a result (did the script call the same benchmarks in a worker?); "
        "last lines of its stderr:\n    warning: x"
    )


@pytest.mark.parametrize("data", [b"not json", b'{"version": "1.0", "benchmarks": []}', b"\xff\xfe", b"[1, 2]"])
def test_decode_invalid_data(data):
    with pytest.raises(WorkerError, match=r"^w sent an invalid result: .+") as info:
        _decode(data, "w", b"")
    assert info.value.__cause__ is None


def test_decode_two_benchmarks_is_invalid():
    from perf.model.suite import BenchmarkSuite

    data = dumps(BenchmarkSuite([make_benchmark("a"), make_benchmark("b")])).encode()
    with pytest.raises(WorkerError, match=re.escape("w sent an invalid result: <string>: expected 1 benchmark, got 2")):
        _decode(data, "w", b"")


# -- WorkerLauncher: command line and environment --------------------------------------------------

FAKE_ENVIRON = {
    "PATH": "/usr/bin",
    "HOME": "/home/me",
    "LANG": "C.UTF-8",
    "SECRET": "s3cr3t",
    "PYTHONPATH": "/lib/a",
    "PERF_PERF_RECORD_DATA_DIR": "/data",
}


def launcher_of(args, python, program_args, add_cmdline_args=None, **kwargs):
    """The launcher of one side running *program_args* with *python*."""
    side = Side("interpreter", python, args, tuple(program_args))
    extend_command = None if add_cmdline_args is None else lambda command: add_cmdline_args(command, args)
    launcher = WorkerLauncher(side, extend_command, **kwargs)
    launcher.namespace = args  # what the callback gets: the Runner wraps add_cmdline_args the same way
    return launcher


def make_manager(argv=(), add_cmdline_args=None, seed=5, program_args=("bench.py", "--size", "3")):
    return launcher_of(
        parse(argv),
        "/usr/bin/python3",
        program_args,
        add_cmdline_args,
        environ=dict(FAKE_ENVIRON),
        rng=random.Random(seed),
    )


def test_worker_command_of_the_calibrating_worker():
    assert make_manager().worker_command(0, 7, 0) == [
        "/usr/bin/python3", "bench.py", "--size", "3",
        "--worker", "--pipe", "7", "--worker-task", "0", "--values", "2", "--min-time", "0.1",
        "--loops", "0", "--warmups", "1",
    ]  # fmt: skip


def test_worker_command_of_a_later_worker():
    command = make_manager(["-n", "2", "-v"]).worker_command(3, 12, 640)
    assert command == [
        "/usr/bin/python3", "bench.py", "--size", "3",
        "--worker", "--pipe", "12", "--worker-task", "3", "--values", "2", "--min-time", "0.1",
        "--loops", "640", "--warmups", "1", "-v",
    ]  # fmt: skip


def test_worker_command_applies_add_cmdline_args():
    seen = []

    def add_cmdline_args(command, args):
        seen.append(args)
        command.extend(["--my-option", str(args.values)])

    manager_ = make_manager(["-n", "4"], add_cmdline_args)
    command = manager_.worker_command(1, 5, 10)
    assert command[-2:] == ["--my-option", "4"]
    assert command[:4] == ["/usr/bin/python3", "bench.py", "--size", "3"]
    assert seen == [manager_.namespace]


def test_worker_command_with_chosen_values_and_listing():
    manager_ = make_manager([], lambda command, args: command.append("--custom"))
    command = manager_.worker_command(0, 7, 0, 6, listing=True)
    assert command[9:11] == ["--values", "6"]
    # the listing flag belongs to the runner options, before the script's own
    assert command[-2:] == ["--worker-list", "--custom"]


LISTER = (
    "import os, sys\n"
    "fd = int(sys.argv[sys.argv.index('--pipe') + 1])\n"
    "assert '--worker-list' in sys.argv\n"
    "os.write(fd, sys.argv[1].encode())\n"
)


def lister(payload):
    manager_ = launcher_of(parse(), sys.executable, ["-c", LISTER, payload], environ=clean_env(), rng=random.Random(1))
    return manager_.list_benchmarks()


def test_list_benchmarks_reads_one_name_per_line():
    assert lister('"a"\n"b b"\n"\\u00e9"\n') == ["a", "b b", "\u00e9"]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("", "the worker listing the script's benchmarks sent no benchmark name"),
        ("1\n", "the worker listing the script's benchmarks sent no benchmark name"),
        ("{oops\n", "the worker listing the script's benchmarks sent an invalid list: "),
    ],
)
def test_list_benchmarks_errors(payload, message):
    with pytest.raises(WorkerError) as info:
        lister(payload)
    assert str(info.value).startswith(message)


def test_program_args_are_copied():
    program_args = ["bench.py"]
    manager_ = make_manager(program_args=program_args)
    program_args.append("--later")
    assert "--later" not in manager_.worker_command(0, 3, 1)


def test_worker_env_is_clean_and_padded():
    env = make_manager(seed=5).worker_env()
    expected_padding = random.Random(5).randint(0, 4095)
    assert env[PADDING_VARIABLE] == "x" * expected_padding
    source = perf_source_folder()
    assert source is not None  # the tests run from the source tree
    assert env["PYTHONPATH"] == os.pathsep.join([source, "/lib/a"])
    assert {name: value for name, value in env.items() if name not in (PADDING_VARIABLE, "PYTHONPATH")} == {
        "PATH": "/usr/bin",
        "HOME": "/home/me",
        "LANG": "C.UTF-8",
    }


def test_worker_env_padding_changes_from_worker_to_worker():
    manager_ = make_manager(seed=11)
    rng = random.Random(11)
    paddings = [len(manager_.worker_env()[PADDING_VARIABLE]) for _ in range(5)]
    assert paddings == [rng.randint(0, 4095) for _ in range(5)]
    assert len(set(paddings)) > 1


def test_worker_env_options():
    env = make_manager(["--inherit-environ", "SECRET", "--no-locale"]).worker_env()
    assert env["SECRET"] == "s3cr3t"
    assert "LANG" not in env
    everything = make_manager(["--copy-env"]).worker_env()
    assert everything["SECRET"] == "s3cr3t"
    assert everything["PERF_PERF_RECORD_DATA_DIR"] == "/data"


def test_worker_env_keeps_perf_record_variables_with_hooks():
    assert "PERF_PERF_RECORD_DATA_DIR" not in make_manager().worker_env()
    env = make_manager(["--hook", "perf_record"]).worker_env()
    assert env["PERF_PERF_RECORD_DATA_DIR"] == "/data"
    assert "PERF_PERF_RECORD_DATA_DIR" in PERF_RECORD_ENVIRON


def test_manager_copies_the_environ():
    environ = dict(FAKE_ENVIRON)
    manager_ = launcher_of(parse(), "python", ["b.py"], environ=environ, rng=random.Random(1))
    environ["SECRET"] = "changed"
    assert manager_.environ["SECRET"] == "s3cr3t"


def test_manager_reads_os_environ_by_default(monkeypatch):
    monkeypatch.setenv("PERF_TEST_MARKER", "1")
    manager_ = launcher_of(parse(["--inherit-environ", "PERF_TEST_MARKER"]), "python", ["b.py"])
    assert manager_.worker_env()["PERF_TEST_MARKER"] == "1"


def test_a_side_sets_its_own_variables_after_the_filtering():
    args = parse(["--inherit-environ", "SECRET"])
    side = Side("interpreter", "python", args, ("b.py",), env=(("PYTHONPATH", "/tree/b"),))
    env = WorkerLauncher(side, environ=dict(FAKE_ENVIRON), rng=random.Random(1)).worker_env()
    # the side's source tree (after perf's own folder), not the caller's path
    assert env["PYTHONPATH"] == os.pathsep.join([perf_source_folder(), "/tree/b"])
    assert env["SECRET"] == "s3cr3t"


def test_a_program_side_appends_its_program_after_the_script_options():
    args = parse()
    side = Side("program", "/usr/bin/python3", args, ("-m", "perf", "command"), ("true", "-x"))
    launcher = WorkerLauncher(side, lambda command: command.extend(["--name", "n"]))
    command = launcher.worker_command(0, 7, 0)
    assert command[:4] == ["/usr/bin/python3", "-m", "perf", "command"]
    assert command[-5:] == ["--name", "n", "--", "true", "-x"]


def test_a_side_runs_its_workers_in_its_folder(tmp_path):
    code = "import os, sys\nfd = int(sys.argv[sys.argv.index('--pipe') + 1])\nos.write(fd, os.getcwd().encode())\n"
    args = parse()
    side = Side("interpreter", sys.executable, args, ("-c", code), cwd=str(tmp_path))
    launcher = WorkerLauncher(side, environ=clean_env())
    read_fd, write_fd = os.pipe()
    finished = launcher.run(launcher.worker_command(0, write_fd, 0), (read_fd, write_fd), "w")
    assert finished.data.decode() == str(tmp_path)


# -- run_worker with tiny real processes ---------------------------------------------------


def python_worker(code, *args):
    """A command running *code*; ``sys.argv[1:]`` are *args*."""
    return [sys.executable, "-c", code, *map(str, args)]


def clean_env():
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def run(code, *args, timeout=10.0, what="worker 1/1 of 'bench'"):
    read_fd, write_fd = os.pipe()
    command = python_worker(code, write_fd, *args)
    return run_worker(command, clean_env(), (read_fd, write_fd), timeout=timeout, what=what), (read_fd, write_fd)


def assert_closed(*fds):
    for fd in fds:
        with pytest.raises(OSError):
            os.fstat(fd)


SEND = "import os, sys; fd = int(sys.argv[1]); os.write(fd, sys.argv[2].encode()); os.close(fd)"


def test_run_worker_returns_the_benchmark_and_stderr():
    data = dumps(make_benchmark("child"))
    code = SEND + "; sys.stderr.write('a warning\\n')"
    started = time.monotonic()
    (output, fds) = run(code, data)
    assert isinstance(output, WorkerOutput)
    assert output.benchmark.get_name() == "child"
    assert output.benchmark.get_values() == (1e-3, 2e-3)
    assert output.stderr == "a warning\n"
    assert 0 < output.elapsed <= time.monotonic() - started
    assert_closed(*fds)


def test_run_worker_gets_the_environment():
    data = dumps(make_benchmark("child"))
    code = SEND + "; sys.stderr.write(os.environ.get('PERF_TEST_VALUE', 'unset'))"
    read_fd, write_fd = os.pipe()
    output = run_worker(
        python_worker(code, write_fd, data),
        {**clean_env(), "PERF_TEST_VALUE": "42"},
        (read_fd, write_fd),
        timeout=10,
        what="w",
    )
    assert output.stderr == "42"


def test_run_worker_reads_a_large_result_and_large_stderr(tmp_path):
    code = (
        "import os, sys\n"
        "fd = int(sys.argv[1])\n"
        "view = memoryview(open(sys.argv[2], 'rb').read())\n"
        "sys.stderr.write('e' * 300000)\n"
        "while view:\n"
        "    view = view[os.write(fd, view):]\n"
    )
    benchmark = Benchmark(
        [Run([1e-3 + index * 1e-12 for index in range(5000)], metadata={"name": "big"}, collect_metadata=False)]
    )
    path = tmp_path / "big.json"
    path.write_text(dumps(benchmark))
    assert path.stat().st_size > 65536  # more than one pipe buffer
    (output, _) = run(code, path)
    assert output.benchmark.get_nvalue() == 5000
    assert manager.STDERR_LIMIT <= len(output.stderr) <= 2 * manager.STDERR_LIMIT
    assert set(output.stderr) == {"e"}


def test_run_worker_exit_code_with_stderr_tail():
    code = "import sys; sys.stderr.write('Traceback (most recent call last):\\nValueError: bad\\n'); sys.exit(3)"
    with pytest.raises(WorkerError) as info:
        run(code)
    assert type(info.value) is WorkerError
    assert str(info.value) == (
        "worker 1/1 of 'bench' failed with exit code 3; last lines of its stderr:\n"
        "    Traceback (most recent call last):\n"
        "    ValueError: bad"
    )


def test_run_worker_exit_code_without_stderr():
    with pytest.raises(WorkerError) as info:
        run("import sys; sys.exit(3)", what="w")
    assert str(info.value) == "w failed with exit code 3"


def test_run_worker_exit_code_wins_over_a_sent_result():
    with pytest.raises(WorkerError, match=re.escape("w failed with exit code 2")):
        run(SEND + "; sys.exit(2)", dumps(make_benchmark()), what="w")


def test_run_worker_killed_by_a_signal():
    with pytest.raises(WorkerError) as info:
        run("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", what="w")
    assert str(info.value) == "w was killed by signal SIGKILL"


def test_run_worker_without_result():
    with pytest.raises(WorkerError) as info:
        run("import sys; print('hello', file=sys.stderr)", what="w")
    assert str(info.value) == (
        "w exited without sending a result (did the script call the same benchmarks in a worker?); "
        "last lines of its stderr:\n    hello"
    )


def test_run_worker_with_an_invalid_result():
    with pytest.raises(WorkerError, match=r"^w sent an invalid result: "):
        run(SEND, "{not json", what="w")


def test_run_worker_cannot_start():
    read_fd, write_fd = os.pipe()
    with pytest.raises(WorkerError) as info:
        run_worker(["/nonexistent/python3", "-c", "pass"], clean_env(), (read_fd, write_fd), timeout=5, what="w")
    assert str(info.value) == "cannot start a worker (/nonexistent/python3): No such file or directory"
    assert_closed(read_fd, write_fd)


def process_is_gone(pid, wait=5.0):
    """True once *pid* no longer runs (gone, or a zombie nobody reaped yet)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            with open(f"/proc/{pid}/stat") as file:
                state = file.read().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


SLEEPER = (
    "import os, subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
    "with open(sys.argv[2] + '.tmp', 'w') as file:\n"
    "    file.write(f'{os.getpid()} {child.pid}')\n"
    "os.rename(sys.argv[2] + '.tmp', sys.argv[2])\n"
    "time.sleep(30)\n"
)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_run_worker_timeout_stops_the_worker_and_its_children(tmp_path):
    pids_file = tmp_path / "pids"
    started = time.monotonic()
    with pytest.raises(WorkerTimeoutError) as info:
        run(SLEEPER, pids_file, timeout=1.5, what="w")
    assert time.monotonic() - started < 10
    assert str(info.value) == "w ran longer than the timeout (1.5 s) and was stopped"
    assert pids_file.exists(), "the worker did not start in time"
    worker_pid, child_pid = map(int, pids_file.read_text().split())
    assert process_is_gone(worker_pid)
    assert process_is_gone(child_pid)


def test_run_worker_short_timeout():
    started = time.monotonic()
    with pytest.raises(WorkerTimeoutError, match=re.escape("w ran longer than the timeout (0.5 s) and was stopped")):
        run("import time; time.sleep(30)", timeout=0.5, what="w")
    assert time.monotonic() - started < 5


def test_run_worker_that_closes_its_pipes_but_does_not_exit(monkeypatch):
    monkeypatch.setattr(manager, "EXIT_TIMEOUT", 0.3)
    code = "import os, sys, time; os.close(int(sys.argv[1])); os.close(2); time.sleep(30)"
    with pytest.raises(WorkerTimeoutError, match=re.escape("w ran longer than the timeout (5 s) and was stopped")):
        run(code, timeout=5, what="w")


def test_run_worker_without_timeout_that_does_not_exit(monkeypatch):
    monkeypatch.setattr(manager, "EXIT_TIMEOUT", 0.3)
    code = "import os, sys, time; os.close(int(sys.argv[1])); os.close(2); time.sleep(30)"
    with pytest.raises(WorkerError):
        run(code, timeout=None, what="w")


# -- run_command: any worker command line, watched ------------------------------------------


def test_run_command_returns_any_exit_status_and_merges_the_output():
    read_fd, write_fd = os.pipe()
    code = "import os, sys; print('out', flush=True); os.write(int(sys.argv[1]), b'sent'); sys.exit('err')"
    finished = manager.run_command(
        python_worker(code, write_fd), None, (read_fd, write_fd), timeout=10, what="w", check=False, merge_output=True
    )
    assert (finished.status, finished.data, finished.stderr) == (1, b"sent", b"out\nerr\n")
    assert_closed(read_fd, write_fd)


def test_run_command_watches_a_worker_while_it_runs():
    read_fd, write_fd = os.pipe()
    code = "import os, sys, time\nfor i in range(3):\n    os.write(int(sys.argv[1]), b'x')\n    time.sleep(0.3)\n"
    seen = []
    watch = manager.Watch(0.2, seen.append)
    finished = manager.run_command(
        python_worker(code, write_fd), None, (read_fd, write_fd), timeout=10, what="w", watch=watch
    )
    assert finished.data == b"xxx"
    assert 2 <= len(seen) <= 6
    assert seen == sorted(seen, key=len) and set(seen[0]) <= {ord("x")}


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_an_interrupted_watch_stops_the_worker_and_its_children(tmp_path):
    """Ctrl-C while the parent waits (here raised by the watch) stops the
    worker and what it started."""
    pids_file = tmp_path / "pids"

    def interrupt(data):
        if pids_file.exists():
            raise KeyboardInterrupt

    read_fd, write_fd = os.pipe()
    with pytest.raises(KeyboardInterrupt):
        manager.run_command(
            python_worker(SLEEPER, write_fd, pids_file),
            None,
            (read_fd, write_fd),
            timeout=20,
            what="w",
            watch=manager.Watch(0.1, interrupt),
        )
    worker_pid, child_pid = map(int, pids_file.read_text().split())
    assert process_is_gone(worker_pid)
    assert process_is_gone(child_pid)
    assert_closed(read_fd)


def test_a_merged_worker_ends_when_it_exits_even_if_a_child_holds_its_output(tmp_path):
    read_fd, write_fd = os.pipe()
    code = (
        "import os, subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"  # inherits stdout
        "os.write(int(sys.argv[1]), str(child.pid).encode())\n"
    )
    started = time.monotonic()
    finished = manager.run_command(
        python_worker(code, write_fd), None, (read_fd, write_fd), timeout=20, what="w", merge_output=True
    )
    os.kill(int(finished.data), signal.SIGKILL)
    assert finished.status == 0
    assert time.monotonic() - started < 10


# -- workers started ahead of their turn: the barrier -------------------------------------

#: a worker that follows the barrier protocol (perf.measure.protocol.wait_at_barrier):
#: argv: pipe, barrier, stamp file, seconds of start-up; it writes when it got
#: where into the stamp file (time.monotonic() is one clock for every process)
BARRIER_WORKER = """
import os, sys, time
pipe, barrier, stamps, startup = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
def stamp(what):
    with open(stamps, "a") as file:
        file.write(f"{what} {time.monotonic()}\\n")
time.sleep(startup)
stamp("ready")
os.write(pipe, b"\\x02")
if not os.read(barrier, 1):
    stamp("cancelled")
    sys.exit(0)
os.write(pipe, b"\\x03")
if not os.read(barrier, 1):
    sys.exit(0)
stamp("values")
os.write(pipe, sys.argv[5].encode())
"""


def barrier_worker(tmp_path, name, startup=0.0):
    read_fd, write_fd = os.pipe()
    barrier = os.pipe()
    stamps = tmp_path / name
    command = python_worker(BARRIER_WORKER, write_fd, barrier[0], stamps, startup, dumps(make_benchmark()))
    return manager.WorkerProcess(command, clean_env(), read_fd, write_fd, barrier=barrier), stamps


def stamps_of(path):
    return {what: float(when) for what, when in (line.split() for line in path.read_text().splitlines())}


def test_a_worker_takes_its_values_only_once_the_next_one_is_ready(tmp_path):
    current, current_stamps = barrier_worker(tmp_path, "current")
    current.release()
    ahead, ahead_stamps = barrier_worker(tmp_path, "ahead", startup=0.5)  # a slow start-up
    finished = manager.finish_workers([(current, "current")], 10.0, True, beside=ahead)[0]
    assert _decode(finished.data, "current", b"").get_name() == "bench"  # the markers are not part of the result
    assert ahead.ready
    assert stamps_of(current_stamps)["values"] >= stamps_of(ahead_stamps)["ready"]
    ahead.kill()
    ahead.close()
    assert ahead.process.returncode is not None
    assert "values" not in stamps_of(ahead_stamps)  # stopped at its barrier: it measured nothing


def test_a_worker_alone_does_not_wait(tmp_path):
    current, stamps = barrier_worker(tmp_path, "current")
    current.release()
    start = time.monotonic()
    manager.finish_workers([(current, "current")], 10.0, True)
    assert stamps_of(stamps)["values"] - start < 5.0
    assert current.barrier is None


def test_a_next_worker_that_dies_does_not_hold_the_current_one(tmp_path):
    current, _ = barrier_worker(tmp_path, "current")
    current.release()
    read_fd, write_fd = os.pipe()
    dead = manager.WorkerProcess(python_worker("import sys; sys.exit(3)", write_fd), clean_env(), read_fd, write_fd)
    finished = manager.finish_workers([(current, "current")], 10.0, True, beside=dead)[0]
    assert finished.status == 0
    assert not dead.ready
    dead.kill()
    dead.close()


class FakeLauncher:
    """Spawns barrier workers, as WorkerLauncher.spawn() does."""

    options = RunOptions()

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.spawned = []

    def spawn(self, task, loops, values):
        worker, _ = barrier_worker(self.tmp_path, f"worker{len(self.spawned)}")
        self.spawned.append(worker)
        return worker


def test_standby_gives_the_worker_it_started_only_for_the_same_key(tmp_path):
    launcher = FakeLauncher(tmp_path)
    standby = Standby(enabled=True)
    standby.start((launcher, 0, 100, 2))
    standby.start((launcher, 0, 100, 2))  # already started
    assert len(launcher.spawned) == 1
    assert standby.take((launcher, 0, 100, 3)) is None  # other values per process: stopped
    assert launcher.spawned[0].process.poll() is not None
    standby.start((launcher, 1, 100, 2))
    taken = standby.take((launcher, 1, 100, 2))
    assert taken is launcher.spawned[1]
    assert standby.worker is None
    taken.kill()
    taken.close()


def test_standby_cancel_stops_the_waiting_worker(tmp_path):
    launcher = FakeLauncher(tmp_path)
    standby = Standby(enabled=True)
    standby.start((launcher, 0, 100, 2))
    standby.cancel()
    assert launcher.spawned[0].process.poll() is not None
    assert standby.worker is None


def test_standby_disabled_by_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PERF_NO_STANDBY", "1")
    launcher = FakeLauncher(tmp_path)
    standby = Standby()
    standby.start((launcher, 0, 100, 2))
    assert launcher.spawned == [] and standby.worker is None


def test_standby_that_cannot_start_a_worker_lets_it_fail_in_its_turn():
    class Failing:
        options = RunOptions()

        def spawn(self, task, loops, values):
            raise WorkerError("cannot start a worker (python): No such file or directory")

    standby = Standby(enabled=True)
    standby.start((Failing(), 0, 100, 2))
    assert standby.worker is None and not standby.enabled


def test_a_worker_that_fails_before_its_values_leaves_no_barrier_open(tmp_path):
    read_fd, write_fd = os.pipe()
    barrier = os.pipe()
    command = python_worker("import sys; sys.exit(1)", write_fd)
    worker = manager.WorkerProcess(command, clean_env(), read_fd, write_fd, barrier=barrier)
    parent_end = worker.barrier
    worker.release()
    with pytest.raises(WorkerError, match="failed with exit code 1"):
        manager.finish_workers([(worker, "worker 1/1 of 'bench'")], 10.0, True)
    assert worker.barrier is None
    assert_closed(parent_end, read_fd)


def test_a_worker_that_died_at_its_barrier_is_reported_by_its_exit(tmp_path):
    read_fd, write_fd = os.pipe()
    barrier = os.pipe()
    command = python_worker(
        "import sys; print('ImportError: no module named x', file=sys.stderr); sys.exit(1)", write_fd
    )
    worker = manager.WorkerProcess(command, clean_env(), read_fd, write_fd, barrier=barrier)
    worker.process.wait()  # died before its turn: its barrier has no reader
    worker.release()
    with pytest.raises(WorkerError, match="ImportError: no module named x"):
        manager.finish_workers([(worker, "worker 3/24 of 'bench'")], 10.0, True)


def test_standby_starts_nothing_for_a_metric_that_takes_its_own_samples(tmp_path):
    launcher = FakeLauncher(tmp_path)
    launcher.options = RunOptions(metric="instructions")  # counts: a pair of workers under valgrind per sample
    standby = Standby(enabled=True)
    standby.start((launcher, 0, 100, 1))
    assert launcher.spawned == [] and standby.worker is None
