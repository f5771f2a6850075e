"""perf.collect.cpu on fake /proc/cpuinfo and /sys trees: an Intel laptop
with intel_pstate, a VM without cpufreq, a POWER8 box, an IBM Z."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import make_tree

import perf.collect.cpu as cpu_module
from perf.collect.cpu import collect_cpu_metadata, cpu_config, cpu_frequencies, cpu_temperatures
from perf.platform.sysfs import SysFS

CPU = "sys/devices/system/cpu"


def intel_cpuinfo(mhz: list[str]) -> str:
    blocks = []
    for cpu, frequency in enumerate(mhz):
        blocks.append(
            f"processor\t: {cpu}\n"
            "vendor_id\t: GenuineIntel\n"
            "cpu family\t: 6\n"
            "model name\t: Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz\n"
            f"cpu MHz\t\t: {frequency}\n"
            "cache size\t: 8192 KB\n"
        )
    return "\n".join(blocks) + "\n"


def intel_laptop(root: Path, no_turbo: str = "1", **extra: str) -> SysFS:
    files = {
        "proc/cpuinfo": intel_cpuinfo(["2100.000", "2100.312", "800.016", "3400.700"]),
        f"{CPU}/intel_pstate/no_turbo": f"{no_turbo}\n",
        f"{CPU}/nohz_full": "(null)\n",
        f"{CPU}/isolated": "\n",
        f"{CPU}/cpuidle/current_driver": "intel_idle\n",
    }
    for cpu in range(4):
        files[f"{CPU}/cpu{cpu}/cpufreq/scaling_driver"] = "intel_pstate\n"
        files[f"{CPU}/cpu{cpu}/cpufreq/scaling_governor"] = "powersave\n"
    files.update(extra)
    return make_tree(root, files)


VM_CPUINFO = (
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "model name\t: Intel Xeon Processor (Skylake, IBRS)\n"
    "cpu MHz\t\t: 2294.608\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: GenuineIntel\n"
    "model name\t: Intel Xeon Processor (Skylake, IBRS)\n"
    "cpu MHz\t\t: 2294.608\n"
)


def virtual_machine(root: Path) -> SysFS:
    # no cpufreq, no intel_pstate, no cpuidle, no hwmon
    return make_tree(root, {"proc/cpuinfo": VM_CPUINFO, f"{CPU}/online": "0-1\n", f"{CPU}/cpu0/online": "1\n"})


# --- frequencies ----------------------------------------------------------------


def test_frequencies_intel(tmp_path: Path) -> None:
    sysfs = intel_laptop(tmp_path)
    assert cpu_frequencies(range(4), sysfs) == {0: "2100 MHz", 1: "2100 MHz", 2: "800 MHz", 3: "3401 MHz"}


def test_frequencies_of_some_cpus(tmp_path: Path) -> None:
    sysfs = intel_laptop(tmp_path)
    assert cpu_frequencies([1, 3], sysfs) == {1: "2100 MHz", 3: "3401 MHz"}
    assert cpu_frequencies([], sysfs) == {}
    assert cpu_frequencies([9], sysfs) == {}


def test_frequencies_power8(tmp_path: Path) -> None:
    cpuinfo = (
        "processor\t: 0\ncpu\t\t: POWER8E (raw), altivec supported\nclock\t\t: 3425.000000MHz\nrevision\t: 2.1\n\n"
        "processor\t: 8\ncpu\t\t: POWER8E (raw), altivec supported\nclock\t\t: 2061.000000MHz\nrevision\t: 2.1\n"
    )
    sysfs = make_tree(tmp_path, {"proc/cpuinfo": cpuinfo})
    assert cpu_frequencies([0, 8], sysfs) == {0: "3425 MHz", 8: "2061 MHz"}


def test_frequencies_unreadable(tmp_path: Path) -> None:
    assert cpu_frequencies([0], SysFS(tmp_path)) == {}
    sysfs = make_tree(tmp_path, {"proc/cpuinfo": "processor\t: 0\ncpu MHz\t\t: unknown\n"})
    assert cpu_frequencies([0], sysfs) == {}


# --- configuration ------------------------------------------------------------------


@pytest.mark.parametrize(("no_turbo", "turbo"), [("1", "intel_pstate:no turbo"), ("0", "intel_pstate:turbo")])
def test_config_intel_pstate(tmp_path: Path, no_turbo: str, turbo: str) -> None:
    sysfs = intel_laptop(tmp_path, no_turbo=no_turbo)
    assert cpu_config(range(4), sysfs) == [
        f"0-3=driver:intel_pstate, {turbo}, governor:powersave",
        "idle:intel_idle",
    ]


def test_config_intel_pstate_unreadable_turbo(tmp_path: Path) -> None:
    sysfs = intel_laptop(tmp_path, no_turbo="?")
    assert cpu_config([0], sysfs) == ["0=driver:intel_pstate, governor:powersave", "idle:intel_idle"]


def test_config_isolated_nohz_full_and_governors(tmp_path: Path) -> None:
    sysfs = intel_laptop(
        tmp_path,
        no_turbo="0",
        **{
            f"{CPU}/isolated": "2-3\n",
            f"{CPU}/nohz_full": "2-3\n",
            f"{CPU}/cpu2/cpufreq/scaling_governor": "performance\n",
            f"{CPU}/cpu3/cpufreq/scaling_governor": "performance\n",
        },
    )
    assert cpu_config(range(4), sysfs) == [
        "0-1=driver:intel_pstate, intel_pstate:turbo, governor:powersave",
        "2-3=driver:intel_pstate, intel_pstate:turbo, governor:performance, nohz_full, isolated",
        "idle:intel_idle",
    ]


def test_config_of_some_cpus(tmp_path: Path) -> None:
    sysfs = intel_laptop(tmp_path, **{f"{CPU}/isolated": "3\n"})
    assert cpu_config([3], sysfs) == [
        "3=driver:intel_pstate, intel_pstate:no turbo, governor:powersave, isolated",
        "idle:intel_idle",
    ]


def test_config_acpi_cpufreq(tmp_path: Path) -> None:
    files = {
        f"{CPU}/cpu0/cpufreq/scaling_driver": "acpi-cpufreq\n",
        f"{CPU}/cpu0/cpufreq/scaling_governor": "ondemand\n",
        # ignored: the driver is not intel_pstate
        f"{CPU}/intel_pstate/no_turbo": "1\n",
    }
    assert cpu_config([0], make_tree(tmp_path, files)) == ["0=driver:acpi-cpufreq, governor:ondemand"]


def test_config_virtual_machine(tmp_path: Path) -> None:
    assert cpu_config(range(2), virtual_machine(tmp_path)) == []


def test_config_nothing_readable(tmp_path: Path) -> None:
    assert cpu_config(range(2), SysFS(tmp_path)) == []


# --- temperatures -------------------------------------------------------------------


def test_temperatures(tmp_path: Path) -> None:
    files = {
        "sys/class/hwmon/hwmon0/name": "acpitz\n",
        "sys/class/hwmon/hwmon0/temp1_label": "ignored\n",
        "sys/class/hwmon/hwmon0/temp1_input": "30000\n",
        "sys/class/hwmon/hwmon1/name": "coretemp\n",
        "sys/class/hwmon/hwmon1/temp1_label": "Package id 0\n",
        "sys/class/hwmon/hwmon1/temp1_input": "45000\n",
        "sys/class/hwmon/hwmon1/temp2_label": "Core 0\n",
        "sys/class/hwmon/hwmon1/temp2_input": "43600\n",
        # no label for temp3: the list stops there
        "sys/class/hwmon/hwmon1/temp3_input": "50000\n",
    }
    assert cpu_temperatures(make_tree(tmp_path, files)) == [
        "coretemp:Package id 0=45 C",
        "coretemp:Core 0=44 C",
    ]


def test_temperatures_invalid_reading(tmp_path: Path) -> None:
    files = {
        "sys/class/hwmon/hwmon0/name": "coretemp\n",
        "sys/class/hwmon/hwmon0/temp1_label": "Core 0\n",
        "sys/class/hwmon/hwmon0/temp1_input": "n/a\n",
    }
    assert cpu_temperatures(make_tree(tmp_path, files)) == []


def test_temperatures_without_hwmon(tmp_path: Path) -> None:
    assert cpu_temperatures(virtual_machine(tmp_path)) == []


# --- collect_cpu_metadata -------------------------------------------------------------


@pytest.fixture
def four_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_module, "get_logical_cpu_count", lambda: 4)
    monkeypatch.setattr(cpu_module, "get_cpu_affinity", lambda: {0, 1, 2, 3})


@pytest.mark.usefixtures("four_cpus")
def test_collect_intel_laptop(tmp_path: Path) -> None:
    files = {
        "sys/class/hwmon/hwmon0/name": "coretemp\n",
        "sys/class/hwmon/hwmon0/temp1_label": "Core 0\n",
        "sys/class/hwmon/hwmon0/temp1_input": "51000\n",
        "sys/class/hwmon/hwmon0/temp2_label": "Core 1\n",
        "sys/class/hwmon/hwmon0/temp2_input": "49000\n",
    }
    sysfs = intel_laptop(tmp_path, **files)
    metadata: dict[str, Any] = {}
    collect_cpu_metadata(metadata, sysfs)
    assert metadata == {
        "cpu_model_name": "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz",
        "cpu_count": 4,
        "cpu_freq": "0-1=2100 MHz; 2=800 MHz; 3=3401 MHz",
        "cpu_config": "0-3=driver:intel_pstate, intel_pstate:no turbo, governor:powersave; idle:intel_idle",
        "cpu_temp": "coretemp:Core 0=51 C, coretemp:Core 1=49 C",
    }


def test_collect_virtual_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_module, "get_logical_cpu_count", lambda: 2)
    monkeypatch.setattr(cpu_module, "get_cpu_affinity", lambda: {0, 1})
    metadata: dict[str, Any] = {}
    collect_cpu_metadata(metadata, virtual_machine(tmp_path))
    assert metadata == {
        "cpu_model_name": "Intel Xeon Processor (Skylake, IBRS)",
        "cpu_count": 2,
        "cpu_freq": "0-1=2295 MHz",
    }


def test_collect_with_restricted_affinity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_module, "get_logical_cpu_count", lambda: 4)
    monkeypatch.setattr(cpu_module, "get_cpu_affinity", lambda: {2, 3})
    metadata: dict[str, Any] = {}
    collect_cpu_metadata(metadata, intel_laptop(tmp_path))
    assert metadata["cpu_count"] == 4
    assert metadata["cpu_affinity"] == "2-3"
    # only the CPUs the benchmark may run on
    assert metadata["cpu_freq"] == "2=800 MHz; 3=3401 MHz"
    assert (
        metadata["cpu_config"] == "2-3=driver:intel_pstate, intel_pstate:no turbo, governor:powersave; idle:intel_idle"
    )


def test_collect_without_affinity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_module, "get_logical_cpu_count", lambda: 2)
    monkeypatch.setattr(cpu_module, "get_cpu_affinity", lambda: None)
    metadata: dict[str, Any] = {}
    collect_cpu_metadata(metadata, virtual_machine(tmp_path))
    assert "cpu_affinity" not in metadata
    assert metadata["cpu_freq"] == "0-1=2295 MHz"


def test_collect_ibm_z(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_module, "get_logical_cpu_count", lambda: 2)
    monkeypatch.setattr(cpu_module, "get_cpu_affinity", lambda: {0, 1})
    cpuinfo = (
        "vendor_id       : IBM/S390\n"
        "# processors    : 2\n"
        "bogomips per cpu: 3033.00\n"
        "machine         : 2964\n"
        "processor 0: version = FF,  identification = 0B1E88,  machine = 2964\n"
    )
    metadata: dict[str, Any] = {}
    collect_cpu_metadata(metadata, make_tree(tmp_path, {"proc/cpuinfo": cpuinfo}))
    assert metadata["cpu_machine"] == "2964"
    assert "cpu_model_name" not in metadata


@pytest.mark.usefixtures("four_cpus")
def test_collect_nothing_readable(tmp_path: Path) -> None:
    metadata: dict[str, Any] = {}
    collect_cpu_metadata(metadata, SysFS(tmp_path))
    assert metadata == {"cpu_count": 4}
