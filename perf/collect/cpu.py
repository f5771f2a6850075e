"""Facts about the CPUs: model, count, affinity, frequency, configuration,
temperature.

Must not: write to the system.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from perf.platform.cpus import (
    format_cpu_infos,
    format_cpu_list,
    get_cpu_affinity,
    get_isolated_cpus,
    get_logical_cpu_count,
    parse_cpu_list,
)
from perf.platform.sysfs import SysFS

_CPU_DIR = "/sys/devices/system/cpu"


def cpuinfo_fields(sysfs: SysFS, keys: tuple[str, ...]) -> dict[str, str]:
    """The first non-empty value of each of *keys* (``model name``,
    ``vendor_id``, ``machine``...) in /proc/cpuinfo; a key it lacks is left out."""
    fields: dict[str, str] = {}
    for key, _, value in (line.partition(":") for line in sysfs.read_lines("/proc/cpuinfo")):
        if key.strip() in keys and value.strip():
            fields.setdefault(key.strip(), value.strip())
    return fields


def _collect_model(metadata: dict[str, Any], sysfs: SysFS) -> None:
    fields = cpuinfo_fields(sysfs, ("model name", "machine"))
    for key, name in (("model name", "cpu_model_name"), ("machine", "cpu_machine")):
        if key in fields:
            metadata[name] = fields[key]
            return


def _mhz(text: str) -> str | None:
    try:
        return f"{round(float(text))} MHz"
    except ValueError:
        return None


def cpu_frequencies(cpus: Iterable[int], sysfs: SysFS) -> dict[int, str]:
    """Current frequency per CPU from /proc/cpuinfo (Intel and Power8)."""
    wanted = set(cpus)
    frequencies: dict[int, str] = {}
    cpu: int | None = None
    for line in sysfs.read_lines("/proc/cpuinfo"):
        match = re.match(r"^processor\s*:?\s*([0-9]+)", line)
        if match:
            cpu = int(match.group(1))
            cpu = cpu if cpu in wanted else None
        elif cpu is not None and line.startswith("cpu MHz"):
            frequency = _mhz(line.split(":", 1)[-1].strip())
            if frequency:
                frequencies[cpu] = frequency
        elif cpu is not None and line.startswith("clock") and line.endswith("MHz"):
            frequency = _mhz(line[:-3].split(":", 1)[-1].strip())
            if frequency:
                frequencies[cpu] = frequency
    return frequencies


def _cpu_config(cpu: int, sysfs: SysFS) -> list[str]:
    config = []
    driver = sysfs.read_first_line(f"{_CPU_DIR}/cpu{cpu}/cpufreq/scaling_driver")
    if driver:
        config.append(f"driver:{driver}")
    if driver == "intel_pstate":
        no_turbo = sysfs.read_first_line(f"{_CPU_DIR}/intel_pstate/no_turbo")
        if no_turbo in ("0", "1"):
            config.append("intel_pstate:no turbo" if no_turbo == "1" else "intel_pstate:turbo")
    governor = sysfs.read_first_line(f"{_CPU_DIR}/cpu{cpu}/cpufreq/scaling_governor")
    if governor:
        config.append(f"governor:{governor}")
    return config


def cpu_config(cpus: Iterable[int], sysfs: SysFS) -> list[str]:
    """Per-CPU driver, turbo, governor, nohz_full and isolation, grouped."""
    try:
        nohz_full = set(parse_cpu_list(sysfs.read_first_line(f"{_CPU_DIR}/nohz_full") or ""))
    except ValueError:
        nohz_full = set()
    isolated = set(get_isolated_cpus(sysfs) or ())
    configs = {}
    for cpu in cpus:
        config = _cpu_config(cpu, sysfs)
        config += ["nohz_full"] if cpu in nohz_full else []
        config += ["isolated"] if cpu in isolated else []
        if config:
            configs[cpu] = ", ".join(config)
    result = format_cpu_infos(configs)
    idle = sysfs.read_first_line(f"{_CPU_DIR}/cpuidle/current_driver")
    if idle:
        result.append(f"idle:{idle}")
    return result


def cpu_temperatures(sysfs: SysFS) -> list[str]:
    """``coretemp`` sensor readings: ``'coretemp:Core 0=45 C'``."""
    readings = []
    for hwmon in sysfs.list_dir("/sys/class/hwmon"):
        base = f"/sys/class/hwmon/{hwmon}"
        name = sysfs.read_first_line(f"{base}/name") or ""
        if not name.startswith("coretemp"):
            continue
        index = 1
        while True:
            label = sysfs.read_first_line(f"{base}/temp{index}_label")
            value = sysfs.read_first_line(f"{base}/temp{index}_input")
            if label is None or value is None:
                break
            try:
                readings.append(f"{name}:{label}={float(value) / 1000:.0f} C")
            except ValueError:
                break
            index += 1
    return readings


def collect_cpu_metadata(metadata: dict[str, Any], sysfs: SysFS) -> None:
    _collect_model(metadata, sysfs)
    count = get_logical_cpu_count()
    if count:
        metadata["cpu_count"] = count
    affinity = get_cpu_affinity()
    if affinity and count and affinity != set(range(count)):
        metadata["cpu_affinity"] = format_cpu_list(affinity)
    cpus = sorted(affinity) if affinity else list(range(count or 0))
    frequencies = cpu_frequencies(cpus, sysfs)
    if frequencies:
        metadata["cpu_freq"] = "; ".join(format_cpu_infos(frequencies))
    config = cpu_config(cpus, sysfs)
    if config:
        metadata["cpu_config"] = "; ".join(config)
    temperatures = cpu_temperatures(sysfs)
    if temperatures:
        metadata["cpu_temp"] = ", ".join(temperatures)
