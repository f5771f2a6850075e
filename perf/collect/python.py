"""Facts about the running interpreter: implementation, version, build.

Must not: write anything, or import heavy modules at module level.
"""

from __future__ import annotations

import os
import re
import struct
import sys
import time
from typing import Any, Literal


def python_implementation() -> str:
    """``'cpython'``, ``'pypy'``...: ``sys.implementation.name`` lowered."""
    return sys.implementation.name.lower()


def python_has_jit() -> bool:
    """True when the interpreter runs a JIT compiler (PyPy, GraalPy,
    Pyston, or CPython built with its JIT and running with it enabled)."""
    implementation = python_implementation()
    if implementation == "pypy":
        return bool(getattr(sys, "pypy_translation_info", {}).get("translation.jit", False))
    if implementation in ("graalpython", "graalpy"):
        return True
    # Pyston reports itself as cpython: test it before CPython's own JIT.
    if hasattr(sys, "pyston_version_info") or "pyston_lite" in sys.modules:
        return True
    jit = getattr(sys, "_jit", None)
    if jit is not None and hasattr(jit, "is_enabled"):
        return bool(jit.is_enabled())
    return False


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", str(text)).strip()


def pointer_bits() -> int:
    """The size of a pointer in bits: 64 or 32 (platform.architecture()
    runs the ``file`` program to answer this: 13 ms per call, in every worker)."""
    return struct.calcsize("P") * 8


def python_version_text() -> str:
    """``'3.11.7 (64-bit) revision fa7a6f2303'``: version, PyPy release,
    pointer size and VCS revision, as pyperf writes it."""
    import platform

    version = platform.python_version()
    pypy = re.search(r"\[(PyPy [^ ]+)", sys.version)
    if pypy:
        version = f"{pypy.group(1)} (Python {version})"
    version = f"{version} ({pointer_bits()}-bit)"
    revision = re.search(r"^[^(]+\([^:]+:([a-f0-9]{6,}\+?),", sys.version) or re.search(
        r"^[^(]+\(([a-f0-9]{6,}\+?),", sys.version
    )
    if revision:
        version = f"{version} revision {revision.group(1)}"
    return version


def timer_text(function: Literal["perf_counter", "thread_time"] = "perf_counter") -> str:
    """The ``timer`` metadata: the implementation and the resolution of the
    clock *function* of the time module
    (``clock_gettime(CLOCK_MONOTONIC), resolution: 1.00 ns``)."""
    from perf.render.units import format_timedelta

    info = time.get_clock_info(function)
    return f"{info.implementation}, resolution: {format_timedelta(info.resolution)}"


def collect_python_metadata(metadata: dict[str, Any]) -> None:
    import platform
    import sysconfig

    metadata["python_implementation"] = python_implementation()
    metadata["python_version"] = python_version_text()
    if sys.executable:
        metadata["python_executable"] = sys.executable
    metadata["timer"] = timer_text()
    hash_seed = os.environ.get("PYTHONHASHSEED")
    if hash_seed:
        if hash_seed == "random":
            metadata["python_hash_seed"] = hash_seed
        elif hash_seed.isdigit():
            metadata["python_hash_seed"] = int(hash_seed)
    compiler = _normalize(platform.python_compiler())
    if compiler:
        metadata["python_compiler"] = compiler
    cflags = sysconfig.get_config_var("CFLAGS")
    if cflags:
        metadata["python_cflags"] = _normalize(cflags)
    config_args = sysconfig.get_config_var("CONFIG_ARGS")
    if config_args:
        metadata["python_config_args"] = _normalize(config_args)
    import gc

    if not gc.isenabled():
        metadata["python_gc"] = "disabled"


def collect_memory_metadata(metadata: dict[str, Any]) -> None:
    try:
        import resource
    except ImportError:
        return
    max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if max_rss:
        # kilobytes on Linux, bytes on macOS
        metadata["mem_max_rss"] = max_rss if sys.platform == "darwin" else max_rss * 1024
