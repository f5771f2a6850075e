"""Formatting of numbers with units: durations, sizes, counts, dates; and
:func:`join_blocks`, the blank line between blocks of text.

The output matches pyperf's text byte for byte where users grep it
(``22.5 ms``, ``12.3 KiB``, ``2^15``, ``1 min 2.5 sec``).

Must not: import anything from perf, compute statistics, or print.
"""

from __future__ import annotations

import datetime
import math
from typing import Callable, Sequence, Union

Number = Union[int, float]

_TIMEDELTA_UNITS = ("sec", "ms", "us", "ns")


def _timedelta_format(exponent: int) -> tuple[int, str, str]:
    """``(factor, format spec, unit)`` for a first value of 10**exponent."""
    precision = 2 - exponent % 3
    unit_index = -(exponent // 3) if exponent < 0 else 0
    return 10 ** (unit_index * 3), f".{precision}f", " " + _TIMEDELTA_UNITS[unit_index]


#: (10**exponent, how to format) from 10**2 s down to 10**-8 s, then below
_TIMEDELTA_FORMATS = tuple((10.0**exponent, _timedelta_format(exponent)) for exponent in range(2, -9, -1))
_SMALLEST_TIMEDELTA_FORMAT = _timedelta_format(-9)


def format_timedeltas(values: Sequence[Number]) -> tuple[str, ...]:
    """Format durations in seconds with the unit and precision of the first.

    Three significant digits for the first value; the others share its unit
    so a column of values lines up.
    """
    if not values:
        return ()
    reference = abs(values[0])
    factor, spec, unit = _SMALLEST_TIMEDELTA_FORMAT
    for threshold, how in _TIMEDELTA_FORMATS:
        if reference >= threshold:
            factor, spec, unit = how
            break
    return tuple([format(value * factor, spec) + unit for value in values])


def format_timedelta(value: Number) -> str:
    return format_timedeltas((value,))[0]


def format_filesize(size: Number) -> str:
    if size < 10 * 1024:
        return f"{size:.0f} byte" if size == 1 else f"{size:.0f} bytes"
    if size > 10 * 1024 * 1024:
        return f"{size / (1024.0 * 1024.0):.1f} MiB"
    return f"{size / 1024.0:.1f} KiB"


def format_filesizes(sizes: Sequence[Number]) -> tuple[str, ...]:
    return tuple(format_filesize(size) for size in sizes)


def format_seconds(seconds: Number | None) -> str:
    """Coarse human-readable duration: ``'1 hour 2 min 3.0 sec'``."""
    if not seconds:
        return "0 sec"
    if seconds < 1.0:
        return format_timedelta(seconds)
    minutes_float, secs = divmod(seconds, 60.0)
    hours, minutes = divmod(int(minutes_float), 60)
    days, hours = divmod(hours, 24)
    parts = []
    if days:
        parts.append(f"{days:.0f} day")
    if hours:
        parts.append(f"{hours:.0f} hour")
    if minutes:
        parts.append(f"{minutes:.0f} min")
    if secs and len(parts) <= 2:
        parts.append(f"{secs:.1f} sec")
    return " ".join(parts)


def format_about(seconds: Number) -> str:
    """An estimate of a duration, as coarse as it is: ``about 8 s``,
    ``about 45 s`` (5 s steps from 10 s), ``about 3 min`` (whole minutes
    from a minute)."""
    whole = max(1, int(seconds + 0.5))
    if whole >= 10:
        whole = 5 * int(whole / 5 + 0.5)
    if whole < 60:
        return f"about {whole} s"
    return f"about {int(seconds / 60 + 0.5)} min"


def format_widths(half_width: float, needed: float) -> str:
    """``+-6.0 %, needs under +-4.5 %``: the half-width of an interval of a
    ratio and the half-width under which it decides, both on the log
    scale, as percents of the ratio."""

    def percent(width: float) -> str:
        return f"+-{math.expm1(width) * 100:.1f} %" if math.isfinite(width) else "+-inf %"

    return f"{percent(half_width)}, needs under {percent(needed)}"


def _power_of_ten(number: int) -> int | None:
    """Return k when number == 10**k with k >= 4, else None."""
    if number < 10000:
        return None
    text = str(number)
    if text[0] == "1" and text.strip("0") == "1":
        return len(text) - 1
    return None


def format_number(number: Number, unit: str | None = None, units: str | None = None) -> str:
    """Format a count: ``10^6`` and ``2^15`` for round numbers, plural units."""
    plural = not number or abs(number) > 1
    text = str(number)
    if isinstance(number, int) and not isinstance(number, bool):
        power = _power_of_ten(number)
        if power is not None:
            text = f"10^{power}"
        elif number > 8192 and number & (number - 1) == 0:
            text = f"2^{number.bit_length() - 1}"
    if not unit:
        return text
    if plural:
        return f"{text} {units or unit + 's'}"
    return f"{text} {unit}"


def count_of(count: int, what: str, plural: str | None = None) -> str:
    """``1 warmup``, ``2 warmups``: a count and its noun (*plural*: when it
    is not *what* + ``s``)."""
    return f"{count} {what if count == 1 else plural or what + 's'}"


def format_integers(numbers: Sequence[Number]) -> tuple[str, ...]:
    return tuple(format_number(number) for number in numbers)


def format_count(count: Number) -> str:
    """``183,002``: a count with thousands separators; a mean of counts below
    100 with three significant digits (``5.25``), whole from 100."""
    if count == int(count) or abs(count) >= 100:
        return f"{count:,.0f}"
    return f"{count:,.3g}"


def format_instructions(counts: Sequence[Number]) -> tuple[str, ...]:
    """``183,002 instructions``: instruction counts (per loop) of a count
    benchmark (``--metric instructions``)."""
    return tuple(f"{format_count(count)} instruction{'' if count == 1 else 's'}" for count in counts)


def format_system_load(load: Number) -> str:
    return f"{load:.2f}"


def format_generic(value: object) -> str:
    return value if isinstance(value, str) else str(value)


#: ``clock`` metadata (``--clock``) -> what the values are
_CLOCK_TEXT = {"wall": "wall (elapsed time)", "cpu": "cpu (CPU time of the worker thread)"}


def format_clock(clock: object) -> str:
    return _CLOCK_TEXT.get(clock, str(clock)) if isinstance(clock, str) else str(clock)


def format_datetime(value: datetime.datetime, microsecond: bool = True) -> str:
    if not microsecond:
        value = value.replace(microsecond=0)
    return value.isoformat(" ")


DEFAULT_UNIT = "second"

#: unit name -> formatter of a sequence of values in that unit
UNIT_FORMATTERS: dict[str, Callable[[Sequence[Number]], tuple[str, ...]]] = {
    "second": format_timedeltas,
    "byte": format_filesizes,
    "integer": format_integers,
    "instructions": format_instructions,
}

#: formatter name used by the metadata registry -> function of one value
VALUE_FORMATTERS: dict[str, Callable[[object], str]] = {
    "generic": format_generic,
    "seconds": format_seconds,  # type: ignore[dict-item]
    "filesize": format_filesize,  # type: ignore[dict-item]
    "number": format_number,  # type: ignore[dict-item]
    "count": format_count,  # type: ignore[dict-item]
    "system_load": format_system_load,  # type: ignore[dict-item]
    "noop": format_generic,
    "clock": format_clock,
}


def format_values(unit: str | None, values: Sequence[Number]) -> tuple[str, ...]:
    return UNIT_FORMATTERS[unit or DEFAULT_UNIT](values)


def format_value(unit: str | None, value: Number) -> str:
    return format_values(unit, (value,))[0]


def join_blocks(*blocks: Sequence[str]) -> list[str]:
    """The non-empty *blocks* of lines, an empty line between two."""
    lines: list[str] = []
    for block in blocks:
        if block:
            lines.extend(["", *block] if lines else block)
    return lines
