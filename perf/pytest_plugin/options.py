"""The options of perf's pytest plugin: pytest-benchmark's, then perf's own.

pytest-benchmark's options are all accepted, with their names and value
syntax, so that a suite's ``addopts`` and CI command lines keep working.
Those that change what is measured or saved have perf's meaning (see
doc/pytest.rst); the ones about its table layout, histograms and cProfile
are accepted and listed as ignored in the report header.

The budgets (``--perf-budget``) are perf's model for a pytest session:
worker processes, values per process and the shortest value.

The converters raise :class:`argparse.ArgumentTypeError`, as the
runner's (:mod:`perf.measure.arguments`) do, whose seconds and counts they
use; ``--benchmark-compare-fail``'s expressions become :class:`FailCheck`.

Must not: print, exit, run anything.
"""

from __future__ import annotations

import argparse
import importlib
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

from perf.errors import UsageError


class PytestBudget(NamedTuple):
    """How much one benchmark test costs: worker processes, values and
    warmups in each, and the shortest value (seconds)."""

    processes: int
    values: int
    warmups: int
    min_time: float


#: --perf-budget: the worker processes are fresh pytest runs of every
#: benchmark test, so a process costs one pytest start-up for the whole
#: suite; bench/results/pytest_suite-*.txt has the cost of each budget
BUDGETS = {
    "fast": PytestBudget(processes=3, values=3, warmups=1, min_time=0.01),
    "default": PytestBudget(processes=6, values=3, warmups=1, min_time=0.02),
    "rigorous": PytestBudget(processes=12, values=4, warmups=1, min_time=0.05),
}
#: a JIT needs longer warmups in each process
JIT_WARMUPS = 10
#: the defaults of --benchmark-min-rounds and --benchmark-max-time
DEFAULT_MIN_ROUNDS = 5
DEFAULT_MAX_TIME = 1.0

#: --perf-metric instructions: the samples of each test (hash seeds 1 and
#: 2), each a pair of worker processes under valgrind (3-6 s of start-up each)
COUNT_SAMPLES = 2


def count_budget(budget: PytestBudget) -> PytestBudget:
    """--perf-metric instructions: the budget of the worker process that
    calibrates the loops, without valgrind: one process of one value, for
    a tenth of the budget's shortest value."""
    from perf.measure.values import CALIBRATION_DIVISOR

    return PytestBudget(processes=1, values=1, warmups=0, min_time=budget.min_time / CALIBRATION_DIVISOR)


def check_count_options(option: Any) -> None:
    """--perf-metric instructions: refuse the options it leaves no meaning
    to (UsageError), as the runner refuses ``-n`` and ``-w``."""
    from perf.measure.values import COUNT_EXCLUDES

    given = [
        ("--benchmark-min-rounds", option.benchmark_min_rounds != DEFAULT_MIN_ROUNDS),
        ("--benchmark-max-time", option.benchmark_max_time != DEFAULT_MAX_TIME),
        ("--benchmark-timer", option.benchmark_timer is not DEFAULT_TIMER),
        ("--benchmark-warmup", option.benchmark_warmup is not None),
    ]
    for name, refused in given:
        if refused:
            raise UsageError(f"--perf-metric instructions cannot be used with {name}: {COUNT_EXCLUDES}")
    for text in option.benchmark_compare_fail or ():
        if not parse_fail_expression(text).percentage:
            raise UsageError(
                f"--perf-metric instructions: --benchmark-compare-fail {text} is in seconds: give a percentage "
                f"({text.partition(':')[0]}:5%)"
            )


#: the keyword arguments of @pytest.mark.benchmark (pytest-benchmark's ten)
MARK_KEYWORDS = (
    "group",
    "min_time",
    "max_time",
    "min_rounds",
    "timer",
    "disable_gc",
    "warmup",
    "warmup_iterations",
    "calibration_precision",
    "cprofile",
)

#: pytest-benchmark options that perf accepts and ignores (layout of its
#: table, histograms, cProfile, elasticsearch credentials)
IGNORED_OPTIONS = (
    "benchmark_sort",
    "benchmark_group_by",
    "benchmark_columns",
    "benchmark_name",
    "benchmark_histogram",
    "benchmark_cprofile",
    "benchmark_cprofile_loops",
    "benchmark_cprofile_top",
    "benchmark_cprofile_dump",
    "benchmark_netrc",
    "benchmark_calibration_precision",
)


def _parses(kind: Callable[[str], object], text: str) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


def parse_seconds(text: str) -> float:
    """``--benchmark-min-time`` and ``--benchmark-max-time``: the runner's
    :func:`~perf.measure.arguments.seconds`, or 0 (no minimum), with
    pytest-benchmark's messages."""
    from perf.measure.arguments import seconds

    try:
        return seconds(text)
    except argparse.ArgumentTypeError:
        if not _parses(float, text):
            raise argparse.ArgumentTypeError(f"Invalid decimal value {text!r}") from None
    if float(text) == 0:
        return 0.0
    raise argparse.ArgumentTypeError(f"Invalid decimal value {text!r}: must be a number of seconds >= 0")


def parse_positive_int(text: str) -> int:
    """``--benchmark-min-rounds``: the runner's
    :func:`~perf.measure.arguments.strictly_positive`, with the plugin's messages."""
    from perf.measure.arguments import strictly_positive

    try:
        return strictly_positive(text)
    except argparse.ArgumentTypeError:
        message = f"{text!r} must be at least 1" if _parses(int, text) else f"Invalid integer {text!r}"
        raise argparse.ArgumentTypeError(message) from None


def parse_timer(text: str) -> Callable[[], float]:
    """``--benchmark-timer``: a dotted ``module.function`` name, imported."""
    if "." not in text:
        raise argparse.ArgumentTypeError(
            f"Value for --benchmark-timer must be in dotted form, e.g. 'module.attr', got {text!r}"
        )
    module_name, _, attribute = text.rpartition(".")
    if module_name == "pep418":  # pytest-benchmark's old alias of time
        module_name = "time"
    try:
        timer = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise argparse.ArgumentTypeError(f"cannot import {text!r}: {exc}") from None
    if not callable(timer):
        raise argparse.ArgumentTypeError(f"{text!r} is not callable")
    return timer  # type: ignore[no-any-return]


def parse_warmup(text: str) -> bool | None:
    """``--benchmark-warmup[=KIND]``: None for auto."""
    value = text.lower()
    if value == "auto":
        return None
    if value in ("on", "true", "yes", "1"):
        return True
    if value in ("off", "false", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"Invalid warmup value {text!r}: auto, on or off")


def parse_percent(text: str) -> float:
    """``--perf-fail-on-slowdown``: a percentage (``5`` or ``5%``) >= 0 and
    below 1000, in percent (the runner's
    :func:`~perf.measure.arguments.percentage` is a precision: a fraction,
    between 0 and 100 exclusive)."""
    stripped = text[:-1] if text.endswith("%") else text
    if not _parses(float, stripped):
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage")
    if not 0 <= float(stripped) < 1000:
        raise argparse.ArgumentTypeError(f"{text!r}: the percentage must be between 0 and 1000")
    return float(stripped)


_FAIL_EXPRESSION = re.compile(
    r"(?P<field>min|max|mean|median|stddev|iqr):"
    r"(?:(?P<percentage>[0-9]+)%|(?P<seconds>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?))"
)


@dataclass(frozen=True)
class FailCheck:
    """One ``--benchmark-compare-fail`` expression: *field* may not grow
    by more than *threshold*, a whole percentage of the previous value
    (*percentage*) or a number of seconds."""

    field: str
    threshold: float
    percentage: bool

    @property
    def kind(self) -> str:
        """pytest-benchmark's name of the check, which its message shows."""
        return "PercentageRegressionCheck" if self.percentage else "DifferenceRegressionCheck"

    def growth(self, current: float, previous: float) -> float:
        """How much *current* exceeds *previous*: in percent (infinite over
        a previous value of 0), or in seconds."""
        if not self.percentage:
            return current - previous
        if not previous:
            return math.inf
        return current / previous * 100 - 100

    def failure(self, current: float, previous: float) -> str | None:
        """The failure message when the growth is strictly above the
        threshold, else None."""
        growth = self.growth(current, previous)
        if growth > self.threshold:
            return f"Field {self.field!r} has failed {self.kind}: {growth:.9f} > {self.threshold:.9f}"
        return None


def parse_fail_expression(text: str) -> FailCheck:
    """A ``--benchmark-compare-fail`` expression: ``FIELD:N%`` (a whole
    percentage) or ``FIELD:SECONDS`` (``0.001``, ``1e-6``), FIELD one of
    min, max, mean, median, stddev, iqr."""
    match = _FAIL_EXPRESSION.fullmatch(text)
    if not match:
        raise UsageError(f"Could not parse value: {text!r}.")
    if match["percentage"] is not None:
        return FailCheck(match["field"], int(match["percentage"]), percentage=True)
    return FailCheck(match["field"], float(match["seconds"]), percentage=False)


class Settings(NamedTuple):
    """The measuring options of one benchmark test: the session's, with
    the closest ``@pytest.mark.benchmark`` keywords over them."""

    group: str | None
    min_time: float
    max_time: float
    min_rounds: int
    timer: Callable[[], float]
    disable_gc: bool
    warmup: bool | None
    warmup_iterations: int

    @classmethod
    def of_options(cls, option: Any) -> Settings:
        """The session's settings: pytest-benchmark's options (pytest's ``config.option``)."""
        return cls(
            group=None,
            min_time=option.benchmark_min_time,
            max_time=option.benchmark_max_time,
            min_rounds=option.benchmark_min_rounds,
            timer=option.benchmark_timer,
            disable_gc=option.benchmark_disable_gc,
            warmup=option.benchmark_warmup,
            warmup_iterations=option.benchmark_warmup_iterations,
        )

    def with_mark(self, kwargs: dict[str, Any]) -> Settings:
        """These settings with a mark's keywords over them; the keywords
        pytest-benchmark has and perf has no use for are accepted."""
        unknown = [name for name in kwargs if name not in MARK_KEYWORDS]
        if unknown:
            raise ValueError(f"benchmark mark can't have {unknown[0]!r} keyword argument.")
        known = {name: value for name, value in kwargs.items() if name in self._fields}
        if "timer" in known and not callable(known["timer"]):
            raise ValueError(f"benchmark mark: timer must be a callable, got {known['timer']!r}")
        return self._replace(**known)

    def as_pytest_benchmark(self) -> dict[str, Any]:
        """The ``options`` object of pytest-benchmark's JSON entries."""
        warmup: bool | int = self.warmup_iterations if self.warmup else False
        return {
            "disable_gc": self.disable_gc,
            "timer": getattr(self.timer, "__name__", repr(self.timer)),
            "min_rounds": self.min_rounds,
            "max_time": self.max_time,
            "min_time": self.min_time,
            "warmup": warmup,
        }


def check_mark(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """pytest-benchmark's checks of ``@pytest.mark.benchmark``: no
    positional arguments, only its ten keywords (ValueError)."""
    if args:
        raise ValueError("benchmark mark can't have positional arguments.")
    for name in kwargs:
        if name not in MARK_KEYWORDS:
            raise ValueError(f"benchmark mark can't have {name!r} keyword argument.")


def _default_timer() -> Callable[[], float]:
    import time

    return time.perf_counter


#: --benchmark-timer's default
DEFAULT_TIMER = _default_timer()
