"""perf.collect.system on a fake /proc: load average, boot time, ASLR."""

from __future__ import annotations

import datetime
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from helpers import make_tree

import perf.collect.system as system_module
from perf.collect.system import collect_system_metadata
from perf.platform.sysfs import SysFS

BTIME = 1700000000
PROC_STAT = f"cpu  1 2 3 4 5 6 7 0 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\nintr 12345\nctxt 6789\nbtime {BTIME}\nprocesses 42\n"

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ASLR metadata is Linux only")


@pytest.fixture(autouse=True)
def no_psutil(monkeypatch: pytest.MonkeyPatch) -> None:
    # never fall back on the real system's boot time
    monkeypatch.setattr(system_module, "load_psutil", lambda: None)


def collect(sysfs: SysFS) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    collect_system_metadata(metadata, sysfs)
    return metadata


def test_fake_proc(tmp_path: Path) -> None:
    sysfs = make_tree(
        tmp_path,
        {
            "proc/loadavg": "0.52 0.58 0.59 2/1234 5678\n",
            "proc/stat": PROC_STAT,
            "proc/sys/kernel/randomize_va_space": "2\n",
        },
    )
    metadata = collect(sysfs)
    assert metadata["load_avg_1min"] == 0.52
    assert metadata["runnable_threads"] == 2
    assert metadata["boot_time"] == datetime.datetime.fromtimestamp(BTIME).isoformat(" ")
    assert isinstance(metadata["uptime"], float)
    assert metadata["uptime"] > 0
    assert isinstance(metadata["platform"], str)
    assert metadata["platform"]
    assert isinstance(metadata["hostname"], str)
    if sys.platform.startswith("linux"):
        assert metadata["aslr"] == "Full randomization"


@linux_only
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0\n", "No randomization"),
        ("1\n", "Conservative randomization"),
        ("2\n", "Full randomization"),
        ("2", "Full randomization"),
        (" 1 \n", "Conservative randomization"),
    ],
)
def test_aslr(tmp_path: Path, text: str, expected: str) -> None:
    sysfs = make_tree(tmp_path, {"proc/sys/kernel/randomize_va_space": text})
    assert collect(sysfs)["aslr"] == expected


@linux_only
@pytest.mark.parametrize("text", ["3\n", "\n", "full\n", None])
def test_aslr_unknown(tmp_path: Path, text: str | None) -> None:
    files = {} if text is None else {"proc/sys/kernel/randomize_va_space": text}
    assert "aslr" not in collect(make_tree(tmp_path, files))


@pytest.mark.parametrize(
    ("text", "load", "threads"),
    [
        ("0.52 0.58 0.59 2/1234 5678\n", 0.52, 2),
        ("3.00 2.00 1.00 17/900 1\n", 3.0, 17),
        ("0.00 0.00 0.00\n", 0.0, None),  # no thread counts
        ("1.25 1.00 0.75 x/900 1\n", 1.25, None),
    ],
)
def test_loadavg(tmp_path: Path, text: str, load: float, threads: int | None) -> None:
    metadata = collect(make_tree(tmp_path, {"proc/loadavg": text}))
    assert metadata["load_avg_1min"] == load
    assert metadata.get("runnable_threads") == threads


def test_loadavg_falls_back_on_getloadavg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 1.0, 0.5), raising=False)
    metadata = collect(SysFS(tmp_path))
    assert metadata["load_avg_1min"] == 1.5
    assert "runnable_threads" not in metadata


@pytest.mark.parametrize("text", [None, "\n", "garbage\n"])
def test_no_load_average(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str | None) -> None:
    monkeypatch.delattr(os, "getloadavg", raising=False)
    files = {} if text is None else {"proc/loadavg": text}
    metadata = collect(make_tree(tmp_path, files))
    assert "load_avg_1min" not in metadata
    assert "runnable_threads" not in metadata


def test_getloadavg_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail() -> tuple[float, float, float]:
        raise OSError("unavailable")

    monkeypatch.setattr(os, "getloadavg", fail, raising=False)
    assert "load_avg_1min" not in collect(SysFS(tmp_path))


@pytest.mark.parametrize("stat", [None, "cpu 1 2 3\n", "btime abc\n"])
def test_no_boot_time(tmp_path: Path, stat: str | None) -> None:
    files = {} if stat is None else {"proc/stat": stat}
    metadata = collect(make_tree(tmp_path, files))
    assert "boot_time" not in metadata
    assert "uptime" not in metadata


def test_boot_time_from_psutil(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(system_module, "load_psutil", lambda: types.SimpleNamespace(boot_time=lambda: float(BTIME)))
    metadata = collect(SysFS(tmp_path))
    assert metadata["boot_time"] == datetime.datetime.fromtimestamp(BTIME).isoformat(" ")


def test_boot_time_psutil_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail() -> float:
        raise RuntimeError("no boot time")

    monkeypatch.setattr(system_module, "load_psutil", lambda: types.SimpleNamespace(boot_time=fail))
    assert "boot_time" not in collect(SysFS(tmp_path))


def test_uptime_is_never_negative(tmp_path: Path) -> None:
    # a boot time in the future (clock changed): uptime is clamped to 0
    future = int(datetime.datetime(2999, 1, 1).timestamp())
    metadata = collect(make_tree(tmp_path, {"proc/stat": f"btime {future}\n"}))
    assert metadata["uptime"] == 0.0


def test_collected_values_are_valid_metadata(tmp_path: Path) -> None:
    from perf.model.metadata import parse_metadata

    sysfs = make_tree(
        tmp_path,
        {"proc/loadavg": "0.52 0.58 0.59 2/1234 5678\n", "proc/stat": PROC_STAT},
    )
    metadata = collect(sysfs)
    assert parse_metadata(metadata) == metadata
