"""Metadata collection: read-only probes of the interpreter and the host.

:func:`collect_metadata` returns the keys pyperf collects (doc/compatibility.rst,
metadata keys).  A probe that cannot read something leaves its key out.

Must not: write to the system, validate or format values for display.
"""

from __future__ import annotations

import datetime
from typing import Any

from perf.collect.cpu import collect_cpu_metadata
from perf.collect.python import collect_memory_metadata, collect_python_metadata
from perf.collect.system import collect_system_metadata
from perf.platform.sysfs import DEFAULT, SysFS


def collect_metadata(process: bool = True, sysfs: SysFS = DEFAULT) -> dict[str, Any]:
    """Metadata of this host and, with *process*, of this Python process."""
    from perf import __version__

    metadata: dict[str, Any] = {
        "perf_version": __version__,
        "date": datetime.datetime.now().isoformat(" "),
    }
    collect_system_metadata(metadata, sysfs)
    collect_cpu_metadata(metadata, sysfs)
    if process:
        collect_python_metadata(metadata)
        collect_memory_metadata(metadata)
    return metadata
