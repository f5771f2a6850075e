"""perf.system.changes: one change on a fake tree: what it overwrites,
applying it, writing the saved value back, and the words for each."""

from __future__ import annotations

import errno

import pytest
from system_fakes import MSR_IA32_MISC_ENABLE, TURBO_DISABLE_BIT, FakeServiceManager, FaultySysFS, build, msr_file

from perf.system.changes import (
    apply_change,
    describe,
    describe_entry,
    previous_entry,
    restore_entry,
    restored_names,
)
from perf.system.operation import Context, FileChange, Messages, MsrChange, Operation, ServiceChange
from perf.system.state import FileEntry, MsrEntry, ServiceEntry

RATE = "/proc/sys/kernel/perf_event_max_sample_rate"
MSR = "/dev/cpu/0/msr"
TURBO_OFF = MsrChange(0, MSR_IA32_MISC_ENABLE, TURBO_DISABLE_BIT, True, "turbo off")


class Toy(Operation):
    name = "Toy"


def context(tmp_path, read_only=(), errors=None, services=None, fail=False):
    root = build(tmp_path / "root", {RATE: "100000\n", MSR: msr_file(0x850089)})
    sysfs = FaultySysFS(root, read_only, errors)
    return Context(sysfs, FakeServiceManager(services or {"irqbalance": True}, fail), [0], [0], True)


def test_describe_changes_and_entries():
    assert describe(FileChange(RATE, "1", "rate")) == f"write '1' into {RATE}"
    assert describe(TURBO_OFF) == "set bit 38 of MSR 0x1a0 on CPU 0"
    assert describe(ServiceChange("irqbalance", False, "stop")) == "stop the irqbalance service"
    assert describe_entry(FileEntry(RATE, "1\n")) == RATE
    assert describe_entry(MsrEntry(2, 0x1A0, 38, False)) == "bit 38 of MSR 0x1a0 on CPU 2"
    assert describe_entry(ServiceEntry("irqbalance", True)) == "the irqbalance service (running)"


def test_previous_entry_reads_what_will_be_overwritten(tmp_path):
    ctx = context(tmp_path)
    assert previous_entry(ctx, FileChange(RATE, "1", "rate")) == FileEntry(RATE, "100000\n")
    assert previous_entry(ctx, TURBO_OFF) == MsrEntry(0, MSR_IA32_MISC_ENABLE, TURBO_DISABLE_BIT, False)
    assert previous_entry(ctx, ServiceChange("irqbalance", False, "stop")) == ServiceEntry("irqbalance", True)
    with pytest.raises(OSError, match="cannot read /proc/missing"):
        previous_entry(ctx, FileChange("/proc/missing", "1", "missing"))
    with pytest.raises(OSError, match="the state of the tuned service is unknown"):
        previous_entry(ctx, ServiceChange("tuned", False, "stop"))


def test_apply_change_writes_and_says_so(tmp_path):
    ctx = context(tmp_path)
    messages = Messages()
    assert apply_change(ctx, Toy(), FileChange(RATE, "1", "rate set to 1"), messages)
    assert apply_change(ctx, Toy(), TURBO_OFF, messages)
    assert apply_change(ctx, Toy(), ServiceChange("irqbalance", False, "irqbalance stopped"), messages)
    assert ctx.sysfs.read_first_line(RATE) == "1"
    assert ctx.sysfs.read_msr(0, MSR_IA32_MISC_ENABLE) >> TURBO_DISABLE_BIT & 1
    assert ctx.services.services == {"irqbalance": False}
    assert messages.actions == ["Toy: rate set to 1", "Toy: turbo off", "Toy: irqbalance stopped"]
    assert messages.errors == []


def test_apply_change_failures_are_messages(tmp_path):
    ctx = context(tmp_path, read_only=[RATE], errors={MSR: errno.EIO}, fail=True)
    messages = Messages()
    assert not apply_change(ctx, Toy(), FileChange(RATE, "1", "rate"), messages)
    # an errno the change ignores: nothing changed, nothing said
    assert not apply_change(ctx, Toy(), FileChange(RATE, "1", "rate", ignore_errno=(errno.EACCES,)), messages)
    assert not apply_change(ctx, Toy(), TURBO_OFF, messages)
    assert not apply_change(ctx, Toy(), ServiceChange("irqbalance", False, "stop"), messages)
    assert messages.actions == []
    assert messages.errors == [
        f"Toy: cannot write '1' into {RATE}: Permission denied",
        "Toy: cannot set bit 38 of MSR 0x1a0 on CPU 0: Input/output error",
        "Toy: systemctl stop irqbalance failed with exit code 1",
    ]


def test_restore_entry_writes_back_and_checks(tmp_path):
    ctx = context(tmp_path)
    apply_change(ctx, Toy(), FileChange(RATE, "1", "rate"), Messages())
    apply_change(ctx, Toy(), TURBO_OFF, Messages())
    assert restore_entry(ctx, FileEntry(RATE, "100000\n")) is None
    assert restore_entry(ctx, MsrEntry(0, MSR_IA32_MISC_ENABLE, TURBO_DISABLE_BIT, False)) is None
    assert restore_entry(ctx, ServiceEntry("irqbalance", False)) is None
    assert ctx.sysfs.read_text(RATE) == "100000\n"
    assert ctx.sysfs.read_msr(0, MSR_IA32_MISC_ENABLE) == 0x850089
    assert ctx.services.services == {"irqbalance": False}
    # a file already as saved is not written again
    assert restore_entry(context(tmp_path / "b", read_only=[RATE]), FileEntry(RATE, "100000\n")) is None


def test_restore_entry_failures(tmp_path):
    ctx = context(tmp_path, read_only=[RATE], fail=True)
    assert restore_entry(ctx, FileEntry(RATE, "1\n")) == f"cannot restore {RATE}: Permission denied"
    assert restore_entry(ctx, ServiceEntry("irqbalance", False)) == "systemctl stop irqbalance failed with exit code 1"


def test_restored_names_group_the_irq_affinity_files():
    entries = [
        FileEntry("/proc/irq/9/smp_affinity", "f\n"),
        FileEntry(RATE, "1\n"),
        FileEntry("/proc/irq/0/smp_affinity", "f\n"),
        FileEntry("/proc/irq/1/smp_affinity", "f\n"),
        ServiceEntry("irqbalance", True),
    ]
    assert restored_names(entries) == [
        RATE,
        "the irqbalance service (running)",
        "/proc/irq/N/smp_affinity of IRQ 0-1,9",
    ]
