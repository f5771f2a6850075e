"""The ASLR operation: address space layout randomization, read from and
planned for ``/proc/sys/kernel/randomize_va_space``.

perf wants full randomization (2): every worker process then runs with a
new memory layout, so that a result averages over layouts instead of
holding for one draw.  ``tune`` and ``reset`` both plan writing 2.

Must not: print, exit, write to the system.
"""

from __future__ import annotations

from perf.system.operation import SysctlOperation

PATH = "/proc/sys/kernel/randomize_va_space"
FULL = 2

#: the value of randomize_va_space -> what it means
MODES = {
    0: "No randomization",
    1: "Conservative randomization",
    2: "Full randomization",
}


class ASLR(SysctlOperation):
    name = "ASLR"
    path = PATH
    # full randomization is also the default of Linux
    tuned = default = FULL
    advice_text = (
        f"Enable full randomization (write {FULL} into {PATH}): each worker process then runs with a new memory layout"
    )
    action_format = "Full randomization enabled"

    def parse(self, text: str) -> int | None:
        return {str(mode): mode for mode in MODES}.get(text)

    def describe(self, value: int) -> str:
        return MODES[value]
