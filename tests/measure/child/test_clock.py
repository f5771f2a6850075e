"""perf.measure.child.clock: the clocks of --clock and their check (the probe is
tested with calibration, tests/measure/test_calibration.py)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from helpers import FakeClock

from perf.errors import UsageError
from perf.measure.child import clock
from perf.measure.child.clock import check_clock, get_clock, record_clock


def test_clocks_of_the_option():
    assert get_clock("wall") is time.perf_counter
    assert get_clock("cpu") is time.thread_time


def test_the_thread_clock_of_this_machine_passes_the_check():
    check_clock("cpu")
    check_clock("wall")


def info_of(resolution):
    def get_clock_info(name):
        assert name == "thread_time"
        return SimpleNamespace(implementation="fake", resolution=resolution)

    return get_clock_info


@pytest.mark.parametrize("resolution", [0.0, -1e-9, float("nan"), 1.0])
def test_a_thread_clock_without_a_usable_resolution_is_refused(resolution):
    with pytest.raises(UsageError) as info:
        check_clock("cpu", info_of(resolution))
    assert str(info.value) == (
        f"--clock cpu: time.thread_time() is not usable here: its resolution is {resolution!r} s"
    )


def test_a_thread_clock_that_fails_is_refused(monkeypatch):
    def broken():
        raise OSError(22, "Invalid argument")

    monkeypatch.setitem(clock.CLOCKS, "cpu", broken)
    with pytest.raises(UsageError) as info:
        check_clock("cpu", info_of(1e-9))
    assert str(info.value) == "--clock cpu: time.thread_time() is not usable here: [Errno 22] Invalid argument"


def test_a_clock_unknown_to_get_clock_info_is_refused():
    def unknown(name):
        raise ValueError("unknown clock")

    with pytest.raises(UsageError) as info:
        check_clock("cpu", unknown)
    assert str(info.value) == "--clock cpu: time.thread_time() is not usable here: unknown clock"


def test_no_thread_clock(monkeypatch):
    monkeypatch.delitem(clock.CLOCKS, "cpu")
    with pytest.raises(UsageError) as info:
        check_clock("cpu", info_of(1e-9))
    assert str(info.value) == "--clock cpu: this Python has no time.thread_time()"


def test_the_wall_clock_is_not_checked(monkeypatch):
    monkeypatch.setitem(clock.CLOCKS, "wall", FakeClock())
    check_clock("wall", info_of(0.0))


def test_record_clock():
    metadata = {"name": "b", "timer": "clock_gettime(CLOCK_MONOTONIC), resolution: 1.00 ns"}
    record_clock(metadata, "cpu")
    assert metadata["clock"] == "cpu"
    info = time.get_clock_info("thread_time")
    assert metadata["timer"].startswith(f"{info.implementation}, resolution: ")
    record_clock(metadata, "wall")
    assert "clock" not in metadata  # nothing for the wall clock: files stay as pyperf writes them
