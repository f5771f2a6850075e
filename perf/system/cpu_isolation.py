"""The CPU isolation check: which CPUs the kernel keeps for benchmarks
(``isolcpus=``, ``nohz_full=``, ``rcu_nocbs=``), which CPUs benchmarks
run on, and the NUMA nodes, read from ``/sys/devices/system/cpu``,
``/sys/devices/system/node`` and ``/proc/cmdline``.

Read-only: kernel parameters take a reboot, so ``tune`` plans no change
and what this check says are advices and warnings, never "not tuned".

Must not: print, exit, write to the system.
"""

from __future__ import annotations

import re

from perf.platform.cpus import format_cpu_list, parse_cpu_list
from perf.system.operation import Context, Messages, Operation

CPU = "/sys/devices/system/cpu"
ISOLATED = f"{CPU}/isolated"
NOHZ_FULL = f"{CPU}/nohz_full"
CMDLINE = "/proc/cmdline"
NODES = "/sys/devices/system/node"

_GROUPED_RANGE = re.compile(r"(\d+)-(\d+):(\d+)/(\d+)")


def parse_kernel_cpu_list(text: str, last_cpu: int) -> list[int]:
    """Parse a CPU list of the kernel command line: the ``"0-3,7"`` of
    sysfs plus ``all``, ``N`` (the last CPU, *last_cpu*) and groups
    (``"0-7:2/4"``: the first 2 CPUs of each group of 4 in 0-7).

    Raises ValueError on malformed input.
    """
    if text.strip().lower() == "all":
        return list(range(last_cpu + 1))
    if not text.strip():
        return []
    cpus: set[int] = set()
    for item in text.split(","):
        part = item.strip().replace("N", str(last_cpu))
        match = _GROUPED_RANGE.fullmatch(part)
        if match is None:
            if not part:
                raise ValueError(f"empty item in CPU list {text!r}")
            cpus.update(parse_cpu_list(part))
            continue
        first, last, used, size = (int(group) for group in match.groups())
        if first > last or used == 0 or size == 0 or used > size:
            raise ValueError(f"invalid CPU range {part!r}")
        for start in range(first, last + 1, size):
            cpus.update(range(start, min(start + used, last + 1)))
    return sorted(cpus)


def kernel_parameter(cmdline: str, name: str) -> str | None:
    """The value of the last *name* parameter of the kernel command line
    (``""`` for a parameter without ``=``), None when it is not there."""
    value = None
    for token in cmdline.split():
        if token == "--":  # what follows is for init
            break
        key, _, text = token.partition("=")
        # the kernel takes dashes and underscores of parameter names alike
        if key.replace("-", "_") == name.replace("-", "_"):
            value = text
    return value


def _cpus_text(cpus: list[int]) -> str:
    """``"CPU 1"`` or ``"CPUs 1,3"``."""
    return f"CPU {cpus[0]}" if len(cpus) == 1 else f"CPUs {format_cpu_list(cpus)}"


class CPUIsolation(Operation):
    name = "CPU isolation"

    def available(self, context: Context) -> bool:
        return context.sysfs.exists(CPU)

    def _read_cpus(self, context: Context, messages: Messages, path: str) -> list[int] | None:
        """The CPU list in *path* (``(null)`` is empty), None when the file
        is missing or (after an error message) unreadable or malformed."""
        line = context.sysfs.read_first_line(path)
        if line is None:
            if context.sysfs.exists(path):
                self.error(messages, f"Unable to read {path}")
            return None
        text = line.strip()
        if text == "(null)":  # nohz_full of a kernel booted without it
            return []
        try:
            return parse_cpu_list(text)
        except ValueError:
            self.error(messages, f"Unexpected value {line!r} in {path}")
            return None

    def _siblings(self, context: Context, cpu: int) -> list[int] | None:
        """The Hyper-Threading siblings of *cpu*, itself included."""
        line = context.sysfs.read_first_line(f"{CPU}/cpu{cpu}/topology/thread_siblings_list")
        try:
            return parse_cpu_list(line) if line else None
        except ValueError:
            return None

    def _rcu_nocbs(self, context: Context, messages: Messages) -> list[int] | None:
        """The CPUs of ``rcu_nocbs=`` ([] without it), None when unknown."""
        cmdline = context.sysfs.read_text(CMDLINE)
        if cmdline is None:
            return None
        value = kernel_parameter(cmdline, "rcu_nocbs")
        if value is None:
            return []
        try:
            return parse_kernel_cpu_list(value, max(context.all_cpus, default=0))
        except ValueError:
            self.error(messages, f"Unexpected value 'rcu_nocbs={value}' in {CMDLINE}")
            return None

    def _nodes(self, context: Context, messages: Messages) -> dict[int, list[int]]:
        """NUMA node number -> its CPUs."""
        nodes: dict[int, list[int]] = {}
        for entry in context.sysfs.list_dir(NODES):
            match = re.fullmatch(r"node(\d+)", entry)
            if match is not None:
                cpus = self._read_cpus(context, messages, f"{NODES}/{entry}/cpulist")
                if cpus is not None:
                    nodes[int(match.group(1))] = cpus
        return dict(sorted(nodes.items()))

    def show(self, context: Context, messages: Messages) -> None:
        isolated = self._read_cpus(context, messages, ISOLATED)
        if isolated is None and not context.sysfs.exists(ISOLATED):
            isolated = []  # a kernel older than the file isolates nothing
        nohz_full = self._read_cpus(context, messages, NOHZ_FULL)
        rcu_nocbs = self._rcu_nocbs(context, messages)

        if isolated is not None:
            listed = format_cpu_list(isolated) or "none"
            self.state(messages, f"Isolated CPUs ({len(isolated)}/{len(context.all_cpus)}): {listed}")
        for parameter, cpus in (("nohz_full", nohz_full), ("rcu_nocbs", rcu_nocbs)):
            if cpus or (cpus is not None and isolated):
                self.state(messages, f"{parameter} CPUs: {format_cpu_list(cpus) or 'none'}")
        self.state(messages, f"Benchmark CPUs: {format_cpu_list(context.cpus) or 'none'}")
        self._show_nodes(context, messages)

        if isolated == [] and len(context.all_cpus) > 1:
            self._advise_isolation(context, messages)
        if isolated:
            missing = sorted(set(isolated) - set(rcu_nocbs)) if rcu_nocbs is not None else []
            if missing:
                offloaded = format_cpu_list(set(isolated) | set(rcu_nocbs or ()))
                verb = "is" if len(missing) == 1 else "are"
                self.advice(
                    messages,
                    f"Isolated {_cpus_text(missing)} {verb} not in rcu_nocbs: add rcu_nocbs={offloaded} "
                    "to the kernel command line so that RCU callbacks run on other CPUs",
                )
            self._check_siblings(context, messages, isolated)
        if nohz_full:
            self._check_intel_pstate(context, messages, nohz_full)

    def _advise_isolation(self, context: Context, messages: Messages) -> None:
        if set(context.cpus) < set(context.all_cpus):
            # --affinity chose the benchmark CPUs: isolate those
            cpus = format_cpu_list(context.cpus)
            self.advice(
                messages,
                f"No CPU is isolated: isolate the benchmark CPUs on the kernel command line "
                f"(isolcpus={cpus} nohz_full={cpus} rcu_nocbs={cpus}) so that other tasks keep off them",
            )
            return
        # for example the last core, unless it is the only one
        example = self._siblings(context, max(context.all_cpus)) or [max(context.all_cpus)]
        if 0 in example or set(example) >= set(context.all_cpus):
            how = "with isolcpus=, nohz_full= and rcu_nocbs= on the kernel command line"
        else:
            cpus = format_cpu_list(example)
            how = f"on the kernel command line (for example isolcpus={cpus} nohz_full={cpus} rcu_nocbs={cpus})"
        self.advice(
            messages,
            f"No CPU is isolated: isolate CPUs for benchmarks {how}, or pin benchmarks to some CPUs with --affinity",
        )

    def _check_siblings(self, context: Context, messages: Messages, isolated: list[int]) -> None:
        for cpu in isolated:
            siblings = self._siblings(context, cpu) or [cpu]
            outside = [sibling for sibling in siblings if sibling not in isolated]
            if outside:
                sibling = "sibling" if len(outside) == 1 else "siblings"
                verb = "is" if len(outside) == 1 else "are"
                every = "both" if len(siblings) == 2 else "all"
                self.warning(
                    messages,
                    f"CPU {cpu} is isolated but its Hyper-Threading {sibling} {_cpus_text(outside)} {verb} not: "
                    f"{every} siblings of a core must be isolated",
                )

    def _show_nodes(self, context: Context, messages: Messages) -> None:
        nodes = self._nodes(context, messages)
        if not nodes:
            return
        listed = ", ".join(f"node{node}: {format_cpu_list(cpus) or 'none'}" for node, cpus in nodes.items())
        self.state(messages, f"NUMA nodes: {len(nodes)} ({listed})")
        used = [node for node, cpus in nodes.items() if set(cpus) & set(context.cpus)]
        if len(used) > 1:
            self.warning(
                messages,
                f"Benchmark CPUs {format_cpu_list(context.cpus)} span {len(used)} NUMA nodes "
                f"({', '.join(f'node{node}' for node in used)}): memory access times differ between nodes, "
                "use the CPUs of one node (--affinity or isolcpus=)",
            )

    def _check_intel_pstate(self, context: Context, messages: Messages, nohz_full: list[int]) -> None:
        unstable = []
        for cpu in sorted(set(context.cpus) & set(nohz_full)):
            cpufreq = f"{CPU}/cpu{cpu}/cpufreq"
            if context.sysfs.read_first_line(f"{cpufreq}/scaling_driver") != "intel_pstate":
                continue
            low = context.sysfs.read_first_line(f"{cpufreq}/scaling_min_freq")
            high = context.sysfs.read_first_line(f"{cpufreq}/scaling_max_freq")
            # a frequency pinned by min = max cannot move
            if low is None or low.strip() != (high or "").strip():
                unstable.append(cpu)
        if unstable:
            self.warning(
                messages,
                f"nohz_full with the intel_pstate driver makes the frequency of {_cpus_text(unstable)} unstable: "
                "set their minimum frequency to their maximum frequency, or remove nohz_full",
            )
