from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from perf.errors import UsageError, WorkerError
from perf.measure.hook_set import HookSet
from perf.measure.hooks import (
    ENTRY_POINT_GROUP,
    HookBase,
    HookError,
    PerfRecord,
    PyStats,
    get_hook_names,
    get_selected_hooks,
)


class FakeDescriptor:
    """Like importlib.metadata.EntryPoint: a name and load()."""

    def __init__(self, name, factory):
        self.name = name
        self.factory = factory
        self.loads = 0

    def load(self):
        self.loads += 1
        return self.factory


def recording_hook(name, log, fail_on=None):
    """A hook class that appends "<name> <event>" to *log*."""

    class Recording(HookBase):
        def __init__(self):
            super().__init__()
            if fail_on == "init":
                raise HookError(f"{name} is not available here")
            log.append(f"{name} init")

        def __enter__(self):
            log.append(f"{name} enter")
            if fail_on == "enter":
                raise RuntimeError(f"{name} broke")

        def __exit__(self, exc_type, exc, tb):
            log.append(f"{name} exit {exc_type.__name__ if exc_type else None}")

        def teardown(self, metadata):
            log.append(f"{name} teardown")
            if fail_on == "teardown":
                raise RuntimeError(f"{name} teardown broke")
            metadata[f"{name}_samples"] = log.count(f"{name} enter")

    return Recording


def test_entry_point_group():
    assert ENTRY_POINT_GROUP == "perf.hook"


def test_hook_names_always_include_the_builtins():
    names = get_hook_names()
    assert names == sorted(names)
    assert {"perf_record", "pystats"} <= set(names)


def test_hooks_written_for_pyperf_are_found(tmp_path, monkeypatch):
    from helpers import fake_hook_package

    fake_hook_package(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert {"only_pyperf", "both"} <= set(get_hook_names())
    only, both, record = get_selected_hooks(["only_pyperf", "both", "perf_record"])
    assert only.__name__ == "PyperfOnly"  # registered only under pyperf.hook
    assert both.__name__ == "BothPerf"  # a name in both groups: perf.hook wins
    assert record is PerfRecord  # pyperf's group never replaces perf's built-in hooks


def test_hook_names_add_extra_descriptors_without_duplicates():
    extra = [FakeDescriptor("zzz", HookBase), FakeDescriptor("aaa", HookBase), FakeDescriptor("perf_record", HookBase)]
    names = get_hook_names(extra)
    assert names == sorted(names)
    assert names.count("perf_record") == 1
    assert {"aaa", "zzz"} <= set(names)
    assert [descriptor.loads for descriptor in extra] == [0, 0, 0]


def test_selected_hooks_keep_the_order_given():
    first = FakeDescriptor("first", HookBase)
    second = FakeDescriptor("second", PyStats)
    assert get_selected_hooks(["second", "first", "second"], [first, second]) == [PyStats, HookBase]
    assert get_selected_hooks([]) == []


def test_selected_builtins():
    assert get_selected_hooks(["perf_record", "pystats"]) == [PerfRecord, PyStats]


def test_extra_descriptor_replaces_a_builtin_of_the_same_name():
    assert get_selected_hooks(["pystats"], [FakeDescriptor("pystats", HookBase)]) == [HookBase]


def test_unknown_hook_name():
    extra = [FakeDescriptor("mine", HookBase)]
    with pytest.raises(UsageError) as error:
        get_selected_hooks(["mine", "nope"], extra)
    known = get_hook_names(extra)
    assert "mine" in known
    assert str(error.value) == f"unknown hook 'nope'; known hooks: {', '.join(known)}"


def test_hook_base_does_nothing():
    hook = HookBase()
    with hook:
        pass
    metadata = {}
    hook.teardown(metadata)
    assert metadata == {}


@pytest.mark.skipif(hasattr(sys, "_stats_on"), reason="this Python has pystats")
def test_pystats_needs_a_pystats_build():
    with pytest.raises(WorkerError, match=r"hook .pystats. cannot be set up: .*--enable-pystats"):
        HookSet(["pystats"])


def test_pystats_turns_statistics_on_during_samples_only(monkeypatch):
    calls = []
    for function in ("_stats_on", "_stats_off", "_stats_clear"):
        monkeypatch.setattr(sys, function, lambda function=function: calls.append(function), raising=False)
    hooks = HookSet(["pystats"])
    with hooks:
        calls.append("sample")
    metadata = {}
    hooks.teardown(metadata)
    assert calls == ["_stats_off", "_stats_clear", "_stats_on", "sample", "_stats_off"]
    assert metadata == {"pystats": "enabled", "hooks": "pystats"}


needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


class FakePerf:
    """Plays `perf record --control fifo:CTL,ACK` in a thread: acknowledges
    each command, and exits on "stop"."""

    def __init__(self):
        self.command = None
        self.received = []
        self.killed = False
        self.thread = None

    def spawn(self, command):
        self.command = command
        control, ack = command[command.index("--control") + 1].removeprefix("fifo:").split(",")
        self.thread = threading.Thread(target=self.serve, args=(control, ack), daemon=True)
        self.thread.start()
        return self

    def serve(self, control, ack):
        with open(control) as commands, open(ack, "w") as acks:
            for line in commands:
                self.received.append(line.rstrip("\n"))
                acks.write("ack\n")
                acks.flush()
                if line == "stop\n":
                    break

    def wait(self, timeout=None):
        self.thread.join(timeout)
        if self.thread.is_alive():
            raise subprocess.TimeoutExpired(self.command, timeout)
        return 0

    def kill(self):
        self.killed = True


@needs_fifo
def test_perf_record_enables_events_around_each_sample(tmp_path):
    perf = FakePerf()
    environ = {
        "PERF_PERF_RECORD_DATA_DIR": str(tmp_path),
        "PERF_PERF_RECORD_EXTRA_OPTS": "-g --call-graph 'dwarf,16384'",
    }
    descriptor = FakeDescriptor("perf_record", lambda: PerfRecord(spawn=perf.spawn, environ=environ))
    hooks = HookSet(["perf_record"], [descriptor])
    for _ in range(2):
        with hooks:
            pass
    metadata = {}
    hooks.teardown(metadata)

    assert perf.received == ["enable", "disable", "enable", "disable", "stop"]
    assert metadata == {"hooks": "perf_record"}
    assert not perf.killed
    command = perf.command
    assert command[:4] == ["perf", "record", "--pid", str(os.getpid())]
    assert command[4] == "--output"
    assert os.path.dirname(command[5]) == str(tmp_path)
    assert os.path.basename(command[5]).startswith("perf.data.")
    assert command[6] == "--control"
    assert command[8:] == ["-g", "--call-graph", "dwarf,16384"]
    control, ack = command[7].removeprefix("fifo:").split(",")
    assert os.path.dirname(control) == os.path.dirname(ack)
    assert not os.path.exists(os.path.dirname(control))  # FIFOs removed by teardown


@needs_fifo
def test_perf_record_default_output_is_the_current_directory():
    perf = FakePerf()
    hook = PerfRecord(spawn=perf.spawn, environ={})
    hook.teardown({})
    output = perf.command[perf.command.index("--output") + 1]
    assert os.path.dirname(output) == ""
    assert perf.command[-2] == "--control"


class ExitedPerf:
    """perf record that exits at once (no permission, bad option)."""

    def __init__(self):
        self.command = None

    def spawn(self, command):
        self.command = command
        return self

    def wait(self, timeout=None):
        return 255

    def kill(self):
        pass


@needs_fifo
def test_perf_record_exiting_early_is_a_hook_error():
    perf = ExitedPerf()
    with pytest.raises(HookError, match="perf record exited with code 255 before the benchmark started"):
        PerfRecord(spawn=perf.spawn, environ={})
    control = perf.command[perf.command.index("--control") + 1].removeprefix("fifo:").split(",")[0]
    assert not os.path.exists(os.path.dirname(control))


@needs_fifo
def test_perf_record_without_perf_is_a_worker_error():
    def spawn(command):
        raise FileNotFoundError(2, "No such file or directory", "perf")

    descriptor = FakeDescriptor("perf_record", lambda: PerfRecord(spawn=spawn))
    with pytest.raises(WorkerError, match="hook 'perf_record' cannot be set up: cannot run perf record: "):
        HookSet(["perf_record"], [descriptor])
