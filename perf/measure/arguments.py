"""The runner's command line as argparse sees it: option types and declarations.

:func:`add_runner_arguments` declares every runner option (doc/compatibility.rst,
runner options) on an :class:`argparse.ArgumentParser`; the converters
below turn option strings into values, and raise
:class:`argparse.ArgumentTypeError` (a usage error) on bad input.
:mod:`perf.measure.options` checks the parsed namespace and freezes it.

Must not: spawn processes, print, or exit.
"""

from __future__ import annotations

import argparse

from perf.measure.options import AUTO, MAX_PROCESSES, MIN_PROCESSES, Budget
from perf.model.metadata import CLOCKS, DEFAULT_CLOCK
from perf.platform.cpus import parse_cpu_list


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
