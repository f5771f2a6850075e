"""perf.platform.sysfs.SysFS against a fake tree in tmp_path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perf.platform.sysfs import DEFAULT, SysFS


@pytest.fixture
def sysfs(tmp_path: Path) -> SysFS:
    files = {
        "proc/loadavg": "0.52 0.58 0.59 2/1234 5678\n",
        "proc/cpuinfo": "processor\t: 0\nmodel name\t: Fake CPU\n\nprocessor\t: 1\n",
        "sys/devices/system/cpu/isolated": "\n",
        "sys/devices/system/cpu/online": "0-3",  # no end of line
        "sys/class/hwmon/hwmon1/name": "coretemp\n",
        "sys/class/hwmon/hwmon0/name": "acpitz\n",
        "dev/binary": b"caf\xe9\n".decode("latin-1"),
    }
    for path, text in files.items():
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("latin-1") if path == "dev/binary" else text.encode())
    return SysFS(tmp_path)


def test_root_and_path(tmp_path: Path) -> None:
    sysfs = SysFS(tmp_path)
    assert sysfs.root == str(tmp_path)
    assert sysfs.path("/proc/stat") == os.path.join(str(tmp_path), "proc", "stat")
    assert sysfs.path("proc/stat") == sysfs.path("/proc/stat")
    assert repr(sysfs) == f"SysFS({str(tmp_path)!r})"


def test_default_is_the_real_root() -> None:
    assert DEFAULT.root == "/"
    assert DEFAULT.path("/proc/stat") == "/proc/stat"
    assert SysFS().root == "/"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/proc/loadavg", "0.52 0.58 0.59 2/1234 5678"),
        ("/sys/devices/system/cpu/online", "0-3"),
        ("/sys/devices/system/cpu/isolated", ""),
        ("/proc/cpuinfo", "processor\t: 0"),
        ("/dev/binary", "caf\ufffd"),  # undecodable bytes are replaced
        ("/proc/missing", None),
        ("/missing/dir/file", None),
        ("/sys/class/hwmon", None),  # a directory
    ],
)
def test_read_first_line(sysfs: SysFS, path: str, expected: str | None) -> None:
    assert sysfs.read_first_line(path) == expected


def test_read_text(sysfs: SysFS) -> None:
    assert sysfs.read_text("/proc/cpuinfo") == "processor\t: 0\nmodel name\t: Fake CPU\n\nprocessor\t: 1\n"
    assert sysfs.read_text("/sys/devices/system/cpu/online") == "0-3"
    assert sysfs.read_text("/proc/missing") is None


def test_read_lines(sysfs: SysFS) -> None:
    assert list(sysfs.read_lines("/proc/cpuinfo")) == ["processor\t: 0", "model name\t: Fake CPU", "", "processor\t: 1"]
    assert list(sysfs.read_lines("/sys/devices/system/cpu/isolated")) == [""]
    assert list(sysfs.read_lines("/proc/missing")) == []


def test_list_dir(sysfs: SysFS) -> None:
    assert sysfs.list_dir("/sys/class/hwmon") == ["hwmon0", "hwmon1"]
    assert sysfs.list_dir("/sys/class/missing") == []
    assert sysfs.list_dir("/proc/loadavg") == []  # a file


def test_exists(sysfs: SysFS) -> None:
    assert sysfs.exists("/proc/loadavg")
    assert sysfs.exists("/sys/class/hwmon")
    assert not sysfs.exists("/proc/missing")


def test_write_text(sysfs: SysFS, tmp_path: Path) -> None:
    sysfs.write_text("/sys/devices/system/cpu/online", "0-1\n")
    assert (tmp_path / "sys/devices/system/cpu/online").read_text() == "0-1\n"
    assert sysfs.read_first_line("/sys/devices/system/cpu/online") == "0-1"
    # a new file in an existing directory
    sysfs.write_text("/proc/new", "value")
    assert sysfs.read_text("/proc/new") == "value"


def test_write_text_errors_are_raised(sysfs: SysFS) -> None:
    with pytest.raises(OSError):
        sysfs.write_text("/missing/dir/file", "1")
    with pytest.raises(OSError):
        sysfs.write_text("/sys/class/hwmon", "1")  # a directory
