"""The runner's command line: declare it, check it, and rebuild it for workers.

:func:`add_runner_arguments` declares every option of compat spec section
3.1 on an :class:`argparse.ArgumentParser`; :func:`check_runner_args`
completes and validates the parsed namespace in one place (budget presets,
calibration flags, output files, memory options, the clock);
:func:`worker_arguments` turns it back into the options of one worker
command line.

The namespace stays an :class:`argparse.Namespace` (``Runner.args``):
bench scripts add their own options to ``runner.argparser`` and read them
back from it in their ``add_cmdline_args(cmd, args)`` callback.

Must not: spawn processes, print, or exit.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, NamedTuple

from perf.errors import UsageError
from perf.model.metadata import CLOCKS, DEFAULT_CLOCK
from perf.platform.cpus import parse_cpu_list

#: ``--warmups auto``: find each process's steady state (JIT runtimes)
AUTO = "auto"


class Budget(NamedTuple):
    """Default number of processes and values per process."""

    processes: int
    values: int


#: perf's default budget (design/statistics.md R4; doc/runner.rst has the
#: measurement that chose it)
DEFAULT_BUDGET = Budget(processes=24, values=2)
#: --target-precision: the default bounds on the number of processes (pairs)
MIN_PROCESSES = 10
MAX_PROCESSES = 100
#: JIT runtimes: fewer, longer processes (each one warms up first)
JIT_BUDGET = Budget(processes=6, values=10)


def _integer(text: str) -> int:
    """An integer, also written ``x^y`` (``2^10``) as pyperf accepts."""
    try:
        if "^" in text:
            base, _, exponent = text.partition("^")
            if int(exponent) < 0:
                raise ValueError
            return int(base) ** int(exponent)  # type: ignore[no-any-return]
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer: {text!r}") from None


def strictly_positive(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text!r}")
    return value


def positive_or_zero(text: str) -> int:
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


def warmups_count(text: str) -> int | str:
    if text == AUTO:
        return AUTO
    return positive_or_zero(text)


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number of seconds: {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value


def cpu_list(text: str) -> str:
    try:
        cpus = parse_cpu_list(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"invalid CPU list {text!r}: {exc}") from None
    if not cpus:
        raise argparse.ArgumentTypeError(f"empty CPU list: {text!r}")
    return text


def comma_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def percentage(text: str) -> float:
    """``'1%'`` or ``'1'`` -> 0.01: a precision in percent, in (0, 100)."""
    number = text.strip().removesuffix("%").strip()
    try:
        value = float(number)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage such as 1% or 0.5, got {text!r}") from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(f"the percentage must be between 0 and 100 (exclusive), got {text!r}")
    return value / 100


def python_names(text: str) -> tuple[str, str]:
    reference, colon, changed = text.partition(":")
    if not colon or not reference or not changed:
        raise argparse.ArgumentTypeError(f"expected REF_NAME:CHANGED_NAME, got {text!r}")
    return reference, changed


def add_runner_arguments(
    parser: argparse.ArgumentParser, budget: Budget, warmups: int | str, loops: int, min_time: float
) -> None:
    """Declare the runner options; *budget*, *warmups*, *loops* and
    *min_time* are the defaults shown in ``--help`` (a bench script's
    ``Runner(...)`` arguments)."""
    add = parser.add_argument
    add("--rigorous", action="store_true", help="spend longer for a more precise result (2 x processes)")
    add("--fast", action="store_true", help="get a rough answer quickly (fewer processes and values)")
    add("--debug-single-value", action="store_true", help="debug mode: 1 process, 1 value, 1 loop, no warmup")
    add(
        "-p",
        "--processes",
        type=strictly_positive,
        metavar="N",
        help=f"number of worker processes producing values (default: {budget.processes})",
    )
    add(
        "-n",
        "--values",
        type=strictly_positive,
        metavar="N",
        help=f"number of values per process (default: {budget.values})",
    )
    add(
        "-w",
        "--warmups",
        type=warmups_count,
        metavar="N",
        help=f"warmup values per process, or 'auto' to find each process's steady state (default: {warmups})",
    )
    add(
        "-l",
        "--loops",
        type=positive_or_zero,
        default=loops,
        metavar="N",
        help="loops per value; 0 calibrates them (default: %(default)s)",
    )
    add(
        "--min-time",
        type=seconds,
        default=min_time,
        metavar="SEC",
        help="shortest duration of one value, in seconds (default: %(default)s)",
    )
    add(
        "--target-precision",
        type=percentage,
        metavar="PCT",
        help="run processes until the 95%% confidence interval of the mean (with --compare-to: of the ratio) "
        "is within +-PCT%%, between --min-processes and --max-processes (replaces -p)",
    )
    add(
        "--min-processes",
        type=strictly_positive,
        metavar="N",
        help=f"with --target-precision: at least N processes or pairs (default: {MIN_PROCESSES})",
    )
    add(
        "--max-processes",
        type=strictly_positive,
        metavar="N",
        help=f"with --target-precision: at most N processes or pairs (default: {MAX_PROCESSES})",
    )
    add(
        "--adaptive-values",
        action="store_true",
        help="choose the values per process after a pilot of 6 processes, for the most precision per second "
        "(replaces -n)",
    )
    add(
        "--no-shuffle",
        action="store_true",
        help="run a script's benchmarks one after the other, in the order it declares them, instead of one "
        "worker of each per round in a random order (recorded as schedule_seed)",
    )
    add("--timeout", type=seconds, metavar="SEC", help="stop a worker running longer than SEC (exit status 124)")
    add("-v", "--verbose", action="store_true", help="print every value and calibration step")
    add("-q", "--quiet", action="store_true", help="print only the result")
    add("-o", "--output", metavar="FILE", help="write the results to FILE (must not exist)")
    add("--append", metavar="FILE", help="add the results to FILE (created if missing)")
    add("-d", "--dump", action="store_true", help="show every run's values")
    add("-m", "--metadata", action="store_true", help="show metadata")
    add("-g", "--hist", action="store_true", help="show a histogram of the values")
    add("-t", "--stats", action="store_true", help="show statistics")
    add("--affinity", type=cpu_list, metavar="CPU_LIST", help="pin workers to these CPUs (default: isolated CPUs)")
    add(
        "--lock",
        choices=("wait", "fail", "none"),
        default="wait",
        help="when another perf run uses the same CPUs: wait for it (default), fail, or run anyway (none)",
    )
    add(
        "--inherit-environ",
        type=comma_list,
        metavar="VARS",
        help="comma-separated environment variables passed on to workers",
    )
    add("--copy-env", action="store_true", help="pass the whole environment on to workers")
    add("--no-locale", action="store_true", help="do not pass the locale variables (LANG, LC_*) on to workers")
    add("--python", metavar="PYTHON", help="Python executable running the workers (default: this one)")
    add(
        "--compare-to",
        metavar="REF",
        help="compare with REF, workers interleaved in pairs: a Python executable (python -m perf command: "
        "a reference command line, quoted)",
    )
    add("--python-names", type=python_names, metavar="REF_NAME:CHANGED_NAME", help="labels for --compare-to")
    add("--profile", metavar="FILE", help="collect cProfile statistics into FILE")
    add("--hook", action="append", dest="hook", default=[], metavar="NAME", help="enable a hook (repeatable)")
    add(
        "--clock",
        choices=CLOCKS,
        default=DEFAULT_CLOCK,
        help="time with the wall clock (default), or with the CPU time of the worker's thread, which leaves out "
        "the time other processes took the CPU from it (cpu: not for python -m perf command)",
    )
    memory = parser.add_mutually_exclusive_group()
    memory.add_argument("--tracemalloc", action="store_true", help="measure peak traced memory instead of time")
    memory.add_argument("--track-memory", action="store_true", help="measure peak memory usage instead of time")
    # internal: used on worker command lines
    internal = argparse.SUPPRESS
    add("--worker", action="store_true", help=internal)
    add("--worker-task", type=positive_or_zero, metavar="TASK_ID", help=internal)
    add("--worker-list", action="store_true", help=internal)
    add("--pipe", type=positive_or_zero, metavar="FD", help=internal)
    add("--calibrate-loops", action="store_true", help=internal)
    add("--recalibrate-loops", action="store_true", help=internal)
    add("--calibrate-warmups", action="store_true", help=internal)
    add("--recalibrate-warmups", action="store_true", help=internal)


def apply_budget(args: argparse.Namespace, budget: Budget, warmups: int | str) -> None:
    """Processes, values, warmups: explicit options win over presets."""
    processes, values = budget
    if args.rigorous:
        processes *= 2
    elif args.fast:
        processes, values = max(processes // 2, 3), max(values * 2 // 3, 2)
    if args.debug_single_value:
        processes, values, warmups = 1, 1, 0
        args.loops = 1
        args.min_time = 1e-9
    if args.target_precision is not None:
        processes = args.max_processes  # the most a run may take: the stopping rule decides
    if args.processes is None:
        args.processes = processes
    if args.values is None:
        args.values = values
    if args.warmups is None:
        args.warmups = warmups


def _check_calibration_flags(args: argparse.Namespace) -> None:
    flags = [name for name in ("calibrate_loops", "recalibrate_loops") if getattr(args, name)]
    for flag in flags + [name for name in ("calibrate_warmups", "recalibrate_warmups") if getattr(args, name)]:
        if not args.worker:
            raise UsageError(f"--{flag.replace('_', '-')} requires --worker")
    if args.calibrate_loops and args.loops:
        raise UsageError("--loops=N is incompatible with --calibrate-loops")
    if args.recalibrate_loops and args.loops < 1:
        raise UsageError("--recalibrate-loops requires --loops=N")
    if args.worker_task is not None and not args.worker:
        raise UsageError("--worker-task requires --worker")
    if args.worker_list and not args.worker:
        raise UsageError("--worker-list requires --worker")
    if args.pipe is not None and not args.worker:
        raise UsageError("--pipe requires --worker")


#: --compare-to: the suffixes of the two files -o/--append name when the
#: labels of the two sides cannot name them
SIDE_SUFFIXES = ("ref", "changed")
#: the longest label used in a file name
MAX_FILE_LABEL = 40


def command_program(args: argparse.Namespace) -> list[str]:
    """The program of ``python -m perf command`` (after ``--``)."""
    program: list[str] = getattr(args, "program", None) or []
    return program[1:] if program[:1] == ["--"] else program


def python_labels(reference: str, changed: str) -> tuple[str, str]:
    """Short labels telling two interpreters apart: their file names when
    they differ (pyperf's labels: ``python3.11``, ``python3.12``), else the
    nearest folder that differs (``/a/venv/bin/python`` and
    ``/b/venv/bin/python`` -> ``a``, ``b``; pyenv's ``3.11.7``,
    ``3.12.1``), else ``ref`` and ``changed``."""
    parts = [path.split(os.sep) for path in (reference, changed)]
    while parts[0] and parts[1] and parts[0][-1] == parts[1][-1]:
        for side in parts:
            side.pop()
    labels = (parts[0][-1] if parts[0] else "", parts[1][-1] if parts[1] else "")
    if not all(labels) or labels[0] == labels[1]:
        return SIDE_SUFFIXES
    return labels


def side_labels(args: argparse.Namespace, command: str | None = None) -> tuple[str, str]:
    """--compare-to: the labels of the reference and of the changed side,
    ``--python-names`` when given (*command* ``"command"``: the two
    command lines)."""
    if args.python_names:
        reference, changed = args.python_names
        return reference, changed
    if command == "command":
        import shlex

        return shlex.join(shlex.split(args.compare_to)), shlex.join(command_program(args))
    return python_labels(args.compare_to, args.python)


def _file_label(label: str) -> str:
    """*label* as a part of a file name: letters, digits, ``.``, ``_``,
    ``+`` and ``-`` (anything else becomes ``-``)."""
    import re

    return re.sub(r"[^A-Za-z0-9._+]+", "-", label).strip(".-")


def split_extension(path: str) -> tuple[str, str]:
    """``result.json.gz`` -> ``('result', '.json.gz')``."""
    for extension in (".json.gz", ".json", ".gz"):
        if path.endswith(extension):
            return path[: -len(extension)], extension
    return path, ""


def side_paths(path: str, labels: tuple[str, str] = SIDE_SUFFIXES) -> tuple[str, str]:
    """--compare-to with ``-o`` or ``--append PATH``: the files of the
    reference and of the changed side, named after their *labels*
    (``result.json`` -> ``result-3.11.json``, ``result-3.12.json``;
    ``.json.gz`` kept).  Labels that would not make two distinct, short
    file names give ``result-ref.json`` and ``result-changed.json``."""
    stem, extension = split_extension(path)
    suffixes = tuple(_file_label(label) for label in labels)
    if not all(suffixes) or suffixes[0] == suffixes[1] or max(map(len, suffixes)) > MAX_FILE_LABEL:
        suffixes = SIDE_SUFFIXES
    return f"{stem}-{suffixes[0]}{extension}", f"{stem}-{suffixes[1]}{extension}"


def output_paths(path: str, labels: tuple[str, str] | None) -> tuple[str, ...]:
    """The files a run writes for -o/--append *path* (*labels*: the sides
    of a --compare-to run)."""
    return side_paths(path, labels) if labels else (path,)


def _check_outputs(args: argparse.Namespace, command: str | None) -> None:
    """Refuse now what would fail after the benchmark ran (a worker run in
    place, without --pipe, writes -o/--append too)."""
    if args.output and args.append:
        raise UsageError("--output and --append are mutually exclusive")
    if args.worker and args.pipe is not None:
        return
    labels = side_labels(args, command) if args.compare_to and not args.worker else None
    for path in output_paths(args.output, labels) if args.output else ():
        if os.path.lexists(path):
            raise UsageError(f"{path}: the file already exists (use --append to add runs to it)")
        _check_writable_folder(path)
    for path in output_paths(args.append, labels) if args.append else ():
        _check_writable_folder(path)
        if os.path.exists(path) and not os.access(path, os.R_OK | os.W_OK):
            raise UsageError(f"{path}: cannot read and write this file")
    if args.profile:
        _check_writable_folder(args.profile)


def _check_writable_folder(path: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{path}: cannot write into the folder {folder}")


def check_runner_args(
    args: argparse.Namespace,
    budget: Budget,
    warmups: int | str,
    command: str | None = None,
) -> None:
    """Complete and validate parsed runner options, in place.

    *command* is ``"command"`` for ``python -m perf command`` (which cannot
    use ``--tracemalloc``).  Raises :class:`~perf.errors.UsageError`.
    """
    if args.pipe is not None:
        args.quiet = True  # a worker's verbose lines still go to stdout
    elif args.quiet:
        args.verbose = False
    _check_target_precision(args)
    if args.adaptive_values and args.values is not None:
        raise UsageError("--adaptive-values replaces -n/--values")
    apply_budget(args, budget, warmups)
    _check_calibration_flags(args)
    if args.tracemalloc and command == "command":
        raise UsageError("--tracemalloc cannot be used with python -m perf command (use --track-memory)")
    if args.python_names and not args.compare_to:
        raise UsageError("--python-names requires --compare-to")
    if args.compare_to is not None and not args.compare_to.strip():
        raise UsageError("--compare-to: the reference is empty")
    args.python = absolute_executable(args.python, "python") if args.python else sys.executable
    if args.compare_to and command == "command":
        _check_reference_command(args.compare_to)
    elif args.compare_to:
        args.compare_to = absolute_executable(args.compare_to, "compare_to")
    _check_outputs(args, command)  # with --compare-to, the files are named after the labels
    _check_clock(args, command)


def _check_clock(args: argparse.Namespace, command: str | None) -> None:
    """``--clock cpu``: only for code that runs in the worker's own thread,
    with a thread CPU clock that works here."""
    from perf.measure.clock import check_clock

    if args.clock == DEFAULT_CLOCK:
        return
    if command == "command":
        raise UsageError(
            f"--clock {args.clock} cannot be used with python -m perf command: the program runs in another "
            "process, whose CPU time the worker's thread clock does not count"
        )
    if args.track_memory or args.tracemalloc:
        option = "--track-memory" if args.track_memory else "--tracemalloc"
        raise UsageError(f"--clock {args.clock} cannot be used with {option}: the values are memory peaks, not times")
    check_clock(args.clock)


def _check_target_precision(args: argparse.Namespace) -> None:
    """--target-precision replaces -p with bounds (checked before -p gets
    its default)."""
    if args.target_precision is None:
        for option in ("min_processes", "max_processes"):
            if getattr(args, option) is not None:
                raise UsageError(f"--{option.replace('_', '-')} requires --target-precision")
        return
    if args.processes is not None:
        raise UsageError("--target-precision replaces -p/--processes: use --min-processes and --max-processes")
    if args.min_processes is None:
        args.min_processes = MIN_PROCESSES
    if args.max_processes is None:
        args.max_processes = max(MAX_PROCESSES, args.min_processes)
    if args.min_processes < 2:
        raise UsageError("--min-processes must be at least 2 (an interval needs two processes)")
    if args.max_processes < args.min_processes:
        raise UsageError(
            f"--max-processes ({args.max_processes}) must be at least --min-processes ({args.min_processes})"
        )


def stopping_rule(args: argparse.Namespace) -> Any:
    """The StoppingRule of --target-precision, or None."""
    if getattr(args, "target_precision", None) is None:
        return None
    from perf.measure.stopping import StoppingRule

    return StoppingRule(args.target_precision, args.min_processes, args.max_processes)


def _check_reference_command(text: str) -> None:
    """``command --compare-to "PROGRAM ARGS"``: a command line to split
    like a shell would, whose program exists."""
    import shlex

    from perf.measure.tasks import check_program

    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"--compare-to: {text}: {exc}") from None
    try:
        check_program(words)
    except UsageError as exc:
        raise UsageError(f"--compare-to: {exc}") from None


def absolute_executable(executable: str, option: str) -> str:
    """An absolute path that keeps symlinks (a venv's python is one)."""
    import shutil

    found = shutil.which(executable) if os.sep not in executable else executable
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise UsageError(f"--{option.replace('_', '-')}: {executable}: no such executable")
    return os.path.normpath(os.path.abspath(found))


def worker_arguments(
    args: argparse.Namespace, task: int, pipe: int, loops: int, values: int | None = None
) -> list[str]:
    """The runner options of one worker command line (after the program).

    *loops* 0 makes this worker calibrate the loops before its values
    (``--loops 0`` is explicit: a script's ``Runner(loops=N)`` default
    must not apply to it).  *values*: per process (default ``--values``;
    ``--adaptive-values`` chooses them after a pilot).
    """
    command = ["--worker", "--pipe", str(pipe), "--worker-task", str(task)]
    command += ["--values", str(args.values if values is None else values), "--min-time", repr(args.min_time)]
    command += ["--loops", str(loops)]  # 0: this worker calibrates them
    command += ["--warmups", str(args.warmups)]
    if args.verbose:
        command.append("-v")
    if args.affinity:
        command.append(f"--affinity={args.affinity}")
    if args.clock != DEFAULT_CLOCK:
        command += ["--clock", args.clock]
    if args.tracemalloc:
        command.append("--tracemalloc")
    if args.track_memory:
        command.append("--track-memory")
    if args.profile:
        command += ["--profile", args.profile]
    for hook in args.hook:
        command += ["--hook", hook]
    return command
