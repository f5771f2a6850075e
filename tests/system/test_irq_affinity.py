"""perf.system.irq_affinity: irqbalance and the CPU masks of /proc/irq on
fake machines."""

from __future__ import annotations

import errno

import pytest
from system_fakes import AMD_BOX, CPU, INTEL_LAPTOP, ISOLATED_SPLIT, VM, FakeServiceManager, build, snapshot

from perf.platform.cpus import parse_cpu_list
from perf.platform.sysfs import SysFS
from perf.system.irq_affinity import IRQAffinity
from perf.system.operation import Context, FileChange, Messages, ServiceChange

PREFIX = "IRQ affinity: "
DEFAULT = "/proc/irq/default_smp_affinity"
NOWHERE = (
    f"{PREFIX}Every CPU runs benchmarks, so interrupts cannot move away from them: "
    "isolate CPUs (isolcpus= kernel parameter) or choose the benchmark CPUs with --affinity"
)
STOP = ServiceChange("irqbalance", False, "irqbalance service stopped")
START = ServiceChange("irqbalance", True, "irqbalance service started")


def irq_context(root, files, cpus=None, irqbalance=None):
    build(root, files)
    all_cpus = parse_cpu_list(files[f"{CPU}/online"])
    services = FakeServiceManager({} if irqbalance is None else {"irqbalance": irqbalance})
    return Context(SysFS(root), services, cpus or all_cpus, all_cpus, True)


def masks(files, irqs, mask):
    """*files* with the smp_affinity of *irqs* set to *mask*."""
    return {**files, **{f"/proc/irq/{irq}/smp_affinity": f"{mask}\n" for irq in irqs}}


def irq_change(irq, mask, cpus):
    return FileChange(
        f"/proc/irq/{irq}/smp_affinity", mask, f"Affinity of IRQ {irq} set to CPU {cpus}", ignore_errno=(errno.EIO,)
    )


def run(context):
    results = {}
    for method in ("show", "tune", "defaults"):
        messages = Messages()
        changes = getattr(IRQAffinity(), method)(context, messages)
        results[method] = (list(changes or ()), messages)
    return results


@pytest.mark.parametrize("files", [INTEL_LAPTOP, AMD_BOX, VM, ISOLATED_SPLIT])
def test_available_with_proc_irq(tmp_path, files):
    assert IRQAffinity().available(irq_context(tmp_path, files))


def test_not_available_without_proc_irq(tmp_path):
    files = {path: text for path, text in VM.items() if not path.startswith("/proc/irq/")}
    assert not IRQAffinity().available(irq_context(tmp_path, files))


def test_isolated_split(tmp_path):
    context = irq_context(tmp_path, ISOLATED_SPLIT, cpus=[1, 3], irqbalance=False)
    before = snapshot(tmp_path)
    results = run(context)
    messages = results["show"][1]
    assert messages.states == [
        f"{PREFIX}irqbalance service: inactive",
        f"{PREFIX}Default IRQ affinity: CPU 0-3",
        f"{PREFIX}IRQ 0,9,30-31=CPU 0-3",
    ]
    assert messages.advices == [
        f"{PREFIX}Move interrupts to CPU 0,2, away from the benchmark CPUs 1,3: "
        "they are in the default affinity and in the affinity of IRQ 0,9,30-31"
    ]
    assert messages.not_tuned == ["IRQ affinity"]
    assert messages.errors == messages.warnings == []
    assert results["tune"] == (
        [
            FileChange(DEFAULT, "5", "Default IRQ affinity set to CPU 0,2"),
            irq_change(0, "5", "0,2"),
            irq_change(9, "5", "0,2"),
            irq_change(30, "5", "0,2"),
            irq_change(31, "5", "0,2"),
        ],
        Messages(),
    )
    # every interrupt already runs everywhere: only irqbalance to start
    assert results["defaults"] == ([START], Messages())
    assert snapshot(tmp_path) == before


def test_isolated_split_tuned(tmp_path):
    files = masks({**ISOLATED_SPLIT, DEFAULT: "5\n"}, [0, 9, 30, 31], "5")
    results = run(irq_context(tmp_path, files, cpus=[1, 3], irqbalance=False))
    messages = results["show"][1]
    assert messages.states == [
        f"{PREFIX}irqbalance service: inactive",
        f"{PREFIX}Default IRQ affinity: CPU 0,2",
        f"{PREFIX}IRQ 0,9,30-31=CPU 0,2",
    ]
    assert messages.advices == messages.not_tuned == []
    assert results["tune"] == ([], Messages())
    assert results["defaults"][0] == [
        FileChange(DEFAULT, "f", "Default IRQ affinity set to CPU 0-3"),
        irq_change(0, "f", "0-3"),
        irq_change(9, "f", "0-3"),
        irq_change(30, "f", "0-3"),
        irq_change(31, "f", "0-3"),
        START,
    ]


def test_only_the_irqs_on_benchmark_cpus_move(tmp_path):
    # IRQ 9 stays on CPU 0, IRQ 30 on CPU 2
    files = masks(masks(ISOLATED_SPLIT, [9], "1"), [30], "4")
    results = run(irq_context(tmp_path, files, cpus=[1, 3]))
    messages = results["show"][1]
    assert messages.states == [
        f"{PREFIX}Default IRQ affinity: CPU 0-3",
        f"{PREFIX}IRQ 0,31=CPU 0-3; IRQ 9=CPU 0; IRQ 30=CPU 2",
    ]
    assert messages.advices == [
        f"{PREFIX}Move interrupts to CPU 0,2, away from the benchmark CPUs 1,3: "
        "they are in the default affinity and in the affinity of IRQ 0,31"
    ]
    assert results["tune"][0] == [
        FileChange(DEFAULT, "5", "Default IRQ affinity set to CPU 0,2"),
        irq_change(0, "5", "0,2"),
        irq_change(31, "5", "0,2"),
    ]
    # irqbalance is not installed: nothing to start
    assert results["defaults"][0] == [irq_change(9, "f", "0-3"), irq_change(30, "f", "0-3")]


def test_only_the_default_on_benchmark_cpus(tmp_path):
    files = masks(ISOLATED_SPLIT, [0, 9, 30, 31], "5")
    results = run(irq_context(tmp_path, files, cpus=[1, 3]))
    assert results["show"][1].advices == [
        f"{PREFIX}Move interrupts to CPU 0,2, away from the benchmark CPUs 1,3: they are in the default affinity"
    ]
    assert results["tune"][0] == [FileChange(DEFAULT, "5", "Default IRQ affinity set to CPU 0,2")]


def test_amd_box_irqbalance_every_cpu(tmp_path):
    context = irq_context(tmp_path, AMD_BOX, irqbalance=True)
    results = run(context)
    messages = results["show"][1]
    assert messages.states == [
        f"{PREFIX}irqbalance service: active",
        f"{PREFIX}Default IRQ affinity: CPU 0-7",
        f"{PREFIX}IRQ 0,4,24-26=CPU 0-7",
    ]
    assert messages.advices == [
        f"{PREFIX}Stop the irqbalance service: it may move interrupts onto the benchmark CPUs",
        NOWHERE,
    ]
    assert messages.not_tuned == ["IRQ affinity"]
    # nowhere to move the interrupts: only irqbalance stops
    changes, messages = results["tune"]
    assert changes == [STOP]
    assert messages.advices == [NOWHERE]
    assert results["defaults"] == ([], Messages())


def test_amd_box_second_node(tmp_path):
    # --affinity 4-7: the interrupts go to the first node; masks keep their width
    results = run(irq_context(tmp_path, AMD_BOX, cpus=[4, 5, 6, 7], irqbalance=True))
    assert results["tune"] == (
        [
            STOP,
            FileChange(DEFAULT, "0f", "Default IRQ affinity set to CPU 0-3"),
            *(irq_change(irq, "0f", "0-3") for irq in (0, 4, 24, 25, 26)),
        ],
        Messages(),
    )


def test_every_cpu_is_a_benchmark_cpu(tmp_path):
    # not tuned, but tune cannot help: an advice, no exit status 2
    results = run(irq_context(tmp_path, VM))
    messages = results["show"][1]
    assert messages.states == [f"{PREFIX}Default IRQ affinity: CPU 0-1", f"{PREFIX}IRQ 24-26,28=CPU 0-1"]
    assert messages.advices == [NOWHERE]
    assert messages.not_tuned == []
    changes, messages = results["tune"]
    assert changes == []
    assert messages.advices == [NOWHERE]


def test_irqs_in_numeric_order(tmp_path):
    results = run(irq_context(tmp_path, INTEL_LAPTOP, cpus=[1, 3]))
    assert results["show"][1].states == [
        f"{PREFIX}Default IRQ affinity: CPU 0-3",
        f"{PREFIX}IRQ 0-1,8-9,16,120=CPU 0-3",
    ]
    changes = results["tune"][0]
    assert [change.path for change in changes] == [
        DEFAULT,
        *(f"/proc/irq/{irq}/smp_affinity" for irq in (0, 1, 8, 9, 16, 120)),
    ]


def test_comma_separated_masks(tmp_path):
    files = masks({**ISOLATED_SPLIT, DEFAULT: "00000000,0000000f\n"}, [0, 9, 30, 31], "00000000,0000000f")
    results = run(irq_context(tmp_path, files, cpus=[1, 3]))
    assert results["show"][1].states == [
        f"{PREFIX}Default IRQ affinity: CPU 0-3",
        f"{PREFIX}IRQ 0,9,30-31=CPU 0-3",
    ]
    assert results["tune"][0] == [
        FileChange(DEFAULT, "00000000,00000005", "Default IRQ affinity set to CPU 0,2"),
        *(irq_change(irq, "00000000,00000005", "0,2") for irq in (0, 9, 30, 31)),
    ]


def test_missing_default_affinity(tmp_path):
    files = dict(ISOLATED_SPLIT)
    del files[DEFAULT]
    results = run(irq_context(tmp_path, files, cpus=[1, 3]))
    for method, (_changes, messages) in results.items():
        assert messages.errors == [f"{PREFIX}Unable to read {DEFAULT}"], method
    assert results["show"][1].states == [f"{PREFIX}IRQ 0,9,30-31=CPU 0-3"]
    assert [change.path for change in results["tune"][0]] == [f"/proc/irq/{irq}/smp_affinity" for irq in (0, 9, 30, 31)]


def test_unexpected_default_affinity(tmp_path):
    results = run(irq_context(tmp_path, {**ISOLATED_SPLIT, DEFAULT: "zz\n"}, cpus=[1, 3]))
    assert results["show"][1].errors == [f"{PREFIX}Unexpected value 'zz' in {DEFAULT}"]


def test_irq_without_affinity_file_is_skipped(tmp_path):
    files = dict(ISOLATED_SPLIT)
    del files["/proc/irq/9/smp_affinity"]
    results = run(irq_context(tmp_path, files, cpus=[1, 3]))
    assert results["show"][1].states[-1] == f"{PREFIX}IRQ 0,30-31=CPU 0-3"
    assert results["show"][1].errors == []
    assert "/proc/irq/9/smp_affinity" not in [change.path for change in results["tune"][0]]


@pytest.mark.parametrize(("irqbalance", "state"), [(True, "active"), (False, "inactive")])
def test_irqbalance_state(tmp_path, irqbalance, state):
    files = masks({**ISOLATED_SPLIT, DEFAULT: "5\n"}, [0, 9, 30, 31], "5")
    results = run(irq_context(tmp_path, files, cpus=[1, 3], irqbalance=irqbalance))
    messages = results["show"][1]
    assert messages.states[0] == f"{PREFIX}irqbalance service: {state}"
    assert messages.not_tuned == (["IRQ affinity"] if irqbalance else [])
    assert results["tune"][0] == ([STOP] if irqbalance else [])


def test_only_irqs_on_benchmark_cpus(tmp_path):
    files = masks({**ISOLATED_SPLIT, DEFAULT: "5\n"}, [9, 30, 31], "5")
    results = run(irq_context(tmp_path, files, cpus=[1, 3]))
    assert results["show"][1].advices == [
        f"{PREFIX}Move interrupts to CPU 0,2, away from the benchmark CPUs 1,3: they are in the affinity of IRQ 0"
    ]
    assert results["tune"][0] == [irq_change(0, "5", "0,2")]


def test_interrupts_never_move_onto_isolated_cpus(tmp_path):
    """--affinity 3 on a box with CPUs 1 and 3 isolated: interrupts go to
    0 and 2, not to the isolated CPU 1 that runs no benchmark now."""
    results = run(irq_context(tmp_path, ISOLATED_SPLIT, cpus=[3]))
    assert results["show"][1].advices == [
        f"{PREFIX}Move interrupts to CPU 0,2, away from the benchmark CPU 3: "
        "they are in the default affinity and in the affinity of IRQ 0,9,30-31"
    ]
    assert results["tune"][0][0] == FileChange(DEFAULT, "5", "Default IRQ affinity set to CPU 0,2")


def test_isolated_cpus_take_interrupts_when_nothing_else_is_left(tmp_path):
    files = {**ISOLATED_SPLIT, f"{CPU}/isolated": "1-3\n"}
    results = run(irq_context(tmp_path, files, cpus=[0]))
    assert results["tune"][0][0] == FileChange(DEFAULT, "e", "Default IRQ affinity set to CPU 1-3")
