"""The runner options on a command line: argparse declarations derived from RunOptions.

:func:`add_runner_arguments` declares every row of
:data:`perf.measure.options.RUNNER_OPTIONS` on a parser (a bench
script's ``runner.argparser``); its values go straight into
:meth:`perf.measure.options.RunOptions.parsed`.  The converters of the
rows raise ValueError; here they raise :class:`argparse.ArgumentTypeError`
(a usage error with their message), and other commands use them so
(:func:`seconds`, :func:`percentage`, :func:`strictly_positive`...).

The only module of :mod:`perf.measure` that imports argparse.
Must not: spawn processes, print, or exit.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Mapping, Sequence, TypeVar

from perf.errors import UsageError
from perf.measure import values as _values
from perf.measure.options import RUNNER_OPTIONS
from perf.measure.values import MAX_PROCESSES, MIN_PROCESSES, Budget, Option

T = TypeVar("T")


def argument_type(convert: Callable[[str], T]) -> Callable[[str], T]:
    """*convert* as argparse's ``type``: its ValueError becomes a usage
    error with the same message."""

    def parse(value: str) -> T:
        try:
            return convert(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = convert.__name__
    return parse


strictly_positive = argument_type(_values.positive)
positive_or_zero = argument_type(_values.not_negative)
seconds = argument_type(_values.seconds)
percentage = argument_type(_values.precision)
cpu_list = argument_type(_values.cpu_list)


def add_runner_arguments(
    parser: argparse.ArgumentParser,
    budget: Budget,
    warmups: int | str,
    loops: int,
    min_time: float,
    *,
    precision_values: int | None = None,
) -> None:
    """Declare the runner options, in the order of
    :data:`~perf.measure.options.RUNNER_OPTIONS`; *budget*, *warmups*,
    *loops* and *min_time* are the defaults shown in ``--help`` (a bench
    script's ``Runner(...)`` arguments); *precision_values*: the values
    per process of a run that stops on precision, when they differ."""
    values = (
        f"{budget.values}"
        if precision_values is None
        else f"{budget.values}; {precision_values} without -p or --target-precision"
    )
    shown = {
        "processes": budget.processes,
        "values": values,
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


def _declaration(option: Option, runner_defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords of ``add_argument()`` for *option*, but its help."""
    if option.switch:
        return {"action": "store_true"}
    settings: dict[str, Any] = {"dest": option.name, "default": runner_defaults.get(option.name)}
    if option.convert is not _values.text:
        settings["type"] = argument_type(option.convert)
    if option.metavar:
        settings["metavar"] = option.metavar
    choices = getattr(option.convert, "choices", None)
    if choices:
        settings.update(choices=choices, type=None)
    if option.repeated:
        settings.update(action="append", default=[])
    return settings


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
    parser reads them, *defaults* shown as its budget), converted (for
    :meth:`~perf.measure.options.RunOptions.parsed`), and the arguments
    that are not runner options, in their order.  Raises
    :class:`~perf.errors.UsageError` (*error_prefix* starts its message)."""
    parser = _ArgsParser(error_prefix)
    add_runner_arguments(parser, defaults, 1, 0, 0.1)
    namespace, rest = parser.parse_known_args(list(args))
    return vars(namespace), rest
