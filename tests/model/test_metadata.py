"""perf.model.metadata: the key registry, validation messages, and
common-metadata factoring (doc/compatibility.rst, metadata keys)."""

from __future__ import annotations

import math
import re

import pytest

from perf.errors import ResultError
from perf.model.metadata import (
    CHECKED_KEYS,
    COUNT_KEYS,
    METADATA,
    check_metadata,
    common_metadata,
    exclude_keys,
    get_metadata_info,
    is_number,
    parse_metadata,
)
from perf.render.units import VALUE_FORMATTERS

DATE_ERROR = "must be a date 'YYYY-MM-DD HH:MM:SS[.ffffff]'"
TAGS_ERROR = "must be a list of tags other than '' and 'all'"


# --- accepted values ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("name", "bench"),
        ("unit", "second"),
        ("unit", "byte"),
        ("unit", "integer"),
        ("loops", 1),
        ("loops", 2**20),
        ("inner_loops", 1),
        ("inner_loops", 10),
        ("calibrate_loops", 1),
        ("recalibrate_loops", 128),
        ("calibrate_warmups", 0),
        ("calibrate_warmups", 5),
        ("recalibrate_warmups", 0),
        ("duration", 0),
        ("duration", 0.0),
        ("duration", 1.5),
        ("duration", 10),
        ("uptime", 0),
        ("uptime", 12345.6),
        ("load_avg_1min", 0),
        ("load_avg_1min", 0.0),
        ("load_avg_1min", 2.5),
        ("mem_max_rss", 1),
        ("mem_max_rss", 123456789),
        ("mem_peak_pagefile_usage", 4096),
        ("command_max_rss", 1),
        ("date", "2024-01-02 03:04:05"),
        ("date", "2024-01-02 03:04:05.123456"),
        # files written by perf <= 1.x use the "T" separator
        ("date", "2024-01-02T03:04:05"),
        ("boot_time", "2023-12-31 23:59:59"),
        ("tags", []),
        ("tags", ["numeric"]),
        ("tags", ["numeric", "apps"]),
        ("clock", "cpu"),
        ("clock", "wall"),
        # any other key: int, float or str
        ("description", "a benchmark"),
        ("custom_int", 0),
        ("custom_int", -3),
        ("custom_float", -2.5),
        ("custom_float", 0.0),
        ("custom_str", "a  b"),
    ],
)
def test_accepted_values(name: str, value: object) -> None:
    assert check_metadata(name, value) == value
    assert parse_metadata({name: value}) == {name: value}


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("name", "  bench  ", "bench"),
        ("custom", "\tvalue\n", "value"),
        ("hostname", " host\r\n", "host"),
        ("unit", " byte ", "byte"),
        ("date", " 2024-01-02 03:04:05 ", "2024-01-02 03:04:05"),
    ],
)
def test_str_values_are_stripped(name: str, value: str, expected: str) -> None:
    assert check_metadata(name, value) == expected


# --- rejected values ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        # loops and friends: int >= 1
        ("loops", 0, "metadata 'loops': must be >= 1, got 0"),
        ("loops", -1, "metadata 'loops': must be >= 1, got -1"),
        ("loops", 1.0, "metadata 'loops': expected int, got float 1.0"),
        ("loops", "1", "metadata 'loops': expected int, got str '1'"),
        ("loops", True, "metadata 'loops': expected int, got bool True"),
        ("inner_loops", 0, "metadata 'inner_loops': must be >= 1, got 0"),
        ("calibrate_loops", 0, "metadata 'calibrate_loops': must be >= 1, got 0"),
        ("recalibrate_loops", 0, "metadata 'recalibrate_loops': must be >= 1, got 0"),
        # warmup calibration: int >= 0
        ("calibrate_warmups", -1, "metadata 'calibrate_warmups': must be >= 0, got -1"),
        ("recalibrate_warmups", -1, "metadata 'recalibrate_warmups': must be >= 0, got -1"),
        ("calibrate_warmups", 1.0, "metadata 'calibrate_warmups': expected int, got float 1.0"),
        ("calibrate_warmups", False, "metadata 'calibrate_warmups': expected int, got bool False"),
        # seconds: number >= 0
        ("duration", -0.5, "metadata 'duration': must be >= 0, got -0.5"),
        ("duration", "1", "metadata 'duration': expected int or float, got str '1'"),
        ("duration", True, "metadata 'duration': expected int or float, got bool True"),
        ("duration", math.nan, "metadata 'duration': value must be finite, got nan"),
        ("duration", math.inf, "metadata 'duration': value must be finite, got inf"),
        ("uptime", -1, "metadata 'uptime': must be >= 0, got -1"),
        ("load_avg_1min", -0.1, "metadata 'load_avg_1min': must be >= 0, got -0.1"),
        ("load_avg_1min", -math.inf, "metadata 'load_avg_1min': value must be finite, got -inf"),
        # bytes: int
        ("mem_max_rss", 1.5, "metadata 'mem_max_rss': expected int, got float 1.5"),
        ("command_max_rss", "1k", "metadata 'command_max_rss': expected int, got str '1k'"),
        ("mem_peak_pagefile_usage", None, "metadata 'mem_peak_pagefile_usage': expected int, got NoneType None"),
        # unit
        ("unit", "seconds", "metadata 'unit': must be one of second, byte, integer, got 'seconds'"),
        ("unit", "Second", "metadata 'unit': must be one of second, byte, integer, got 'Second'"),
        ("unit", "", "metadata 'unit': value is empty"),
        ("unit", 1, "metadata 'unit': expected str, got int 1"),
        # clock (--clock)
        ("clock", "thread", "metadata 'clock': must be one of wall, cpu, got 'thread'"),
        ("clock", 1, "metadata 'clock': expected str, got int 1"),
        # name
        ("name", "", "metadata 'name': value is empty"),
        ("name", "   ", "metadata 'name': value is empty"),
        ("name", 1, "metadata 'name': expected str, got int 1"),
        ("name", "a\nb", "metadata 'name': newline characters are not allowed: 'a\\nb'"),
        ("name", "a\rb", "metadata 'name': newline characters are not allowed: 'a\\rb'"),
        # tags
        ("tags", "numeric", "metadata 'tags': expected list, got str 'numeric'"),
        ("tags", ("numeric",), "metadata 'tags': expected list, got tuple ('numeric',)"),
        ("tags", ["all"], f"metadata 'tags': {TAGS_ERROR}, got ['all']"),
        ("tags", ["a", ""], f"metadata 'tags': {TAGS_ERROR}, got ['a', '']"),
        ("tags", [1], f"metadata 'tags': {TAGS_ERROR}, got [1]"),
        # 'phase' is not a key of pyperf 2.10: a list would make the file unreadable there
        ("phase", ["warmup", "main"], "metadata 'phase': expected int or float or str, got list ['warmup', 'main']"),
        # dates
        ("date", "yesterday", f"metadata 'date': {DATE_ERROR}, got 'yesterday'"),
        ("date", "2024-13-01 00:00:00", f"metadata 'date': {DATE_ERROR}, got '2024-13-01 00:00:00'"),
        ("date", "2024-01-02 25:00:00", f"metadata 'date': {DATE_ERROR}, got '2024-01-02 25:00:00'"),
        ("date", "02/01/2024 03:04:05", f"metadata 'date': {DATE_ERROR}, got '02/01/2024 03:04:05'"),
        ("date", 20240102, "metadata 'date': expected str, got int 20240102"),
        ("date", "", "metadata 'date': value is empty"),
        ("boot_time", "boot", f"metadata 'boot_time': {DATE_ERROR}, got 'boot'"),
        # unknown keys: int, float or str only
        ("custom", [1, 2], "metadata 'custom': expected int or float or str, got list [1, 2]"),
        ("custom", None, "metadata 'custom': expected int or float or str, got NoneType None"),
        ("custom", True, "metadata 'custom': expected int or float or str, got bool True"),
        ("custom", b"x", "metadata 'custom': expected int or float or str, got bytes b'x'"),
        ("custom", {"a": 1}, "metadata 'custom': expected int or float or str, got dict {'a': 1}"),
        ("custom", math.nan, "metadata 'custom': value must be finite, got nan"),
        ("custom", -math.inf, "metadata 'custom': value must be finite, got -inf"),
        ("custom", "", "metadata 'custom': value is empty"),
        ("custom", " \t ", "metadata 'custom': value is empty"),
        ("custom", "line1\nline2", "metadata 'custom': newline characters are not allowed: 'line1\\nline2'"),
    ],
)
def test_rejected_values(name: str, value: object, message: str) -> None:
    with pytest.raises(ResultError, match=re.escape(message)):
        check_metadata(name, value)
    with pytest.raises(ResultError, match=re.escape(message)):
        parse_metadata({name: value})


@pytest.mark.parametrize(
    "value",
    [
        "2024-01-02",  # no time
        "2024-01-02 03:04",  # no seconds
        "2024-01-02 03:04:05+02:00",  # a UTC offset: get_dates() would mix naive and aware
        "2024-01-02 03:04:05Z",
        "2024-01-02 03:04:05.123",  # the fraction is always 6 digits
        "20240102T030405",  # the basic format (accepted by fromisoformat on Python 3.11)
        "2024-01-02  03:04:05",
    ],
)
def test_date_outside_the_documented_format_is_rejected(value: str) -> None:
    with pytest.raises(ResultError, match=re.escape(f"metadata 'date': {DATE_ERROR}, got {value!r}")):
        check_metadata("date", value)


@pytest.mark.parametrize("value", ["2024-01-02 03:04:05,123456", "2024-W01-2 03:04:05", "2024-W01-2T03:04:05"])
def test_date_other_iso_forms_are_rejected(value: str) -> None:
    with pytest.raises(ResultError, match=re.escape(f"metadata 'date': {DATE_ERROR}, got {value!r}")):
        check_metadata("date", value)


@pytest.mark.parametrize("name", ["mem_max_rss", "mem_peak_pagefile_usage", "command_max_rss"])
@pytest.mark.parametrize("value", [0, -1])
def test_byte_sizes_must_be_at_least_one(name: str, value: int) -> None:
    # doc/compatibility.rst, metadata keys: int >= 1 (pyperf rejects 0 when it loads a file)
    with pytest.raises(ResultError, match=re.escape(f"metadata {name!r}: must be >= 1, got {value}")):
        check_metadata(name, value)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (1, "metadata name must be a str, got int"),
        (None, "metadata name must be a str, got NoneType"),
        (b"name", "metadata name must be a str, got bytes"),
        ("", "metadata name must not be empty"),
    ],
)
def test_invalid_names(name: object, message: str) -> None:
    with pytest.raises(ResultError, match=re.escape(message)):
        check_metadata(name, "value")  # type: ignore[arg-type]
    with pytest.raises(ResultError, match=re.escape(message)):
        parse_metadata({name: "value"})  # type: ignore[dict-item]


@pytest.mark.parametrize(("value", "kind"), [([("a", 1)], "list"), ("a=1", "str"), (None, "NoneType")])
def test_parse_metadata_requires_a_mapping(value: object, kind: str) -> None:
    with pytest.raises(ResultError, match=re.escape(f"metadata must be a dict, got {kind}")):
        parse_metadata(value)  # type: ignore[arg-type]


def test_result_error_is_a_value_error() -> None:
    # code written against pyperf catches ValueError
    with pytest.raises(ValueError):
        check_metadata("loops", 0)


def test_parse_metadata_returns_a_new_dict_of_checked_values() -> None:
    original = {"name": " bench ", "loops": 8, "tags": ["a"]}
    parsed = parse_metadata(original)
    assert parsed == {"name": "bench", "loops": 8, "tags": ["a"]}
    assert parsed is not original
    assert original["name"] == " bench "


def test_parse_metadata_empty() -> None:
    assert parse_metadata({}) == {}


# --- the registry --------------------------------------------------------------


def test_registry_has_the_compat_keys() -> None:
    expected = {
        "name",
        "unit",
        "loops",
        "inner_loops",
        "calibrate_loops",
        "recalibrate_loops",
        "calibrate_warmups",
        "recalibrate_warmups",
        "duration",
        "uptime",
        "load_avg_1min",
        "mem_max_rss",
        "mem_peak_pagefile_usage",
        "command_max_rss",
        "date",
        "boot_time",
        "tags",
    }
    assert expected <= set(METADATA)


@pytest.mark.parametrize("name", sorted(METADATA))
def test_registry_formatters_exist(name: str) -> None:
    assert METADATA[name].formatter in VALUE_FORMATTERS


@pytest.mark.parametrize(
    ("name", "unit"),
    [
        ("loops", "integer"),
        ("inner_loops", "integer"),
        ("calibrate_loops", "integer"),
        ("recalibrate_loops", "integer"),
        ("calibrate_warmups", "integer"),
        ("recalibrate_warmups", "integer"),
        ("duration", "second"),
        ("uptime", "second"),
        ("mem_max_rss", "byte"),
        ("mem_peak_pagefile_usage", "byte"),
        ("command_max_rss", "byte"),
        ("tags", "tag"),  # documented in doc/api.rst
        ("name", None),
        ("unit", None),
        ("load_avg_1min", None),
        ("date", None),
        ("boot_time", None),
    ],
)
def test_registry_units(name: str, unit: str | None) -> None:
    assert METADATA[name].unit == unit


def test_unknown_key_info() -> None:
    info = get_metadata_info("not_a_registered_key")
    assert info.types == (int, float, str)
    assert info.check is None
    assert info.formatter == "generic"


def test_checked_keys() -> None:
    assert set(CHECKED_KEYS) == {
        "aslr",
        "clock",  # perf's: a run without it used the wall clock
        "counter_source",  # perf's: counts of other counters, or counts and times, never mix
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
    }


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1, True), (1.5, True), (-2, True), (True, False), (False, False), ("1", False), (None, False)],
)
def test_is_number(value: object, expected: bool) -> None:
    assert is_number(value) is expected


# --- common metadata and factoring ---------------------------------------------


@pytest.mark.parametrize(
    ("metadatas", "expected"),
    [
        ([], {}),
        ([{"a": 1, "b": "x"}], {"a": 1, "b": "x"}),
        ([{"a": 1, "b": 2}, {"a": 1, "b": 3}], {"a": 1}),
        ([{"a": 1, "b": 2}, {"a": 1}], {"a": 1}),
        ([{"a": 1}, {"a": 1, "b": 2}], {"a": 1}),
        ([{"a": 1}, {}], {}),
        ([{"a": 1, "b": 2}, {"a": 1, "b": 2}, {"a": 2, "b": 2}], {"b": 2}),
        ([{"tags": ["x", "y"]}, {"tags": ["x", "y"]}], {"tags": ["x", "y"]}),
        ([{"tags": ["x", "y"]}, {"tags": ["y", "x"]}], {}),
    ],
)
def test_common_metadata(metadatas: list[dict[str, object]], expected: dict[str, object]) -> None:
    assert common_metadata(metadatas) == expected


def test_common_metadata_keeps_the_first_order_and_copies() -> None:
    first = {"z": 1, "a": 2, "m": 3}
    second = {"m": 3, "a": 2, "z": 1}
    common = common_metadata(iter([first, second]))
    assert list(common) == ["z", "a", "m"]
    assert common is not first
    common["new"] = 1
    assert "new" not in first


def test_common_metadata_does_not_modify_its_inputs() -> None:
    first = {"a": 1, "b": 2}
    second = {"a": 1, "b": 3}
    common_metadata([first, second])
    assert first == {"a": 1, "b": 2}
    assert second == {"a": 1, "b": 3}


@pytest.mark.parametrize(
    ("metadata", "common", "expected"),
    [
        ({"a": 1, "b": 2}, {"a": 1}, {"b": 2}),
        ({"a": 1, "b": 2}, {}, {"a": 1, "b": 2}),
        ({"a": 1}, {"a": 1}, {}),
        # keys are excluded by name: the common value is the one written once
        ({"a": 1, "b": 2}, {"a": 99}, {"b": 2}),
        ({"a": 1}, {"z": 1}, {"a": 1}),
    ],
)
def test_exclude_keys(metadata: dict[str, object], common: dict[str, object], expected: dict[str, object]) -> None:
    result = exclude_keys(metadata, common)
    assert result == expected
    assert result is not metadata


def test_float_subclasses_must_be_finite_too() -> None:
    class Seconds(float):
        pass

    with pytest.raises(ResultError, match=re.escape("metadata 'x': value must be finite, got nan")):
        check_metadata("x", Seconds("nan"))


# --- the counts of --metric instructions -------------------------------------------

COUNT_RUN = {
    "counter_source": "cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 8388608,16,64",
    "hash_seed": 4294967295,
    "instructions": 183002.0,
    "i1_misses": 3.0,
    "d1_misses": 1929.0,
    "ll_misses": 0.0,
    "cycles_estimate": 202322.0,
}


def test_count_keys_are_registered() -> None:
    assert parse_metadata(COUNT_RUN) == COUNT_RUN
    assert COUNT_KEYS == ("instructions", "i1_misses", "d1_misses", "ll_misses", "cycles_estimate")
    assert {METADATA[key].formatter for key in COUNT_KEYS} == {"count"}
    # extracted as a benchmark (convert --extract-metadata), a count is an integer
    assert {METADATA[key].unit for key in COUNT_KEYS} == {"integer"}


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("d1_misses", -1.0, "metadata 'd1_misses': must be >= 0, got -1.0"),
        ("instructions", "many", "metadata 'instructions': expected int or float, got str 'many'"),
        ("hash_seed", 1.5, "metadata 'hash_seed': expected int, got float 1.5"),
        ("hash_seed", -1, "metadata 'hash_seed': must be >= 0, got -1"),
        ("counter_source", 3, "metadata 'counter_source': expected str, got int 3"),
        ("counter_source", " ", "metadata 'counter_source': value is empty"),
    ],
)
def test_count_keys_refuse(name: str, value: object, message: str) -> None:
    with pytest.raises(ResultError, match=re.escape(message)):
        check_metadata(name, value)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("instructions", 53001118.0, "53,001,118"),
        ("d1_misses", 1929.0, "1,929"),
        ("i1_misses", 0.0, "0"),
        ("ll_misses", 2.5, "2.5"),
        ("cycles_estimate", 121976528, "121,976,528"),
        ("hash_seed", 12345, "12345"),
    ],
)
def test_count_keys_format(name: str, value: object, expected: str) -> None:
    from perf.render.metadata import format_metadata

    assert format_metadata(name, value) == expected
