"""perf.measure.child.interference: CPU share and switches per value, the speed probe."""

from __future__ import annotations

import pytest
from helpers import FakeClock

from perf.measure.child.interference import PROBE_BYTES, PROBE_KIND, SpeedProbe, ValueMonitor, Witness


class Machine:
    """A wall clock, a thread CPU clock and a switch counter driven by the
    fake benchmark: each sample takes 1 s of wall time, of which it spends
    *off_cpu* seconds off the CPU, with *switched* involuntary switches."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self.switched = 0

    def sample(self, off_cpu: float = 0.0, switched: int = 0) -> float:
        self.wall += 1.0
        self.cpu += 1.0 - off_cpu
        self.switched += switched
        return 1.0


def monitor_of(machine: Machine, switches: bool = True) -> ValueMonitor:
    return ValueMonitor(
        wall=lambda: machine.wall, cpu=lambda: machine.cpu, switches=(lambda: machine.switched) if switches else None
    )


def test_a_clean_run_keeps_the_cpu():
    machine = Machine()
    monitor = monitor_of(machine)
    timed = monitor.wrap(lambda loops: machine.sample())
    for _ in range(4):
        assert timed(10) == 1.0
    assert monitor.metadata(3) == {"cpu_share": 1.0, "involuntary_switches": 0}


def test_only_the_values_count_they_come_last():
    machine = Machine()
    monitor = monitor_of(machine)
    plan = iter([(0.5, 7), (0.0, 0), (0.25, 2), (0.0, 1)])  # a warmup, then three values
    timed = monitor.wrap(lambda loops: machine.sample(*next(plan)))
    for _ in range(4):
        timed(1)
    assert monitor.metadata(3) == {"cpu_share": round(2.75 / 3, 4), "involuntary_switches": 3}  # 4 digits kept
    assert len(monitor.samples) == 4


def test_without_a_switch_counter_only_the_share_is_recorded():
    machine = Machine()
    monitor = monitor_of(machine, switches=False)
    monitor.wrap(lambda loops: machine.sample(0.1))(1)
    assert monitor.metadata(1) == {"cpu_share": pytest.approx(0.9)}


def test_no_values_no_metadata():
    assert ValueMonitor().metadata(0) == {}


def test_the_real_counters_read_this_thread():
    monitor = ValueMonitor()
    timed = monitor.wrap(lambda loops: float(sum(range(loops))))
    timed(10_000)
    ((wall, cpu, switches),) = monitor.samples
    assert wall > 0 and cpu >= 0 and switches >= 0
    assert 0 <= monitor.metadata(1)["cpu_share"] <= 1.0


def test_speed_probe_is_the_best_of_its_runs():
    clock = FakeClock(step=0.5)
    checked = []
    probe = SpeedProbe(lambda data: checked.append(len(data)) or 0, clock=clock)
    assert probe(repeat=3) == 0.5
    assert clock.calls == 6  # start and end of each run, nothing else timed
    assert checked == [PROBE_BYTES] * 3  # one call per run: the interpreter's share is one call


def test_the_speed_probe_is_zlibs_checksum():
    import zlib

    probe = SpeedProbe.create()
    assert probe is not None and probe.checksum is zlib.crc32 and probe.kind == PROBE_KIND
    assert probe() > 0


def test_an_interpreter_without_zlib_records_no_probe(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_zlib(name, *args, **kwargs):
        if name == "zlib":
            raise ImportError("No module named 'zlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_zlib)
    witness = Witness()
    assert witness.probe is None
    witness.run_probe()
    witness.run_probe()
    metadata = witness.metadata(0)
    assert not any(key.startswith("speed_probe") for key in metadata)


def test_the_witness_records_the_kind_of_its_probe():
    witness = Witness()
    witness.run_probe()
    witness.run_probe()
    metadata = witness.metadata(0)
    assert metadata["speed_probe"] == PROBE_KIND
    assert metadata["speed_probe_before"] > 0 and metadata["speed_probe_after"] > 0
    assert "speed_probe" not in Witness(enabled=False).metadata(0)
