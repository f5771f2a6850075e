"""What the machine did to a worker while it measured: its own evidence.

Two probes, both outside the timed region (issue 14, busy machines):

* :class:`ValueMonitor` reads this thread's CPU time and its involuntary
  context switches around each sample.  A value during which the thread
  was off the CPU (another process took it) took more wall time than CPU
  time.  The run records the share of the values' wall time spent on the
  CPU (``cpu_share``) and the involuntary switches during the values
  (``involuntary_switches``).
* :class:`SpeedProbe` times a small fixed reference workload: zlib's
  CRC-32 over a buffer, native code of a shared system library, one call,
  so that the interpreter's share of the time is about 0.5 % and the
  probe measures the machine, not the interpreter under test (issue 21;
  perf's first probe timed interpreter work, and CPython 3.9 to 3.13 ran
  it up to 19 % apart).  The worker runs it before and after its values
  (``speed_probe_before``, ``speed_probe_after``, the best of a few runs,
  seconds) and records its kind (``speed_probe``).  Between two
  recordings, a change of the probe says the machine itself ran slower or
  faster.  bench/busy/probe_study.py chose it among other native workloads.

Must not: print, decide anything (perf.analysis judges the figures).
"""

from __future__ import annotations

import time
from typing import Callable

TimeFunction = Callable[[int], float]

#: "read the switches the platform's way" (None means: not counted)
_DEFAULT: object = object()

#: runs of the reference workload at each end of the values (best kept)
PROBE_REPEAT = 3
#: the bytes the checksum reads: zeros that the kernel maps to one page, so
#: that the workload never waits on memory and every process reads alike
#: (two 512 KB buffers copied into each other, the memory part of perf's
#: first probe, scattered by 12 to 30 % from process to process)
PROBE_BYTES = 1 << 18
#: the ``speed_probe`` metadata of this workload: another workload, or
#: this one on other data, is another kind, never compared with this one
PROBE_KIND = "zlib-crc32-256k"


def _switches_reader() -> Callable[[], int] | None:
    """This thread's involuntary context switches, where Linux counts them."""
    try:
        import resource

        scope = resource.RUSAGE_THREAD  # type: ignore[attr-defined,unused-ignore]
    except (ImportError, AttributeError):
        return None

    def read() -> int:
        return int(resource.getrusage(scope).ru_nivcsw)

    return read


class ValueMonitor:
    """Wall time, thread CPU time and involuntary switches of each sample.

    The clocks and the switch counter are injectable (tests drive them);
    *switches* None: the platform does not count them.
    """

    def __init__(
        self,
        wall: Callable[[], float] = time.perf_counter,
        cpu: Callable[[], float] = time.thread_time,
        switches: Callable[[], int] | None = _DEFAULT,  # type: ignore[assignment]
    ) -> None:
        self.wall = wall
        self.cpu = cpu
        self.switches = _switches_reader() if switches is _DEFAULT else switches
        #: one (wall seconds, cpu seconds, switches) per sample, in order
        self.samples: list[tuple[float, float, int]] = []

    def wrap(self, time_function: TimeFunction) -> TimeFunction:
        wall_clock, cpu_clock = self.wall, self.cpu
        switches = self.switches or (lambda: 0)
        record = self.samples.append

        def monitored(loops: int) -> float:
            before = switches()
            cpu = cpu_clock()
            wall = wall_clock()
            raw = time_function(loops)
            wall = wall_clock() - wall
            cpu = cpu_clock() - cpu
            record((wall, cpu, switches() - before))
            return raw

        return monitored

    def metadata(self, nvalues: int) -> dict[str, float | int]:
        """``cpu_share`` and ``involuntary_switches`` of the last *nvalues*
        samples (the values are taken last)."""
        values = self.samples[len(self.samples) - nvalues :] if nvalues else []
        wall = sum(sample[0] for sample in values)
        if not values or wall <= 0:
            return {}
        cpu = sum(sample[1] for sample in values)
        metadata: dict[str, float | int] = {"cpu_share": round(min(cpu / wall, 1.0), 4)}
        if self.switches is not None:
            metadata["involuntary_switches"] = sum(sample[2] for sample in values)
        return metadata


class SpeedProbe:
    """zlib's CRC-32 of :data:`PROBE_BYTES` zero bytes, in one call: the
    time is spent in libz, the same library whatever interpreter calls it."""

    kind = PROBE_KIND

    def __init__(self, checksum: Callable[[bytes], int], clock: Callable[[], float] = time.perf_counter) -> None:
        self.checksum = checksum
        self.clock = clock
        self.data = bytes(PROBE_BYTES)

    @classmethod
    def create(cls) -> SpeedProbe | None:
        """The probe, or None on an interpreter built without zlib."""
        try:
            import zlib
        except ImportError:
            return None
        return cls(zlib.crc32)

    def __call__(self, repeat: int = PROBE_REPEAT) -> float:
        """Seconds of the workload: the best of *repeat* runs."""
        checksum, data, clock = self.checksum, self.data, self.clock
        best = float("inf")
        for _ in range(repeat):
            start = clock()
            checksum(data)
            best = min(best, clock() - start)
        return max(best, 0.0)


class Witness:
    """Both probes of one worker: the monitor around each sample and the
    speed probe before and after the values.  Disabled (memory values,
    which are not times), it changes nothing and records nothing."""

    def __init__(self, enabled: bool = True) -> None:
        self.monitor = ValueMonitor() if enabled else None
        self.probe = SpeedProbe.create() if enabled else None
        self.probes: list[float] = []

    def wrap(self, time_function: TimeFunction) -> TimeFunction:
        return self.monitor.wrap(time_function) if self.monitor is not None else time_function

    def run_probe(self) -> None:
        """Time the reference workload (before, then after, the values)."""
        if self.probe is not None:
            self.probes.append(self.probe())

    def metadata(self, nvalues: int) -> dict[str, float | int | str]:
        metadata: dict[str, float | int | str] = {}
        if self.monitor is not None:
            metadata.update(self.monitor.metadata(nvalues))
        if self.probe is not None and len(self.probes) == 2 and all(self.probes):
            metadata["speed_probe_before"], metadata["speed_probe_after"] = self.probes
            metadata["speed_probe"] = self.probe.kind
        return metadata
