"""Facts about the host: platform, hostname, boot time, load, ASLR.

Must not: write to the system.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sys
import time
from typing import Any

from perf.platform.optional import load_psutil
from perf.platform.sysfs import SysFS

#: /proc/sys/kernel/randomize_va_space -> metadata text
ASLR_MODES = {"0": "No randomization", "1": "Conservative randomization", "2": "Full randomization"}


def _boot_time(sysfs: SysFS) -> float | None:
    for line in sysfs.read_lines("/proc/stat"):
        if line.startswith("btime "):
            try:
                return int(line[6:])
            except ValueError:
                return None
    psutil = load_psutil()
    if psutil is not None:
        try:
            return float(psutil.boot_time())
        except Exception:
            return None
    return None


def _collect_load(metadata: dict[str, Any], sysfs: SysFS) -> None:
    fields = (sysfs.read_first_line("/proc/loadavg") or "").split()
    try:
        metadata["load_avg_1min"] = float(fields[0])
        if len(fields) >= 4 and "/" in fields[3]:
            metadata["runnable_threads"] = int(fields[3].split("/", 1)[0])
    except (IndexError, ValueError):
        pass
    if "load_avg_1min" not in metadata and hasattr(os, "getloadavg"):
        with contextlib.suppress(OSError):
            metadata["load_avg_1min"] = os.getloadavg()[0]


def _hostname() -> str:
    """The host name (os.uname() spares importing socket in every worker)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()


def collect_system_metadata(metadata: dict[str, Any], sysfs: SysFS) -> None:
    import platform

    metadata["platform"] = platform.platform(aliased=True, terse=False)
    if sys.platform.startswith("linux"):
        aslr = ASLR_MODES.get((sysfs.read_first_line("/proc/sys/kernel/randomize_va_space") or "").strip())
        if aslr:
            metadata["aslr"] = aslr
    _collect_load(metadata, sysfs)
    hostname = _hostname()
    if hostname:
        metadata["hostname"] = hostname
    boot_time = _boot_time(sysfs)
    if boot_time is not None:
        metadata["boot_time"] = datetime.datetime.fromtimestamp(boot_time).isoformat(" ")
        metadata["uptime"] = max(time.time() - boot_time, 0.0)
