"""The runner options checked against this process: what its Python and this machine support.

:func:`check_here` runs in a worker (on its own options) and in the
parent before any worker (:func:`perf.measure.parent.plan.plan_run`):
``--tracemalloc`` needs the module, ``--track-memory`` a way to read the
peak RSS, ``--clock cpu`` a thread CPU clock that works here, and
``--affinity`` CPUs this process may use (by default, the isolated CPUs
when the kernel has some), and ``--metric instructions`` valgrind.

Must not: print, exit, or import the parent side.
"""

from __future__ import annotations

from perf.errors import UsageError
from perf.measure.options import RunOptions
from perf.model.metadata import DEFAULT_CLOCK


def check_here(options: RunOptions) -> RunOptions:
    """*options*, checked against this process and completed (the
    default ``--affinity``).  Raises :class:`~perf.errors.UsageError`."""
    if options.tracemalloc:
        try:
            import tracemalloc  # noqa: F401
        except ImportError as exc:
            raise UsageError(f"--tracemalloc is not available on this Python: {exc}") from None
    if not options.worker:
        from perf.measure.child.memory import peak_rss_supported

        if options.metric == "instructions":
            from perf.measure.cachegrind import valgrind_version

            valgrind_version()  # installed, and it runs

        if options.track_memory and not peak_rss_supported():
            raise UsageError("--track-memory is not supported on this platform")
        options = options._replace(affinity=_affinity(options.affinity))
    if options.clock != DEFAULT_CLOCK:
        from perf.measure.child.clock import check_clock

        check_clock(options.clock)
    return options


def _affinity(affinity: str | None) -> str | None:
    """--affinity: CPUs this process may use; by default, the isolated
    CPUs when the kernel has some."""
    from perf.platform.cpus import format_cpu_list, get_cpu_affinity, get_isolated_cpus, parse_cpu_list

    if not affinity:
        isolated = get_isolated_cpus()
        return format_cpu_list(isolated) if isolated else None
    allowed = get_cpu_affinity()
    unknown = set(parse_cpu_list(affinity)) - (allowed or set())
    if allowed is not None and unknown:
        raise UsageError(
            f"--affinity: CPU {format_cpu_list(unknown)} not available "
            f"(this process may use {format_cpu_list(allowed)})"
        )
    return affinity
