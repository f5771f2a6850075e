"""perf.render.metadata: metadata values displayed with the formatter the
registry names for their key."""

from __future__ import annotations

from typing import Any

import pytest

import perf
from perf.render.metadata import format_metadata, format_metadata_lines


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("loops", 2**15, "2^15"),
        ("loops", 8, "8"),
        ("inner_loops", 10**6, "10^6"),
        ("calibrate_loops", 2**20, "2^20"),
        ("calibrate_warmups", 0, "0"),
        ("duration", 62.5, "1 min 2.5 sec"),
        ("duration", 0.0225, "22.5 ms"),
        ("duration", 0, "0 sec"),
        ("uptime", 3723, "1 hour 2 min 3.0 sec"),
        ("mem_max_rss", 20 * 1024 * 1024, "20.0 MiB"),
        ("mem_max_rss", 12.3 * 1024, "12.3 KiB"),
        ("command_max_rss", 1, "1 byte"),
        ("mem_peak_pagefile_usage", 4096, "4096 bytes"),
        ("load_avg_1min", 0.5, "0.50"),
        ("load_avg_1min", 2, "2.00"),
        # as pyperf shows them (tests/data/suite_tags.json.metadata.txt)
        ("tags", ["builtins", "sorting"], "['builtins', 'sorting']"),
        ("tags", [], "[]"),
        ("unit", "byte", "byte"),
        ("name", "bench", "bench"),
        ("date", "2024-01-02 03:04:05", "2024-01-02 03:04:05"),
        ("clock", "cpu", "cpu (CPU time of the worker thread)"),
        ("clock", "wall", "wall (elapsed time)"),
        # unknown keys: str() of the value
        ("custom", 42, "42"),
        ("custom", 1.5, "1.5"),
        ("custom", 100000, "100000"),
        ("custom", "some text", "some text"),
    ],
)
def test_format_metadata(name: str, value: Any, expected: str) -> None:
    assert format_metadata(name, value) == expected


def test_format_metadata_is_exported() -> None:
    assert perf.format_metadata is format_metadata
    assert perf.format_metadata("loops", 2**15) == "2^15"


def test_format_metadata_lines_are_sorted() -> None:
    lines = format_metadata_lines({"loops": 2**15, "duration": 1.5, "custom": "x", "tags": ["a"]})
    assert lines == [
        "- custom: x",
        "- duration: 1.5 sec",
        "- loops: 2^15",
        "- tags: ['a']",
    ]


def test_format_metadata_lines_empty() -> None:
    assert format_metadata_lines({}) == []
