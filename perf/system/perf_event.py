"""The Perf event operation: the maximum sample rate of the kernel's perf
events, read from and planned for
``/proc/sys/kernel/perf_event_max_sample_rate``.

A high rate lets a profiler interrupt benchmark CPUs thousands of times
per second; ``tune`` plans lowering it to 1 per second, ``reset`` without
a saved state plans the kernel's usual default, 100000.

Must not: print, exit, write to the system.
"""

from __future__ import annotations

from typing import Sequence

from perf.system.operation import Change, Context, FileChange, Messages, Operation

PATH = "/proc/sys/kernel/perf_event_max_sample_rate"
TUNED_RATE = 1
#: the rate the kernel starts with (it may lower it by itself when
#: sampling interrupts take too long)
DEFAULT_RATE = 100000


class PerfEvent(Operation):
    name = "Perf event"

    def available(self, context: Context) -> bool:
        return context.sysfs.exists(PATH)

    def read(self, context: Context) -> tuple[int | None, str]:
        """The rate, or None and what went wrong."""
        return self.read_value(context, PATH, lambda text: int(text) if text.isascii() and text.isdigit() else None)

    def show(self, context: Context, messages: Messages) -> None:
        rate, problem = self.read(context)
        if rate is None:
            self.error(messages, problem)
            return
        self.state(messages, f"Maximum sample rate: {rate} per second")
        if rate != TUNED_RATE:
            self.not_tuned(
                messages,
                f"Set the maximum sample rate to {TUNED_RATE} per second (write {TUNED_RATE} into {PATH}) "
                "so that perf events rarely interrupt benchmarks",
            )

    def _change(self, context: Context, rate: int) -> Sequence[Change]:
        # an unknown rate plans nothing: the show that follows reports it
        current, _ = self.read(context)
        if current is None or current == rate:
            return ()
        return (FileChange(PATH, str(rate), f"Max sample rate set to {rate} per second"),)

    def tune(self, context: Context, messages: Messages) -> Sequence[Change]:
        return self._change(context, TUNED_RATE)

    def defaults(self, context: Context, messages: Messages) -> Sequence[Change]:
        return self._change(context, DEFAULT_RATE)
