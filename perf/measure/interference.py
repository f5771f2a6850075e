"""What the machine did to a worker while it measured: its own evidence.

Two probes, both outside the timed region (issue 14, busy machines):

* :class:`ValueMonitor` reads this thread's CPU time and its involuntary
  context switches around each sample.  A value during which the thread
  was off the CPU (another process took it) took more wall time than CPU
  time.  The run records the share of the values' wall time spent on the
  CPU (``cpu_share``) and the involuntary switches during the values
  (``involuntary_switches``).
* :class:`SpeedProbe` times a small fixed reference workload (interpreter
  work and a memory copy): the worker runs it before and after its values
  (``speed_probe_before``, ``speed_probe_after``, the best of a few runs,
  seconds).  Between two recordings, a change of the probe says the
  machine itself ran slower or faster.

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
#: the memory part of the reference workload: two buffers of this size,
#: copied into each other (a working set larger than most L2 caches)
_PROBE_BYTES = 1 << 19


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
    """A small fixed reference workload: interpreter work (a dict, a sort)
    and memory copies between two buffers allocated once per worker."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.source = bytearray(_PROBE_BYTES)
        self.target = bytearray(_PROBE_BYTES)

    def _work(self) -> int:
        table = {}
        for number in range(600):
            table[number] = number * number % 97
        ordered = sorted(table.values())
        for _ in range(2):
            self.target[:] = self.source
            self.source[:] = self.target
        return len(ordered)

    def __call__(self, repeat: int = PROBE_REPEAT) -> float:
        """Seconds of the workload: the best of *repeat* runs."""
        best = float("inf")
        for _ in range(repeat):
            start = self.clock()
            self._work()
            best = min(best, self.clock() - start)
        return max(best, 0.0)


class Witness:
    """Both probes of one worker: the monitor around each sample and the
    speed probe before and after the values.  Disabled (memory values,
    which are not times), it changes nothing and records nothing."""

    def __init__(self, enabled: bool = True) -> None:
        self.monitor = ValueMonitor() if enabled else None
        self.probe = SpeedProbe() if enabled else None
        self.probes: list[float] = []

    def wrap(self, time_function: TimeFunction) -> TimeFunction:
        return self.monitor.wrap(time_function) if self.monitor is not None else time_function

    def run_probe(self) -> None:
        """Time the reference workload (before, then after, the values)."""
        if self.probe is not None:
            self.probes.append(self.probe())

    def metadata(self, nvalues: int) -> dict[str, float | int]:
        metadata = self.monitor.metadata(nvalues) if self.monitor is not None else {}
        if len(self.probes) == 2 and all(self.probes):
            metadata["speed_probe_before"], metadata["speed_probe_after"] = self.probes
        return metadata
