"""perf.render.units: durations, sizes and counts formatted as pyperf
prints them (users grep these strings)."""

from __future__ import annotations

import datetime
import math

import pytest

from perf.render.units import (
    count_of,
    format_about,
    format_count,
    format_datetime,
    format_filesize,
    format_filesizes,
    format_integers,
    format_number,
    format_seconds,
    format_system_load,
    format_timedelta,
    format_timedeltas,
    format_value,
    format_values,
    format_widths,
)

# --- durations -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        # three significant digits; the unit follows the magnitude
        (12.3, "12.3 sec"),
        (1.0, "1.00 sec"),
        (123.4, "123 sec"),
        (1234.5, "1234 sec"),  # no unit above seconds
        (0.5, "500 ms"),
        (0.1, "100 ms"),
        (0.0225, "22.5 ms"),
        (0.001, "1.00 ms"),
        (9.99e-5, "99.9 us"),
        (1.5e-6, "1.50 us"),
        (3e-7, "300 ns"),
        (2.5e-8, "25.0 ns"),
        (1e-9, "1.00 ns"),
        (5e-10, "0.50 ns"),  # no unit below nanoseconds
        (0, "0.00 ns"),
        (-0.0225, "-22.5 ms"),
    ],
)
def test_format_timedelta(seconds: float, expected: str) -> None:
    assert format_timedelta(seconds) == expected
    assert format_timedeltas((seconds,)) == (expected,)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        # every value takes the unit and precision of the first one
        ((0.0225, 0.0001, 1.5), ("22.5 ms", "0.1 ms", "1500.0 ms")),
        ((1.5e-6, 3.1e-8), ("1.50 us", "0.03 us")),
        ((12.3, 0.0225), ("12.3 sec", "0.0 sec")),
        ((2.5e-8, 1e-6), ("25.0 ns", "1000.0 ns")),
    ],
)
def test_format_timedeltas_share_the_first_unit(values: tuple[float, ...], expected: tuple[str, ...]) -> None:
    assert format_timedeltas(values) == expected


def test_format_timedeltas_of_no_value() -> None:
    assert format_timedeltas(()) == ()


@pytest.mark.parametrize("unit", ["byte", "integer"])
def test_format_values_of_no_value(unit: str) -> None:
    assert format_values(unit, ()) == ()


# --- sizes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (0, "0 bytes"),
        (1, "1 byte"),
        (2, "2 bytes"),
        (10 * 1024 - 1, "10239 bytes"),
        (10 * 1024, "10.0 KiB"),
        (12.3 * 1024, "12.3 KiB"),
        (10 * 1024 * 1024, "10240.0 KiB"),  # MiB only above 10 MiB
        (10 * 1024 * 1024 + 1, "10.0 MiB"),
        (20 * 1024 * 1024, "20.0 MiB"),
        (3 * 1024**3, "3072.0 MiB"),
    ],
)
def test_format_filesize(size: float, expected: str) -> None:
    assert format_filesize(size) == expected


def test_format_filesizes() -> None:
    assert format_filesizes((1, 20 * 1024)) == ("1 byte", "20.0 KiB")


# --- coarse durations ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0, "0 sec"),
        (0.0, "0 sec"),
        (None, "0 sec"),
        (0.5, "500 ms"),
        (0.0225, "22.5 ms"),
        (1, "1.0 sec"),
        (1.5, "1.5 sec"),
        (59.5, "59.5 sec"),
        (60, "1 min"),
        (62.5, "1 min 2.5 sec"),
        (3600, "1 hour"),
        (3723, "1 hour 2 min 3.0 sec"),
        (7200, "2 hour"),
        (86400, "1 day"),
        # at most three parts: seconds are dropped after day, hour and min
        (90061, "1 day 1 hour 1 min"),
        (90000.5, "1 day 1 hour 0.5 sec"),
    ],
)
def test_format_seconds(seconds: float | None, expected: str) -> None:
    assert format_seconds(seconds) == expected


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0.2, "about 1 s"),  # never "about 0 s"
        (4.4, "about 4 s"),
        (9.6, "about 10 s"),
        (12.4, "about 10 s"),  # 5 s steps from 10 s
        (12.6, "about 15 s"),
        (57.4, "about 55 s"),
        (57.6, "about 1 min"),  # 60 s is a minute
        (89, "about 1 min"),  # whole minutes from there
        (91, "about 2 min"),
        (1530, "about 26 min"),
        (7200, "about 120 min"),
    ],
)
def test_format_about_is_as_coarse_as_an_estimate(seconds: float, expected: str) -> None:
    assert format_about(seconds) == expected


@pytest.mark.parametrize(
    ("half_width", "needed", "expected"),
    [
        (math.log(1.06), math.log(1.045), "+-6.0 %, needs under +-4.5 %"),
        (0.02, 0.0, "+-2.0 %, needs under +-0.0 %"),  # an estimate right on 1
        (math.inf, 0.01, "+-inf %, needs under +-1.0 %"),
    ],
)
def test_format_widths_as_percents_of_the_ratio(half_width: float, needed: float, expected: str) -> None:
    assert format_widths(half_width, needed) == expected


# --- counts ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        (0, "0"),
        (1, "1"),
        (1000, "1000"),
        (9999, "9999"),
        (10000, "10^4"),
        (100000, "10^5"),
        (10**6, "10^6"),
        (10**6 + 1, "1000001"),
        # pyperf prints 20000 as "10^4": perf does not copy that bug
        (20000, "20000"),
        (30000, "30000"),
        (8192, "8192"),  # 2^13 is not abbreviated
        (16384, "2^14"),
        (2**15, "2^15"),
        (2**15 + 1, "32769"),
        (2**20, "2^20"),
        (-10000, "-10000"),
        (1.5, "1.5"),
        (10000.0, "10000.0"),  # only ints are abbreviated
    ],
)
def test_format_number(number: float, expected: str) -> None:
    assert format_number(number) == expected


@pytest.mark.parametrize(
    ("number", "unit", "units", "expected"),
    [
        (0, "loop", None, "0 loops"),
        (1, "loop", None, "1 loop"),
        (2, "loop", None, "2 loops"),
        (10**6, "value", None, "10^6 values"),
        (2**15, "loop", None, "2^15 loops"),
        (1.5, "loop", None, "1.5 loops"),
        (0.5, "loop", None, "0.5 loop"),
        (-1, "loop", None, "-1 loop"),
        (1, "process", "processes", "1 process"),
        (3, "process", "processes", "3 processes"),
        (5, None, None, "5"),
        (5, "", None, "5"),
    ],
)
def test_format_number_with_units(number: float, unit: str | None, units: str | None, expected: str) -> None:
    assert format_number(number, unit, units) == expected


def test_format_integers() -> None:
    assert format_integers((3, 2**15, 10**6)) == ("3", "2^15", "10^6")


# --- others ----------------------------------------------------------------------


@pytest.mark.parametrize(("load", "expected"), [(0, "0.00"), (0.5, "0.50"), (2, "2.00"), (1.234, "1.23")])
def test_format_system_load(load: float, expected: str) -> None:
    assert format_system_load(load) == expected


@pytest.mark.parametrize(
    ("microsecond", "expected"),
    [(True, "2024-01-02 03:04:05.123456"), (False, "2024-01-02 03:04:05")],
)
def test_format_datetime(microsecond: bool, expected: str) -> None:
    value = datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)
    assert format_datetime(value, microsecond=microsecond) == expected


@pytest.mark.parametrize(
    ("unit", "values", "expected"),
    [
        ("second", (0.0225, 0.0002), ("22.5 ms", "0.2 ms")),
        (None, (0.0225,), ("22.5 ms",)),  # the default unit is second
        ("byte", (1, 12.3 * 1024), ("1 byte", "12.3 KiB")),
        ("integer", (2**15, 7), ("2^15", "7")),
        ("instructions", (183002.0, 1, 0.5), ("183,002 instructions", "1 instruction", "0.5 instructions")),
    ],
)
def test_format_values(unit: str | None, values: tuple[float, ...], expected: tuple[str, ...]) -> None:
    assert format_values(unit, values) == expected
    assert format_value(unit, values[0]) == expected[0]


def test_format_values_unknown_unit() -> None:
    with pytest.raises(KeyError):
        format_values("parsec", (1.0,))


@pytest.mark.parametrize(
    ("count", "what", "plural", "expected"),
    [
        (1, "warmup", None, "1 warmup"),
        (2, "warmup", None, "2 warmups"),
        (0, "round", None, "0 rounds"),
        (1, "process", "processes", "1 process"),
        (3, "process", "processes", "3 processes"),
    ],
)
def test_count_of_says_one_in_the_singular(count: int, what: str, plural: str | None, expected: str) -> None:
    assert count_of(count, what, plural) == expected


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (0, "0"),
        (183002.0, "183,002"),
        (53001118, "53,001,118"),
        (183002.4, "183,002"),  # a mean: whole counts from 100
        (263.27, "263"),
        (99.94, "99.9"),  # three significant digits below 100
        (5.25, "5.25"),
        (0.333333, "0.333"),
    ],
)
def test_format_count(count: float, expected: str) -> None:
    assert format_count(count) == expected
