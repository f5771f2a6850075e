"""The Power supply operation: whether the power cable is plugged, read
from ``/sys/class/power_supply/*/``.

On battery, firmware and kernel save power by limiting CPU performance,
so benchmarks want the power cable plugged.  Nothing can plug it: this
operation only reports (``tune`` plans no change).

The power supplies of type ``Mains`` tell whether the cable is plugged
(``online``).  A machine with batteries but no ``Mains`` supply is on
battery when one of its batteries is discharging.  Batteries of scope
``Device`` (a wireless mouse, a keyboard) do not power the machine and
are ignored.

Must not: print, exit, write to the system.
"""

from __future__ import annotations

from perf.system.operation import Context, Messages, Operation

FOLDER = "/sys/class/power_supply"


class PowerSupply(Operation):
    name = "Power supply"

    def _supplies(self, context: Context) -> tuple[list[str], list[str]]:
        """The folders of the Mains supplies and of the batteries that
        power this machine."""
        mains: list[str] = []
        batteries: list[str] = []
        for entry in context.sysfs.list_dir(FOLDER):
            folder = f"{FOLDER}/{entry}"
            kind = context.sysfs.read_first_line(f"{folder}/type")
            if kind == "Mains":
                mains.append(folder)
            elif kind == "Battery" and context.sysfs.read_first_line(f"{folder}/scope") != "Device":
                batteries.append(folder)
        return mains, batteries

    def available(self, context: Context) -> bool:
        if not context.sysfs.exists(FOLDER):
            return False
        mains, batteries = self._supplies(context)
        return bool(mains or batteries)

    def plugged(self, context: Context, messages: Messages) -> bool | None:
        """Whether the power cable is plugged; None when there is no power
        supply, or (after an error message) when a Mains supply cannot
        tell."""
        mains, batteries = self._supplies(context)
        if not mains:
            if not batteries:
                return None
            return all(context.sysfs.read_first_line(f"{folder}/status") != "Discharging" for folder in batteries)
        unknown = False
        for folder in mains:
            path = f"{folder}/online"
            line = context.sysfs.read_first_line(path)
            value = None if line is None else line.strip()
            if value == "1":
                return True
            if value != "0":
                unknown = True
                problem = "Unable to read" if line is None else f"Unexpected value {line!r} in"
                self.error(messages, f"{problem} {path}")
        return None if unknown else False

    def show(self, context: Context, messages: Messages) -> None:
        plugged = self.plugged(context, messages)
        if plugged is None:
            return
        if plugged:
            self.state(messages, "the power cable is plugged")
        else:
            self.state(messages, "the power cable is unplugged")
            self.not_tuned(
                messages,
                "Plug the power cable: on battery, the firmware and the kernel limit CPU performance to save power",
            )
