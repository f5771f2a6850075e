"""CPU lists ("0-3,7"), isolated CPUs and the CPU affinity of a process.

Must not: know about benchmarks.
"""

from __future__ import annotations

import os
from typing import Iterable

from perf.platform.optional import load_psutil
from perf.platform.sysfs import DEFAULT, SysFS


def parse_cpu_list(text: str) -> list[int]:
    """Parse a kernel CPU list such as ``"0-3,7"`` (``""`` is empty).

    Raises ValueError on malformed input.
    """
    cpus: list[int] = []
    text = text.strip()
    if not text:
        return cpus
    for part in (item.strip() for item in text.split(",")):
        if "-" in part:
            first_text, last_text = part.split("-", 1)
            first, last = int(first_text), int(last_text)
            if first > last or first < 0:
                raise ValueError(f"invalid CPU range {part!r}")
            cpus.extend(range(first, last + 1))
        else:
            cpu = int(part)
            if cpu < 0:
                raise ValueError(f"invalid CPU number {part!r}")
            cpus.append(cpu)
    return sorted(set(cpus))


def format_cpu_list(cpus: Iterable[int]) -> str:
    """Format CPUs as a compact list: ``[0, 1, 2, 3, 7]`` -> ``"0-3,7"``."""
    ordered = sorted(set(cpus))
    parts: list[str] = []
    index = 0
    while index < len(ordered):
        first = last = ordered[index]
        while index + 1 < len(ordered) and ordered[index + 1] == last + 1:
            index += 1
            last = ordered[index]
        parts.append(str(first) if first == last else f"{first}-{last}")
        index += 1
    return ",".join(parts)


def format_cpu_infos(infos: dict[int, str]) -> list[str]:
    """Group CPUs with the same description: ``["0-1=2.8 GHz", "2=1 GHz"]``."""
    groups: dict[str, list[int]] = {}
    for cpu, info in sorted(infos.items()):
        groups.setdefault(info, []).append(cpu)
    return [f"{format_cpu_list(cpus)}={info}" for info, cpus in groups.items()]


def get_isolated_cpus(sysfs: SysFS = DEFAULT) -> list[int] | None:
    """CPUs isolated by ``isolcpus=`` (None when none or unknown)."""
    line = sysfs.read_first_line("/sys/devices/system/cpu/isolated")
    if not line:
        return None
    try:
        return parse_cpu_list(line) or None
    except ValueError:
        return None


def get_logical_cpu_count() -> int | None:
    return os.cpu_count()


def get_cpu_affinity() -> set[int] | None:
    """CPUs this process may run on, when the platform can tell."""
    if hasattr(os, "sched_getaffinity"):
        return set(os.sched_getaffinity(0))
    psutil = load_psutil()
    if psutil is None:
        return None
    process = psutil.Process()
    if hasattr(process, "cpu_affinity"):
        return set(process.cpu_affinity())
    return None


def set_cpu_affinity(cpus: Iterable[int]) -> bool:
    """Pin this process to *cpus*; False when the platform cannot."""
    cpus = set(cpus)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cpus)
        return True
    psutil = load_psutil()
    if psutil is None:
        return False
    process = psutil.Process()
    if not hasattr(process, "cpu_affinity"):
        return False
    process.cpu_affinity(sorted(cpus))
    return True


def parse_cpu_mask(text: str) -> list[int]:
    """Parse a kernel hexadecimal CPU mask such as ``"f"`` or
    ``"00000000,0000000f"`` (32-bit groups): ``[0, 1, 2, 3]``.

    Raises ValueError on malformed input.
    """
    groups = text.strip().split(",")
    if any(not group or not all(char in "0123456789abcdefABCDEF" for char in group) for group in groups):
        raise ValueError(f"invalid CPU mask {text!r}")
    value = int("".join(groups), 16)
    return [cpu for cpu in range(value.bit_length()) if value >> cpu & 1]


def format_cpu_mask(cpus: Iterable[int], like: str = "") -> str:
    """Format CPUs as a hexadecimal mask in the style of *like* (a mask
    read from the kernel): 32-bit groups of 8 digits joined by commas when
    *like* has commas, else one number padded with zeros to its width."""
    value = 0
    for cpu in cpus:
        value |= 1 << cpu
    like = like.strip()
    if "," in like:
        count = max(like.count(",") + 1, (value.bit_length() + 31) // 32)
        return ",".join(f"{value >> (32 * index) & 0xFFFFFFFF:08x}" for index in reversed(range(count)))
    return f"{value:0{len(like) or 1}x}"
