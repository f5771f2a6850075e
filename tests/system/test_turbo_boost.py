"""perf.system.turbo_boost: Turbo Boost through intel_pstate, the cpufreq
boost switch and the MSR 0x1A0, on fake machines."""

from __future__ import annotations

import errno
import os

import pytest
from system_fakes import (
    AMD_BOX,
    CPU,
    INTEL_LAPTOP,
    ISOLATED_SPLIT,
    VM,
    FakeServiceManager,
    build,
    msr_file,
    snapshot,
)

from perf.platform.cpus import parse_cpu_list
from perf.platform.sysfs import SysFS
from perf.system.operation import Context, FileChange, Messages, MsrChange
from perf.system.turbo_boost import TurboBoostCpufreq, TurboBoostIntelPstate, TurboBoostMSR

NO_TURBO = f"{CPU}/intel_pstate/no_turbo"
BOOST = f"{CPU}/cpufreq/boost"
ADVICE = "Disable Turbo Boost: it makes the CPU frequency vary with the temperature and the load"
TURBO_OFF = msr_file(0x850089 | 1 << 38)


def turbo_context(root, files, cpus=None, is_root=True, sysfs=None):
    build(root, files)
    all_cpus = parse_cpu_list(files[f"{CPU}/online"])
    sysfs = sysfs if sysfs is not None else SysFS(root)
    return Context(sysfs, FakeServiceManager(), cpus or all_cpus, all_cpus, is_root)


def without(files, *paths):
    return {path: content for path, content in files.items() if path not in paths}


def run(operation, context):
    """show, tune and defaults, each with its own messages."""
    results = {}
    for method in ("show", "tune", "defaults"):
        messages = Messages()
        changes = getattr(operation, method)(context, messages)
        results[method] = (list(changes or ()), messages)
    return results


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (INTEL_LAPTOP, ["Turbo Boost (intel_pstate)"]),
        (AMD_BOX, ["Turbo Boost (cpufreq)"]),
        (VM, ["Turbo Boost (MSR)"]),
        (ISOLATED_SPLIT, ["Turbo Boost (MSR)"]),
        # AMD without the boost switch: never the MSR (it means something else on AMD)
        (without(AMD_BOX, BOOST), []),
        # an Intel CPU with a cpufreq boost switch: the switch, not the MSR
        ({**ISOLATED_SPLIT, BOOST: "1\n"}, ["Turbo Boost (cpufreq)"]),
        # both files: both switches
        ({**INTEL_LAPTOP, BOOST: "1\n"}, ["Turbo Boost (intel_pstate)", "Turbo Boost (cpufreq)"]),
        # a virtual machine that says so: the host owns the frequency
        (
            {**VM, "/proc/cpuinfo": VM["/proc/cpuinfo"].replace("\n\n", "\nflags\t\t: fpu sse2 hypervisor lm\n\n")},
            [],
        ),
        (without(VM, "/proc/cpuinfo"), []),
    ],
)
def test_available_where_the_switch_applies(tmp_path, files, expected):
    context = turbo_context(tmp_path, files)
    operations = [TurboBoostIntelPstate(), TurboBoostCpufreq(), TurboBoostMSR()]
    assert [operation.name for operation in operations if operation.available(context)] == expected


def test_intel_pstate_turbo_on(tmp_path):
    context = turbo_context(tmp_path, INTEL_LAPTOP)
    before = snapshot(tmp_path)
    results = run(TurboBoostIntelPstate(), context)
    messages = results["show"][1]
    assert messages.states == ["Turbo Boost (intel_pstate): Turbo Boost enabled"]
    assert messages.advices == [f"Turbo Boost (intel_pstate): {ADVICE}"]
    assert messages.not_tuned == ["Turbo Boost (intel_pstate)"]
    assert messages.errors == messages.warnings == []
    assert results["tune"][0] == [FileChange(NO_TURBO, "1", "Turbo Boost disabled")]
    assert results["defaults"][0] == []
    assert snapshot(tmp_path) == before


def test_intel_pstate_turbo_off(tmp_path):
    context = turbo_context(tmp_path, {**INTEL_LAPTOP, NO_TURBO: "1\n"})
    results = run(TurboBoostIntelPstate(), context)
    messages = results["show"][1]
    assert messages.states == ["Turbo Boost (intel_pstate): Turbo Boost disabled"]
    assert messages.advices == messages.not_tuned == []
    assert results["tune"][0] == []
    assert results["defaults"][0] == [FileChange(NO_TURBO, "0", "Turbo Boost enabled")]


def test_cpufreq_boost_on(tmp_path):
    context = turbo_context(tmp_path, AMD_BOX)
    results = run(TurboBoostCpufreq(), context)
    messages = results["show"][1]
    assert messages.states == ["Turbo Boost (cpufreq): Turbo Boost enabled"]
    assert messages.advices == [f"Turbo Boost (cpufreq): {ADVICE}"]
    assert messages.not_tuned == ["Turbo Boost (cpufreq)"]
    assert results["tune"][0] == [FileChange(BOOST, "0", "Turbo Boost disabled")]
    assert results["defaults"][0] == []


def test_cpufreq_boost_off(tmp_path):
    context = turbo_context(tmp_path, {**AMD_BOX, BOOST: "0\n"})
    results = run(TurboBoostCpufreq(), context)
    messages = results["show"][1]
    assert messages.states == ["Turbo Boost (cpufreq): Turbo Boost disabled"]
    assert messages.not_tuned == []
    assert results["tune"][0] == []
    assert results["defaults"][0] == [FileChange(BOOST, "1", "Turbo Boost enabled")]


@pytest.mark.parametrize(
    ("operation", "files", "path"),
    [(TurboBoostIntelPstate(), INTEL_LAPTOP, NO_TURBO), (TurboBoostCpufreq(), AMD_BOX, BOOST)],
)
def test_switch_unreadable(tmp_path, operation, files, path):
    # a directory in place of the file: it exists but cannot be read
    context = turbo_context(tmp_path, {**without(files, path), f"{path}/oops": ""})
    assert operation.available(context)
    for method, (changes, messages) in run(operation, context).items():
        assert changes == [], method
        assert messages.errors == [f"{operation.name}: Unable to read {path}"], method
        assert messages.states == messages.not_tuned == []


def test_switch_unexpected_value(tmp_path):
    context = turbo_context(tmp_path, {**AMD_BOX, BOOST: "2\n"})
    for method, (changes, messages) in run(TurboBoostCpufreq(), context).items():
        assert changes == [], method
        assert messages.errors == [f"Turbo Boost (cpufreq): Unexpected value '2' in {BOOST}"], method


def test_msr_turbo_on_for_benchmark_cpus(tmp_path):
    context = turbo_context(tmp_path, ISOLATED_SPLIT, cpus=[1, 3])
    before = snapshot(tmp_path)
    results = run(TurboBoostMSR(), context)
    messages = results["show"][1]
    assert messages.states == ["Turbo Boost (MSR): Turbo Boost enabled on CPU 1,3"]
    assert messages.advices == [f"Turbo Boost (MSR): {ADVICE}"]
    assert messages.not_tuned == ["Turbo Boost (MSR)"]
    assert messages.warnings == messages.errors == []
    assert results["tune"][0] == [
        MsrChange(1, 0x1A0, 38, True, "Turbo Boost disabled on CPU 1"),
        MsrChange(3, 0x1A0, 38, True, "Turbo Boost disabled on CPU 3"),
    ]
    assert results["defaults"][0] == []
    assert snapshot(tmp_path) == before


def test_msr_mixed(tmp_path):
    files = {**ISOLATED_SPLIT, "/dev/cpu/0/msr": TURBO_OFF, "/dev/cpu/3/msr": TURBO_OFF}
    context = turbo_context(tmp_path, files, cpus=[1, 3])
    results = run(TurboBoostMSR(), context)
    messages = results["show"][1]
    assert messages.states == ["Turbo Boost (MSR): Turbo Boost enabled on CPU 1, disabled on CPU 3"]
    assert messages.not_tuned == ["Turbo Boost (MSR)"]
    assert results["tune"][0] == [MsrChange(1, 0x1A0, 38, True, "Turbo Boost disabled on CPU 1")]
    # defaults: every CPU, not only the benchmark ones
    assert results["defaults"][0] == [
        MsrChange(0, 0x1A0, 38, False, "Turbo Boost enabled on CPU 0"),
        MsrChange(3, 0x1A0, 38, False, "Turbo Boost enabled on CPU 3"),
    ]


def test_msr_turbo_off(tmp_path):
    files = {**ISOLATED_SPLIT, **{f"/dev/cpu/{cpu}/msr": TURBO_OFF for cpu in range(4)}}
    context = turbo_context(tmp_path, files, cpus=[1, 3])
    results = run(TurboBoostMSR(), context)
    messages = results["show"][1]
    assert messages.states == ["Turbo Boost (MSR): Turbo Boost disabled on CPU 1,3"]
    assert messages.advices == messages.not_tuned == []
    assert results["tune"][0] == []
    assert [change.cpu for change in results["defaults"][0]] == [0, 1, 2, 3]


def test_msr_module_not_loaded(tmp_path):
    context = turbo_context(tmp_path, VM)
    warning = (
        "Turbo Boost (MSR): Unable to read MSR 0x1a0 of CPU 0-1: no /dev/cpu/N/msr; "
        "load the msr kernel module (modprobe msr)"
    )
    for method, (changes, messages) in run(TurboBoostMSR(), context).items():
        assert changes == [], method
        assert messages.warnings == [warning], method
        assert messages.errors == messages.states == messages.not_tuned == [], method


def test_msr_missing_for_one_cpu(tmp_path):
    context = turbo_context(tmp_path, without(ISOLATED_SPLIT, "/dev/cpu/3/msr"), cpus=[1, 3])
    results = run(TurboBoostMSR(), context)
    messages = results["show"][1]
    assert messages.states == ["Turbo Boost (MSR): Turbo Boost enabled on CPU 1"]
    assert messages.warnings == [
        "Turbo Boost (MSR): Unable to read MSR 0x1a0 of CPU 3: no /dev/cpu/3/msr; "
        "load the msr kernel module (modprobe msr)"
    ]
    assert results["tune"][0] == [MsrChange(1, 0x1A0, 38, True, "Turbo Boost disabled on CPU 1")]


class RefusingSysFS(SysFS):
    """MSRs that raise *code* when read."""

    def __init__(self, root, code):
        super().__init__(root)
        self.code = code

    def read_msr(self, cpu, register):
        raise OSError(self.code, os.strerror(self.code), self.path(f"/dev/cpu/{cpu}/msr"))


@pytest.mark.parametrize(
    ("code", "is_root", "reason"),
    [
        (errno.EACCES, False, "permission denied; run as root"),
        (errno.EPERM, True, "permission denied; run as root"),
        (errno.EIO, False, "permission denied; run as root"),
        (errno.EIO, True, os.strerror(errno.EIO)),
    ],
)
def test_msr_unreadable(tmp_path, code, is_root, reason):
    sysfs = RefusingSysFS(tmp_path, code)
    context = turbo_context(tmp_path, ISOLATED_SPLIT, is_root=is_root, sysfs=sysfs)
    changes, messages = run(TurboBoostMSR(), context)["tune"]
    assert changes == []
    assert messages.warnings == [f"Turbo Boost (MSR): Unable to read MSR 0x1a0 of CPU 0-3: {reason}"]
    assert messages.errors == []
