from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest
from helpers import make_tree

from perf.errors import UsageError, WorkerError
from perf.measure.child import memory
from perf.measure.child.memory import PeakMemoryTracker, TracemallocTracker, peak_rss_supported

try:
    import tracemalloc
except ImportError:  # PyPy ships the module without its C part
    tracemalloc = None

needs_tracemalloc = pytest.mark.skipif(tracemalloc is None, reason="tracemalloc is not available here")

SMAPS = """\
55d0a5a00000-55d0a5a2c000 r--p 00000000 08:01 1234   /usr/bin/python3
Size:                176 kB
Rss:                 170 kB
Shared_Clean:        100 kB
Shared_Dirty:          0 kB
Private_Clean:        60 kB
Private_Dirty:        10 kB
Private_Hugetlb:       0 kB
7f00a0000000-7f00a0021000 rw-p 00000000 00:00 0
Size:                132 kB
Rss:                 100 kB
Private_Clean:         0 kB
Private_Dirty:       100 kB
Private_Hugetlb:       2 kB
VmFlags: rd wr mr mw me ac
"""

#: Private_* of SMAPS: 60 + 10 + 100 + 2 kB
SMAPS_PRIVATE = 172 * 1024


def tracker_threads():
    return [thread for thread in threading.enumerate() if thread.name == "perf-peak-memory"]


class FakeReader:
    """Returns *values* one by one, then *rest* forever; *exhausted* is set once
    every value was read (the test waits for it instead of sleeping)."""

    def __init__(self, values, rest):
        self.values = list(values)
        self.rest = rest
        self.calls = 0
        self.exhausted = threading.Event()

    def __call__(self):
        self.calls += 1
        if self.values:
            return self.values.pop(0)
        self.exhausted.set()
        return self.rest


def test_peak_is_the_largest_value_read_by_the_thread():
    reader = FakeReader([100, 500, 300, None], rest=50)
    with PeakMemoryTracker(period=0.0001, read_memory=reader) as tracker:
        assert reader.exhausted.wait(timeout=60)
    assert tracker.peak == 500
    assert tracker_threads() == []


def test_reads_on_entry_and_on_exit():
    # the period is so long that the thread never reads: exit must not wait for it
    reader = FakeReader([10, 20], rest=5)
    with PeakMemoryTracker(period=3600, read_memory=reader) as tracker:
        assert tracker_threads() != []
        assert tracker.peak == 10
    assert tracker.peak == 20
    assert reader.calls == 2
    assert tracker_threads() == []


def test_peak_is_reset_on_each_entry():
    tracker = PeakMemoryTracker(period=3600, read_memory=FakeReader([700, 800, 30, 40], rest=1))
    with tracker:
        pass
    assert tracker.peak == 800
    with tracker:
        pass
    assert tracker.peak == 40


def test_failed_reads_are_skipped():
    results = iter([OSError("gone"), 64, None])

    def read():
        result = next(results, 1)
        if isinstance(result, Exception):
            raise result
        return result

    with PeakMemoryTracker(period=3600, read_memory=read) as tracker:
        pass
    assert tracker.peak == 64


def test_no_memory_read_is_a_worker_error():
    with pytest.raises(WorkerError, match="peak memory"), PeakMemoryTracker(period=3600, read_memory=lambda: 0):
        pass
    assert tracker_threads() == []


def test_an_error_in_the_block_is_not_hidden():
    with pytest.raises(KeyError), PeakMemoryTracker(period=3600, read_memory=lambda: None):
        raise KeyError("benchmark")
    assert tracker_threads() == []


def test_reads_private_memory_from_smaps(tmp_path):
    sysfs = make_tree(tmp_path, {"proc/self/smaps": SMAPS})
    assert peak_rss_supported(sysfs)
    with PeakMemoryTracker(period=3600, sysfs=sysfs) as tracker:
        pass
    assert tracker.peak == SMAPS_PRIVATE


def test_prefers_smaps_rollup(tmp_path):
    rollup = "00400000-ff000000 ---p 00000000 00:00 0   [rollup]\nRss: 9 kB\nPrivate_Clean: 3 kB\nPrivate_Dirty: 4 kB\n"
    sysfs = make_tree(tmp_path, {"proc/self/smaps": SMAPS, "proc/self/smaps_rollup": rollup})
    with PeakMemoryTracker(period=3600, sysfs=sysfs) as tracker:
        pass
    assert tracker.peak == 7 * 1024


def test_unsupported_platform(tmp_path, monkeypatch):
    monkeypatch.setattr(memory, "load_psutil", lambda: None)
    sysfs = make_tree(tmp_path, {"proc/loadavg": "0.1 0.2 0.3 1/100 42\n"})
    assert not peak_rss_supported(sysfs)
    with pytest.raises(UsageError) as error:
        PeakMemoryTracker(sysfs=sysfs)
    assert str(error.value) == (
        "--track-memory is not supported on this platform: "
        f"{tmp_path / 'proc/self/smaps'} is not readable and psutil is not installed"
    )


def test_empty_smaps_is_unsupported(tmp_path, monkeypatch):
    monkeypatch.setattr(memory, "load_psutil", lambda: None)
    sysfs = make_tree(tmp_path, {"proc/self/smaps": "Private_Dirty: 0 kB\n"})
    with pytest.raises(UsageError, match="not supported on this platform"):
        PeakMemoryTracker(sysfs=sysfs)


class FakeProcess:
    def __init__(self, uss=None, rss=1):
        self.uss = uss
        self.rss = rss

    def memory_full_info(self):
        if self.uss is None:
            raise RuntimeError("AccessDenied")
        return SimpleNamespace(uss=self.uss)

    def memory_info(self):
        return SimpleNamespace(rss=self.rss)


@pytest.mark.parametrize(
    ("process", "expected"), [(FakeProcess(uss=4096, rss=9999), 4096), (FakeProcess(rss=8192), 8192)]
)
def test_psutil_without_proc(tmp_path, monkeypatch, process, expected):
    monkeypatch.setattr(memory, "load_psutil", lambda: SimpleNamespace(Process=lambda: process))
    sysfs = make_tree(tmp_path, {})
    assert peak_rss_supported(sysfs)
    with PeakMemoryTracker(period=3600, sysfs=sysfs) as tracker:
        pass
    assert tracker.peak == expected


@pytest.mark.skipif(not peak_rss_supported(), reason="memory cannot be tracked here")
def test_real_process():
    with PeakMemoryTracker() as tracker:
        data = bytearray(4 * 1024 * 1024)
        data[::4096] = b"x" * len(data[::4096])  # touch the pages
    assert tracker.peak >= 1
    assert tracker_threads() == []


@needs_tracemalloc
def test_tracemalloc_peak_grows_with_a_big_list():
    assert not tracemalloc.is_tracing()
    with TracemallocTracker() as small:
        data = [0] * 10
    with TracemallocTracker() as big:
        data = [0] * 1_000_000
    del data
    assert big.peak >= 4_000_000
    assert big.peak > small.peak
    assert not tracemalloc.is_tracing()


@needs_tracemalloc
def test_tracemalloc_left_on_when_already_tracing():
    tracemalloc.start()
    try:
        waste = [0] * 1_000_000
        del waste
        with TracemallocTracker() as tracker:
            data = [0] * 100_000
        del data
        assert tracemalloc.is_tracing()
        # the peak was reset on entry: the bigger list allocated before is not counted
        assert 400_000 <= tracker.peak < 4_000_000
    finally:
        tracemalloc.stop()
