"""show / tune / reset with toy operations on fake trees: the state is
saved before the first write, reset puts back every byte, problems are
messages of their operation."""

from __future__ import annotations

import json
import pathlib

import pytest
from system_fakes import INTEL_LAPTOP, ISOLATED_SPLIT, VM, FakeServiceManager, FaultySysFS, build, snapshot

from perf.errors import SystemTuningError
from perf.platform.sysfs import SysFS
from perf.system import tuning
from perf.system.operation import FileChange, MsrChange, Operation, ServiceChange
from perf.system.state import DEFAULT_STATE_FILE

RATE = "/proc/sys/kernel/perf_event_max_sample_rate"


class Rate(Operation):
    name = "Rate"

    def available(self, context):
        return context.sysfs.exists(RATE)

    def show(self, context, messages):
        value = context.sysfs.read_first_line(RATE)
        self.state(messages, f"rate {value}")
        if value != "1":
            self.not_tuned(messages, "set the rate to 1")

    def tune(self, context, messages):
        if context.sysfs.read_first_line(RATE) == "1":
            return []
        return [FileChange(RATE, "1", "rate set to 1")]

    def defaults(self, context, messages):
        return [FileChange(RATE, "100000", "rate set to 100000")]


class Irqbalance(Operation):
    name = "IRQ"

    def tune(self, context, messages):
        if context.services.is_active("irqbalance"):
            return [ServiceChange("irqbalance", False, "stop irqbalance")]
        return []


class Turbo(Operation):
    name = "Turbo"

    def available(self, context):
        return context.sysfs.exists("/dev/cpu/0/msr")

    def tune(self, context, messages):
        return [
            MsrChange(cpu, 0x1A0, 38, True, f"turbo off on CPU {cpu}")
            for cpu in context.cpus
            if not context.sysfs.read_msr(cpu, 0x1A0) >> 38 & 1
        ]


class Broken(Operation):
    name = "Broken"

    def show(self, context, messages):
        raise ValueError("surprising kernel file")

    def tune(self, context, messages):
        raise ValueError("surprising kernel file")


OPERATIONS = [Rate(), Irqbalance(), Turbo()]


def machine(tmp_path, files=ISOLATED_SPLIT, services=None, sysfs=None, **kwargs):
    root = build(tmp_path / "root", files)
    sysfs = sysfs(root) if sysfs else SysFS(root)
    services = FakeServiceManager({"irqbalance": True} if services is None else services)
    context = tuning.make_context(sysfs, services, is_root=True, **kwargs)
    return root, context


def state_path(root):
    return root / DEFAULT_STATE_FILE.lstrip("/")


def test_context_cpus(tmp_path):
    _, context = machine(tmp_path)
    assert (context.cpus, context.all_cpus) == ([1, 3], [0, 1, 2, 3])  # isolated CPUs by default
    _, context = machine(tmp_path / "a", affinity=[3, 2])
    assert context.cpus == [2, 3]  # --affinity wins over isolated CPUs (not as in pyperf)
    _, context = machine(tmp_path / "b", INTEL_LAPTOP)
    assert context.cpus == [0, 1, 2, 3]


def test_show_reports_and_counts_untuned(tmp_path):
    _, context = machine(tmp_path)
    report = tuning.show(context, OPERATIONS)
    assert report.messages.states == ["Rate: rate 100000"]
    assert report.messages.advices == ["Rate: set the rate to 1"]
    assert (report.tuned, report.exit_code, report.operations) == (False, 2, 3)


def test_tune_then_reset_puts_back_every_byte(tmp_path):
    root, context = machine(tmp_path)
    before = snapshot(root)
    report = tuning.tune(context, operations=OPERATIONS)
    assert report.messages.actions == [
        "Rate: rate set to 1",
        "IRQ: stop irqbalance",
        "Turbo: turbo off on CPU 1,3",
    ]
    assert report.exit_code == 0 and report.tuned
    assert (root / RATE.lstrip("/")).read_text() == "1"
    assert context.sysfs.read_msr(1, 0x1A0) >> 38 & 1 and not context.sysfs.read_msr(0, 0x1A0) >> 38 & 1
    assert context.services.services == {"irqbalance": False}
    saved = json.loads(state_path(root).read_text())
    assert [entry["kind"] for entry in saved["entries"]] == ["file", "service", "msr", "msr"]
    assert saved["entries"][0] == {"kind": "file", "path": RATE, "previous": "100000\n"}

    report = tuning.reset(context, operations=OPERATIONS)
    assert report.messages.errors == []
    assert report.messages.actions[0].startswith(
        f"Reset: restored {RATE}, the irqbalance service (running), bit 38 of MSR 0x1a0 on CPU 1, "
        "bit 38 of MSR 0x1a0 on CPU 3 (saved by tune on "
    )
    assert report.messages.actions[1] == f"Reset: removed {state_path(root)}"
    assert snapshot(root) == before
    assert context.services.services == {"irqbalance": True}


def test_tune_twice_keeps_the_first_state(tmp_path):
    root, context = machine(tmp_path)
    tuning.tune(context, operations=OPERATIONS)
    (root / RATE.lstrip("/")).write_text("50\n")  # someone changed it in between
    report = tuning.tune(context, operations=OPERATIONS)
    assert report.messages.actions == ["Rate: rate set to 1"]
    tuning.reset(context, operations=OPERATIONS)
    assert (root / RATE.lstrip("/")).read_text() == "100000\n"  # what it was before the first tune


class Watching(FaultySysFS):
    """Records the saved state at every write."""

    def __init__(self, root):
        super().__init__(root, errors={"/dev/cpu/3/msr": 5})
        self.seen = []

    def _record(self):
        path = state_path(pathlib.Path(self.root))
        self.seen.append(len(json.loads(path.read_text())["entries"]) if path.exists() else None)

    def write_text(self, path, text):
        self._record()
        super().write_text(path, text)

    def write_msr(self, cpu, register, value):
        self._record()
        super().write_msr(cpu, register, value)


def test_state_is_saved_before_the_first_write(tmp_path):
    root, context = machine(tmp_path, sysfs=Watching)
    report = tuning.tune(context, operations=OPERATIONS)
    assert context.sysfs.seen == [4, 4, 4]  # the rate, the MSR of CPU 1 and of CPU 3 (services are not files)
    assert report.messages.errors == [
        "Turbo: cannot set bit 38 of MSR 0x1a0 on CPU 3: Input/output error",
    ]
    assert report.exit_code == 1
    assert (root / RATE.lstrip("/")).read_text() == "1"  # the others went on
    # the MSR of CPU 3 did not change: nothing to restore there
    assert len(json.loads(state_path(root).read_text())["entries"]) == 3


def test_unreadable_value_is_not_changed(tmp_path):
    files = {key: value for key, value in VM.items()}
    root, context = machine(tmp_path, files)
    (root / RATE.lstrip("/")).unlink()
    report = tuning.tune(context, operations=[Rate(), Irqbalance()])
    assert report.messages.actions == ["IRQ: stop irqbalance"]  # Rate is not available any more


def test_actions_differing_by_a_cpu_or_irq_are_one_line():
    assert tuning.group_actions(
        [
            "F: Governor of CPU 1 set to performance",
            "P: Max sample rate set to 1 per second",
            "F: Governor of CPU 3 set to performance",
            "F: Governor of CPU 2 set to performance",
            "I: Affinity of IRQ 30 set to CPU 0,2",
            "I: Affinity of IRQ 31 set to CPU 0,2",
            "I: Affinity of IRQ 9 set to CPU 0,2",
            "T: Turbo Boost disabled on CPU 12",
        ]
    ) == [
        "F: Governor of CPU 1-3 set to performance",
        "P: Max sample rate set to 1 per second",
        "I: Affinity of IRQ 9,30-31 set to CPU 0,2",
        "T: Turbo Boost disabled on CPU 12",
    ]


def test_not_root_changes_nothing(tmp_path):
    root, context = machine(tmp_path)
    context.is_root = False
    before = snapshot(root)
    for action in (tuning.tune, tuning.reset):
        with pytest.raises(SystemTuningError, match=r"writes to /sys and /proc: run it as root \(or use --dry-run\)"):
            action(context, operations=OPERATIONS)
    assert snapshot(root) == before


def test_dry_run_writes_nothing(tmp_path):
    root, context = machine(tmp_path)
    context.is_root = False  # allowed: nothing is written
    before = snapshot(root)
    report = tuning.tune(context, dry_run=True, operations=OPERATIONS)
    assert report.messages.actions == [
        f"Rate: would write '1' into {RATE}",
        "IRQ: would stop the irqbalance service",
        "Turbo: would set bit 38 of MSR 0x1a0 on CPU 1",
        "Turbo: would set bit 38 of MSR 0x1a0 on CPU 3",
    ]
    assert snapshot(root) == before and context.services.services == {"irqbalance": True}
    context.is_root = True
    tuning.tune(context, operations=OPERATIONS)
    tuned = snapshot(root)
    context.is_root = False
    report = tuning.reset(context, dry_run=True, operations=OPERATIONS)
    assert report.messages.actions[0] == f"Reset: would restore {RATE} to '100000\\n'"
    assert snapshot(root) == tuned


def test_reset_without_state_writes_defaults_and_says_so(tmp_path):
    root, context = machine(tmp_path)
    (root / RATE.lstrip("/")).write_text("1\n")
    report = tuning.reset(context, operations=OPERATIONS)
    assert report.messages.warnings[0].startswith(f"Reset: no saved state in {state_path(root)} (no tune since")
    assert report.messages.actions == ["Rate: rate set to 100000"]
    assert (root / RATE.lstrip("/")).read_text() == "100000"
    assert report.exit_code == 0


def test_failed_restore_keeps_the_state(tmp_path):
    root, context = machine(tmp_path)
    tuning.tune(context, operations=OPERATIONS)
    context.sysfs = FaultySysFS(root, read_only=[RATE])
    report = tuning.reset(context, operations=OPERATIONS)
    assert report.messages.errors == [
        f"Reset: cannot restore {RATE}: Permission denied",
        f"Reset: kept {state_path(root)}: fix the errors above, then run reset again",
    ]
    assert state_path(root).exists()
    context.sysfs = SysFS(root)
    assert tuning.reset(context, operations=OPERATIONS).exit_code == 0
    assert not state_path(root).exists()


def test_broken_operation_is_an_error_not_a_crash(tmp_path):
    _, context = machine(tmp_path)
    report = tuning.tune(context, operations=[Broken(), Rate()])
    assert "Broken: failed: ValueError: surprising kernel file" in report.messages.errors
    assert report.messages.actions == ["Rate: rate set to 1"]


def test_corrupt_state_file_is_an_error(tmp_path):
    root, context = machine(tmp_path)
    state_path(root).parent.mkdir(parents=True)
    state_path(root).write_text("{")
    before = snapshot(root)
    with pytest.raises(SystemTuningError, match="cannot read the saved state"):
        tuning.reset(context, operations=OPERATIONS)
    with pytest.raises(SystemTuningError, match="cannot read the saved state"):
        tuning.tune(context, operations=OPERATIONS)
    assert snapshot(root) == before


class Irq(Operation):
    name = "IRQ"

    def tune(self, context, messages):
        return [
            FileChange(f"/proc/irq/{irq}/smp_affinity", "1", f"Affinity of IRQ {irq} set to CPU 0", ignore_errno=(5,))
            for irq in (0, 9)
        ]


def test_what_tune_could_not_change_is_not_restored(tmp_path):
    """IRQ 9 refuses to move (EIO): its entry leaves the state, so reset
    does not fail on it forever."""
    root, context = machine(tmp_path, sysfs=lambda root: FaultySysFS(root, errors={"/proc/irq/9/smp_affinity": 5}))
    before = snapshot(root)
    report = tuning.tune(context, operations=[Irq()])
    assert report.messages.actions == ["IRQ: Affinity of IRQ 0 set to CPU 0"]
    assert report.messages.errors == []
    paths = [entry["path"] for entry in json.loads(state_path(root).read_text())["entries"]]
    assert paths == ["/proc/irq/0/smp_affinity"]
    report = tuning.reset(context, operations=[Irq()])
    assert report.exit_code == 0, report.messages.errors
    assert snapshot(root) == before


def test_a_tune_that_changed_nothing_leaves_no_state(tmp_path):
    root, context = machine(
        tmp_path, sysfs=lambda root: FaultySysFS(root, errors={f"/proc/irq/{irq}/smp_affinity": 5 for irq in (0, 9)})
    )
    tuning.tune(context, operations=[Irq()])
    assert not state_path(root).exists()


def test_reset_does_not_write_what_is_already_back(tmp_path):
    root, context = machine(tmp_path)
    tuning.tune(context, operations=[Rate()])
    (root / RATE.lstrip("/")).write_text("100000\n")  # put back by hand
    context.sysfs = FaultySysFS(root, read_only=[RATE])
    report = tuning.reset(context, operations=[Rate()])
    assert report.exit_code == 0 and not state_path(root).exists()
