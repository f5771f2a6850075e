"""Benchmarks as time functions: ``loops -> seconds for all the loops``.

Each ``Runner`` method (``bench_func``, ``bench_async_func``,
``bench_time_func``, ``timeit``, ``bench_command``) becomes a :class:`Task`
whose :attr:`Task.time_function` the worker drives through calibration,
warmups and values.  The functions are built in the worker; the parent only
checks what it can (that a statement compiles, that a program exists).

Must not: print, spawn workers, decide loop counts.
"""

from __future__ import annotations

import functools
import itertools
import os
import sys
from typing import Any, Awaitable, Callable, Sequence

from perf.errors import UsageError, WorkerError
from perf.measure.child.clock import DEFAULT_CLOCK, Clock

TimeFunction = Callable[[int], float]


class Task:
    """One benchmark of a script: its name, how to time it, its metadata."""

    def __init__(
        self,
        name: str,
        time_function: TimeFunction,
        inner_loops: int | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        collect: Callable[[dict[str, Any]], None] | None = None,
        memory_function: TimeFunction | None = None,
        overhead_function: TimeFunction | None = None,
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"a benchmark name must be a non-empty string, got {name!r}")
        if inner_loops is not None and (not isinstance(inner_loops, int) or inner_loops < 1):
            raise ValueError(f"inner_loops must be an int >= 1, got {inner_loops!r}")
        self.name = name
        self.time_function = time_function
        self.inner_loops = inner_loops
        self.metadata = dict(metadata or {})
        #: called after the samples to add metadata (max RSS of a command)
        self.collect = collect
        #: with --track-memory: loops -> peak memory in bytes (a command's
        #: own maximum RSS); None tracks this process
        self.memory_function = memory_function
        #: loops -> seconds of the same loop with an empty body, timed once
        #: per worker and recorded as ``loop_overhead`` (never subtracted)
        self.overhead_function = overhead_function


def func_time_function(func: Callable[..., Any], args: Sequence[Any], clock: Clock = DEFAULT_CLOCK) -> TimeFunction:
    """Time ``loops`` calls of ``func(*args)``."""
    call = functools.partial(func, *args) if args else func

    def time_function(loops: int) -> float:
        # itertools.repeat: no int object per iteration (range makes one)
        iterations = itertools.repeat(None, loops)
        start = clock()
        for _ in iterations:
            call()
        return clock() - start

    return time_function


def empty_loop_time_function(clock: Clock = DEFAULT_CLOCK) -> TimeFunction:
    """The loop of :func:`func_time_function` with nothing in it: its
    seconds are the loop overhead included in every value."""

    def time_function(loops: int) -> float:
        iterations = itertools.repeat(None, loops)
        start = clock()
        for _ in iterations:
            pass
        return clock() - start

    return time_function


def time_func_time_function(time_func: Callable[..., float], args: Sequence[Any]) -> TimeFunction:
    """``time_func(loops, *args)`` returns the seconds of all the loops."""

    def time_function(loops: int) -> float:
        return time_func(loops, *args)

    return time_function


def async_time_function(
    func: Callable[..., Awaitable[Any]],
    args: Sequence[Any],
    loop_factory: Callable[[], Any] | None = None,
    clock: Clock = DEFAULT_CLOCK,
) -> TimeFunction:
    """Await ``func(*args)`` ``loops`` times in one new event loop per sample."""
    import asyncio

    async def run(loops: int) -> float:
        iterations = itertools.repeat(None, loops)
        start = clock()
        for _ in iterations:
            await func(*args)
        return clock() - start

    def time_function(loops: int) -> float:
        loop = loop_factory() if loop_factory is not None else asyncio.new_event_loop()
        try:
            return float(loop.run_until_complete(run(loops)))
        finally:
            loop.close()

    return time_function


# -- timeit -------------------------------------------------------------------

_TEMPLATE = """
def inner(_it, _timer):
{setup}
    _t0 = _timer()
{loop}
    _t1 = _timer()
{teardown}
    return _t1 - _t0
"""
#: the loop of the stdlib's timeit and of pyperf: ``_it`` is
#: ``itertools.repeat(None, loops)``, which creates no object per iteration
#: (``range`` creates an int each time: 4-10 ns more per loop on CPython)
_FOR_LOOP = "    for _i in _it:\n{stmt}"
#: PyPy: a counting loop (bench/runner/timeit_loop.py measured both loops there)
_WHILE_LOOP = "    while _it > 0:\n        _it -= 1\n{stmt}"


def _statements(code: str | Sequence[str], what: str) -> list[str]:
    """The statements of *code* as pyperf keeps them: right-stripped, the
    empty ones dropped (a str is one statement, which may span lines)."""
    if isinstance(code, str):
        pieces = [code]
    else:
        pieces = list(code)
        if not all(isinstance(line, str) for line in pieces):
            raise TypeError(f"{what} must be a str or a sequence of str")
    return [piece.rstrip() for piece in pieces if piece.rstrip()]


def _format_statements(statements: Sequence[str]) -> str:
    """Metadata is one line: each statement's repr, joined by spaces
    (``'a = 1' 'b = 2'``), as pyperf stores ``timeit_*``."""
    return " ".join(repr(statement) for statement in statements)


def _has_code(code: str) -> bool:
    return any(line.strip() and not line.strip().startswith("#") for line in code.splitlines())


def _indent(code: str, level: int) -> str:
    """*code* indented; a body with no statement (only comments) gets ``pass``."""
    prefix = " " * (4 * level)
    if not _has_code(code):
        code = code + "\npass" if code.strip() else "pass"
    return "\n".join(prefix + line for line in code.splitlines())


class TimeitCode:
    """Statements of a timeit benchmark, compiled into a timing function.

    Each of *stmt*, *setup* and *teardown* is a str or a sequence of str
    (one statement each, joined by newlines).  The default setup and
    teardown are empty: :meth:`perf.Runner.timeit` passes ``"pass"``, as
    pyperf's does, so its metadata says ``timeit_setup: 'pass'`` too.
    """

    def __init__(
        self,
        stmt: str | Sequence[str],
        setup: str | Sequence[str] = (),
        teardown: str | Sequence[str] = (),
        duplicate: int | None = None,
        globals: dict[str, Any] | None = None,
        *,
        counting_loop: bool | None = None,
    ) -> None:
        if duplicate is not None and (not isinstance(duplicate, int) or duplicate < 1):
            raise ValueError(f"duplicate must be an int >= 1, got {duplicate!r}")
        self.statements = {
            "stmt": _statements(stmt, "stmt"),
            "setup": _statements(setup, "setup"),
            "teardown": _statements(teardown, "teardown"),
        }
        self.stmt, self.setup, self.teardown = ("\n".join(self.statements[what]) for what in self.statements)
        self.duplicate = duplicate or 1
        self.globals = globals
        if counting_loop is None:
            counting_loop = sys.implementation.name == "pypy"
        self.counting_loop = counting_loop
        self._check()

    def _check(self) -> None:
        """Each piece must compile on its own (a clear error now, not in a
        worker), named as Python names the error."""
        for what, code in (("stmt", self.stmt), ("setup", self.setup), ("teardown", self.teardown)):
            try:
                compile(code, f"<timeit-{what}>", "exec")
            except SyntaxError as exc:
                raise UsageError(
                    f"invalid {what} {code!r}: {type(exc).__name__}: {exc.msg} (line {exc.lineno})"
                ) from None

    def source(self, *, empty: bool = False) -> str:
        """The timing function's source; *empty*: the same loop with no
        statement in it, no setup and no teardown (the loop overhead)."""
        stmt = "pass" if empty else "\n".join([_indent(self.stmt, 2)] * self.duplicate)
        if empty:
            stmt = _indent(stmt, 2)
        loop = (_WHILE_LOOP if self.counting_loop else _FOR_LOOP).format(stmt=stmt)
        setup, teardown = ("", "") if empty else (self.setup, self.teardown)
        return _TEMPLATE.format(setup=_indent(setup, 1), loop=loop, teardown=_indent(teardown, 1))

    def time_function(self, clock: Clock = DEFAULT_CLOCK, *, empty: bool = False) -> TimeFunction:
        namespace: dict[str, Any] = dict(self.globals) if self.globals is not None else {}
        code = compile(self.source(empty=empty), "<timeit-src>", "exec")
        local: dict[str, Any] = {}
        exec(code, namespace, local)
        inner = local["inner"]
        counting = self.counting_loop
        repeat = itertools.repeat

        def time_function(loops: int) -> float:
            return float(inner(loops if counting else repeat(None, loops), clock))

        return time_function

    def overhead_function(self, clock: Clock = DEFAULT_CLOCK) -> TimeFunction:
        """The empty loop of :meth:`time_function`: what every value
        includes besides the statements (doc/design.rst, R10)."""
        return self.time_function(clock, empty=True)

    def task(self, name: str, inner_loops: int | None, metadata: dict[str, Any] | None, clock: Clock) -> Task:
        """The task of ``Runner.timeit()``: the statements, their metadata
        (then the caller's), and the empty loop of its overhead; each loop
        iteration runs a duplicated statement *duplicate* times."""
        if self.duplicate > 1:
            inner_loops = (inner_loops or 1) * self.duplicate
        task_metadata = self.metadata()
        task_metadata.update(metadata or {})
        function = self.time_function(clock)
        return Task(name, function, inner_loops, task_metadata, overhead_function=self.overhead_function(clock))

    def metadata(self) -> dict[str, Any]:
        """``timeit_*`` keys, stored as pyperf stores them."""
        metadata: dict[str, Any] = {}
        for what in ("stmt", "setup", "teardown"):
            statements = self.statements[what]
            if statements or what == "stmt":
                metadata[f"timeit_{what}"] = _format_statements(statements)
        if self.duplicate > 1:
            metadata["timeit_duplicate"] = self.duplicate
        return metadata


# -- external commands ----------------------------------------------------------


def check_program(command: Sequence[str]) -> list[str]:
    """The command line with its program found, or a UsageError."""
    import shutil

    if isinstance(command, str) or not command or not all(isinstance(arg, str) for arg in command):
        raise UsageError("the command must be a non-empty list of strings (program and arguments)")
    program = command[0]
    found = shutil.which(program)
    if found is None:
        raise UsageError(f"{program}: program not found")
    return [found, *command[1:]]


class CommandTimer:
    """Wall time of ``loops`` sequential runs of a program, and its max RSS.

    The program's input and output go to the null device.  On POSIX each
    child is reaped with ``wait4`` to read its own resource usage (pyperf
    starts a helper process for this).
    """

    def __init__(
        self, command: Sequence[str], clock: Clock = DEFAULT_CLOCK, *, given: Sequence[str] | None = None
    ) -> None:
        self.command = list(command)
        #: the command line as the user wrote it (the program not resolved)
        self.given = list(given) if given is not None else self.command
        self.clock = clock
        #: the largest resident set size of one run, in bytes
        self.max_rss = 0

    def _run_posix(self) -> None:
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            actions = [(os.POSIX_SPAWN_DUP2, devnull, fd) for fd in (0, 1, 2)]
            pid = os.posix_spawn(self.command[0], self.command, os.environ, file_actions=actions)
        finally:
            os.close(devnull)
        _, status, usage = os.wait4(pid, 0)
        self._check_status(os.waitstatus_to_exitcode(status))
        self._record_rss(usage.ru_maxrss)

    def _run_portable(self) -> None:
        import subprocess

        devnull = subprocess.DEVNULL
        status = subprocess.call(self.command, stdin=devnull, stdout=devnull, stderr=devnull)
        self._check_status(status)
        try:
            import resource
        except ImportError:  # Windows
            return
        # the largest RSS of any child reaped so far: in a worker, the
        # benchmarked program is the only child (pyperf's method)
        self._record_rss(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)

    def _record_rss(self, ru_maxrss: int) -> None:
        # ru_maxrss: kibibytes on Linux, bytes on macOS
        scale = 1 if sys.platform == "darwin" else 1024
        self.max_rss = max(self.max_rss, ru_maxrss * scale)

    def _check_status(self, status: int) -> None:
        if status:
            what = f"was killed by signal {-status}" if status < 0 else f"failed with exit code {status}"
            raise WorkerError(f"the benchmarked command {what}: {' '.join(self.command)}")

    def __call__(self, loops: int) -> float:
        run = self._run_posix if hasattr(os, "posix_spawn") and hasattr(os, "wait4") else self._run_portable
        start = self.clock()
        for _ in range(loops):
            run()
        return self.clock() - start

    def peak_memory(self, loops: int) -> float:
        """Run the program *loops* times; its largest RSS in bytes."""
        self.max_rss = 0
        self(loops)
        if not self.max_rss:
            raise WorkerError("--track-memory: the maximum RSS of the command is not available here")
        return float(self.max_rss)

    def task(self, name: str) -> Task:
        """The task of ``Runner.bench_command()``."""
        return Task(name, self, collect=self.collect, memory_function=self.peak_memory)

    def collect(self, metadata: dict[str, Any]) -> None:
        import shlex

        # shell-quoted, as pyperf stores it: python -S -c 'import os; os._exit(0)'
        metadata["command"] = shlex.join(self.given)
        if self.max_rss:
            metadata["command_max_rss"] = self.max_rss
