"""One change of ``perf system`` on the machine: read what it will
overwrite, apply it, write a saved value back, and say what each does.

A :class:`~perf.system.operation.Change` writes a file, sets or clears a
bit of an MSR, or starts or stops a service; an
:class:`~perf.system.state.Entry` is what a change overwrote, as the state
file keeps it.  A failure is an error message of the operation concerned
(or, for :func:`previous_entry`, an OSError): the other changes go on.

Must not: print or exit, decide what to change (the operations plan the
changes), or read or write the state file (:mod:`perf.system.tuning`).
"""

from __future__ import annotations

import errno
from typing import Sequence

from perf.platform.cpus import format_cpu_list
from perf.system.operation import Change, Context, FileChange, Messages, MsrChange, Operation
from perf.system.state import Entry, FileEntry, MsrEntry, ServiceEntry


def describe(change: Change) -> str:
    """What a change writes, for ``--dry-run``."""
    if isinstance(change, FileChange):
        return f"write {change.text!r} into {change.path}"
    if isinstance(change, MsrChange):
        return f"{'set' if change.value else 'clear'} bit {change.bit} of MSR {change.register:#x} on CPU {change.cpu}"
    return f"{'start' if change.active else 'stop'} the {change.name} service"


def previous_entry(context: Context, change: Change) -> Entry:
    """What *change* will overwrite; raises OSError when it cannot be read."""
    if isinstance(change, FileChange):
        text = context.sysfs.read_text(change.path)
        if text is None:
            raise OSError(errno.ENOENT, f"cannot read {change.path}")
        return FileEntry(change.path, text)
    if isinstance(change, MsrChange):
        value = context.sysfs.read_msr(change.cpu, change.register)
        return MsrEntry(change.cpu, change.register, change.bit, bool(value >> change.bit & 1))
    active = context.services.is_active(change.name)
    if active is None:
        raise OSError(errno.ENOENT, f"the state of the {change.name} service is unknown")
    return ServiceEntry(change.name, active)


def _write_msr_bit(context: Context, cpu: int, register: int, bit: int, value: bool) -> None:
    current = context.sysfs.read_msr(cpu, register)
    wanted = current | (1 << bit) if value else current & ~(1 << bit)
    if wanted != current:
        context.sysfs.write_msr(cpu, register, wanted)


def apply_change(context: Context, operation: Operation, change: Change, messages: Messages) -> bool:
    """Apply *change*; False when nothing changed (an error, or an errno
    the change ignores: an IRQ that cannot move)."""
    try:
        if isinstance(change, FileChange):
            try:
                context.sysfs.write_text(change.path, change.text)
            except OSError as exc:
                if exc.errno in change.ignore_errno:
                    return False
                raise
        elif isinstance(change, MsrChange):
            _write_msr_bit(context, change.cpu, change.register, change.bit, change.value)
        else:
            failure = context.services.set_active(change.name, change.active)
            if failure:
                operation.error(messages, failure)
                return False
    except OSError as exc:
        operation.error(messages, f"cannot {describe(change)}: {exc.strerror or exc}")
        return False
    messages.actions.append(f"{operation.name}: {change.action}")
    return True


def restore_entry(context: Context, entry: Entry) -> str | None:
    """Write *entry* back and read it again; an error message or None."""
    try:
        if isinstance(entry, FileEntry):
            if context.sysfs.read_text(entry.path) == entry.previous:
                return None  # nothing to write back
            context.sysfs.write_text(entry.path, entry.previous)
            now = context.sysfs.read_text(entry.path)
            if now != entry.previous:
                return f"{entry.path}: wrote back {entry.previous!r} but it reads {now!r}"
        elif isinstance(entry, MsrEntry):
            _write_msr_bit(context, entry.cpu, entry.register, entry.bit, entry.previous)
            if bool(context.sysfs.read_msr(entry.cpu, entry.register) >> entry.bit & 1) != entry.previous:
                return f"MSR {entry.register:#x} of CPU {entry.cpu}: bit {entry.bit} did not go back"
        else:
            return context.services.set_active(entry.name, entry.previous)
    except OSError as exc:
        return f"cannot restore {describe_entry(entry)}: {exc.strerror or exc}"
    return None


def describe_entry(entry: Entry) -> str:
    """What *entry* puts back, for the messages of ``reset``."""
    if isinstance(entry, FileEntry):
        return entry.path
    if isinstance(entry, MsrEntry):
        return f"bit {entry.bit} of MSR {entry.register:#x} on CPU {entry.cpu}"
    return f"the {entry.name} service ({'running' if entry.previous else 'stopped'})"


def restored_names(entries: Sequence[Entry]) -> list[str]:
    """Names of restored entries, the per-IRQ affinity files as one."""
    names: list[str] = []
    irqs: list[int] = []
    for entry in entries:
        parts = entry.path.split("/") if isinstance(entry, FileEntry) else []
        if len(parts) == 5 and parts[1:3] == ["proc", "irq"] and parts[3].isdigit() and parts[4] == "smp_affinity":
            irqs.append(int(parts[3]))
        else:
            names.append(describe_entry(entry))
    if irqs:
        names.append(f"/proc/irq/N/smp_affinity of IRQ {format_cpu_list(irqs)}")
    return names
