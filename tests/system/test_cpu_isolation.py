"""perf.system.cpu_isolation: isolated, tickless and RCU-offloaded CPUs,
Hyper-Threading siblings split by the isolation, NUMA nodes, and
nohz_full under intel_pstate."""

from __future__ import annotations

from pathlib import Path

import pytest
from system_fakes import CPU, INTEL_NOHZ_FULL, MACHINES, FakeServiceManager, build, snapshot

from perf.platform.cpus import parse_cpu_list
from perf.platform.sysfs import SysFS
from perf.system.cpu_isolation import CPUIsolation, kernel_parameter, parse_kernel_cpu_list
from perf.system.operation import Context, Messages

ISOLATED = f"{CPU}/isolated"
NOHZ_FULL = f"{CPU}/nohz_full"
NODE0 = "/sys/devices/system/node/node0/cpulist"

NOT_ISOLATED = (
    "CPU isolation: No CPU is isolated: isolate CPUs for benchmarks on the kernel command line "
    "(for example isolcpus={0} nohz_full={0} rcu_nocbs={0}), or pin benchmarks to some CPUs with --affinity"
)
SPLIT = (
    "CPU isolation: CPU {0} is isolated but its Hyper-Threading sibling CPU {1} is not: "
    "both siblings of a core must be isolated"
)
INTEL_PSTATE = (
    "CPU isolation: nohz_full with the intel_pstate driver makes the frequency of CPUs 1,3 unstable: "
    "set their minimum frequency to their maximum frequency, or remove nohz_full"
)
NO_RCU_NOCBS = (
    "CPU isolation: Isolated CPUs 1,3 are not in rcu_nocbs: add rcu_nocbs=1,3 to the kernel command line "
    "so that RCU callbacks run on other CPUs"
)


def context(root: Path, files: dict[str, str | bytes], cpus: list[int] | None = None) -> Context:
    """*cpus*: the benchmark CPUs (default: the isolated CPUs, else all)."""
    build(root, files)
    all_cpus = parse_cpu_list(str(files[f"{CPU}/online"]))
    if cpus is None:
        cpus = parse_cpu_list(str(files.get(ISOLATED, ""))) or all_cpus
    return Context(SysFS(root), FakeServiceManager(), cpus, all_cpus, True)


def show(ctx: Context) -> Messages:
    messages = Messages()
    CPUIsolation().show(ctx, messages)
    return messages


EXPECTED = {
    "intel_laptop": Messages(
        states=[
            "CPU isolation: Isolated CPUs (0/4): none",
            "CPU isolation: Benchmark CPUs: 0-3",
            "CPU isolation: NUMA nodes: 1 (node0: 0-3)",
        ],
        advices=[NOT_ISOLATED.format("1,3")],
    ),
    "amd_box": Messages(
        states=[
            "CPU isolation: Isolated CPUs (0/8): none",
            "CPU isolation: Benchmark CPUs: 0-7",
            "CPU isolation: NUMA nodes: 2 (node0: 0-3, node1: 4-7)",
        ],
        advices=[NOT_ISOLATED.format("3,7")],
        warnings=[
            "CPU isolation: Benchmark CPUs 0-7 span 2 NUMA nodes (node0, node1): memory access times differ "
            "between nodes, use the CPUs of one node (--affinity or isolcpus=)"
        ],
    ),
    "vm": Messages(
        states=[
            "CPU isolation: Isolated CPUs (0/2): none",
            "CPU isolation: Benchmark CPUs: 0-1",
            "CPU isolation: NUMA nodes: 1 (node0: 0-1)",
        ],
        advices=[NOT_ISOLATED.format("1")],
    ),
    "isolated_split": Messages(
        states=[
            "CPU isolation: Isolated CPUs (2/4): 1,3",
            "CPU isolation: nohz_full CPUs: 1,3",
            "CPU isolation: rcu_nocbs CPUs: 1,3",
            "CPU isolation: Benchmark CPUs: 1,3",
            "CPU isolation: NUMA nodes: 1 (node0: 0-3)",
        ],
        warnings=[SPLIT.format(1, 0), SPLIT.format(3, 2)],
    ),
}


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_fake_machines(tmp_path: Path, machine: str) -> None:
    ctx = context(tmp_path, MACHINES[machine])
    assert CPUIsolation().available(ctx)
    assert show(ctx) == EXPECTED[machine]


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_read_only(tmp_path: Path, machine: str) -> None:
    ctx = context(tmp_path, MACHINES[machine])
    before = snapshot(tmp_path)
    messages = Messages()
    assert CPUIsolation().tune(ctx, messages) == ()
    assert CPUIsolation().defaults(ctx, messages) == ()
    show(ctx)
    assert messages == Messages()
    assert snapshot(tmp_path) == before


def test_isolated_core_with_nohz_full_under_intel_pstate(tmp_path: Path) -> None:
    assert show(context(tmp_path, INTEL_NOHZ_FULL)) == Messages(
        states=[
            "CPU isolation: Isolated CPUs (2/4): 1,3",
            "CPU isolation: nohz_full CPUs: 1,3",
            "CPU isolation: rcu_nocbs CPUs: 1,3",
            "CPU isolation: Benchmark CPUs: 1,3",
            "CPU isolation: NUMA nodes: 1 (node0: 0-3)",
        ],
        warnings=[INTEL_PSTATE],  # both siblings isolated: no Hyper-Threading warning
    )


def test_intel_pstate_with_min_equal_to_max_frequency(tmp_path: Path) -> None:
    files = {**INTEL_NOHZ_FULL}
    for cpu in (1, 3):
        files[f"{CPU}/cpu{cpu}/cpufreq/scaling_min_freq"] = "4600000\n"
    assert INTEL_PSTATE not in show(context(tmp_path, files)).warnings


def test_intel_pstate_warning_names_the_unstable_cpus_only(tmp_path: Path) -> None:
    files = {**INTEL_NOHZ_FULL, f"{CPU}/cpu3/cpufreq/scaling_min_freq": "4600000\n"}
    assert show(context(tmp_path, files)).warnings == [INTEL_PSTATE.replace("CPUs 1,3", "CPU 1")]


def test_intel_pstate_on_cpus_benchmarks_do_not_use(tmp_path: Path) -> None:
    # --affinity 0: the tickless CPUs 1 and 3 run no benchmark
    messages = show(context(tmp_path, INTEL_NOHZ_FULL, cpus=[0]))
    assert INTEL_PSTATE not in messages.warnings
    assert "CPU isolation: Benchmark CPUs: 0" in messages.states


def test_nohz_full_under_another_driver(tmp_path: Path) -> None:
    files = {**INTEL_NOHZ_FULL, **{f"{CPU}/cpu{cpu}/cpufreq/scaling_driver": "intel_cpufreq\n" for cpu in range(4)}}
    assert show(context(tmp_path, files)).warnings == []


@pytest.mark.parametrize(
    ("cmdline", "advices"),
    [
        ("ro isolcpus=1,3 nohz_full=1,3", [NO_RCU_NOCBS]),
        (
            "ro isolcpus=1,3 rcu_nocbs=1",
            [
                "CPU isolation: Isolated CPU 3 is not in rcu_nocbs: add rcu_nocbs=1,3 to the kernel command line "
                "so that RCU callbacks run on other CPUs"
            ],
        ),
        ("ro rcu_nocbs=0-3:1/2", [NO_RCU_NOCBS.replace("rcu_nocbs=1,3", "rcu_nocbs=0-3")]),
        ("ro rcu_nocbs", [NO_RCU_NOCBS]),  # no CPU offloaded at boot
        ("ro rcu_nocbs=1,3 -- rcu_nocbs=0", []),  # after --: arguments of init
        ("ro rcu_nocbs=1,N", []),
        ("ro rcu_nocbs=all", []),
        ("ro rcu-nocbs=1,3", []),
        ("ro rcu_nocbs=0 rcu_nocbs=0-3", []),  # the last one wins
    ],
)
def test_isolated_cpus_without_rcu_nocbs(tmp_path: Path, cmdline: str, advices: list[str]) -> None:
    files = {**INTEL_NOHZ_FULL, "/proc/cmdline": cmdline + "\n"}
    assert show(context(tmp_path, files)).advices == advices


def test_rcu_nocbs_garbage(tmp_path: Path) -> None:
    files = {**INTEL_NOHZ_FULL, "/proc/cmdline": "ro rcu_nocbs=1,x\n"}
    messages = show(context(tmp_path, files))
    assert messages.errors == ["CPU isolation: Unexpected value 'rcu_nocbs=1,x' in /proc/cmdline"]
    assert messages.advices == []
    assert not any("rcu_nocbs CPUs" in state for state in messages.states)


def test_missing_cmdline(tmp_path: Path) -> None:
    files = dict(INTEL_NOHZ_FULL)
    del files["/proc/cmdline"]
    messages = show(context(tmp_path, files))
    assert messages.errors == messages.advices == []
    assert messages.states[:3] == [
        "CPU isolation: Isolated CPUs (2/4): 1,3",
        "CPU isolation: nohz_full CPUs: 1,3",
        "CPU isolation: Benchmark CPUs: 1,3",
    ]


@pytest.mark.parametrize(("text", "state"), [("(null)\n", "none"), ("\n", "none"), ("3\n", "3")])
def test_nohz_full_file(tmp_path: Path, text: str, state: str) -> None:
    files = {**INTEL_NOHZ_FULL, NOHZ_FULL: text}
    assert show(context(tmp_path, files)).states[1] == f"CPU isolation: nohz_full CPUs: {state}"


def test_nohz_full_and_rcu_nocbs_without_isolation(tmp_path: Path) -> None:
    files = {**MACHINES["intel_laptop"], NOHZ_FULL: "(null)\n", "/proc/cmdline": "ro rcu_nocbs=2-3\n"}
    assert show(context(tmp_path, files)).states == [
        "CPU isolation: Isolated CPUs (0/4): none",
        "CPU isolation: rcu_nocbs CPUs: 2-3",
        "CPU isolation: Benchmark CPUs: 0-3",
        "CPU isolation: NUMA nodes: 1 (node0: 0-3)",
    ]


@pytest.mark.parametrize(("path", "text"), [(ISOLATED, "1,x\n"), (ISOLATED, "3-1\n"), (NOHZ_FULL, "(nul\n")])
def test_garbage_cpu_list(tmp_path: Path, path: str, text: str) -> None:
    files = {**MACHINES["isolated_split"], path: text}
    messages = show(context(tmp_path, files, cpus=[1, 3]))
    assert messages.errors == [f"CPU isolation: Unexpected value {text.rstrip()!r} in {path}"]
    if path == ISOLATED:
        # the isolation is unknown: no state, no advice, no sibling warning
        assert messages.states == [
            "CPU isolation: nohz_full CPUs: 1,3",
            "CPU isolation: rcu_nocbs CPUs: 1,3",
            "CPU isolation: Benchmark CPUs: 1,3",
            "CPU isolation: NUMA nodes: 1 (node0: 0-3)",
        ]
        assert messages.advices == messages.warnings == []
    else:
        assert "CPU isolation: nohz_full CPUs: 1,3" not in messages.states
        assert messages.warnings == EXPECTED["isolated_split"].warnings


def test_missing_isolated_file(tmp_path: Path) -> None:
    files = dict(MACHINES["intel_laptop"])
    del files[ISOLATED]
    assert show(context(tmp_path, files)) == EXPECTED["intel_laptop"]


def test_missing_nohz_full_file(tmp_path: Path) -> None:
    files = dict(MACHINES["isolated_split"])
    del files[NOHZ_FULL]
    assert show(context(tmp_path, files)).states == [
        "CPU isolation: Isolated CPUs (2/4): 1,3",
        "CPU isolation: rcu_nocbs CPUs: 1,3",
        "CPU isolation: Benchmark CPUs: 1,3",
        "CPU isolation: NUMA nodes: 1 (node0: 0-3)",
    ]


def test_missing_numa_nodes(tmp_path: Path) -> None:
    files = dict(MACHINES["vm"])
    del files[NODE0]
    assert show(context(tmp_path, files)).states == [
        "CPU isolation: Isolated CPUs (0/2): none",
        "CPU isolation: Benchmark CPUs: 0-1",
    ]


def test_numa_node_without_cpu_and_sorted_by_number(tmp_path: Path) -> None:
    files = {
        **MACHINES["amd_box"],
        "/sys/devices/system/node/node10/cpulist": "\n",
        "/sys/devices/system/node/node2/cpulist": "\n",
        "/sys/devices/system/node/possible": "0-2,10\n",
    }
    messages = show(context(tmp_path, files, cpus=[4, 5]))
    assert "CPU isolation: NUMA nodes: 4 (node0: 0-3, node1: 4-7, node2: none, node10: none)" in messages.states
    assert messages.warnings == []  # the benchmark CPUs are on node1 only


def test_affinity_without_isolation(tmp_path: Path) -> None:
    messages = show(context(tmp_path, MACHINES["amd_box"], cpus=[2, 3]))
    assert messages == Messages(
        states=[
            "CPU isolation: Isolated CPUs (0/8): none",
            "CPU isolation: Benchmark CPUs: 2-3",
            "CPU isolation: NUMA nodes: 2 (node0: 0-3, node1: 4-7)",
        ],
        advices=[
            "CPU isolation: No CPU is isolated: isolate the benchmark CPUs on the kernel command line "
            "(isolcpus=2-3 nohz_full=2-3 rcu_nocbs=2-3) so that other tasks keep off them"
        ],
    )


def test_affinity_spanning_numa_nodes(tmp_path: Path) -> None:
    messages = show(context(tmp_path, MACHINES["amd_box"], cpus=[3, 4]))
    assert messages.warnings == [
        "CPU isolation: Benchmark CPUs 3-4 span 2 NUMA nodes (node0, node1): memory access times differ "
        "between nodes, use the CPUs of one node (--affinity or isolcpus=)"
    ]


def test_one_core_two_threads_gets_no_example(tmp_path: Path) -> None:
    files = {**MACHINES["vm"], f"{CPU}/cpu0/topology/thread_siblings_list": "0-1\n"}
    files[f"{CPU}/cpu1/topology/thread_siblings_list"] = "0-1\n"
    assert show(context(tmp_path, files)).advices == [
        "CPU isolation: No CPU is isolated: isolate CPUs for benchmarks with isolcpus=, nohz_full= and rcu_nocbs= "
        "on the kernel command line, or pin benchmarks to some CPUs with --affinity"
    ]


def test_single_cpu_gets_no_advice(tmp_path: Path) -> None:
    files = {
        **{path: text for path, text in MACHINES["vm"].items() if "/cpu1/" not in path},
        f"{CPU}/online": "0-0\n",
        NODE0: "0\n",
    }
    assert show(context(tmp_path, files)) == Messages(
        states=[
            "CPU isolation: Isolated CPUs (0/1): none",
            "CPU isolation: Benchmark CPUs: 0",
            "CPU isolation: NUMA nodes: 1 (node0: 0)",
        ]
    )


def test_split_of_four_threads(tmp_path: Path) -> None:
    # SMT-4: CPUs 0-3 share a core, 2 and 3 are isolated
    files = {
        **MACHINES["intel_laptop"],
        ISOLATED: "2-3\n",
        "/proc/cmdline": "ro isolcpus=2-3 rcu_nocbs=2-3\n",
        **{f"{CPU}/cpu{cpu}/topology/thread_siblings_list": "0-3\n" for cpu in range(4)},
    }
    assert show(context(tmp_path, files)).warnings == [
        f"CPU isolation: CPU {cpu} is isolated but its Hyper-Threading siblings CPUs 0-1 are not: "
        "all siblings of a core must be isolated"
        for cpu in (2, 3)
    ]


def test_unreadable_siblings_are_skipped(tmp_path: Path) -> None:
    files = dict(MACHINES["isolated_split"])
    del files[f"{CPU}/cpu1/topology/thread_siblings_list"]
    files[f"{CPU}/cpu3/topology/thread_siblings_list"] = "garbage\n"
    assert show(context(tmp_path, files)).warnings == []


def test_available(tmp_path: Path) -> None:
    ctx = context(tmp_path, {"/proc/cmdline": "ro\n", f"{CPU}/online": "0-1\n"})
    assert CPUIsolation().available(ctx)
    other = tmp_path / "other"
    other.mkdir()
    assert not CPUIsolation().available(Context(SysFS(other), FakeServiceManager(), [0], [0], True))


@pytest.mark.parametrize(
    ("text", "cpus"),
    [
        ("", []),
        ("1,3", [1, 3]),
        ("0-7:2/4", [0, 1, 4, 5]),
        ("1-7:1/3", [1, 4, 7]),
        ("0-5:3/4", [0, 1, 2, 4, 5]),
        ("2-N", [2, 3, 4, 5, 6, 7]),
        ("N", [7]),
        ("ALL", [0, 1, 2, 3, 4, 5, 6, 7]),
        ("0,4-5:1/2", [0, 4]),
    ],
)
def test_parse_kernel_cpu_list(text: str, cpus: list[int]) -> None:
    assert parse_kernel_cpu_list(text, last_cpu=7) == cpus


@pytest.mark.parametrize("text", ["x", "1,,2", "0-7:3/2", "0-7:0/2", "0-7:1/0", "5-2:1/2", "1,"])
def test_parse_kernel_cpu_list_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        parse_kernel_cpu_list(text, last_cpu=7)


@pytest.mark.parametrize(
    ("cmdline", "value"),
    [
        ("ro quiet", None),
        ("ro rcu_nocbs", ""),
        ("ro rcu_nocbs=", ""),
        ("rcu_nocbs=1 ro rcu_nocbs=2-3", "2-3"),
        ("ro rcu-nocbs=4", "4"),
        ("ro -- rcu_nocbs=4", None),
        ("ro rcu_nocbs_poll", None),
    ],
)
def test_kernel_parameter(cmdline: str, value: str | None) -> None:
    assert kernel_parameter(cmdline, "rcu_nocbs") == value
