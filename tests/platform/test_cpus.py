"""perf.platform.cpus: kernel CPU lists, grouping of per-CPU facts,
isolated CPUs and the affinity of the process."""

from __future__ import annotations

import os
import re
import types
from pathlib import Path

import pytest

import perf.platform.cpus as cpus_module
from perf.platform.cpus import (
    format_cpu_infos,
    format_cpu_list,
    get_cpu_affinity,
    get_isolated_cpus,
    parse_cpu_list,
)
from perf.platform.sysfs import SysFS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("   ", []),
        ("\n", []),
        ("0", [0]),
        ("5", [5]),
        ("0-3", [0, 1, 2, 3]),
        ("0-3,7", [0, 1, 2, 3, 7]),
        ("0-3,7\n", [0, 1, 2, 3, 7]),
        ("2-2", [2]),
        ("1,3,5-6", [1, 3, 5, 6]),
        ("7,0-1", [0, 1, 7]),  # sorted
        ("3,1,1,2-3", [1, 2, 3]),  # duplicates removed
        (" 0 - 1 , 4 ", [0, 1, 4]),
    ],
)
def test_parse_cpu_list(text: str, expected: list[int]) -> None:
    assert parse_cpu_list(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3-1", "invalid CPU range '3-1'"),
        ("0-3,9-8", "invalid CPU range '9-8'"),
    ],
)
def test_parse_cpu_list_invalid_range(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_cpu_list(text)


@pytest.mark.parametrize("text", ["a", "(null)", "1,,2", "-1", "1-", "0-a", "1.5"])
def test_parse_cpu_list_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        parse_cpu_list(text)


@pytest.mark.parametrize(
    ("cpus", "expected"),
    [
        ([], ""),
        ([0], "0"),
        ([0, 1, 2, 3], "0-3"),
        ([0, 1, 2, 3, 7], "0-3,7"),
        ([0, 2, 4], "0,2,4"),
        ([1, 2, 4, 5, 6, 9], "1-2,4-6,9"),
        ({3, 1, 2}, "1-3"),
        ([5, 5, 4], "4-5"),
        (range(8), "0-7"),
    ],
)
def test_format_cpu_list(cpus: list[int], expected: str) -> None:
    assert format_cpu_list(cpus) == expected


@pytest.mark.parametrize("text", ["0", "0-3", "0-3,7", "1,3,5", "0-1,4-6,9-15", "63"])
def test_cpu_list_round_trip(text: str) -> None:
    assert format_cpu_list(parse_cpu_list(text)) == text


@pytest.mark.parametrize("cpus", [[0], [0, 1, 2], [1, 3, 4, 5, 10], list(range(0, 64, 2))])
def test_cpu_list_round_trip_from_cpus(cpus: list[int]) -> None:
    assert parse_cpu_list(format_cpu_list(cpus)) == cpus


@pytest.mark.parametrize(
    ("infos", "expected"),
    [
        ({}, []),
        ({0: "2100 MHz"}, ["0=2100 MHz"]),
        ({0: "2100 MHz", 1: "2100 MHz"}, ["0-1=2100 MHz"]),
        (
            {3: "2100 MHz", 0: "2100 MHz", 2: "800 MHz", 1: "2100 MHz"},
            ["0-1,3=2100 MHz", "2=800 MHz"],
        ),
        # groups come in the order of their lowest CPU
        ({0: "b", 1: "a", 2: "b"}, ["0,2=b", "1=a"]),
        ({0: "a", 1: "b", 2: "c"}, ["0=a", "1=b", "2=c"]),
    ],
)
def test_format_cpu_infos(infos: dict[int, str], expected: list[str]) -> None:
    assert format_cpu_infos(infos) == expected


# --- isolated CPUs --------------------------------------------------------------


def _sysfs_with_isolated(tmp_path: Path, text: str | None) -> SysFS:
    directory = tmp_path / "sys/devices/system/cpu"
    directory.mkdir(parents=True)
    if text is not None:
        (directory / "isolated").write_text(text)
    return SysFS(tmp_path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2-3,6\n", [2, 3, 6]),
        ("1\n", [1]),
        ("\n", None),  # nothing isolated
        ("", None),
        (None, None),  # old kernel: no file
        ("garbage\n", None),
        ("5-2\n", None),
    ],
)
def test_get_isolated_cpus(tmp_path: Path, text: str | None, expected: list[int] | None) -> None:
    assert get_isolated_cpus(_sysfs_with_isolated(tmp_path, text)) == expected


# --- affinity ----------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="needs os.sched_getaffinity")
def test_get_cpu_affinity_uses_sched_getaffinity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {1, 3})
    assert get_cpu_affinity() == {1, 3}


def test_get_cpu_affinity_falls_back_to_psutil(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)

    class Process:
        def cpu_affinity(self) -> list[int]:
            return [0, 2]

    monkeypatch.setattr(cpus_module, "load_psutil", lambda: types.SimpleNamespace(Process=Process))
    assert get_cpu_affinity() == {0, 2}


def test_get_cpu_affinity_psutil_without_cpu_affinity(monkeypatch: pytest.MonkeyPatch) -> None:
    # macOS: psutil.Process has no cpu_affinity()
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(cpus_module, "load_psutil", lambda: types.SimpleNamespace(Process=object))
    assert get_cpu_affinity() is None


def test_get_cpu_affinity_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(cpus_module, "load_psutil", lambda: None)
    assert get_cpu_affinity() is None
