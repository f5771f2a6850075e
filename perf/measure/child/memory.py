"""Peak memory of the worker process, for ``--track-memory`` and ``--tracemalloc``.

With either option the value stored for a sample is a peak memory in bytes
instead of a duration.  :class:`PeakMemoryTracker` samples the private memory
of the process from a daemon thread; :class:`TracemallocTracker` asks
:mod:`tracemalloc` for the peak of the memory Python allocated.  The two
metrics (:mod:`perf.measure.child.metric`) are :class:`PeakMemory` and
:class:`TracedMemory`.

Must not: print, decide what is stored in a Run, or read /proc other than through SysFS.
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import TYPE_CHECKING, Callable, ClassVar, Optional

from perf.errors import UsageError, WorkerError
from perf.measure.child.metric import WallTime
from perf.platform.optional import load_psutil
from perf.platform.sysfs import DEFAULT, SysFS

if TYPE_CHECKING:
    from perf.measure.child.sampling import Samples, TimeFunction
    from perf.measure.child.tasks import Task

#: reads the current memory of the process in bytes (None when a read fails)
MemoryReader = Callable[[], Optional[int]]

#: seconds between two samples of the tracking thread (pyperf's period)
DEFAULT_PERIOD = 0.010

# smaps_rollup (Linux 4.14) holds the sums of every mapping of smaps, so it
# gives the same total as summing smaps, at a fraction of the cost.
_SMAPS_FILES = ("/proc/self/smaps_rollup", "/proc/self/smaps")


def _private_bytes(smaps_text: str) -> int:
    """The private memory listed in a smaps file: every ``Private_*`` field
    (clean, dirty, hugetlb), given in kB by the kernel."""
    total = 0
    for raw_line in smaps_text.splitlines():
        line = raw_line.rstrip()
        if line.startswith("Private_") and line.endswith("kB"):
            total += int(line.split()[1]) * 1024
    return total


def _smaps_reader(sysfs: SysFS) -> MemoryReader | None:
    """A reader of the first smaps file of the process that reports memory."""
    for path in _SMAPS_FILES:
        text = sysfs.read_text(path)
        if text is not None and _private_bytes(text) > 0:
            return _make_smaps_reader(sysfs, path)
    return None


def _make_smaps_reader(sysfs: SysFS, path: str) -> MemoryReader:
    def read() -> int | None:
        text = sysfs.read_text(path)
        return None if text is None else _private_bytes(text)

    return read


def _psutil_reader() -> MemoryReader | None:
    """USS (memory unique to the process) when psutil can read it, else RSS
    (BSD has no USS)."""
    psutil = load_psutil()
    if psutil is None:
        return None
    process = psutil.Process()
    try:
        process.memory_full_info().uss  # noqa: B018 - probe: AttributeError or AccessDenied
    except Exception:

        def read_rss() -> int | None:
            return int(process.memory_info().rss)

        return read_rss

    def read_uss() -> int | None:
        return int(process.memory_full_info().uss)

    return read_uss


def _find_reader(sysfs: SysFS) -> MemoryReader:
    """The /proc reader where /proc is readable (Linux), else psutil's."""
    reader = _smaps_reader(sysfs) or _psutil_reader()
    if reader is None:
        smaps = sysfs.path(_SMAPS_FILES[-1])
        raise UsageError(
            f"--track-memory is not supported on this platform: {smaps} is not readable and psutil is not installed"
        )
    return reader


def peak_rss_supported(sysfs: SysFS = DEFAULT) -> bool:
    """Whether :class:`PeakMemoryTracker` can read the memory of this process."""
    try:
        _find_reader(sysfs)
    except UsageError:
        return False
    return True


class PeakMemoryTracker:
    """The peak private memory of the process while the ``with`` block runs.

    A daemon thread reads the memory every *period* seconds; one more read
    is made on entry and on exit, so short blocks are measured too.
    *read_memory* replaces the system reader (tests).

    :raises UsageError: at construction, when memory cannot be read here.
    :raises WorkerError: on exit, when no read reported any memory.
    """

    def __init__(
        self,
        period: float = DEFAULT_PERIOD,
        sysfs: SysFS = DEFAULT,
        read_memory: MemoryReader | None = None,
    ) -> None:
        if period < 0:
            raise ValueError("period must be >= 0")
        self.period = period
        self._read_memory = read_memory if read_memory is not None else _find_reader(sysfs)
        #: bytes: the largest memory read since the last entry
        self.peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _sample(self) -> None:
        try:
            usage = self._read_memory()
        except OSError:  # the process is exiting, /proc went away: skip the sample
            return
        if usage is not None and usage > self.peak:
            self.peak = usage

    def _run(self) -> None:
        # Event.wait() instead of sleep(): exit does not wait a whole period
        while not self._stop.wait(self.period):
            self._sample()

    def __enter__(self) -> PeakMemoryTracker:
        self.peak = 0
        self._stop.clear()
        self._sample()
        self._thread = threading.Thread(target=self._run, name="perf-peak-memory", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._sample()
        if self.peak < 1 and exc_type is None:
            raise WorkerError("failed to get the peak memory usage (--track-memory): every read returned zero")


class TracemallocTracker:
    """The peak of the memory traced by :mod:`tracemalloc` during the block.

    Starts tracing on entry and stops it on exit, unless tracing was already
    on (then only its peak is reset, and tracing is left on).

    :raises WorkerError: on exit, when tracemalloc traced no allocation.
    """

    def __init__(self) -> None:
        #: bytes: the traced peak of the last ``with`` block
        self.peak = 0
        self._started = False

    def __enter__(self) -> TracemallocTracker:
        import tracemalloc  # imports pickle and linecache: only when asked for

        self.peak = 0
        self._started = not tracemalloc.is_tracing()
        if self._started:
            tracemalloc.start()
        else:
            tracemalloc.reset_peak()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        import tracemalloc

        self.peak = tracemalloc.get_traced_memory()[1]
        if self._started:
            tracemalloc.stop()
            self._started = False
        if self.peak < 1 and exc_type is None:
            raise WorkerError("tracemalloc did not trace any Python memory allocation (--tracemalloc)")


class PeakMemory(WallTime):
    """``--track-memory``: a value is the peak private memory of the
    process during one sample (the task's own reading when it has one: a
    program's maximum RSS)."""

    name: ClassVar[str] = "track-memory"
    unit: ClassVar[str] = "byte"
    timed: ClassVar[bool] = False
    witnessed: ClassVar[bool] = False

    def tracker(self) -> PeakMemoryTracker | TracemallocTracker:
        return PeakMemoryTracker()

    def measure(self, time_function: TimeFunction, task: Task) -> TimeFunction:
        if task.memory_function is not None:
            return task.memory_function

        def peak(loops: int) -> float:
            tracker = self.tracker()
            with tracker:
                time_function(loops)
            return float(max(tracker.peak, 1))

        return peak

    def finish(self, samples: Samples) -> Samples:
        """Memory peaks are whole bytes: stored as integers, as pyperf does."""
        return samples._replace(
            values=tuple(int(value) for value in samples.values),
            warmups=tuple((loops, int(value)) for loops, value in samples.warmups),
        )


class TracedMemory(PeakMemory):
    """``--tracemalloc``: a value is the peak of the memory Python allocated
    during one sample."""

    name: ClassVar[str] = "tracemalloc"

    def tracker(self) -> PeakMemoryTracker | TracemallocTracker:
        return TracemallocTracker()
