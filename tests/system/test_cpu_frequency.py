"""perf.system.cpu_frequency: governors and frequency ranges on fake
machines."""

from __future__ import annotations

import pytest
from system_fakes import AMD_BOX, CPU, INTEL_LAPTOP, ISOLATED_SPLIT, VM, FakeServiceManager, build, snapshot

from perf.platform.cpus import parse_cpu_list
from perf.platform.sysfs import SysFS
from perf.system.cpu_frequency import CPUFrequency, format_mhz
from perf.system.operation import Context, FileChange, Messages

PREFIX = "CPU frequency: "


def freq_context(root, files, cpus=None):
    build(root, files)
    all_cpus = parse_cpu_list(files[f"{CPU}/online"])
    return Context(SysFS(root), FakeServiceManager(), cpus or all_cpus, all_cpus, True)


def cpufreq(cpu, key):
    return f"{CPU}/cpu{cpu}/cpufreq/{key}"


def with_cpus(files, cpus, **values):
    """*files* with cpufreq/KEY of each CPU of *cpus* set to VALUE."""
    return {**files, **{cpufreq(cpu, key): f"{value}\n" for cpu in cpus for key, value in values.items()}}


def governor_change(cpu, governor):
    return FileChange(cpufreq(cpu, "scaling_governor"), governor, f"Governor of CPU {cpu} set to {governor}")


def min_change(cpu, khz, mhz):
    return FileChange(cpufreq(cpu, "scaling_min_freq"), str(khz), f"Minimum frequency of CPU {cpu} set to {mhz} MHz")


def run(context):
    results = {}
    for method in ("show", "tune", "defaults"):
        messages = Messages()
        changes = getattr(CPUFrequency(), method)(context, messages)
        results[method] = (list(changes or ()), messages)
    return results


def test_not_available_without_cpufreq(tmp_path):
    assert not CPUFrequency().available(freq_context(tmp_path, VM))


@pytest.mark.parametrize("files", [INTEL_LAPTOP, AMD_BOX, ISOLATED_SPLIT])
def test_available_with_cpufreq(tmp_path, files):
    assert CPUFrequency().available(freq_context(tmp_path, files))


def test_intel_laptop(tmp_path):
    context = freq_context(tmp_path, INTEL_LAPTOP)
    before = snapshot(tmp_path)
    results = run(context)
    messages = results["show"][1]
    assert messages.states == [f"{PREFIX}0-3=governor powersave, min=400 MHz, max=4600 MHz"]
    assert messages.advices == [
        f"{PREFIX}Use the performance governor on CPU 0-3 (other governors lower the frequency when the load is light)",
        f"{PREFIX}Raise the minimum frequency to the maximum on CPU 0-3 (so that the frequency does not change "
        "between runs)",
    ]
    assert messages.not_tuned == ["CPU frequency"]
    assert messages.errors == messages.warnings == []
    # every governor before any minimum frequency
    assert results["tune"][0] == [
        *(governor_change(cpu, "performance") for cpu in range(4)),
        *(min_change(cpu, 4600000, 4600) for cpu in range(4)),
    ]
    # powersave is intel_pstate's default and the minimum is already the lowest
    assert results["defaults"] == ([], Messages())
    assert snapshot(tmp_path) == before


def test_intel_laptop_tuned(tmp_path):
    files = with_cpus(INTEL_LAPTOP, range(4), scaling_governor="performance", scaling_min_freq=4600000)
    results = run(freq_context(tmp_path, files))
    messages = results["show"][1]
    assert messages.states == [f"{PREFIX}0-3=governor performance, min=max=4600 MHz"]
    assert messages.advices == messages.not_tuned == []
    assert results["tune"] == ([], Messages())
    assert results["defaults"][0] == [
        *(governor_change(cpu, "powersave") for cpu in range(4)),
        *(min_change(cpu, 400000, 400) for cpu in range(4)),
    ]


def test_amd_box_defaults_prefer_schedutil(tmp_path):
    files = with_cpus(AMD_BOX, range(8), scaling_governor="performance", scaling_min_freq=3000000)
    changes, messages = run(freq_context(tmp_path, files))["defaults"]
    assert changes == [
        *(governor_change(cpu, "schedutil") for cpu in range(8)),
        *(min_change(cpu, 1500000, 1500) for cpu in range(8)),
    ]
    assert messages == Messages()


def test_isolated_split_mixed_state(tmp_path):
    # CPUs 0-1 tuned by hand, the benchmark CPUs 1 and 3 split
    files = with_cpus(ISOLATED_SPLIT, [0, 1], scaling_governor="performance", scaling_min_freq=3000000)
    results = run(freq_context(tmp_path, files, cpus=[1, 3]))
    messages = results["show"][1]
    assert messages.states == [
        f"{PREFIX}0-1=governor performance, min=max=3000 MHz; 2-3=governor ondemand, min=800 MHz, max=3000 MHz"
    ]
    assert messages.advices == [
        f"{PREFIX}Use the performance governor on CPU 3 (other governors lower the frequency when the load is light)",
        f"{PREFIX}Raise the minimum frequency to the maximum on CPU 3 (so that the frequency does not change "
        "between runs)",
    ]
    assert messages.not_tuned == ["CPU frequency"]
    # only the benchmark CPUs
    assert results["tune"][0] == [governor_change(3, "performance"), min_change(3, 3000000, 3000)]
    # acpi-cpufreq without schedutil: ondemand; every CPU
    assert results["defaults"][0] == [
        governor_change(0, "ondemand"),
        governor_change(1, "ondemand"),
        min_change(0, 800000, 800),
        min_change(1, 800000, 800),
    ]


def test_isolated_split_tuned_benchmark_cpus(tmp_path):
    files = with_cpus(ISOLATED_SPLIT, [1, 3], scaling_governor="performance", scaling_min_freq=3000000)
    results = run(freq_context(tmp_path, files, cpus=[1, 3]))
    assert results["show"][1].not_tuned == []
    assert results["show"][1].advices == []
    assert results["tune"] == ([], Messages())


def test_governor_only_or_frequency_only(tmp_path):
    files = with_cpus(INTEL_LAPTOP, [0, 1], scaling_governor="performance")
    files = with_cpus(files, [2, 3], scaling_min_freq=4600000)
    results = run(freq_context(tmp_path, files))
    assert results["show"][1].advices == [
        f"{PREFIX}Use the performance governor on CPU 2-3 (other governors lower the frequency when the load is light)",
        f"{PREFIX}Raise the minimum frequency to the maximum on CPU 0-1 (so that the frequency does not change "
        "between runs)",
    ]
    assert results["tune"][0] == [
        governor_change(2, "performance"),
        governor_change(3, "performance"),
        min_change(0, 4600000, 4600),
        min_change(1, 4600000, 4600),
    ]


def test_performance_governor_not_available(tmp_path):
    files = with_cpus(ISOLATED_SPLIT, [2, 3], scaling_available_governors="ondemand powersave userspace")
    changes, messages = run(freq_context(tmp_path, files))["tune"]
    assert messages.warnings == [
        f"{PREFIX}The performance governor is not available on CPU 2-3: governor left as it is"
    ]
    assert changes == [
        governor_change(0, "performance"),
        governor_change(1, "performance"),
        *(min_change(cpu, 3000000, 3000) for cpu in range(4)),
    ]


def test_no_usual_default_governor(tmp_path):
    files = with_cpus(
        ISOLATED_SPLIT, range(4), scaling_governor="performance", scaling_available_governors="performance userspace"
    )
    changes, messages = run(freq_context(tmp_path, files))["defaults"]
    assert messages.warnings == [
        f"{PREFIX}No usual default governor (schedutil, ondemand) is available on CPU 0-3: governor left as it is"
    ]
    assert changes == []


def test_default_governor():
    choose = CPUFrequency.default_governor
    assert choose("intel_pstate", ["performance", "powersave"]) == "powersave"
    assert choose("amd-pstate-epp", ["performance", "powersave"]) == "powersave"
    assert choose("intel_cpufreq", ["performance", "powersave", "schedutil", "ondemand"]) == "schedutil"
    assert choose("acpi-cpufreq", ["ondemand", "performance", "powersave"]) == "ondemand"
    assert choose(None, ["performance", "powersave"]) is None


def test_missing_governor_file(tmp_path):
    files = dict(INTEL_LAPTOP)
    del files[cpufreq(2, "scaling_governor")]
    results = run(freq_context(tmp_path, files))
    messages = results["show"][1]
    assert messages.errors == [f"{PREFIX}Unable to read cpufreq/scaling_governor of CPU 2"]
    assert messages.states == [
        f"{PREFIX}0-1,3=governor powersave, min=400 MHz, max=4600 MHz; 2=min=400 MHz, max=4600 MHz"
    ]
    assert messages.advices[0] == (
        f"{PREFIX}Use the performance governor on CPU 0-1,3 (other governors lower the frequency when the load is "
        "light)"
    )
    changes, messages = results["tune"]
    assert messages.errors == [f"{PREFIX}Unable to read cpufreq/scaling_governor of CPU 2"]
    assert changes == [
        governor_change(0, "performance"),
        governor_change(1, "performance"),
        governor_change(3, "performance"),
        *(min_change(cpu, 4600000, 4600) for cpu in range(4)),
    ]


def test_missing_available_governors_file(tmp_path):
    files = dict(AMD_BOX)
    del files[cpufreq(5, "scaling_available_governors")]
    changes, messages = run(freq_context(tmp_path, files, cpus=[4, 5]))["tune"]
    assert messages.errors == [f"{PREFIX}Unable to read cpufreq/scaling_available_governors of CPU 5"]
    assert messages.warnings == []
    assert changes == [
        governor_change(4, "performance"),
        min_change(4, 3000000, 3000),
        min_change(5, 3000000, 3000),
    ]


def test_unexpected_frequency(tmp_path):
    files = with_cpus(INTEL_LAPTOP, [1], scaling_max_freq="fast")
    results = run(freq_context(tmp_path, files))
    messages = results["show"][1]
    assert messages.errors == [f"{PREFIX}Unexpected value 'fast' in {cpufreq(1, 'scaling_max_freq')}"]
    assert messages.states == [
        f"{PREFIX}0,2-3=governor powersave, min=400 MHz, max=4600 MHz; 1=governor powersave, min=400 MHz"
    ]
    assert cpufreq(1, "scaling_min_freq") not in [change.path for change in results["tune"][0]]


def test_cpu_without_cpufreq_is_left_out(tmp_path):
    files = {path: text for path, text in ISOLATED_SPLIT.items() if "/cpu3/cpufreq/" not in path}
    results = run(freq_context(tmp_path, files, cpus=[1, 3]))
    messages = results["show"][1]
    assert messages.states == [f"{PREFIX}0-2=governor ondemand, min=800 MHz, max=3000 MHz"]
    assert messages.errors == []
    assert results["tune"][0] == [governor_change(1, "performance"), min_change(1, 3000000, 3000)]


@pytest.mark.parametrize(
    ("khz", "text"), [(3000000, "3000 MHz"), (400000, "400 MHz"), (1800500, "1800.5 MHz"), (0, "0 MHz")]
)
def test_format_mhz(khz, text):
    assert format_mhz(khz) == text
