"""perf.collect.collect_metadata: the whole set of keys, on a fake tree
and once on the real system."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import make_tree

import perf
import perf.collect.cpu as cpu_module
import perf.collect.system as system_module
from perf.collect import collect_metadata
from perf.model.metadata import parse_metadata
from perf.platform.sysfs import SysFS


@pytest.fixture
def fake_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SysFS:
    monkeypatch.setattr(cpu_module, "get_logical_cpu_count", lambda: 2)
    monkeypatch.setattr(cpu_module, "get_cpu_affinity", lambda: {0, 1})
    monkeypatch.setattr(system_module, "load_psutil", lambda: None)
    return make_tree(
        tmp_path,
        {
            "proc/cpuinfo": "processor\t: 0\nmodel name\t: Fake CPU\ncpu MHz\t\t: 1000.0\n"
            "processor\t: 1\nmodel name\t: Fake CPU\ncpu MHz\t\t: 1000.0\n",
            "proc/loadavg": "0.25 0.20 0.10 1/100 42\n",
            "proc/stat": "btime 1700000000\n",
            "proc/sys/kernel/randomize_va_space": "0\n",
            "sys/devices/system/cpu/cpu0/cpufreq/scaling_driver": "acpi-cpufreq\n",
            "sys/devices/system/cpu/cpu1/cpufreq/scaling_driver": "acpi-cpufreq\n",
        },
    )


def test_fake_host(fake_host: SysFS) -> None:
    metadata = collect_metadata(sysfs=fake_host)
    assert metadata["perf_version"] == perf.__version__
    assert metadata["cpu_model_name"] == "Fake CPU"
    assert metadata["cpu_count"] == 2
    assert metadata["cpu_freq"] == "0-1=1000 MHz"
    assert metadata["cpu_config"] == "0-1=driver:acpi-cpufreq"
    assert metadata["load_avg_1min"] == 0.25
    assert metadata["runnable_threads"] == 1
    assert "boot_time" in metadata
    if sys.platform.startswith("linux"):
        assert metadata["aslr"] == "No randomization"
    for key in ("date", "platform", "hostname", "python_implementation", "python_version", "timer"):
        assert key in metadata
    assert parse_metadata(metadata) == metadata


def test_without_process_metadata(fake_host: SysFS) -> None:
    metadata = collect_metadata(process=False, sysfs=fake_host)
    assert "cpu_model_name" in metadata
    assert "date" in metadata
    for key in ("python_implementation", "python_version", "python_executable", "mem_max_rss"):
        assert key not in metadata


def test_date_is_a_valid_date(fake_host: SysFS) -> None:
    metadata = collect_metadata(process=False, sysfs=fake_host)
    assert parse_metadata({"date": metadata["date"]}) == {"date": metadata["date"]}


def test_real_system() -> None:
    metadata: Any = collect_metadata()
    assert isinstance(metadata, dict)
    assert metadata["perf_version"] == perf.__version__
    assert "date" in metadata
    assert "python_implementation" in metadata
