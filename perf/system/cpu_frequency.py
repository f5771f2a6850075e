"""The CPU frequency operation: the cpufreq governor and the frequency
range of each CPU, read from and planned for
``/sys/devices/system/cpu/cpuN/cpufreq/``.

Benchmarks want their CPUs at a fixed frequency: ``tune`` plans the
``performance`` governor (when the driver offers it), then the minimum
frequency raised to the maximum, on the benchmark CPUs only.  ``reset``
without a saved state plans, on every CPU, the minimum frequency back to
the lowest the hardware allows and the governor a Linux distribution
usually starts with: ``powersave`` for the drivers that have their own
governors (intel_pstate, amd-pstate-epp), else ``schedutil``, else
``ondemand``.

Must not: print, exit, write to the system.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from perf.platform.cpus import format_cpu_infos, format_cpu_list
from perf.system.operation import Change, Context, FileChange, Messages, Operation

CPU_DIR = "/sys/devices/system/cpu"
GOVERNOR = "scaling_governor"
GOVERNORS = "scaling_available_governors"
MIN_FREQ = "scaling_min_freq"
MAX_FREQ = "scaling_max_freq"
HARDWARE_MIN_FREQ = "cpuinfo_min_freq"
#: the files holding a frequency (in kHz)
FREQUENCIES = (MIN_FREQ, MAX_FREQ, HARDWARE_MIN_FREQ, "cpuinfo_max_freq")
TUNED_GOVERNOR = "performance"
#: drivers that implement their own "performance" and "powersave" policies
OWN_GOVERNORS_DRIVERS = ("intel_pstate", "amd-pstate-epp")
#: the usual default governors of the other drivers, by preference
DEFAULT_GOVERNORS = ("schedutil", "ondemand")


def cpufreq_path(cpu: int, key: str) -> str:
    return f"{CPU_DIR}/cpu{cpu}/cpufreq/{key}"


def format_mhz(khz: int) -> str:
    """A cpufreq frequency (kHz) in MHz: ``3000000`` -> ``"3000 MHz"``."""
    return f"{khz / 1000:g} MHz"


def _describe(values: dict[str, str]) -> str:
    parts = []
    if GOVERNOR in values:
        parts.append(f"governor {values[GOVERNOR]}")
    low, high = values.get(MIN_FREQ), values.get(MAX_FREQ)
    if low is not None and low == high:
        parts.append(f"min=max={format_mhz(int(low))}")
    else:
        parts.extend(f"{label}={format_mhz(int(text))}" for label, text in (("min", low), ("max", high)) if text)
    return ", ".join(parts) or "unknown"


class CPUFrequency(Operation):
    name = "CPU frequency"

    def available(self, context: Context) -> bool:
        return any(context.sysfs.exists(f"{CPU_DIR}/cpu{cpu}/cpufreq") for cpu in context.all_cpus)

    def read(
        self, context: Context, cpus: Iterable[int], keys: Sequence[str], messages: Messages
    ) -> dict[int, dict[str, str]]:
        """The cpufreq files *keys* of each CPU of *cpus* that has cpufreq;
        an error for the files that cannot be read (left out)."""
        values: dict[int, dict[str, str]] = {}
        unreadable: dict[str, list[int]] = {}
        for cpu in cpus:
            if not context.sysfs.exists(f"{CPU_DIR}/cpu{cpu}/cpufreq"):
                continue
            found = values[cpu] = {}
            for key in keys:
                line = context.sysfs.read_first_line(cpufreq_path(cpu, key))
                text = line.strip() if line is not None else ""
                if not text:
                    unreadable.setdefault(key, []).append(cpu)
                elif key in FREQUENCIES and not (text.isascii() and text.isdigit()):
                    self.error(messages, f"Unexpected value {line!r} in {cpufreq_path(cpu, key)}")
                else:
                    found[key] = text
        for key, failed in unreadable.items():
            self.error(messages, f"Unable to read cpufreq/{key} of CPU {format_cpu_list(failed)}")
        return values

    def show(self, context: Context, messages: Messages) -> None:
        values = self.read(context, context.all_cpus, (GOVERNOR, MIN_FREQ, MAX_FREQ), messages)
        if not values:
            return
        infos = {cpu: _describe(cpu_values) for cpu, cpu_values in values.items()}
        self.state(messages, "; ".join(format_cpu_infos(infos)))
        benchmark = [cpu for cpu in context.cpus if cpu in values]
        other_governor = [cpu for cpu in benchmark if values[cpu].get(GOVERNOR, TUNED_GOVERNOR) != TUNED_GOVERNOR]
        if other_governor:
            self.not_tuned(
                messages,
                f"Use the {TUNED_GOVERNOR} governor on CPU {format_cpu_list(other_governor)} "
                "(other governors lower the frequency when the load is light)",
            )
        varying = [
            cpu
            for cpu in benchmark
            if MIN_FREQ in values[cpu]
            and MAX_FREQ in values[cpu]
            and int(values[cpu][MIN_FREQ]) != int(values[cpu][MAX_FREQ])
        ]
        if varying:
            self.not_tuned(
                messages,
                f"Raise the minimum frequency to the maximum on CPU {format_cpu_list(varying)} "
                "(so that the frequency does not change between runs)",
            )

    def tune(self, context: Context, messages: Messages) -> Sequence[Change]:
        values = self.read(context, context.cpus, (GOVERNOR, GOVERNORS, MIN_FREQ, MAX_FREQ), messages)
        governors: list[Change] = []
        missing: list[int] = []
        for cpu, cpu_values in values.items():
            governor = cpu_values.get(GOVERNOR, TUNED_GOVERNOR)
            if governor == TUNED_GOVERNOR or GOVERNORS not in cpu_values:
                continue
            if TUNED_GOVERNOR in cpu_values[GOVERNORS].split():
                governors.append(
                    FileChange(
                        cpufreq_path(cpu, GOVERNOR), TUNED_GOVERNOR, f"Governor of CPU {cpu} set to {TUNED_GOVERNOR}"
                    )
                )
            else:
                missing.append(cpu)
        if missing:
            self.warning(
                messages,
                f"The {TUNED_GOVERNOR} governor is not available on CPU {format_cpu_list(missing)}: "
                "governor left as it is",
            )
        # the governors first, then the minimum frequencies: the order to apply them in
        return governors + self.minimum_frequencies(values, MAX_FREQ)

    def defaults(self, context: Context, messages: Messages) -> Sequence[Change]:
        values = self.read(context, context.all_cpus, (GOVERNOR, GOVERNORS, MIN_FREQ, HARDWARE_MIN_FREQ), messages)
        governors: list[Change] = []
        no_default: list[int] = []
        for cpu, cpu_values in values.items():
            if GOVERNOR not in cpu_values or GOVERNORS not in cpu_values:
                continue
            wanted = self.default_governor(
                context.sysfs.read_first_line(cpufreq_path(cpu, "scaling_driver")), cpu_values[GOVERNORS].split()
            )
            if wanted is None:
                no_default.append(cpu)
            elif wanted != cpu_values[GOVERNOR]:
                governors.append(
                    FileChange(cpufreq_path(cpu, GOVERNOR), wanted, f"Governor of CPU {cpu} set to {wanted}")
                )
        if no_default:
            self.warning(
                messages,
                f"No usual default governor ({', '.join(DEFAULT_GOVERNORS)}) is available on CPU "
                f"{format_cpu_list(no_default)}: governor left as it is",
            )
        return governors + self.minimum_frequencies(values, HARDWARE_MIN_FREQ)

    @staticmethod
    def minimum_frequencies(values: dict[int, dict[str, str]], source: str) -> list[Change]:
        """Set ``scaling_min_freq`` of each CPU of *values* (file name ->
        text, by CPU) to its *source* file's frequency, where they differ."""
        return [
            FileChange(
                cpufreq_path(cpu, MIN_FREQ),
                cpu_values[source],
                f"Minimum frequency of CPU {cpu} set to {format_mhz(int(cpu_values[source]))}",
            )
            for cpu, cpu_values in values.items()
            if MIN_FREQ in cpu_values and source in cpu_values and int(cpu_values[MIN_FREQ]) != int(cpu_values[source])
        ]

    @staticmethod
    def default_governor(driver: str | None, available: Sequence[str]) -> str | None:
        """The governor a machine with *driver* usually boots with."""
        if driver is not None and driver.strip() in OWN_GOVERNORS_DRIVERS and "powersave" in available:
            return "powersave"
        return next((governor for governor in DEFAULT_GOVERNORS if governor in available), None)
