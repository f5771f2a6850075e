"""Benchmarks as time functions: Task, bench_func, timeit code, commands."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import shutil
import sys

import pytest
from helpers import FakeClock

from perf.errors import UsageError, WorkerError
from perf.measure.child.tasks import (
    CommandTimer,
    Task,
    TimeitCode,
    async_time_function,
    check_program,
    func_time_function,
    time_func_time_function,
)

TRUE = shutil.which("true") or "/bin/true"
#: the POSIX path of CommandTimer reads each child's max RSS (PyPy has no posix_spawn)
RSS = sys.platform.startswith("linux") and hasattr(os, "posix_spawn") and hasattr(os, "wait4")
needs_rss = pytest.mark.skipif(not RSS, reason="needs posix_spawn and wait4 (ru_maxrss in KiB on Linux)")
FALSE = shutil.which("false") or "/bin/false"


def noop(loops):
    return 0.0


# -- Task ---------------------------------------------------------------------


def test_task_keeps_its_parts():
    def collect(metadata):
        pass

    def memory(loops):
        return 1.0

    metadata = {"tag": "x"}
    task = Task("bench", noop, 4, metadata, collect=collect, memory_function=memory)
    assert task.name == "bench"
    assert task.time_function is noop
    assert task.inner_loops == 4
    assert task.metadata == {"tag": "x"}
    assert task.collect is collect
    assert task.memory_function is memory
    metadata["tag"] = "changed"
    assert task.metadata == {"tag": "x"}  # a copy


def test_task_defaults():
    task = Task("bench", noop)
    assert task.inner_loops is None
    assert task.metadata == {}
    assert task.collect is None
    assert task.memory_function is None


@pytest.mark.parametrize("name", ["", "   ", None, 3, b"bench"])
def test_task_name_must_be_a_non_empty_string(name):
    with pytest.raises(ValueError, match=re.escape(f"a benchmark name must be a non-empty string, got {name!r}")):
        Task(name, noop)


@pytest.mark.parametrize("inner_loops", [0, -1, 1.5, "2"])
def test_task_inner_loops_must_be_a_positive_int(inner_loops):
    with pytest.raises(ValueError, match=re.escape(f"inner_loops must be an int >= 1, got {inner_loops!r}")):
        Task("bench", noop, inner_loops)


# -- time functions -----------------------------------------------------------------


def test_func_time_function_calls_func_loops_times():
    clock = FakeClock(step=0.25)
    calls = []
    time_function = func_time_function(lambda: calls.append(1), (), clock)
    assert time_function(5) == 0.25
    assert len(calls) == 5
    assert clock.calls == 2
    assert time_function(0) == 0.25
    assert len(calls) == 5
    assert clock.calls == 4


def test_func_time_function_passes_args():
    clock = FakeClock(step=1.0)
    seen = []
    time_function = func_time_function(lambda a, b: seen.append((a, b)), ("x", 2), clock)
    time_function(3)
    assert seen == [("x", 2)] * 3


def test_func_time_function_measures_the_calls():
    clock = FakeClock(step=1e-9)

    def work():
        clock.now += 1e-3

    raw = func_time_function(work, (), clock)(10)
    assert raw == pytest.approx(10e-3 + 1e-9)


def test_func_time_function_propagates_errors():
    def broken():
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        func_time_function(broken, (), FakeClock())(1)


def test_time_func_time_function_passes_loops_then_args():
    seen = []

    def time_func(loops, *args):
        seen.append((loops, args))
        return loops * 0.5

    time_function = time_func_time_function(time_func, (1, "a"))
    assert time_function(4) == 2.0
    assert seen == [(4, (1, "a"))]


def test_async_time_function_awaits_loops_times():
    clock = FakeClock(step=0.125)
    awaited = []

    async def coroutine(value):
        awaited.append(value)
        await asyncio.sleep(0)

    time_function = async_time_function(coroutine, ("v",), clock=clock)
    assert time_function(3) == 0.125
    assert awaited == ["v", "v", "v"]
    assert clock.calls == 2


def test_async_time_function_uses_one_new_loop_per_sample():
    loops_made = []

    def loop_factory():
        loop = asyncio.new_event_loop()
        loops_made.append(loop)
        return loop

    running = []

    async def coroutine():
        running.append(asyncio.get_running_loop())

    time_function = async_time_function(coroutine, (), loop_factory, FakeClock())
    time_function(2)
    time_function(1)
    assert len(loops_made) == 2
    assert running == [loops_made[0], loops_made[0], loops_made[1]]
    assert all(loop.is_closed() for loop in loops_made)


def test_async_time_function_closes_the_loop_on_error():
    made = []

    def loop_factory():
        made.append(asyncio.new_event_loop())
        return made[-1]

    async def broken():
        raise ValueError("nope")

    with pytest.raises(ValueError, match="nope"):
        async_time_function(broken, (), loop_factory, FakeClock())(1)
    assert made[0].is_closed()


# -- timeit -------------------------------------------------------------------


def test_timeit_source_with_a_for_loop():
    code = TimeitCode("x += 1", "x = 0", counting_loop=False)
    assert code.source() == (
        "\n"
        "def inner(_it, _timer):\n"
        "    x = 0\n"
        "    _t0 = _timer()\n"
        "    for _i in _it:\n"
        "        x += 1\n"
        "    _t1 = _timer()\n"
        "    pass\n"
        "    return _t1 - _t0\n"
    )


def test_timeit_source_with_a_counting_loop_and_duplicate():
    code = TimeitCode(["a = 1", "b = a"], ["x = 0", "y = 1"], "del x", duplicate=2, counting_loop=True)
    assert code.source() == (
        "\n"
        "def inner(_it, _timer):\n"
        "    x = 0\n"
        "    y = 1\n"
        "    _t0 = _timer()\n"
        "    while _it > 0:\n"
        "        _it -= 1\n"
        "        a = 1\n"
        "        b = a\n"
        "        a = 1\n"
        "        b = a\n"
        "    _t1 = _timer()\n"
        "    del x\n"
        "    return _t1 - _t0\n"
    )


def test_timeit_loop_iterates_over_itertools_repeat_on_cpython():
    """The loop's shape: ``for _i in _it`` over ``itertools.repeat(None,
    loops)``, as the stdlib's timeit and pyperf (range() creates an int per
    iteration: issue 13 measured 10.3 ns for ``pass`` against 5.7 ns)."""
    seen = []
    code = TimeitCode("seen.append((type(_it), _i))", globals={"seen": seen}, counting_loop=False)
    assert "    for _i in _it:\n" in code.source()
    code.time_function(FakeClock())(3)
    assert seen == [(itertools.repeat, None)] * 3
    # the empty loop (the overhead) iterates the same way
    seen.clear()
    assert "    for _i in _it:\n" in code.source(empty=True)


def test_bench_func_loop_iterates_over_itertools_repeat():
    frames = []

    def record():
        frames.append(sys._getframe(1).f_locals["iterations"])

    func_time_function(record, (), FakeClock())(2)
    assert [type(iterations) for iterations in frames] == [itertools.repeat] * 2


def test_timeit_empty_loop_has_the_same_shape_without_the_code():
    code = TimeitCode("x += 1", "x = 0", "del x", duplicate=3, counting_loop=False)
    assert code.source(empty=True) == (
        "\n"
        "def inner(_it, _timer):\n"
        "    pass\n"
        "    _t0 = _timer()\n"
        "    for _i in _it:\n"
        "        pass\n"
        "    _t1 = _timer()\n"
        "    pass\n"
        "    return _t1 - _t0\n"
    )
    log = []
    overhead = TimeitCode("log.append(1)", "log.append(0)", globals={"log": log}).overhead_function(
        FakeClock(step=0.25)
    )
    assert overhead(5) == 0.25
    assert log == []  # neither the statement nor the setup ran


def test_timeit_counting_loop_default_follows_the_implementation():
    assert TimeitCode("pass").counting_loop is (sys.implementation.name == "pypy")


def test_timeit_duplicate_repeats_the_statement():
    log = []
    code = TimeitCode("n += 1", "n = 0", "log.append(n)", duplicate=3, globals={"log": log}, counting_loop=False)
    assert code.source().count("        n += 1\n") == 3
    code.time_function(FakeClock())(4)
    assert log == [12]


@pytest.mark.parametrize("duplicate", [0, -2, 1.5, "2"])
def test_timeit_duplicate_must_be_a_positive_int(duplicate):
    with pytest.raises(ValueError, match=re.escape(f"duplicate must be an int >= 1, got {duplicate!r}")):
        TimeitCode("pass", duplicate=duplicate)


@pytest.mark.parametrize("counting_loop", [False, True])
def test_timeit_setup_and_teardown_run_once_per_sample(counting_loop):
    log = []
    code = TimeitCode(
        "log.append('stmt')",
        "log.append('setup')",
        "log.append('teardown')",
        globals={"log": log},
        counting_loop=counting_loop,
    )
    clock = FakeClock(step=0.5)
    time_function = code.time_function(clock)
    assert time_function(3) == 0.5
    assert log == ["setup", "stmt", "stmt", "stmt", "teardown"]
    log.clear()
    time_function(1)
    assert log == ["setup", "stmt", "teardown"]
    assert clock.calls == 4


def test_timeit_setup_names_are_seen_by_the_statement():
    results = []
    code = TimeitCode("total += step", ["total = 0", "step = 5"], "out.append(total)", globals={"out": results})
    code.time_function(FakeClock())(4)
    assert results == [20]


def test_timeit_globals_are_visible_but_copied():
    namespace = {"data": [3, 1, 2], "sink": []}
    code = TimeitCode("sink.append(sorted(data))", globals=namespace)
    code.time_function(FakeClock())(2)
    assert namespace["sink"] == [[1, 2, 3], [1, 2, 3]]
    assert "inner" not in namespace
    assert set(namespace) == {"data", "sink"}


def test_timeit_without_globals_has_no_user_names():
    with pytest.raises(NameError):
        TimeitCode("undefined_name_xyz").time_function(FakeClock())(1)


def test_timeit_returns_a_float_from_the_clock():
    clock = FakeClock(step=2)
    clock.now = 0
    result = TimeitCode("pass").time_function(clock)(10)
    assert result == 2.0
    assert isinstance(result, float)


def test_timeit_metadata_keys():
    # as pyperf stores them: each statement's repr, joined by spaces
    assert TimeitCode("x = 1").metadata() == {"timeit_stmt": "'x = 1'"}
    assert TimeitCode(["a = 1", "b = 2"], "import os", "del a", duplicate=4).metadata() == {
        "timeit_stmt": "'a = 1' 'b = 2'",
        "timeit_setup": "'import os'",
        "timeit_teardown": "'del a'",
        "timeit_duplicate": 4,
    }
    assert "timeit_duplicate" not in TimeitCode("pass", duplicate=1).metadata()


def test_timeit_metadata_strips_statements_as_pyperf():
    # pyperf right-strips each statement and drops the empty ones
    code = TimeitCode(["x = 1  ", "", "   "], setup=["", "y = 2\n"], teardown=[])
    assert code.metadata() == {"timeit_stmt": "'x = 1'", "timeit_setup": "'y = 2'"}
    # a str is one statement, even over several lines
    assert TimeitCode("a = 1\nb = 2").metadata() == {"timeit_stmt": "'a = 1\\nb = 2'"}


def test_timeit_metadata_matches_pyperf():
    pyperf_timeit = pytest.importorskip("pyperf._timeit")
    for statements in (["sorted(x)"], ["a = 1", "b = 'q'"], ['s = "it\'s"']):
        expected = pyperf_timeit.format_statements(statements)
        assert TimeitCode(statements, statements).metadata()["timeit_stmt"] == expected
        assert TimeitCode(statements, statements).metadata()["timeit_setup"] == expected


def test_timeit_sequences_must_hold_strings():
    with pytest.raises(TypeError, match="stmt must be a str or a sequence of str"):
        TimeitCode(["a = 1", 2])
    with pytest.raises(TypeError, match="setup must be a str or a sequence of str"):
        TimeitCode("pass", setup=[None])


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"stmt": "x +"}, r"^invalid stmt 'x \+': SyntaxError: .+ \(line 1\)$"),
        ({"stmt": ["a = 1", "b = ("]}, r"^invalid stmt 'a = 1\\nb = \(': SyntaxError: .+ \(line 2\)$"),
        ({"stmt": "pass", "setup": "def"}, r"^invalid setup 'def': SyntaxError: .+ \(line 1\)$"),
        ({"stmt": "pass", "teardown": "1 = x"}, r"^invalid teardown '1 = x': SyntaxError: .+ \(line 1\)$"),
        ({"stmt": "pass", "setup": " x = 1"}, r"^invalid setup ' x = 1': IndentationError: .+ \(line 1\)$"),
    ],
)
def test_timeit_syntax_errors_are_usage_errors(kwargs, expected):
    with pytest.raises(UsageError, match=expected) as info:
        TimeitCode(**kwargs)
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__


def test_timeit_syntax_error_message_names_the_error_as_python_does():
    try:
        compile("x = (", "<check>", "exec")
    except SyntaxError as exc:
        message = exc.msg
    if sys.version_info >= (3, 10):
        assert message == "'(' was never closed"
    with pytest.raises(UsageError) as info:
        TimeitCode("pass", setup="x = (")
    assert str(info.value) == f"invalid setup 'x = (': SyntaxError: {message} (line 1)"


def test_timeit_empty_statement_is_pass():
    assert "    for _i in _it:\n        pass\n" in TimeitCode("", counting_loop=False).source()
    assert TimeitCode("", counting_loop=False).time_function(FakeClock(step=1.0))(3) == 1.0


@pytest.mark.parametrize("stmt", ["# nothing", "\n", "  "])
def test_timeit_comment_only_statement(stmt):
    code = TimeitCode(stmt, counting_loop=False)
    assert code.time_function(FakeClock(step=1.0))(3) == 1.0


# -- commands -------------------------------------------------------------------


def test_check_program_finds_the_program():
    command = check_program(["true", "--flag", "x"])
    assert command == [shutil.which("true"), "--flag", "x"]
    assert os.path.isabs(command[0])


def test_check_program_keeps_an_absolute_path():
    assert check_program([TRUE]) == [TRUE]


def test_check_program_not_found():
    with pytest.raises(UsageError) as info:
        check_program(["no-such-program-xyz", "arg"])
    assert str(info.value) == "no-such-program-xyz: program not found"


@pytest.mark.parametrize("command", ["true", [], ["true", 3], [None], ()])
def test_check_program_needs_a_list_of_strings(command):
    with pytest.raises(UsageError, match="the command must be a non-empty list of strings"):
        check_program(command)


def test_command_timer_runs_the_program_loops_times(tmp_path):
    script = tmp_path / "count.sh"
    counter = tmp_path / "counter"
    script.write_text(f"#!/bin/sh\necho run >> {counter}\n")
    script.chmod(0o755)
    clock = FakeClock(step=0.5)
    timer = CommandTimer([str(script)], clock)
    assert timer(3) == 0.5
    assert counter.read_text() == "run\n" * 3
    assert clock.calls == 2


def test_command_timer_passes_the_arguments(tmp_path):
    out = tmp_path / "out"
    timer = CommandTimer(["/bin/sh", "-c", 'printf "%s" "$0" > "$1"', "first", str(out)], FakeClock())
    timer(1)
    assert out.read_text() == "first"


def test_command_timer_output_goes_to_the_null_device(capfd):
    CommandTimer(["/bin/sh", "-c", "echo out; echo err >&2"], FakeClock())(1)
    captured = capfd.readouterr()
    assert captured.out == ""
    assert captured.err == ""


@needs_rss
def test_command_timer_max_rss():
    timer = CommandTimer([TRUE], FakeClock())
    assert timer.max_rss == 0
    timer(2)
    assert timer.max_rss > 0
    assert timer.max_rss % 1024 == 0


def test_command_timer_failure():
    with pytest.raises(WorkerError) as info:
        CommandTimer([FALSE, "arg"], FakeClock())(1)
    assert str(info.value) == f"the benchmarked command failed with exit code 1: {FALSE} arg"


def test_command_timer_killed_by_a_signal():
    with pytest.raises(WorkerError) as info:
        CommandTimer(["/bin/sh", "-c", "kill -9 $$"], FakeClock())(1)
    assert str(info.value) == "the benchmarked command was killed by signal 9: /bin/sh -c kill -9 $$"


def test_command_timer_stops_at_the_first_failure(tmp_path):
    counter = tmp_path / "counter"
    command = ["/bin/sh", "-c", f"echo run >> {counter}; exit 2"]
    with pytest.raises(WorkerError, match="failed with exit code 2"):
        CommandTimer(command, FakeClock())(5)
    assert counter.read_text() == "run\n"


def test_command_timer_collect():
    timer = CommandTimer([TRUE, "a", "b"], FakeClock())
    metadata = {}
    timer.collect(metadata)
    assert metadata == {"command": f"{TRUE} a b"}
    timer(1)
    timer.collect(metadata)
    assert metadata["command"] == f"{TRUE} a b"
    if RSS:
        assert metadata["command_max_rss"] == timer.max_rss > 0


@needs_rss
def test_command_timer_peak_memory():
    timer = CommandTimer([TRUE], FakeClock())
    timer.max_rss = 10**12  # a previous, larger value is forgotten
    peak = timer.peak_memory(2)
    assert isinstance(peak, float)
    assert 0 < peak < 10**12
    assert peak == timer.max_rss


def test_command_timer_portable_path(monkeypatch, tmp_path):
    monkeypatch.delattr(os, "wait4")
    counter = tmp_path / "counter"
    timer = CommandTimer(["/bin/sh", "-c", f"echo run >> {counter}"], FakeClock(step=0.5))
    assert timer(2) == 0.5
    assert counter.read_text() == "run\n" * 2
    # the largest RSS of the children reaped so far (getrusage)
    assert timer.max_rss > 0
    assert timer.peak_memory(1) > 0
    with pytest.raises(WorkerError, match=re.escape(f"the benchmarked command failed with exit code 1: {FALSE}")):
        CommandTimer([FALSE], FakeClock())(1)
