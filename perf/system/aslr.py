"""The ASLR operation: address space layout randomization, read from and
planned for ``/proc/sys/kernel/randomize_va_space``.

perf wants full randomization (2): every worker process then runs with a
new memory layout, so that a result averages over layouts instead of
holding for one draw.  ``tune`` and ``reset`` both plan writing 2.

Must not: print, exit, write to the system.
"""

from __future__ import annotations

from typing import Sequence

from perf.system.operation import Change, Context, FileChange, Messages, Operation

PATH = "/proc/sys/kernel/randomize_va_space"
FULL = 2

#: the value of randomize_va_space -> what it means
MODES = {
    0: "No randomization",
    1: "Conservative randomization",
    2: "Full randomization",
}


class ASLR(Operation):
    name = "ASLR"

    def available(self, context: Context) -> bool:
        return context.sysfs.exists(PATH)

    def read(self, context: Context) -> tuple[int | None, str]:
        """The mode, or None and what went wrong."""
        modes = {str(mode): mode for mode in MODES}
        return self.read_value(context, PATH, modes.get)

    def show(self, context: Context, messages: Messages) -> None:
        mode, problem = self.read(context)
        if mode is None:
            self.error(messages, problem)
            return
        self.state(messages, MODES[mode])
        if mode != FULL:
            self.not_tuned(
                messages,
                f"Enable full randomization (write {FULL} into {PATH}): "
                "each worker process then runs with a new memory layout",
            )

    def tune(self, context: Context, messages: Messages) -> Sequence[Change]:
        # an unknown mode plans nothing: the show that follows reports it
        mode, _ = self.read(context)
        if mode is None or mode == FULL:
            return ()
        return (FileChange(PATH, str(FULL), "Full randomization enabled"),)

    def defaults(self, context: Context, messages: Messages) -> Sequence[Change]:
        # full randomization is also the default of Linux
        return self.tune(context, messages)
