"""The Turbo Boost operations: the frequency boost of the CPUs, through
whichever switch this machine has.

* ``Turbo Boost (intel_pstate)``: ``intel_pstate/no_turbo`` ("1" turns
  the boost off), on Intel CPUs driven by intel_pstate.
* ``Turbo Boost (cpufreq)``: the global ``cpufreq/boost`` switch ("0"
  turns it off) of acpi-cpufreq, amd-pstate and other cpufreq drivers.
  Writing it sets the per-policy ``cpufreq/policyN/boost`` files of newer
  kernels too, so those are not read.
* ``Turbo Boost (MSR)``: bit 38 of the model-specific register 0x1A0
  (IA32_MISC_ENABLE; set means turbo disabled), per CPU, on Intel CPUs
  that have neither file.  That register means something else on AMD
  CPUs, so this operation never applies to them; nor to virtual machines,
  where the host owns the frequency.

A boosted frequency depends on the temperature and on how many cores are
busy, so ``tune`` plans turning the boost off; ``reset`` without a saved
state plans turning it back on.

Must not: print, exit, write to the system.
"""

from __future__ import annotations

import errno
from typing import ClassVar, Sequence

from perf.platform.cpus import format_cpu_list
from perf.system.operation import Change, Context, FileChange, Messages, MsrChange, Operation

CPU_DIR = "/sys/devices/system/cpu"
INTEL_PSTATE_NO_TURBO = f"{CPU_DIR}/intel_pstate/no_turbo"
CPUFREQ_BOOST = f"{CPU_DIR}/cpufreq/boost"
#: IA32_MISC_ENABLE and its "Turbo Mode Disable" bit
MSR_IA32_MISC_ENABLE = 0x1A0
TURBO_DISABLE_BIT = 38

ADVICE = "Disable Turbo Boost: it makes the CPU frequency vary with the temperature and the load"


class TurboBoostIntelPstate(Operation):
    """A kernel file that turns the boost on or off for every CPU (the
    cpufreq switch is the same operation on another file)."""

    name = "Turbo Boost (intel_pstate)"
    path: ClassVar[str] = INTEL_PSTATE_NO_TURBO
    #: the contents of *path* when the boost is off, and when it is on
    off_text: ClassVar[str] = "1"
    on_text: ClassVar[str] = "0"

    def available(self, context: Context) -> bool:
        return context.sysfs.exists(self.path)

    def read(self, context: Context, messages: Messages) -> bool | None:
        """Whether the boost is on, or None (after an error) when unknown."""
        states = {self.on_text: True, self.off_text: False}
        enabled, problem = self.read_value(context, self.path, states.get)
        if enabled is None:
            self.error(messages, problem)
        return enabled

    def show(self, context: Context, messages: Messages) -> None:
        enabled = self.read(context, messages)
        if enabled is None:
            return
        self.state(messages, "Turbo Boost enabled" if enabled else "Turbo Boost disabled")
        if enabled:
            self.not_tuned(messages, ADVICE)

    def tune(self, context: Context, messages: Messages) -> Sequence[Change]:
        if self.read(context, messages) is not True:
            return ()
        return (FileChange(self.path, self.off_text, "Turbo Boost disabled"),)

    def defaults(self, context: Context, messages: Messages) -> Sequence[Change]:
        if self.read(context, messages) is not False:
            return ()
        return (FileChange(self.path, self.on_text, "Turbo Boost enabled"),)


class TurboBoostCpufreq(TurboBoostIntelPstate):
    name = "Turbo Boost (cpufreq)"
    path = CPUFREQ_BOOST
    off_text = "0"
    on_text = "1"


def _cpuinfo_field(context: Context, key: str) -> str | None:
    """The value of *key* for the first CPU of ``/proc/cpuinfo``."""
    for line in context.sysfs.read_lines("/proc/cpuinfo"):
        name, sep, value = line.partition(":")
        if sep and name.strip() == key:
            return value.strip()
    return None


def _read_failure(exc: OSError, is_root: bool) -> str:
    """Why an MSR cannot be read, and what to do about it ("{msr}"
    stands for the device file)."""
    if exc.errno == errno.ENOENT:
        return "no {msr}; load the msr kernel module (modprobe msr)"
    if exc.errno in (errno.EACCES, errno.EPERM) or not is_root:
        return "permission denied; run as root"
    return exc.strerror or str(exc)


class TurboBoostMSR(Operation):
    name = "Turbo Boost (MSR)"

    def available(self, context: Context) -> bool:
        if context.sysfs.exists(INTEL_PSTATE_NO_TURBO) or context.sysfs.exists(CPUFREQ_BOOST):
            return False
        if _cpuinfo_field(context, "vendor_id") != "GenuineIntel":
            return False
        return "hypervisor" not in (_cpuinfo_field(context, "flags") or "").split()

    def read(self, context: Context, cpus: Sequence[int], messages: Messages) -> dict[int, bool]:
        """Whether the boost is on, for each CPU of *cpus* whose MSR can be
        read; one warning per reason for the others."""
        enabled: dict[int, bool] = {}
        failures: dict[str, list[int]] = {}
        for cpu in cpus:
            try:
                value = context.sysfs.read_msr(cpu, MSR_IA32_MISC_ENABLE)
            except OSError as exc:
                failures.setdefault(_read_failure(exc, context.is_root), []).append(cpu)
                continue
            enabled[cpu] = not value >> TURBO_DISABLE_BIT & 1
        for reason, failed in failures.items():
            device = f"/dev/cpu/{failed[0]}/msr" if len(failed) == 1 else "/dev/cpu/N/msr"
            self.warning(
                messages,
                f"Unable to read MSR {MSR_IA32_MISC_ENABLE:#x} of CPU {format_cpu_list(failed)}: "
                + reason.replace("{msr}", device),
            )
        return enabled

    def show(self, context: Context, messages: Messages) -> None:
        enabled = self.read(context, context.cpus, messages)
        if not enabled:
            return
        on = [cpu for cpu, value in enabled.items() if value]
        off = [cpu for cpu, value in enabled.items() if not value]
        parts = []
        if on:
            parts.append(f"enabled on CPU {format_cpu_list(on)}")
        if off:
            parts.append(f"disabled on CPU {format_cpu_list(off)}")
        self.state(messages, "Turbo Boost " + ", ".join(parts))
        if on:
            self.not_tuned(messages, ADVICE)

    def tune(self, context: Context, messages: Messages) -> Sequence[Change]:
        enabled = self.read(context, context.cpus, messages)
        return [
            MsrChange(cpu, MSR_IA32_MISC_ENABLE, TURBO_DISABLE_BIT, True, f"Turbo Boost disabled on CPU {cpu}")
            for cpu, value in enabled.items()
            if value
        ]

    def defaults(self, context: Context, messages: Messages) -> Sequence[Change]:
        enabled = self.read(context, context.all_cpus, messages)
        return [
            MsrChange(cpu, MSR_IA32_MISC_ENABLE, TURBO_DISABLE_BIT, False, f"Turbo Boost enabled on CPU {cpu}")
            for cpu, value in enabled.items()
            if not value
        ]
