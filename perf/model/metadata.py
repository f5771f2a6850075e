"""Registry of metadata keys, their validation and common-metadata factoring.

Each known key has a :class:`MetadataInfo` entry (accepted types, a check, a
unit, and the *name* of its formatter, resolved by ``perf.render``), so
validation and display are table lookups, not if/else chains.  Unknown keys
accept ``int``, ``float`` and ``str``.

Must not: read the system, format text, or open files.
"""

from __future__ import annotations

import datetime
import math
import re  # already imported by json, which every perf process uses
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence

from perf.errors import ResultError

MetadataValue = Any  # int, float, str, or a list of str for 'tags'
Metadata = dict[str, MetadataValue]

#: units a benchmark's values may have
UNITS = ("second", "byte", "integer")
DEFAULT_UNIT = "second"


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _at_least_one(value: Any) -> bool:
    return bool(value >= 1)


def _not_negative(value: Any) -> bool:
    return bool(value >= 0)


def _is_tag_list(value: Any) -> bool:
    return all(isinstance(tag, str) and tag not in ("", "all") for tag in value)


def _is_unit(value: Any) -> bool:
    return value in UNITS


#: a naive date as pyperf writes it (``datetime.isoformat(' ')``); files of
#: perf < 0.8.3 used a 'T'
_DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{6})?")


def _is_date(value: Any) -> bool:
    """``YYYY-MM-DD HH:MM:SS[.ffffff]``, and a real date.

    fromisoformat() alone also accepts a date without a time, UTC offsets
    (which make get_dates() compare naive and aware datetimes) and, from
    Python 3.11, the basic format and week dates: none of them is a
    result-file date, and pyperf cannot read them.
    """
    if _DATE_PATTERN.fullmatch(value) is None:
        return False
    try:
        datetime.datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


#: ``--clock``: the clock that timed the values; a run without the key was
#: timed with the wall clock (every pyperf run)
CLOCKS = ("wall", "cpu")
DEFAULT_CLOCK = "wall"


def _is_clock(value: str) -> bool:
    return value in CLOCKS


#: per-process classification of a JIT warmup (perf.measure.child.steady)
STEADY_STATES = ("flat", "warmup", "slowdown", "no steady state")


def _is_steady_state(value: str) -> bool:
    return value in STEADY_STATES


class MetadataInfo(NamedTuple):
    """What is known about one metadata key."""

    #: accepted Python types (bool is never accepted as a number)
    types: tuple[type, ...]
    #: extra check on the value, with the text used when it fails
    check: Callable[[Any], bool] | None = None
    check_text: str = ""
    #: unit of the value when the metadata is extracted as a benchmark
    unit: str | None = None
    #: name of the formatter in ``perf.render.units.VALUE_FORMATTERS``
    formatter: str = "generic"


_NUMBER = (int, float)
_LOOPS = MetadataInfo((int,), _at_least_one, "must be >= 1", "integer", "number")
_WARMUPS = MetadataInfo((int,), _not_negative, "must be >= 0", "integer", "number")
_SECONDS = MetadataInfo(_NUMBER, _not_negative, "must be >= 0", "second", "seconds")
_BYTES = MetadataInfo((int,), _at_least_one, "must be >= 1", "byte", "filesize")
_DATE = MetadataInfo((str,), _is_date, "must be a date 'YYYY-MM-DD HH:MM:SS[.ffffff]'")
_COUNT = MetadataInfo(_NUMBER, _not_negative, "must be >= 0", "integer", "count")

#: run metadata of a count benchmark (``--metric instructions``): what
#: counted its values, which are instructions per loop, never times; runs of
#: different counters never share a benchmark (a checked key)
COUNTER_KEY = "counter_source"
#: the unit the values of a count benchmark are shown in; its ``unit`` stays
#: pyperf's ``integer`` (Benchmark.get_display_unit())
COUNT_UNIT = "instructions"
#: the counts per loop of a count run, beside its value (cycles_estimate:
#: instructions + 10 x (I1 + D1 misses) + 100 x LL misses)
COUNT_KEYS = ("instructions", "i1_misses", "d1_misses", "ll_misses", "cycles_estimate")

#: run metadata of the runs saved from a run that stopped before its planned
#: processes: why, and how many ran (``interrupted after 8 of 24 processes``)
INCOMPLETE_KEY = "incomplete"

#: the registry of known keys (doc/compatibility.rst, metadata keys)
METADATA: dict[str, MetadataInfo] = {
    "name": MetadataInfo((str,)),
    "unit": MetadataInfo((str,), _is_unit, "must be one of " + ", ".join(UNITS), formatter="noop"),
    "loops": _LOOPS,
    "inner_loops": _LOOPS,
    "calibrate_loops": _LOOPS,
    "recalibrate_loops": _LOOPS,
    "calibrate_warmups": _WARMUPS,
    "recalibrate_warmups": _WARMUPS,
    "duration": _SECONDS,
    "uptime": _SECONDS,
    "load_avg_1min": MetadataInfo(_NUMBER, _not_negative, "must be >= 0", formatter="system_load"),
    "mem_max_rss": _BYTES,
    "mem_peak_pagefile_usage": _BYTES,
    "command_max_rss": _BYTES,
    "date": _DATE,
    "boot_time": _DATE,
    "tags": MetadataInfo((list,), _is_tag_list, "must be a list of tags other than '' and 'all'", "tag"),
    # perf additions: the clock probe, layout padding, JIT steady state
    "timer_call_cost": _SECONDS,
    "timer_effective_resolution": _SECONDS,
    "env_padding": MetadataInfo((int,), _not_negative, "must be >= 0", "byte", "filesize"),
    "steady_state": MetadataInfo((str,), _is_steady_state, "must be one of " + ", ".join(STEADY_STATES)),
    "steady_state_warmups": _WARMUPS,
    # seconds per statement of the empty timing loop (doc/design.rst, R10)
    "loop_overhead": _SECONDS,
    # what the machine did to the worker (perf.measure.child.interference)
    "cpu_share": MetadataInfo(_NUMBER, _not_negative, "must be >= 0"),
    "involuntary_switches": _WARMUPS,
    "speed_probe_before": _SECONDS,
    "speed_probe_after": _SECONDS,
    # which workload made them (absent: perf's first probe, run in the
    # interpreter under test; perf.analysis.interference)
    "speed_probe": MetadataInfo((str,)),
    # the run stopped before its planned processes (Ctrl-C, a failed worker)
    INCOMPLETE_KEY: MetadataInfo((str,)),
    # --clock cpu: the values are the CPU time of the worker's thread
    "clock": MetadataInfo((str,), _is_clock, "must be one of " + ", ".join(CLOCKS), formatter="clock"),
    # --metric instructions: the counter, the counts per loop, the PYTHONHASHSEED
    COUNTER_KEY: MetadataInfo((str,)),
    **dict.fromkeys(COUNT_KEYS, _COUNT),
    "hash_seed": MetadataInfo((int,), _not_negative, "must be >= 0"),
}

DEFAULT_INFO = MetadataInfo((int, float, str))

#: keys that must be equal in every run of one benchmark (absence included,
#: except that a missing key means its default in CHECKED_DEFAULTS):
#: pyperf's (doc/compatibility.rst, Benchmark add_run), and perf's ``clock`` and
#: ``counter_source``, which pyperf does not know (wall-time and CPU-time
#: values, times and counts, or counts of different counters must not share a mean)
CHECKED_KEYS = (
    "aslr",
    "clock",
    COUNTER_KEY,
    "cpu_count",
    "cpu_model_name",
    "hostname",
    "inner_loops",
    "name",
    "platform",
    "python_executable",
    "python_implementation",
    "python_version",
    "unit",
)
#: checked keys whose absence means a value: files of development versions
#: of perf wrote no unit for timings; a run without clock used the wall clock
CHECKED_DEFAULTS = {"unit": DEFAULT_UNIT, "clock": DEFAULT_CLOCK}


def get_metadata_info(name: str) -> MetadataInfo:
    return METADATA.get(name, DEFAULT_INFO)


def _check_name_and_type(name: Any, value: Any, info: MetadataInfo) -> None:
    if not isinstance(name, str):
        raise ResultError(f"metadata name must be a str, got {type(name).__name__}")
    if not name:
        raise ResultError("metadata name must not be empty")
    if isinstance(value, bool) or not isinstance(value, info.types):
        expected = " or ".join(kind.__name__ for kind in info.types)
        raise ResultError(f"metadata {name!r}: expected {expected}, got {type(value).__name__} {value!r}")


def check_metadata(name: str, value: MetadataValue) -> MetadataValue:
    """Validate one metadata item; return the value (str values stripped).

    Raises :class:`~perf.errors.ResultError` with a message naming the key.
    """
    info = METADATA.get(name, DEFAULT_INFO)
    kind = type(value)
    # exact type first: loading a big file checks tens of thousands of items
    if kind not in info.types or type(name) is not str or not name:
        _check_name_and_type(name, value, info)
    if isinstance(value, str):
        value = value.strip()
        if not value:
            raise ResultError(f"metadata {name!r}: value is empty")
        if "\n" in value or "\r" in value:
            raise ResultError(f"metadata {name!r}: newline characters are not allowed: {value!r}")
    elif isinstance(value, float) and not math.isfinite(value):
        raise ResultError(f"metadata {name!r}: value must be finite, got {value!r}")
    elif isinstance(value, list):
        value = list(value)  # a run owns its metadata: no shared lists
    if info.check is not None and not info.check(value):
        raise ResultError(f"metadata {name!r}: {info.check_text}, got {value!r}")
    return value


#: the dates of a column, joined by newlines, with every digit made a "0":
#: the usual date shape, repeated
_DATE_TEMPLATE = b"0000-00-00 00:00:00.000000\n"
_ZERO_DIGITS = bytes.maketrans(b"123456789", b"000000000")
#: dates checked at once by _all_dates()
_DATES_PER_CHECK = 4096


def _all_dates(values: Sequence[str]) -> bool:
    """_is_date() of each value (strings without a newline)."""
    for start in range(0, len(values), _DATES_PER_CHECK):
        chunk = values[start : start + _DATES_PER_CHECK]
        try:
            masked = "\n".join(chunk).encode("ascii").translate(_ZERO_DIGITS)
        except UnicodeEncodeError:
            masked = b""
        if masked + b"\n" != _DATE_TEMPLATE * len(chunk) and not all(map(_DATE_PATTERN.fullmatch, chunk)):
            return False
        try:
            for _date in map(datetime.datetime.fromisoformat, chunk):
                pass
        except ValueError:
            return False
    return True


#: column versions of the checks whose cost matters when loading big files
#: (a check missing here is applied value by value)
_COLUMN_CHECKS: dict[Callable[[Any], bool], Callable[[Sequence[Any]], bool]] = {
    _at_least_one: lambda values: bool(min(values) >= 1),
    _not_negative: lambda values: bool(min(values) >= 0),
    _is_date: _all_dates,
}
_STR_TYPES = frozenset({str})
_NUMBER_TYPES = frozenset({int, float})


def is_valid_column(name: str, values: tuple[Any, ...]) -> bool:
    """True when :func:`check_metadata` accepts each of *values* (one or
    more) for the key *name* and returns it unchanged.

    A fast path for loading: it checks a whole column of values with a few
    calls.  False does not mean that a value is invalid (a string that
    needs stripping, a list is copied...): check them one by one then.
    """
    info = METADATA.get(name, DEFAULT_INFO)
    if not name or not _are_kept(values, info.types):
        return False
    check = info.check
    if check is None:
        return True
    column_check = _COLUMN_CHECKS.get(check)
    if column_check is not None:
        return column_check(values)
    return all(map(check, values))


def _are_kept(values: tuple[Any, ...], types: tuple[type, ...]) -> bool:
    """Values of the accepted *types* (exact types: a bool is not an int
    here) that check_metadata() returns unchanged."""
    kinds = set(map(type, values))
    if not kinds.issubset(types):
        return False
    if kinds == _STR_TYPES:
        # one join finds any newline; strip() and empty values change or fail
        text = "".join(values)
        return all(values) and "\n" not in text and "\r" not in text and values == tuple(map(str.strip, values))
    if kinds.issubset(_NUMBER_TYPES):
        try:
            return all(map(math.isfinite, values))
        except OverflowError:  # an int too large for a float is finite
            return False
    return False  # lists are copied; mixed types


def parse_metadata(metadata: Mapping[str, MetadataValue]) -> Metadata:
    """Validate a metadata mapping and return a new dict of checked values."""
    if not isinstance(metadata, Mapping):
        raise ResultError(f"metadata must be a dict, got {type(metadata).__name__}")
    return {name: check_metadata(name, value) for name, value in metadata.items()}


def common_metadata(metadatas: Iterable[Mapping[str, MetadataValue]]) -> Metadata:
    """Items whose key and value are identical in every mapping."""
    iterator = iter(metadatas)
    first = next(iterator, None)
    if first is None:
        return {}
    common = dict(first)
    for other in iterator:
        for key in [key for key, value in common.items() if other.get(key, None) != value]:
            del common[key]
        if not common:
            break
    return common


def copy_metadata(metadata: Mapping[str, MetadataValue]) -> Metadata:
    """A copy that shares no list (``tags``) with *metadata*."""
    return {key: list(value) if isinstance(value, list) else value for key, value in metadata.items()}


def exclude_keys(metadata: Mapping[str, MetadataValue], common: Mapping[str, MetadataValue]) -> Metadata:
    """*metadata* without the keys present in *common* (factoring on write)."""
    return {key: value for key, value in metadata.items() if key not in common}


def is_number(value: object) -> bool:
    """True for int and float, never for bool."""
    return _is_number(value)
