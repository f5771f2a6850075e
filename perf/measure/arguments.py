"""The runner's options, declared once: one row each, and what is derived from the rows.

:data:`RUNNER_OPTIONS` is the table of the runner options
(doc/compatibility.rst, runner options): for each one its flags, its
converter (a command-line value) and its check (a value given as a keyword,
:meth:`perf.measure.options.RunOptions.create`), its default, its help, and
how it reaches the workers.  Derived from it: the argparse declarations
(:func:`add_runner_arguments`), the typed fields of
:class:`~perf.measure.options.RunOptions` (a test holds them together),
keyword options (:func:`given_options`) and the command line of a worker
(:func:`perf.measure.protocol.worker_arguments`).  The checks that involve
several options are :func:`perf.measure.options.check_runner_args`.

The converters raise :class:`argparse.ArgumentTypeError` (a usage error)
on bad input.

Must not: spawn processes, print, or exit.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from perf.errors import UsageError
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


#: how a row's option reaches the workers (the worker's command line is
#: built by :func:`perf.measure.protocol.worker_arguments`):
#: not at all, the parent alone reads it
PARENT_ONLY = "parent only"
#: written for each worker by the parent, which may change it per worker
#: (the values of a pilot, the loops a calibrating worker chose)
PER_WORKER = "per worker"
#: passed on as given: how the worker measures
MEASURING = "measuring"
#: passed on as given, after the measuring ones: what runs around the values
RECORDING = "recording"
#: internal: the parent sets them on a worker's command line, a worker alone reads them
WORKER_ONLY = "worker only"

#: :attr:`RunnerOption.default`: the Runner gives it (``Runner(loops=...)``)
RUNNER_DEFAULT = "Runner(...)"


class RunnerOption(NamedTuple):
    """One runner option: a row of :data:`RUNNER_OPTIONS`."""

    #: the field of :class:`~perf.measure.options.RunOptions` (argparse's dest)
    name: str
    #: the command-line flags; the first one is written on a worker's command line
    flags: tuple[str, ...]
    #: the help text (``{processes}``, ``{values}``, ``{warmups}``,
    #: ``{min_processes}``, ``{max_processes}``: the defaults in use); ""
    #: for an internal option, left out of ``--help``
    help: str
    #: a command-line value to a value (argparse's ``type``); None: a flag
    convert: Callable[[str], Any] | None = None
    #: a value given as a keyword to a value, or ValueError (its message)
    check: Callable[[Any], Any] | None = None
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    #: the parsed value when not given (:data:`RUNNER_DEFAULT`: the Runner's)
    default: Any = None
    #: the value once checked, when not given, if it differs from *default*
    checked_default: Any = None
    #: given several times (``--hook A --hook B``)
    repeated: bool = False
    #: ``--flag=value`` on a worker's command line
    joined: bool = False
    #: a mutually exclusive group of options
    group: str = ""
    #: how the option reaches the workers: :data:`PARENT_ONLY`, :data:`PER_WORKER`,
    #: :data:`MEASURING`, :data:`RECORDING` or :data:`WORKER_ONLY`
    worker: str = PARENT_ONLY

    @property
    def unchecked(self) -> Any:
        """The value before the checks when not given (argparse's default)."""
        if self.convert is None:
            return False
        return [] if self.repeated else self.default

    @property
    def frozen_default(self) -> Any:
        """The value of an option not given, once checked and frozen."""
        if self.convert is None:
            return False
        if self.checked_default is not None:
            return self.checked_default
        return () if self.repeated else self.default


# -- checks of values given as keywords (RunOptions.create) ---------------------------


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected True or False, got {value!r}")
    return value


def _integer_at_least(minimum: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, got {value!r}")
        if value < minimum:
            raise ValueError(f"must be >= {minimum}, got {value!r}")
        return value

    return check


def _warmups(value: Any) -> int | str:
    return AUTO if value == AUTO else _integer_at_least(0)(value)


def _seconds(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a number of seconds, got {value!r}")
    if not 0 < value < float("inf"):
        raise ValueError(f"must be a number of seconds > 0, got {value!r}")
    return float(value)


def _fraction(value: Any) -> float:
    """--target-precision as a keyword: the fraction itself (0.01 for 1%)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a fraction such as 0.01 (1%), got {value!r}")
    if not 0 < value < 1:
        raise ValueError(f"must be a fraction between 0 and 1 (exclusive) such as 0.01 (1%), got {value!r}")
    return float(value)


def _text(value: Any) -> str:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return value


def _cpus(value: Any) -> str:
    try:
        return cpu_list(_text(value))
    except argparse.ArgumentTypeError as exc:
        raise ValueError(str(exc)) from None


def _names(value: Any) -> list[str]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"expected a list of strings, got {value!r}")
    return list(value)


def _pair(value: Any) -> tuple[str, str]:
    if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(v and isinstance(v, str) for v in value):
        raise ValueError(f"expected two names (reference, changed), got {value!r}")
    return value[0], value[1]


def _choice(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(map(repr, choices))}, got {value!r}")
        return str(value)

    return check


def _switch(name: str, flags: tuple[str, ...], help: str, **row: Any) -> RunnerOption:
    """A row of an option without a value (``store_true``)."""
    return RunnerOption(name, flags, help, check=_flag, **row)


# -- the table ------------------------------------------------------------------------

_POSITIVE = _integer_at_least(1)
_NOT_NEGATIVE = _integer_at_least(0)

#: every runner option, in the order of ``--help``
RUNNER_OPTIONS: tuple[RunnerOption, ...] = (
    _switch("rigorous", ("--rigorous",), "spend longer for a more precise result (2 x processes)"),
    _switch("fast", ("--fast",), "get a rough answer quickly (fewer processes and values)"),
    _switch("debug_single_value", ("--debug-single-value",), "debug mode: 1 process, 1 value, 1 loop, no warmup"),
    RunnerOption(
        "processes",
        ("-p", "--processes"),
        "number of worker processes producing values (default: {processes})",
        strictly_positive,
        _POSITIVE,
        metavar="N",
        default=RUNNER_DEFAULT,
    ),
    RunnerOption(
        "values",
        ("-n", "--values"),
        "number of values per process (default: {values})",
        strictly_positive,
        _POSITIVE,
        metavar="N",
        default=RUNNER_DEFAULT,
        worker=PER_WORKER,
    ),
    RunnerOption(
        "warmups",
        ("-w", "--warmups"),
        "warmup values per process, or 'auto' to find each process's steady state (default: {warmups})",
        warmups_count,
        _warmups,
        metavar="N",
        default=RUNNER_DEFAULT,
        worker=PER_WORKER,
    ),
    RunnerOption(
        "loops",
        ("-l", "--loops"),
        "loops per value; 0 calibrates them (default: %(default)s)",
        positive_or_zero,
        _NOT_NEGATIVE,
        metavar="N",
        default=RUNNER_DEFAULT,
        worker=PER_WORKER,
    ),
    RunnerOption(
        "min_time",
        ("--min-time",),
        "shortest duration of one value, in seconds (default: %(default)s)",
        seconds,
        _seconds,
        metavar="SEC",
        default=RUNNER_DEFAULT,
        worker=PER_WORKER,
    ),
    RunnerOption(
        "target_precision",
        ("--target-precision",),
        "run processes until the 95%% confidence interval of the mean (with --compare-to: of the ratio) "
        "is within +-PCT%%, between --min-processes and --max-processes (replaces -p)",
        percentage,
        _fraction,
        metavar="PCT",
    ),
    RunnerOption(
        "min_processes",
        ("--min-processes",),
        "with --target-precision: at least N processes or pairs (default: {min_processes})",
        strictly_positive,
        _POSITIVE,
        metavar="N",
    ),
    RunnerOption(
        "max_processes",
        ("--max-processes",),
        "with --target-precision: at most N processes or pairs (default: {max_processes})",
        strictly_positive,
        _POSITIVE,
        metavar="N",
    ),
    _switch(
        "adaptive_values",
        ("--adaptive-values",),
        "choose the values per process after a pilot of 6 processes, for the most precision per second (replaces -n)",
    ),
    _switch(
        "no_shuffle",
        ("--no-shuffle",),
        "run a script's benchmarks one after the other, in the order it declares them, instead of one "
        "worker of each per round in a random order (recorded as schedule_seed)",
    ),
    RunnerOption(
        "timeout",
        ("--timeout",),
        "stop a worker running longer than SEC (exit status 124)",
        seconds,
        _seconds,
        metavar="SEC",
    ),
    _switch("verbose", ("-v", "--verbose"), "print every value and calibration step", worker=MEASURING),
    _switch("quiet", ("-q", "--quiet"), "print only the result"),
    RunnerOption("output", ("-o", "--output"), "write the results to FILE (must not exist)", str, _text, "FILE"),
    RunnerOption("append", ("--append",), "add the results to FILE (created if missing)", str, _text, "FILE"),
    _switch("dump", ("-d", "--dump"), "show every run's values"),
    _switch("metadata", ("-m", "--metadata"), "show metadata"),
    _switch("hist", ("-g", "--hist"), "show a histogram of the values"),
    _switch("stats", ("-t", "--stats"), "show statistics"),
    RunnerOption(
        "affinity",
        ("--affinity",),
        "pin workers to these CPUs (default: isolated CPUs)",
        cpu_list,
        _cpus,
        metavar="CPU_LIST",
        joined=True,
        worker=MEASURING,
    ),
    RunnerOption(
        "lock",
        ("--lock",),
        "when another perf run uses the same CPUs: wait for it (default), fail, or run anyway (none)",
        str,
        _choice(("wait", "fail", "none")),
        choices=("wait", "fail", "none"),
        default="wait",
    ),
    RunnerOption(
        "inherit_environ",
        ("--inherit-environ",),
        "comma-separated environment variables passed on to workers",
        comma_list,
        _names,
        metavar="VARS",
        checked_default=(),
    ),
    _switch("copy_env", ("--copy-env",), "pass the whole environment on to workers"),
    _switch("no_locale", ("--no-locale",), "do not pass the locale variables (LANG, LC_*) on to workers"),
    RunnerOption(
        "python",
        ("--python",),
        "Python executable running the workers (default: this one)",
        str,
        _text,
        "PYTHON",
        checked_default=sys.executable,
    ),
    RunnerOption(
        "compare_to",
        ("--compare-to",),
        "compare with REF, workers interleaved in pairs: a Python executable (python -m perf command: "
        "a reference command line, quoted)",
        str,
        _text,
        "REF",
    ),
    RunnerOption(
        "python_names",
        ("--python-names",),
        "labels for --compare-to",
        python_names,
        _pair,
        "REF_NAME:CHANGED_NAME",
    ),
    RunnerOption(
        "profile",
        ("--profile",),
        "collect cProfile statistics into FILE",
        str,
        _text,
        "FILE",
        worker=RECORDING,
    ),
    RunnerOption(
        "hook",
        ("--hook",),
        "enable a hook (repeatable)",
        str,
        _names,
        "NAME",
        repeated=True,
        worker=RECORDING,
    ),
    RunnerOption(
        "clock",
        ("--clock",),
        "time with the wall clock (default), or with the CPU time of the worker's thread, which leaves out "
        "the time other processes took the CPU from it (cpu: not for python -m perf command)",
        str,
        _choice(CLOCKS),
        choices=CLOCKS,
        default=DEFAULT_CLOCK,
        worker=MEASURING,
    ),
    _switch(
        "tracemalloc",
        ("--tracemalloc",),
        "measure peak traced memory instead of time",
        group="memory",
        worker=MEASURING,
    ),
    _switch(
        "track_memory",
        ("--track-memory",),
        "measure peak memory usage instead of time",
        group="memory",
        worker=MEASURING,
    ),
    # internal: the parent writes them on a worker's command line
    _switch("worker", ("--worker",), "", worker=WORKER_ONLY),
    RunnerOption("worker_task", ("--worker-task",), "", positive_or_zero, _NOT_NEGATIVE, "TASK_ID", worker=WORKER_ONLY),
    _switch("worker_list", ("--worker-list",), "", worker=WORKER_ONLY),
    RunnerOption("pipe", ("--pipe",), "", positive_or_zero, _NOT_NEGATIVE, "FD", worker=WORKER_ONLY),
    _switch("calibrate_loops", ("--calibrate-loops",), "", worker=WORKER_ONLY),
    _switch("recalibrate_loops", ("--recalibrate-loops",), "", worker=WORKER_ONLY),
    _switch("calibrate_warmups", ("--calibrate-warmups",), "", worker=WORKER_ONLY),
    _switch("recalibrate_warmups", ("--recalibrate-warmups",), "", worker=WORKER_ONLY),
)

#: the rows by name
OPTIONS_BY_NAME: Mapping[str, RunnerOption] = {option.name: option for option in RUNNER_OPTIONS}


def add_runner_arguments(
    parser: argparse.ArgumentParser, budget: Budget, warmups: int | str, loops: int, min_time: float
) -> None:
    """Declare the runner options of :data:`RUNNER_OPTIONS`, in its order;
    *budget*, *warmups*, *loops* and *min_time* are the defaults shown in
    ``--help`` (a bench script's ``Runner(...)`` arguments)."""
    shown = {
        "processes": budget.processes,
        "values": budget.values,
        "warmups": warmups,
        "min_processes": MIN_PROCESSES,
        "max_processes": MAX_PROCESSES,
    }
    runner_defaults: dict[str, Any] = {"loops": loops, "min_time": min_time}
    groups: dict[str, Any] = {}
    for option in RUNNER_OPTIONS:
        target: Any = parser
        if option.group:
            if option.group not in groups:
                groups[option.group] = parser.add_mutually_exclusive_group()
            target = groups[option.group]
        settings: dict[str, Any] = {"help": option.help.format(**shown) if option.help else argparse.SUPPRESS}
        settings.update(_declaration(option, runner_defaults))
        target.add_argument(*option.flags, **settings)


def parsed_defaults() -> dict[str, Any]:
    """Every runner option as argparse leaves it when not given, for a
    bench script without ``Runner(...)`` arguments (loops calibrated, 0.1 s
    per value)."""
    given = {option.name: option.unchecked for option in RUNNER_OPTIONS}
    given.update(loops=0, min_time=0.1)
    return {name: None if value == RUNNER_DEFAULT else value for name, value in given.items()}


def given_options(keywords: Mapping[str, Any]) -> dict[str, Any]:
    """Runner options given as keywords (``processes=6``, ``fast=True``...),
    checked one by one and completed as the command line would parse them:
    what :func:`perf.measure.options.check_runner_args` checks next.  The
    internal options of a worker cannot be given.  Raises
    :class:`~perf.errors.UsageError` (one line) for an unknown keyword, a
    value of the wrong type or out of range."""
    given = parsed_defaults()
    for name, value in keywords.items():
        option = OPTIONS_BY_NAME.get(name)
        if option is None or option.worker == WORKER_ONLY:
            import difflib

            public = [row.name for row in RUNNER_OPTIONS if row.worker != WORKER_ONLY]
            close = difflib.get_close_matches(name, public, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UsageError(f"unknown runner option {name!r}{hint}")
        if value is None:
            continue  # not given
        assert option.check is not None
        try:
            given[name] = option.check(value)
        except ValueError as exc:
            raise UsageError(f"runner option {name}: {exc}") from None
    return given


class _ArgsParser(argparse.ArgumentParser):
    """The runner options of a command line given to another command
    (``ARGS`` after ``--``): its errors are usage errors."""

    def __init__(self, prefix: str) -> None:
        super().__init__(prog="ARGS")
        self.prefix = prefix

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prefix}{message}")


def parse_runner_arguments(
    args: Sequence[str], defaults: Budget, *, error_prefix: str = ""
) -> tuple[dict[str, Any], list[str]]:
    """The runner options of the command line *args* (as a bench script's
    parser reads them, *defaults* shown as its budget), before their checks,
    and the arguments that are not runner options, in their order.  Raises
    :class:`~perf.errors.UsageError` (*error_prefix* starts its message)."""
    parser = _ArgsParser(error_prefix)
    add_runner_arguments(parser, defaults, 1, 0, 0.1)
    namespace, rest = parser.parse_known_args(list(args))
    return vars(namespace), rest


def _declaration(option: RunnerOption, runner_defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords of ``add_argument()`` for *option*, but its help."""
    if option.convert is None:
        return {"action": "store_true"}
    settings: dict[str, Any] = {}
    if option.convert is not str:
        settings["type"] = option.convert
    if option.metavar:
        settings["metavar"] = option.metavar
    if option.choices:
        settings["choices"] = option.choices
    if option.repeated:
        settings.update(action="append", dest=option.name, default=[])
    elif option.name in runner_defaults:
        settings["default"] = runner_defaults[option.name]
    elif option.default is not None and option.default != RUNNER_DEFAULT:
        settings["default"] = option.default
    return settings
