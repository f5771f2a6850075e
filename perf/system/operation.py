"""What a ``perf system`` operation is: a reader of one tuning knob that
reports its state and *plans* the writes that tune it.

Operations never write.  They return :class:`Change` values (a kernel
file to write, a bit of a model-specific register, a service to start or
stop); :mod:`perf.system.tuning` saves what each change will overwrite to
the state file first, then applies them, so that ``reset`` can put back
exactly what was there.  Operations read through ``context.sysfs`` (an
injectable root: tests use a fake ``/sys`` and ``/proc``) and
``context.services``.

Must not: print, exit, write to the system.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ClassVar, Sequence, TypeVar, Union

from perf.platform.services import ServiceManager
from perf.platform.sysfs import SysFS


@dataclass
class Messages:
    """What one run of ``show``/``tune``/``reset`` has to say, by section
    (each message is prefixed with its operation's name)."""

    actions: list[str] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    advices: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: names of the operations whose knob is not in its benchmark state
    not_tuned: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FileChange:
    """Write *text* into the kernel file *path* (an absolute path such as
    ``/proc/sys/kernel/perf_event_max_sample_rate``); *action* says what it
    does, for the Actions section (``"Max sample rate set to 1 per
    second"``).  *ignore_errno*: errors that mean "not supported here"
    (EIO for an IRQ without SMP affinity), skipped silently."""

    path: str
    text: str
    action: str
    ignore_errno: tuple[int, ...] = ()


@dataclass(frozen=True)
class MsrChange:
    """Set (*value* True) or clear one *bit* of the model-specific register
    *register* of *cpu* (through ``/dev/cpu/CPU/msr``)."""

    cpu: int
    register: int
    bit: int
    value: bool
    action: str


@dataclass(frozen=True)
class ServiceChange:
    """Start (*active* True) or stop the system service *name*."""

    name: str
    active: bool
    action: str


Change = Union[FileChange, MsrChange, ServiceChange]

T = TypeVar("T")


@dataclass
class Context:
    """The machine an operation looks at."""

    sysfs: SysFS
    services: ServiceManager
    #: the CPUs benchmarks run on (isolated CPUs, or --affinity, or all)
    cpus: list[int]
    #: every online CPU
    all_cpus: list[int]
    is_root: bool


class Operation:
    """One tuning knob (or a read-only check)."""

    #: the prefix of its messages ("Turbo Boost (intel_pstate)")
    name: ClassVar[str] = ""

    def available(self, context: Context) -> bool:
        """Whether this machine has the knob (no message when it has not)."""
        return True

    def show(self, context: Context, messages: Messages) -> None:
        """Report the state (``messages.states``) and, when it is not what
        benchmarks want, an advice and ``messages.not_tuned``."""

    def tune(self, context: Context, messages: Messages) -> Sequence[Change]:
        """The changes that put the knob in its benchmark state (none when
        it already is); problems go to *messages*."""
        return ()

    def defaults(self, context: Context, messages: Messages) -> Sequence[Change]:
        """``reset`` without a saved state: the changes back to the usual
        defaults of a Linux machine."""
        return ()

    @staticmethod
    def read_value(context: Context, path: str, parse: Callable[[str], T | None]) -> tuple[T | None, str]:
        """The first line of the kernel file *path*, stripped, through
        *parse* (None: a value it does not expect); or None and what went
        wrong, for an error message."""
        line = context.sysfs.read_first_line(path)
        if line is None:
            return None, f"Unable to read {path}"
        value = parse(line.strip())
        if value is None:
            return None, f"Unexpected value {line!r} in {path}"
        return value, ""

    # helpers for the messages of this operation

    def state(self, messages: Messages, text: str) -> None:
        messages.states.append(f"{self.name}: {text}")

    def advice(self, messages: Messages, text: str) -> None:
        """Advice that ``tune`` cannot follow (a kernel parameter...)."""
        messages.advices.append(f"{self.name}: {text}")

    def not_tuned(self, messages: Messages, text: str) -> None:
        """The knob is not in its benchmark state: *text* is the advice,
        and ``show`` exits with status 2."""
        self.advice(messages, text)
        if self.name not in messages.not_tuned:
            messages.not_tuned.append(self.name)

    def warning(self, messages: Messages, text: str) -> None:
        messages.warnings.append(f"{self.name}: {text}")

    def error(self, messages: Messages, text: str) -> None:
        messages.errors.append(f"{self.name}: {text}")


class SysctlOperation(Operation):
    """A knob that is one integer in the kernel file *path* (a sysctl):
    ``tune`` plans writing *tuned*, ``reset`` without a saved state
    *default*; ``show`` reports ``state_format`` and advises *advice*."""

    path: ClassVar[str]
    tuned: ClassVar[int]
    default: ClassVar[int]
    advice_text: ClassVar[str]
    state_format: ClassVar[str]
    action_format: ClassVar[str]

    def parse(self, text: str) -> int | None:
        return int(text) if text.isascii() and text.isdigit() else None

    def describe(self, value: int) -> str:
        return self.state_format.format(value)

    def available(self, context: Context) -> bool:
        return context.sysfs.exists(self.path)

    def show(self, context: Context, messages: Messages) -> None:
        value, problem = self.read_value(context, self.path, self.parse)
        if value is None:
            self.error(messages, problem)
            return
        self.state(messages, self.describe(value))
        if value != self.tuned:
            self.not_tuned(messages, self.advice_text)

    def _change(self, context: Context, value: int) -> Sequence[Change]:
        # an unknown value plans nothing: the show that follows reports it
        current, _ = self.read_value(context, self.path, self.parse)
        if current is None or current == value:
            return ()
        return (FileChange(self.path, str(value), self.action_format.format(value)),)

    def tune(self, context: Context, messages: Messages) -> Sequence[Change]:
        return self._change(context, self.tuned)

    def defaults(self, context: Context, messages: Messages) -> Sequence[Change]:
        return self._change(context, self.default)
