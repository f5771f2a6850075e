"""The IRQ affinity operation: which CPUs handle hardware interrupts, read
from and planned for ``/proc/irq/default_smp_affinity`` and
``/proc/irq/N/smp_affinity`` (hexadecimal CPU masks), and the irqbalance
service that moves interrupts around by itself.

An interrupt handled on a benchmark CPU stops the benchmark for a while,
so ``tune`` plans stopping irqbalance, then moving the default affinity
and every interrupt that may run on a benchmark CPU to the other CPUs.
Some interrupts cannot move (the kernel answers EIO): those writes are
planned with EIO ignored.  ``reset`` without a saved state plans letting
every interrupt run on every CPU and starting irqbalance again when it is
installed.

Must not: print, exit, write to the system.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Iterable, Sequence

from perf.platform.cpus import format_cpu_list, format_cpu_mask, get_isolated_cpus, parse_cpu_mask
from perf.system.operation import Change, Context, FileChange, Messages, Operation, ServiceChange

IRQ_DIR = "/proc/irq"
DEFAULT_AFFINITY = f"{IRQ_DIR}/default_smp_affinity"
SERVICE = "irqbalance"

NOWHERE_ADVICE = (
    "Every CPU runs benchmarks, so interrupts cannot move away from them: "
    "isolate CPUs (isolcpus= kernel parameter) or choose the benchmark CPUs with --affinity"
)


def irq_affinity_path(irq: int) -> str:
    return f"{IRQ_DIR}/{irq}/smp_affinity"


def _cpus_text(cpus: Sequence[int]) -> str:
    return format_cpu_list(cpus) or "none"


@dataclass(frozen=True)
class Mask:
    """A CPU mask as read from the kernel: its text (to write new masks in
    the same style) and its CPUs."""

    text: str
    cpus: list[int]


class IRQAffinity(Operation):
    name = "IRQ affinity"

    def available(self, context: Context) -> bool:
        return context.sysfs.exists(IRQ_DIR)

    def read_mask(self, context: Context, path: str, messages: Messages | None) -> Mask | None:
        """The mask in *path*; None when it cannot be read (an error in
        *messages* when given)."""
        line = context.sysfs.read_first_line(path)
        if line is None:
            if messages is not None:
                self.error(messages, f"Unable to read {path}")
            return None
        try:
            return Mask(line.strip(), parse_cpu_mask(line))
        except ValueError:
            if messages is not None:
                self.error(messages, f"Unexpected value {line!r} in {path}")
            return None

    def read_irqs(self, context: Context) -> dict[int, Mask]:
        """The mask of each interrupt, by number (those without a readable
        mask are left out: they come and go)."""
        numbers = sorted(int(entry) for entry in context.sysfs.list_dir(IRQ_DIR) if entry.isascii() and entry.isdigit())
        irqs: dict[int, Mask] = {}
        for irq in numbers:
            mask = self.read_mask(context, irq_affinity_path(irq), None)
            if mask is not None:
                irqs[irq] = mask
        return irqs

    def show(self, context: Context, messages: Messages) -> None:
        active = context.services.is_active(SERVICE)
        if active is not None:
            self.state(messages, f"{SERVICE} service: {'active' if active else 'inactive'}")
        default = self.read_mask(context, DEFAULT_AFFINITY, messages)
        if default is not None:
            self.state(messages, f"Default IRQ affinity: CPU {_cpus_text(default.cpus)}")
        irqs = self.read_irqs(context)
        if irqs:
            groups: dict[tuple[int, ...], list[int]] = {}
            for irq, mask in irqs.items():
                groups.setdefault(tuple(mask.cpus), []).append(irq)
            self.state(
                messages,
                "; ".join(f"IRQ {format_cpu_list(numbers)}=CPU {_cpus_text(cpus)}" for cpus, numbers in groups.items()),
            )
        if active:
            self.not_tuned(messages, f"Stop the {SERVICE} service: it may move interrupts onto the benchmark CPUs")
        self.check_masks(context, default, irqs, messages)

    def check_masks(self, context: Context, default: Mask | None, irqs: dict[int, Mask], messages: Messages) -> None:
        benchmark = set(context.cpus)
        places = []
        if default is not None and benchmark & set(default.cpus):
            places.append("the default affinity")
        on_benchmark = [irq for irq, mask in irqs.items() if benchmark & set(mask.cpus)]
        if on_benchmark:
            places.append(f"the affinity of IRQ {format_cpu_list(on_benchmark)}")
        if not places:
            return
        others = self.housekeeping(context)
        if not others:
            self.advice(messages, NOWHERE_ADVICE)
            return
        plural = "s" if len(context.cpus) > 1 else ""
        self.not_tuned(
            messages,
            f"Move interrupts to CPU {format_cpu_list(others)}, away from the benchmark CPU{plural} "
            f"{format_cpu_list(context.cpus)}: they are in {' and in '.join(places)}",
        )

    @staticmethod
    def housekeeping(context: Context) -> list[int]:
        """Where interrupts go: the CPUs that run no benchmark, and not the
        isolated ones either when others are left (``--affinity`` may
        choose a subset of the isolated CPUs)."""
        others = set(context.all_cpus) - set(context.cpus)
        isolated = set(get_isolated_cpus(context.sysfs) or ())
        return sorted(others - isolated or others)

    def tune(self, context: Context, messages: Messages) -> Sequence[Change]:
        changes: list[Change] = []
        if context.services.is_active(SERVICE):
            # first, or irqbalance would move interrupts back
            changes.append(ServiceChange(SERVICE, False, f"{SERVICE} service stopped"))
        benchmark = set(context.cpus)
        others = self.housekeeping(context)
        default = self.read_mask(context, DEFAULT_AFFINITY, messages)
        irqs = {irq: mask for irq, mask in self.read_irqs(context).items() if benchmark & set(mask.cpus)}
        if default is not None and not benchmark & set(default.cpus):
            default = None
        if not others:
            if default is not None or irqs:
                self.advice(messages, NOWHERE_ADVICE)
            return changes
        return changes + _moves(others, default, irqs)

    def defaults(self, context: Context, messages: Messages) -> Sequence[Change]:
        every = set(context.all_cpus)
        default = self.read_mask(context, DEFAULT_AFFINITY, messages)
        if default is not None and every <= set(default.cpus):
            default = None
        irqs = {irq: mask for irq, mask in self.read_irqs(context).items() if not every <= set(mask.cpus)}
        changes = _moves(every, default, irqs)
        if context.services.is_active(SERVICE) is False:
            # last: it spreads the interrupts again by itself
            changes.append(ServiceChange(SERVICE, True, f"{SERVICE} service started"))
        return changes


def _moves(cpus: Iterable[int], default: Mask | None, irqs: dict[int, Mask]) -> list[Change]:
    """Move the default affinity (unless None) and each of *irqs* to *cpus*
    (an IRQ that cannot move, EIO, is left where it is)."""
    text = format_cpu_list(cpus)
    changes: list[Change] = []
    if default is not None:
        changes.append(
            FileChange(
                DEFAULT_AFFINITY, format_cpu_mask(cpus, like=default.text), f"Default IRQ affinity set to CPU {text}"
            )
        )
    changes.extend(
        FileChange(
            irq_affinity_path(irq),
            format_cpu_mask(cpus, like=mask.text),
            f"Affinity of IRQ {irq} set to CPU {text}",
            ignore_errno=(errno.EIO,),
        )
        for irq, mask in irqs.items()
    )
    return changes
