"""The vocabulary of the runner options: budgets, and the converters of their values.

A converter takes a command-line string or a value given as a keyword,
and returns the value or raises ValueError (its message);
:mod:`perf.measure.arguments` makes command-line types of them, and
:class:`perf.measure.options.RunOptions` declares which option uses which.

Must not: import anything of perf but the platform's CPU lists.
"""

import os
from typing import Any, Callable, Literal, NamedTuple, Optional, Tuple, Union

from perf.platform.cpus import parse_cpu_list

#: what the Runner runs: a bench script's benchmarks, ``python -m perf
#: timeit`` (one benchmark of statements) or ``python -m perf command``
#: (one benchmark of a program)
RunMode = Literal["script", "timeit", "command"]

#: ``--warmups auto``: find each process's steady state (JIT runtimes)
AUTO = "auto"


class Budget(NamedTuple):
    """Default number of processes and values per process."""

    processes: int
    values: int


#: perf's default budget (doc/design.rst, R4; doc/runner.rst has the
#: measurement that chose it)
DEFAULT_BUDGET = Budget(processes=24, values=2)
#: --target-precision: the default bounds on the number of processes (pairs)
MIN_PROCESSES = 10
MAX_PROCESSES = 100
#: a default run (no -p) stops on precision, between MIN_PROCESSES and its
#: budget's processes, or once the workers of a benchmark took this long
DEFAULT_SECONDS = 60.0
#: ... and takes this many values per process (no -n): with the next
#: worker's start-up hidden (R12) a process costs about one more value, and
#: the optimum of doc/design.rst, R4 is then one value (bench/results/precision_budget-*)
PRECISION_VALUES = 1
#: JIT runtimes: fewer, longer processes (each one warms up first)
JIT_BUDGET = Budget(processes=6, values=10)
#: ``--metric``: what a value is
METRIC_NAMES = ("time", "instructions")
#: --metric instructions: at most 10 samples (one count each, from two
#: workers), stopped once the interval of the mean is within +-0.1 %, not
#: before 2: counts of deterministic code are equal and stop there
COUNT_BUDGET = Budget(processes=10, values=1)
COUNT_PRECISION = 0.001
COUNT_MIN_PROCESSES = 2
#: the loops of a count are calibrated, without valgrind, for the budget's
#: shortest value divided by this (a loop costs 20-80 times more under valgrind)
CALIBRATION_DIVISOR = 10
#: why --metric instructions refuses an option
COUNT_EXCLUDES = (
    "a sample of counts is one loop count per pair of workers under valgrind, with no warmup (the first call "
    "cancels out)"
)


class GivenBudget(NamedTuple):
    """Processes, values and warmups as a bench script gave them to
    ``Runner(...)``, or as the command line gave them (None: not given)."""

    processes: Optional[int] = None
    values: Optional[int] = None
    warmups: Optional[Union[int, str]] = None

    def budget_for(self, jit: bool) -> Tuple["Budget", Union[int, str]]:
        """Processes, values and warmups for workers with or without a JIT."""
        base = JIT_BUDGET if jit else DEFAULT_BUDGET
        budget = Budget(self.processes or base.processes, self.values or base.values)
        warmups: Union[int, str] = AUTO if jit else 1
        return budget, warmups if self.warmups is None else self.warmups

    def precision_values(self, jit: bool) -> Optional[int]:
        """The values per process of a run of this script without ``-p``,
        which stops on precision (None: the budget's, the script set them or
        has a JIT)."""
        return PRECISION_VALUES if self.processes is None and self.values is None and not jit else None


# -- converters: a command-line string or a keyword value -> the value ---------------------


def _integer(value: Any) -> int:
    """An integer, also written ``x^y`` (``2^10``) on a command line as pyperf accepts."""
    if isinstance(value, str):
        base, caret, exponent = value.partition("^")
        try:
            if caret and int(exponent) >= 0:
                return int(base) ** int(exponent)  # type: ignore[no-any-return]
            if not caret:
                return int(value)
        except ValueError:
            pass
        raise ValueError(f"invalid integer: {value!r}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {value!r}")
    return value


def count(minimum: int) -> Callable[[Any], int]:
    """An integer >= *minimum*."""

    def convert(value: Any) -> int:
        number = _integer(value)
        if number < minimum:
            raise ValueError(f"must be >= {minimum}, got {value!r}")
        return number

    return convert


positive = count(1)
not_negative = count(0)


def warmups_count(value: Any) -> Union[int, str]:
    return AUTO if value == AUTO else not_negative(value)


def seconds(value: Any) -> float:
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"invalid number of seconds: {value!r}") from None
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a number of seconds, got {value!r}")
    else:
        number = float(value)
    if not 0 < number < float("inf"):
        raise ValueError(f"must be a number of seconds > 0, got {value!r}")
    return number


def precision(value: Any) -> float:
    """A relative precision: ``'1%'`` or ``'1'`` on a command line, the
    fraction itself (0.01) as a keyword."""
    if isinstance(value, str):
        number = value.strip().removesuffix("%").strip()
        try:
            percent = float(number)
        except ValueError:
            raise ValueError(f"expected a percentage such as 1% or 0.5, got {value!r}") from None
        if not 0 < percent < 100:
            raise ValueError(f"the percentage must be between 0 and 100 (exclusive), got {value!r}")
        return percent / 100
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a fraction such as 0.01 (1%), got {value!r}")
    if not 0 < value < 1:
        raise ValueError(f"must be a fraction between 0 and 1 (exclusive) such as 0.01 (1%), got {value!r}")
    return float(value)


def text(value: Any) -> str:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return value


def cpu_list(value: Any) -> str:
    given = text(value)
    try:
        cpus = parse_cpu_list(given)
    except ValueError as exc:
        raise ValueError(f"invalid CPU list {given!r}: {exc}") from None
    if not cpus:
        raise ValueError(f"empty CPU list: {given!r}")
    return given


def names(value: Any) -> Tuple[str, ...]:
    """``'A,B'`` on a command line, a list of strings as a keyword."""
    if isinstance(value, str):
        return tuple(item.strip() for item in value.split(",") if item.strip())
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"expected a list of strings, got {value!r}")
    return tuple(value)


def python_names(value: Any) -> Tuple[str, str]:
    """``'REF:CHANGED'`` on a command line, two names as a keyword."""
    if isinstance(value, str):
        reference, colon, changed = value.partition(":")
        if not colon or not reference or not changed:
            raise ValueError(f"expected REF_NAME:CHANGED_NAME, got {value!r}")
        return reference, changed
    if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(v and isinstance(v, str) for v in value):
        raise ValueError(f"expected two names (reference, changed), got {value!r}")
    return value[0], value[1]


def choice(*choices: str) -> Callable[[Any], str]:
    def convert(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(map(repr, choices))}, got {value!r}")
        return str(value)

    convert.choices = choices  # type: ignore[attr-defined]
    return convert


def flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected True or False, got {value!r}")
    return value


# -- the rows --------------------------------------------------------------------------

#: how an option reaches the workers (:func:`perf.measure.protocol.worker_arguments`):
#: not at all, the parent alone reads it
PARENT_ONLY = "parent only"
#: written for each worker by the parent, which may change it per worker
PER_WORKER = "per worker"
#: passed on as given: how the worker measures
MEASURING = "measuring"
#: passed on as given, after the measuring ones: what runs around the values
RECORDING = "recording"
#: internal: the parent sets them on a worker's command line, a worker alone reads them
WORKER_ONLY = "worker only"


class Option(NamedTuple):
    """One runner option: the row a :class:`perf.measure.options.RunOptions` field carries."""

    #: the command-line flags; the first one is written on a worker's command line
    flags: Tuple[str, ...]
    #: the help text (``{processes}``, ``{values}``, ``{warmups}``,
    #: ``{min_processes}``, ``{max_processes}``: the defaults in use); ""
    #: for an internal option, left out of ``--help``
    help: str
    #: a value (command-line string or keyword) to a value; :func:`flag`: a switch
    convert: Callable[[Any], Any] = flag
    metavar: Optional[str] = None
    #: given several times (``--hook A --hook B``)
    repeated: bool = False
    #: ``--flag=value`` on a worker's command line
    joined: bool = False
    #: a mutually exclusive group of options
    group: str = ""
    #: :data:`PARENT_ONLY`, :data:`PER_WORKER`, :data:`MEASURING`, :data:`RECORDING` or :data:`WORKER_ONLY`
    worker: str = PARENT_ONLY
    #: filled in from the field
    name: str = ""
    default: Any = None

    @property
    def switch(self) -> bool:
        return self.convert is flag


def _switch(*flags: str, help: str = "", **row: Any) -> Option:
    return Option(flags, help, **row)


def _worker(*flags: str, convert: Callable[[Any], Any] = flag, metavar: Optional[str] = None) -> Option:
    return Option(flags, "", convert, metavar, worker=WORKER_ONLY)
