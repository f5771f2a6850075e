"""What the parent and a worker process tell each other: the worker's command line and its pipe.

Parent to worker: the command line (:func:`worker_arguments`: the runner
options of one worker, derived from
:data:`perf.measure.options.RUNNER_OPTIONS`, then :data:`LIST_ARGUMENT`
for a worker that only lists the benchmarks) and the environment
(:mod:`perf.measure.environment`).  A worker reads its command line with
the runner's parser: the internal rows of the table (``--worker``,
``--pipe FD``, ``--barrier FD``, ``--worker-task N``, ``--worker-list``)
are the names it reads.  The one input a measuring worker gets is on its
barrier: a byte when it may start, and one when it may take its values
(the parent starts the next worker while this one warms up:
:class:`perf.measure.parent.launcher.Standby`).

Worker to parent, on the pipe ``--pipe FD``, which the worker closes when
it is done:

* a measuring worker writes one benchmark as JSON, perf's file format
  (:func:`send_benchmark`; :func:`decode_benchmark` in the parent); with
  a barrier, the bytes :data:`READY` and :data:`WARM` come first
  (:func:`wait_at_barrier`);
* a listing worker writes one line per benchmark the script declares, in
  order, each the JSON string of its name (:func:`name_line`;
  :func:`decode_names`);
* a worker that fails writes nothing there: it exits with a non-zero
  status and explains why on its standard error, whose end the parent
  quotes (:func:`with_stderr`: its last traceback, or its last lines).

A batch worker (the pytest plugin's ``python -m pytest ...``) measures
several tests in one process: its command line ends with
``--perf-worker=PATH`` (:func:`spec_argument`), the file of its
:class:`BatchSpec`, and it writes one :class:`Event` per line on the pipe
the spec names, as it goes (:class:`EventPipe`, :func:`decode_events`).

Workers import this module: it imports the table and the file format only
when a function needs them.  Must not: spawn processes, print, or exit.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, NamedTuple, Sequence

from perf.errors import PerfError, WorkerCancelled, WorkerError

if TYPE_CHECKING:
    from perf.measure.options import RunOptions
    from perf.measure.values import Option
    from perf.model.benchmark import Benchmark

#: the argument of a worker that lists the script's benchmarks (and measures nothing)
LIST_ARGUMENT = "--worker-list"
#: lines of standard error quoted when a worker fails
STDERR_LINES = 20


# -- parent to worker: the command line ------------------------------------------------


def worker_arguments(
    options: RunOptions, task: int, pipe: int, loops: int, values: int | None = None, *, barrier: int | None = None
) -> list[str]:
    """The runner options of one worker command line (after the program),
    derived from :data:`perf.measure.options.RUNNER_OPTIONS`.

    The options the parent decides per worker come first: *loops* 0 makes
    this worker calibrate the loops before its values (``--loops 0`` is
    explicit: a script's ``Runner(loops=N)`` default must not apply to
    it); *values* per process (default ``--values``; ``--adaptive-values``
    chooses them after a pilot); *barrier*: the worker waits on this
    descriptor before it times anything (:func:`wait_at_barrier`).  Then the options passed on as given: how
    the worker measures, then what runs around its values.
    """
    from perf.measure.options import RUNNER_OPTIONS
    from perf.measure.values import MEASURING, RECORDING

    command = ["--worker", "--pipe", str(pipe), "--worker-task", str(task)]
    if barrier is not None:
        command += ["--barrier", str(barrier)]
    command += ["--values", str(options.values if values is None else values), "--min-time", repr(options.min_time)]
    command += ["--loops", str(loops)]  # 0: this worker calibrates them
    command += ["--warmups", str(options.warmups)]
    for passed in (MEASURING, RECORDING):
        for option in RUNNER_OPTIONS:
            if option.worker == passed:
                command += _worker_option(option, getattr(options, option.name))
    return command


def timeit_arguments(  # noqa: PLR0917 (the statements of python -m perf timeit, in its order)
    name: str,
    stmt: Sequence[str],
    setup: Sequence[str] = (),
    teardown: Sequence[str] = (),
    inner_loops: int | None = None,
    duplicate: int | None = None,
) -> list[str]:
    """What a worker of ``python -m perf timeit`` is given after the
    runner's options: its benchmark's name and statements."""
    arguments = ["--name", name]
    for setup_line in setup:
        arguments += ["--setup", setup_line]
    for teardown_line in teardown:
        arguments += ["--teardown", teardown_line]
    if inner_loops:
        arguments += ["--inner-loops", str(inner_loops)]
    if duplicate:
        arguments += ["--duplicate", str(duplicate)]
    return [*arguments, "--", *stmt]


def _worker_option(option: Option, value: Any) -> list[str]:
    """One option passed on as given: nothing when it has its default."""
    if option.switch:
        return [option.flags[0]] if value else []
    if value is None or value == option.default:
        return []
    flag = option.flags[-1]
    if option.repeated:
        return [word for item in value for word in (flag, str(item))]
    return [f"{flag}={value}"] if option.joined else [flag, str(value)]


# -- worker to parent: the pipe --------------------------------------------------------


#: a worker with a barrier writes these bytes on its pipe before its
#: result: READY when it waits at the barrier (started, imports and setup
#: done), WARM when it waits there again, warmed up, before its values
READY = b"\x02"
WARM = b"\x03"


def wait_at_barrier(options: RunOptions, marker: bytes = READY) -> bool:
    """A worker with a barrier (``--barrier FD``): write *marker* on the
    pipe, then wait until the parent writes a byte on the barrier (True:
    go on) or closes it (False: not needed, exit quietly).  The parent lets
    a worker start (READY) once the previous one exited, and lets it take
    its values (WARM) once the next one, started meanwhile, is READY: no
    other worker runs beside a value.  True at once without a barrier."""
    import os

    if options.barrier is None:
        return True
    assert options.pipe is not None
    os.write(options.pipe, marker)
    return bool(os.read(options.barrier, 1))


def before_values(options: RunOptions) -> Callable[[], None] | None:
    """What a worker with a barrier calls before its first value (after
    its warmups): :func:`wait_at_barrier` with WARM; None without a barrier."""
    if options.barrier is None:
        return None

    def warm() -> None:
        if not wait_at_barrier(options, WARM):
            raise WorkerCancelled("the run stopped before this worker's values")

    return warm


def send_benchmark(benchmark: Benchmark, fd: int) -> None:
    """A measuring worker: write *benchmark* as JSON to the parent's pipe
    *fd*, then close it."""
    from perf.storage.files import dumps

    data = dumps(benchmark).encode("utf-8")
    with open(fd, "wb", closefd=True) as pipe:
        pipe.write(data)


def name_line(name: str) -> bytes:
    """A listing worker: the line of the benchmark *name* (``--worker-list``)."""
    return (json.dumps(name) + "\n").encode("utf-8")


def decode_benchmark(data: bytes, what: str, stderr: bytes) -> Benchmark:
    """What a measuring worker (*what*, for the messages) sent: its
    benchmark, or WorkerError."""
    from perf.storage.files import loads_benchmark

    data = data.lstrip(READY + WARM)
    if not data:
        message = f"{what} exited without sending a result (did the script call the same benchmarks in a worker?)"
        raise WorkerError(with_stderr(message, stderr))
    try:
        return loads_benchmark(data)
    except (PerfError, ValueError) as exc:
        raise WorkerError(f"{what} sent an invalid result: {exc}") from None


def decode_names(data: bytes, what: str, stderr: bytes) -> list[str]:
    """What a listing worker sent: the names of the script's benchmarks,
    in order, or WorkerError."""
    try:
        names = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    except ValueError as exc:
        raise WorkerError(f"{what} sent an invalid list: {exc}") from None
    if not names or not all(isinstance(name, str) for name in names):
        raise WorkerError(with_stderr(f"{what} sent no benchmark name", stderr))
    return names


def stderr_tail(stderr: bytes, lines: int = STDERR_LINES) -> str:
    """The end of a worker's stderr: its last traceback when it has one
    (up to 3 x *lines*), else its last *lines* lines."""
    all_lines = stderr.decode("utf-8", "replace").rstrip().splitlines()
    starts = [index for index, line in enumerate(all_lines) if line.startswith("Traceback (most recent call last)")]
    keep_traceback = starts and len(all_lines) - starts[-1] <= 3 * lines
    kept = all_lines[starts[-1] :] if keep_traceback else all_lines[-lines:]
    return "\n".join("    " + line for line in kept)


def with_stderr(message: str, stderr: bytes) -> str:
    """*message*, followed by the end of the worker's stderr if any."""
    tail = stderr_tail(stderr)
    return f"{message}; last lines of its stderr:\n{tail}" if tail else message


# -- batch workers: several tests in one process (the pytest plugin's) -----------------

#: the argument that makes a process a batch worker: ``--perf-worker=PATH``
SPEC_OPTION = "--perf-worker"

#: the kinds of events
START, DONE, ERROR, PARENT, LISTED = "start", "done", "error", "parent", "listed"


def spec_argument(path: str) -> str:
    """The last argument of a batch worker: its spec file (one token)."""
    return f"{SPEC_OPTION}={path}"


class BatchSpec(NamedTuple):
    """What one batch worker does (the file ``--perf-worker`` names): the
    *tests* to measure, in order, their *loops* (absent: calibrate them),
    the *files* of those tests (it collects nothing else), its end of the
    *pipe*; *list_only*: only list the tests (LISTED events); *metric*
    ``instructions``: run each test's loops once, with nothing around them,
    to be counted (the worker runs under cachegrind)."""

    tests: Sequence[str]
    loops: dict[str, int]
    files: Sequence[str]
    pipe: int
    list_only: bool = False
    metric: str = "time"

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as file:
            json.dump(self._asdict(), file)

    @classmethod
    def load(cls, path: str) -> BatchSpec:
        with open(path, encoding="utf-8") as file:
            return cls(**json.load(file))


class Event(NamedTuple):
    """One line of a batch worker's pipe: its *kind* (PARENT: measure the
    test in the parent process), the *test*, and the *detail*: DONE's
    benchmark as JSON, ERROR's message, or LISTED's file."""

    kind: str
    test: str
    detail: str = ""

    def line(self) -> bytes:
        return (json.dumps(self) + "\n").encode("utf-8")


class EventPipe:
    """A batch worker's end of its pipe: each event is sent at once."""

    def __init__(self, fd: int) -> None:
        self.file: BinaryIO = open(fd, "wb")  # noqa: SIM115 (open while the worker runs)

    def send(self, kind: str, test: str, detail: str = "") -> None:
        self.file.write(Event(kind, test, detail).line())
        self.file.flush()


def decode_events(data: bytes) -> list[Event]:
    """The events of a batch worker's pipe (or of a file of
    :meth:`Event.line`), up to a line cut by a crash."""
    events = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            events.append(Event(*json.loads(line)))
        except (ValueError, TypeError):
            break
    return events
