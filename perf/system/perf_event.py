"""The Perf event operation: the maximum sample rate of the kernel's perf
events, read from and planned for
``/proc/sys/kernel/perf_event_max_sample_rate``.

A high rate lets a profiler interrupt benchmark CPUs thousands of times
per second; ``tune`` plans lowering it to 1 per second, ``reset`` without
a saved state plans the kernel's usual default, 100000.

Must not: print, exit, write to the system.
"""

from __future__ import annotations

from perf.system.operation import SysctlOperation

PATH = "/proc/sys/kernel/perf_event_max_sample_rate"
TUNED_RATE = 1
#: the rate the kernel starts with (it may lower it by itself when
#: sampling interrupts take too long)
DEFAULT_RATE = 100000


class PerfEvent(SysctlOperation):
    name = "Perf event"
    path = PATH
    tuned = TUNED_RATE
    default = DEFAULT_RATE
    advice_text = (
        f"Set the maximum sample rate to {TUNED_RATE} per second (write {TUNED_RATE} into {PATH}) "
        "so that perf events rarely interrupt benchmarks"
    )

    state_format = "Maximum sample rate: {} per second"
    action_format = "Max sample rate set to {} per second"
