"""Fake machines for the ``perf system`` tests: ``/sys``, ``/proc``,
``/dev/cpu`` and ``/run`` trees in a temporary folder, a fake service
manager, and a SysFS whose chosen files refuse writes (tests run as root,
for whom file permissions mean nothing).

Each machine is a dict {absolute path: content}; :func:`build` writes it
under a root.  Tests change a copy (``{**INTEL_LAPTOP, path: text}``) or
delete keys to make a file missing.
"""

from __future__ import annotations

import errno
import os
import pathlib

from perf.platform.services import ServiceManager
from perf.platform.sysfs import SysFS

CPU = "/sys/devices/system/cpu"
MSR_IA32_MISC_ENABLE = 0x1A0
TURBO_DISABLE_BIT = 38


def msr_file(value: int, register: int = MSR_IA32_MISC_ENABLE) -> bytes:
    """A fake /dev/cpu/N/msr: *value* at offset *register*."""
    return bytes(register) + value.to_bytes(8, "little")


def _cpus(count, siblings, freq=None, *, driver=None, governor=None, governors=None):
    files = {}
    for cpu in range(count):
        base = f"{CPU}/cpu{cpu}"
        files[f"{base}/topology/thread_siblings_list"] = siblings[cpu] + "\n"
        files[f"{base}/topology/core_id"] = f"{cpu % (count // 2 if count > 1 else 1)}\n"
        if freq is not None:
            low, high = freq
            files.update(
                {
                    f"{base}/cpufreq/scaling_driver": driver + "\n",
                    f"{base}/cpufreq/scaling_governor": governor + "\n",
                    f"{base}/cpufreq/scaling_available_governors": governors + "\n",
                    f"{base}/cpufreq/scaling_min_freq": f"{low}\n",
                    f"{base}/cpufreq/scaling_max_freq": f"{high}\n",
                    f"{base}/cpufreq/cpuinfo_min_freq": f"{low}\n",
                    f"{base}/cpufreq/cpuinfo_max_freq": f"{high}\n",
                }
            )
    return files


def _irqs(numbers, mask):
    files = {"/proc/irq/default_smp_affinity": mask + "\n"}
    for number in numbers:
        files[f"/proc/irq/{number}/smp_affinity"] = mask + "\n"
        files[f"/proc/irq/{number}/smp_affinity_list"] = "0-3\n"
    return files


def _cpuinfo(vendor, count, model):
    return "".join(f"processor\t: {cpu}\nvendor_id\t: {vendor}\nmodel name\t: {model}\n\n" for cpu in range(count))


COMMON = {
    "/proc/sys/kernel/perf_event_max_sample_rate": "100000\n",
    "/proc/sys/kernel/randomize_va_space": "2\n",
}

#: 4 logical CPUs (2 cores with Hyper-Threading: 0/2 and 1/3), intel_pstate
#: in powersave, Turbo Boost on, on mains power with a battery
INTEL_LAPTOP = {
    **COMMON,
    "/proc/cmdline": "BOOT_IMAGE=/vmlinuz-6.1 root=/dev/nvme0n1p2 ro quiet splash\n",
    "/proc/cpuinfo": _cpuinfo("GenuineIntel", 4, "Intel(R) Core(TM) i7-8565U CPU @ 1.80GHz"),
    f"{CPU}/online": "0-3\n",
    f"{CPU}/isolated": "\n",
    f"{CPU}/intel_pstate/no_turbo": "0\n",
    f"{CPU}/intel_pstate/status": "active\n",
    **_cpus(
        4,
        ["0,2", "1,3", "0,2", "1,3"],
        (400000, 4600000),
        driver="intel_pstate",
        governor="powersave",
        governors="performance powersave",
    ),
    **_irqs([0, 1, 8, 9, 16, 120], "f"),
    "/sys/devices/system/node/node0/cpulist": "0-3\n",
    "/sys/class/power_supply/AC/type": "Mains\n",
    "/sys/class/power_supply/AC/online": "1\n",
    "/sys/class/power_supply/BAT0/type": "Battery\n",
    "/sys/class/power_supply/BAT0/status": "Full\n",
}

#: 8 logical CPUs (4 cores, siblings N/N+4) on 2 NUMA nodes, acpi-cpufreq
#: with the global ``cpufreq/boost`` switch on, ondemand governor,
#: irqbalance running
AMD_BOX = {
    **COMMON,
    "/proc/cmdline": "BOOT_IMAGE=/vmlinuz-6.1 root=/dev/sda1 ro\n",
    "/proc/cpuinfo": _cpuinfo("AuthenticAMD", 8, "AMD EPYC 7302P 16-Core Processor"),
    f"{CPU}/online": "0-7\n",
    f"{CPU}/isolated": "\n",
    f"{CPU}/cpufreq/boost": "1\n",
    **_cpus(
        8,
        [f"{cpu % 4},{cpu % 4 + 4}" for cpu in range(8)],
        (1500000, 3000000),
        driver="acpi-cpufreq",
        governor="ondemand",
        governors="conservative ondemand userspace powersave performance schedutil",
    ),
    **_irqs([0, 4, 24, 25, 26], "ff"),
    "/sys/devices/system/node/node0/cpulist": "0-3\n",
    "/sys/devices/system/node/node1/cpulist": "4-7\n",
}

#: a virtual machine like the one the tests run on: 2 vCPUs, no cpufreq,
#: no power supply, no msr module (``/dev/cpu/N`` has only ``cpuid``)
VM = {
    **COMMON,
    "/proc/cmdline": "console=ttyS0 quiet reboot=k panic=1\n",
    "/proc/cpuinfo": _cpuinfo("GenuineIntel", 2, "Intel(R) Xeon(R) Processor"),
    f"{CPU}/online": "0-1\n",
    f"{CPU}/isolated": "\n",
    **_cpus(2, ["0", "1"]),
    **_irqs([24, 25, 26, 28], "3"),
    "/sys/devices/system/node/node0/cpulist": "0-1\n",
    "/dev/cpu/0/cpuid": "",
    "/dev/cpu/1/cpuid": "",
}

#: 4 logical CPUs (cores 0/1 and 2/3 are Hyper-Threading siblings) with
#: CPUs 1 and 3 isolated: each isolated CPU shares its core with a CPU
#: that runs everything else.  acpi-cpufreq on an Intel CPU: Turbo Boost
#: through MSR 0x1A0 (bit 38 clear: turbo on)
ISOLATED_SPLIT = {
    **COMMON,
    "/proc/cmdline": "BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=1,3 nohz_full=1,3 rcu_nocbs=1,3\n",
    "/proc/cpuinfo": _cpuinfo("GenuineIntel", 4, "Intel(R) Xeon(R) CPU E3-1220 v5 @ 3.00GHz"),
    f"{CPU}/online": "0-3\n",
    f"{CPU}/isolated": "1,3\n",
    f"{CPU}/nohz_full": "1,3\n",
    **_cpus(
        4,
        ["0-1", "0-1", "2-3", "2-3"],
        (800000, 3000000),
        driver="acpi-cpufreq",
        governor="ondemand",
        governors="ondemand performance powersave",
    ),
    **_irqs([0, 9, 30, 31], "f"),
    "/sys/devices/system/node/node0/cpulist": "0-3\n",
    **{f"/dev/cpu/{cpu}/msr": msr_file(0x850089) for cpu in range(4)},
}

MACHINES = {"intel_laptop": INTEL_LAPTOP, "amd_box": AMD_BOX, "vm": VM, "isolated_split": ISOLATED_SPLIT}


def build(root, files) -> pathlib.Path:
    """Write *files* under *root*; return the root."""
    root = pathlib.Path(root)
    for path, content in files.items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    return root


def snapshot(root) -> dict[str, bytes]:
    """Every file under *root* (relative path -> bytes), to compare trees."""
    root = pathlib.Path(root)
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


class FaultySysFS(SysFS):
    """A fake tree whose chosen files cannot be written: *read_only* paths
    raise EACCES, *errors* maps a path to the errno its writes raise."""

    def __init__(self, root, read_only=(), errors=None):
        super().__init__(root)
        self.errors = {path: errno.EACCES for path in read_only}
        self.errors.update(errors or {})

    def write_text(self, path, text):
        if path in self.errors:
            code = self.errors[path]
            raise OSError(code, os.strerror(code), self.path(path))
        super().write_text(path, text)

    def write_msr(self, cpu, register, value):
        path = f"/dev/cpu/{cpu}/msr"
        if path in self.errors:
            code = self.errors[path]
            raise OSError(code, os.strerror(code), self.path(path))
        super().write_msr(cpu, register, value)


class FakeServiceManager(ServiceManager):
    """Services in a dict (name -> running?); *fail*: start/stop fail."""

    def __init__(self, services=None, fail=False):
        super().__init__(systemctl="")
        self.services = dict(services or {})
        self.fail = fail
        self.calls = []

    def is_active(self, name):
        return self.services.get(name)

    def set_active(self, name, active):
        self.calls.append((name, active))
        if self.fail:
            return f"systemctl {'start' if active else 'stop'} {name} failed with exit code 1"
        self.services[name] = active
        return None


#: INTEL_LAPTOP on battery: the AC adapter is offline, the battery discharges
INTEL_ON_BATTERY = {
    **INTEL_LAPTOP,
    "/sys/class/power_supply/AC/online": "0\n",
    "/sys/class/power_supply/BAT0/status": "Discharging\n",
}

#: INTEL_LAPTOP with its second core (CPUs 1 and 3, both siblings)
#: isolated, tickless and with RCU callbacks offloaded; intel_pstate lets their
#: frequency move between 400 MHz and 4.6 GHz
INTEL_NOHZ_FULL = {
    **INTEL_LAPTOP,
    "/proc/cmdline": "BOOT_IMAGE=/vmlinuz-6.1 root=/dev/nvme0n1p2 ro isolcpus=1,3 nohz_full=1,3 rcu_nocbs=1,3\n",
    f"{CPU}/isolated": "1,3\n",
    f"{CPU}/nohz_full": "1,3\n",
}
