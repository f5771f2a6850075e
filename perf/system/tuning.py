"""``perf system show|tune|reset``: run the operations, save and restore.

``show`` asks every available operation for its state.  ``tune`` collects
the changes the operations plan, reads what each one will overwrite,
saves that to the state file (merged with an existing one: the first
``tune`` wins), and only then applies them.  ``reset`` writes the saved
values back in the same order, reads them again to check, and removes the
state file when everything is back; without a state file it falls back to
the operations' defaults and says so.  Every problem is a message of the
operation it concerns; nothing stops the other operations.

What one change does on the machine (apply, read back, restore) is
:mod:`perf.system.changes`.

Must not: print or exit (the report goes to :mod:`perf.render.system`).
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, TypeVar

from perf.errors import SystemTuningError
from perf.platform.cpus import format_cpu_list, get_isolated_cpus, parse_cpu_list
from perf.platform.services import ServiceManager
from perf.platform.sysfs import SysFS
from perf.system.changes import apply_change, describe, describe_entry, previous_entry, restore_entry, restored_names
from perf.system.operation import Change, Context, Messages, Operation
from perf.system.state import DEFAULT_STATE_FILE, Entry, FileEntry, SavedState, load_state, remove_state, save_state

T = TypeVar("T")

#: the operation modules, in the order their changes are applied (the
#: governor before Turbo Boost: on intel_pstate, setting the governor
#: can switch no_turbo back)
OPERATION_MODULES = (
    "perf.system.perf_event",
    "perf.system.aslr",
    "perf.system.cpu_isolation",
    "perf.system.cpu_frequency",
    "perf.system.turbo_boost",
    "perf.system.irq_affinity",
    "perf.system.power_supply",
)


def all_operations() -> list[Operation]:
    """One instance of every operation class, in application order."""
    operations: list[Operation] = []
    for name in OPERATION_MODULES:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Operation)
                and value is not Operation
                and value.__module__ == name
            ):
                operations.append(value())
    return operations


def make_context(
    sysfs: SysFS,
    services: ServiceManager,
    affinity: Sequence[int] | None = None,
    is_root: bool | None = None,
) -> Context:
    """The benchmark CPUs are *affinity* (``--affinity``) when given, else
    the isolated CPUs, else every online CPU (pyperf let isolated CPUs win
    over ``--affinity``, against its documentation)."""
    online = sysfs.read_first_line("/sys/devices/system/cpu/online")
    try:
        all_cpus = parse_cpu_list(online) if online else []
    except ValueError:
        all_cpus = []
    if not all_cpus:
        all_cpus = list(range(os.cpu_count() or 1))
    cpus = sorted(set(affinity)) if affinity else get_isolated_cpus(sysfs) or list(all_cpus)
    if is_root is None:
        is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    return Context(sysfs, services, cpus, all_cpus, is_root)


@dataclass
class SystemReport:
    """What ``show``/``tune``/``reset`` did and found."""

    action: str
    messages: Messages = field(default_factory=Messages)
    #: the operations available on this machine
    operations: int = 0

    @property
    def tuned(self) -> bool:
        return not self.messages.not_tuned

    @property
    def exit_code(self) -> int:
        """1 on errors, 2 when ``show`` finds the system not tuned, else 0."""
        if self.messages.errors:
            return 1
        if self.action == "show" and not self.tuned:
            return 2
        return 0


def _guarded(operation: Operation, messages: Messages, default: T, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)``, or *default* with an error message of *operation*
    when it raises: a surprising kernel file must not stop the others."""
    try:
        return call(*args)
    except Exception as exc:  # reported; the other operations go on
        operation.error(messages, f"failed: {type(exc).__name__}: {exc}")
        return default


def _available(context: Context, operations: Sequence[Operation] | None, messages: Messages) -> list[Operation]:
    return [
        operation
        for operation in (all_operations() if operations is None else operations)
        if _guarded(operation, messages, False, operation.available, context)
    ]


def _show(context: Context, operations: Sequence[Operation], messages: Messages) -> None:
    for operation in operations:
        _guarded(operation, messages, None, operation.show, context, messages)


_NUMBERED = re.compile(r"^(.*\b(?:CPU|IRQ) )(\d+)((?: .*)?)$")


def group_actions(actions: Sequence[str]) -> list[str]:
    """One line for the actions that differ only by a CPU or IRQ number
    (``Governor of CPU 1 set to performance`` and ``... CPU 3 ...`` ->
    ``Governor of CPU 1,3 set to performance``): 64 CPUs make 64 lines
    otherwise."""
    grouped: dict[tuple[str, str], list[int]] = {}
    order: list[tuple[str, str] | str] = []
    for action in actions:
        match = _NUMBERED.match(action)
        if match is None:
            order.append(action)
            continue
        key = (match.group(1), match.group(3))
        if key not in grouped:
            grouped[key] = []
            order.append(key)
        grouped[key].append(int(match.group(2)))
    return [item if isinstance(item, str) else f"{item[0]}{format_cpu_list(grouped[item])}{item[1]}" for item in order]


def _merge(first: list[str], second: list[str]) -> list[str]:
    """Both lists, without saying the same thing twice (an operation
    that could not read a file says so when planning and again in the
    ``show`` that follows)."""
    return first + [message for message in second if message not in first]


def show(context: Context, operations: Sequence[Operation] | None = None) -> SystemReport:
    report = SystemReport("show")
    available = _available(context, operations, report.messages)
    report.operations = len(available)
    _show(context, available, report.messages)
    return report


def require_root(context: Context, action: str, dry_run: bool) -> None:
    if not dry_run and not context.is_root:
        raise SystemTuningError(f"system {action} writes to /sys and /proc: run it as root (or use --dry-run)")


def _start(
    context: Context,
    action: str,
    state_file: str | None,
    dry_run: bool,
    operations: Sequence[Operation] | None,
) -> tuple[SystemReport, list[Operation], str]:
    """What ``tune`` and ``reset`` begin with: the root check, the report,
    the available operations and the path of the state file."""
    require_root(context, action, dry_run)
    report = SystemReport(action)
    available = _available(context, operations, report.messages)
    report.operations = len(available)
    return report, available, context.sysfs.path(state_file or DEFAULT_STATE_FILE)


def tune(
    context: Context,
    state_file: str | None = None,
    *,
    dry_run: bool = False,
    operations: Sequence[Operation] | None = None,
) -> SystemReport:
    """Save what the changes will overwrite, then apply them; raises
    SystemTuningError (nothing changed) when not root or when the state
    cannot be saved."""
    report, available, path = _start(context, "tune", state_file, dry_run, operations)
    messages = report.messages
    planned: list[tuple[Operation, Change]] = []
    for operation in available:
        changes: Sequence[Change] = _guarded(operation, messages, (), operation.tune, context, messages)
        planned.extend((operation, change) for change in changes)
    state = load_state(path) or SavedState()
    kept: list[tuple[Operation, Change, Entry | None]] = []
    for operation, change in planned:
        try:
            entry = previous_entry(context, change)
        except OSError as exc:
            operation.error(messages, f"cannot {describe(change)}: {exc.strerror or exc}")
            continue
        kept.append((operation, change, entry if state.add(entry) else None))
    if dry_run:
        messages.actions.extend(f"{operation.name}: would {describe(change)}" for operation, change, _ in kept)
    else:
        if any(entry is not None for _, _, entry in kept):
            save_state(state, path)  # before the first write
        unchanged = [
            entry for operation, change, entry in kept if not apply_change(context, operation, change, messages)
        ]
        # what this tune did not change needs no restoring (an IRQ that
        # cannot move would otherwise make every reset fail)
        dropped = [entry for entry in unchanged if entry is not None]
        if dropped:
            state.entries = [entry for entry in state.entries if entry not in dropped]
            if state.entries:
                save_state(state, path)
            else:
                remove_state(path)
        messages.actions = group_actions(messages.actions)
    after = Messages()
    _show(context, available, after)
    messages.states = after.states
    messages.advices = after.advices
    messages.not_tuned = after.not_tuned
    messages.warnings = _merge(after.warnings, messages.warnings)
    messages.errors = _merge(after.errors, messages.errors)
    return report


RESET = "Reset"


class _Reset(Operation):
    """The messages of restoring a saved state."""

    name = RESET


def reset(
    context: Context,
    state_file: str | None = None,
    *,
    dry_run: bool = False,
    operations: Sequence[Operation] | None = None,
) -> SystemReport:
    """Restore the saved state (or, without one, the defaults)."""
    report, available, path = _start(context, "reset", state_file, dry_run, operations)
    messages = report.messages
    state = load_state(path)
    restorer = _Reset()
    if state is None:
        restorer.warning(
            messages,
            f"no saved state in {path} (no tune since the last boot, or it was removed): "
            f"{'would write' if dry_run else 'writing'} the usual defaults instead of the previous values",
        )
        planned: list[tuple[Operation, Change]] = []
        for operation in available:
            defaults: Sequence[Change] = _guarded(operation, messages, (), operation.defaults, context, messages)
            planned.extend((operation, change) for change in defaults)
        for operation, change in planned:
            if dry_run:
                messages.actions.append(f"{operation.name}: would {describe(change)}")
            else:
                apply_change(context, operation, change, messages)
        messages.actions = group_actions(messages.actions)
    elif dry_run:
        messages.actions.extend(
            f"{RESET}: would restore {describe_entry(entry)}"
            + (f" to {entry.previous!r}" if isinstance(entry, FileEntry) else "")
            for entry in state.entries
        )
    else:
        failed = []
        for entry in state.entries:
            failure = restore_entry(context, entry)
            if failure:
                restorer.error(messages, failure)
                failed.append(entry)
        restored = [entry for entry in state.entries if entry not in failed]
        if restored:
            when = f" (saved by tune on {state.created})" if state.created else ""
            messages.actions.append(f"{RESET}: restored {', '.join(restored_names(restored))}{when}")
        if failed:
            restorer.error(messages, f"kept {path}: fix the errors above, then run reset again")
        else:
            remove_state(path)
            messages.actions.append(f"{RESET}: removed {path}")
    after = Messages()
    _show(context, available, after)
    messages.states = after.states
    messages.warnings = _merge(messages.warnings, after.warnings)
    messages.errors = _merge(messages.errors, after.errors)
    return report
