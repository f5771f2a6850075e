"""A sample of ``--metric instructions``: counts of one loop, by differencing two processes.

A sample is one run of the benchmark.  It takes three workers:

1. a worker without valgrind runs the benchmark as a time run with
   ``--min-time`` / :data:`CALIBRATION_DIVISOR` (it calibrates the loops
   *L* in the first sample; later ones reuse them): its metadata becomes
   the run's (the Python, the machine, the date);
2. two workers under cachegrind (:mod:`perf.measure.cachegrind`) run the
   task once, *L* loops and *2L* loops, at the same time: counts need no
   quiet CPU.  Both get the same environment: the same padding, and
   ``PYTHONHASHSEED`` = the sample's number (their ``random`` is seeded
   with it too), so they differ only in their loops.

The counts of one loop are the difference of their totals divided by *L*
(start-up, imports, setup and the first call cancel); the run's value is
the instructions of one loop (of one statement with inner loops), its
metadata the instructions, misses and estimated cycles of a loop.  Sample
*n* has hash seed *n* on every side and in every recording: two
recordings of the same build give the same counts, and the spread between
samples is the spread between hash seeds.  So a process does not count a
sample twice: ``perf bisect`` measures GOOD and BAD in every session, and
the commits of a step again in the next one.

:func:`count_pairs` runs such pairs (several at once) and differences
them, for the runner's samples here and for the pytest plugin's batch
workers (:func:`perf.measure.parent.batches.count_batches`: one test per
pair); :func:`counted_run` makes the run of a sample for both.

Must not: print, exit, or decide the schedule.
"""

from __future__ import annotations

import os
import random
import re
import tempfile
import time
from typing import TYPE_CHECKING, Any, Callable, Mapping, NamedTuple, Sequence

from perf.errors import WorkerError
from perf.measure.cachegrind import OUTPUT_VARIABLE, installed_source, per_loop, read_totals
from perf.measure.parent.launcher import WorkerLauncher
from perf.measure.parent.workers import Finished, WorkerOutput, run_commands
from perf.measure.protocol import decode_benchmark
from perf.measure.values import CALIBRATION_DIVISOR
from perf.model.benchmark import Benchmark
from perf.model.metadata import COUNTER_KEY
from perf.model.run import Run

if TYPE_CHECKING:
    from perf.measure.options import RunOptions

#: metadata of the worker without valgrind that describe its time, not the counts
TIME_KEYS = (
    "calibrate_loops",
    "cpu_share",
    "duration",
    "involuntary_switches",
    "loop_overhead",
    "speed_probe",
    "speed_probe_after",
    "speed_probe_before",
    "steady_state",
    "steady_state_warmups",
    "timer_call_cost",
    "timer_effective_resolution",
    "warmups",
)
#: the metadata key of a sample's hash seed
SEED_KEY = "hash_seed"

#: what this process counted: the same worker command line, folder and
#: environment count the same (``perf bisect`` measures GOOD and BAD in
#: every session): the loops of those workers, and each sample's run by
#: its loops and number
_CALIBRATED: dict[tuple[Any, ...], int] = {}
_COUNTED: dict[tuple[Any, ...], Run] = {}
#: valgrind's note that it sized the last level from the real L3 (the
#: geometry is pinned: the note says nothing)
_VALGRIND_NOTE = re.compile(r"--[0-9]+-- warning: L3 cache found, using its data for the LL simulation")


def count_sample(
    launcher: WorkerLauncher, task: int, loops: int, values: int, *, what: str, sample: int
) -> WorkerOutput:
    """Sample number *sample* of benchmark number *task* (*loops* 0: this
    sample calibrates them, unless this process did it for the same
    workers), as :meth:`WorkerLauncher.run_worker` takes one.  A sample this
    process counted before for the same workers is not counted again."""
    workers = (tuple(launcher.worker_command(task, 0, 0, 1)), launcher.side.cwd, launcher.side.env)
    loops = loops or _CALIBRATED.get(workers, 0)
    if (workers, loops, sample) in _COUNTED:
        return WorkerOutput(Benchmark([_COUNTED[workers, loops, sample]]), "", 0.0)
    output = _count(launcher, task, loops, what, sample)
    counted = output.benchmark.get_runs()[-1]
    _CALIBRATED.setdefault(workers, counted.get_loops())
    _COUNTED[workers, counted.get_loops(), sample] = counted
    return output


def _count(launcher: WorkerLauncher, task: int, loops: int, what: str, sample: int) -> WorkerOutput:
    start = time.monotonic()
    timed = WorkerLauncher(
        launcher.side._replace(options=timing_options(launcher.options)),
        launcher.extend_command,
        environ=launcher.environ,
        rng=launcher.rng,
    ).run_worker(task, loops, 1, f"{what} (calibration)", sample)
    run = timed.benchmark.get_runs()[-1]
    counts, stderr = count_pair(launcher, task, run.get_loops(), what, sample)
    counted = counted_run(run, counts, seed=sample, duration=time.monotonic() - start, what=what)
    return WorkerOutput(Benchmark([counted]), timed.stderr + stderr, time.monotonic() - start)


def timing_options(options: RunOptions) -> RunOptions:
    """The options of the worker that times a sample: no valgrind, and the
    loops calibrated for a shorter time."""
    return options._replace(metric="time", warmups=0, min_time=options.min_time / CALIBRATION_DIVISOR)


def counted_run(timed: Run, counts: Mapping[str, float], *, seed: int, duration: float, what: str) -> Run:
    """The run of one sample: the *counts* of one loop (of one statement,
    with inner loops) as its value and metadata, with the metadata of the
    run that *timed* the loops, less what describes its time."""
    loops = timed.get_loops()
    inner_loops = timed.get_inner_loops()
    counts = {key: value / inner_loops for key, value in counts.items()}
    if counts["instructions"] <= 0:
        raise WorkerError(f"{what}: {loops} more loops counted no more instructions: does the benchmark do any work?")
    metadata = {key: value for key, value in timed.get_metadata().items() if key not in TIME_KEYS}
    metadata.update(counts, unit="integer", loops=loops, duration=duration)
    metadata[COUNTER_KEY] = installed_source()
    metadata[SEED_KEY] = seed
    return Run([counts["instructions"]], metadata=metadata, collect_metadata=False)


def count_pair(launcher: WorkerLauncher, task: int, loops: int, what: str, seed: int) -> tuple[dict[str, float], str]:
    """The counts of *loops* loops of a bench script's benchmark number
    *task*: a :class:`Pair` of its workers; and what they wrote on stderr."""
    environ = launcher.worker_env(random.Random(seed))
    environ["PYTHONHASHSEED"] = str(seed)

    def command(half: str, total: int, write_fd: int) -> list[str]:
        return launcher.worker_command(task, write_fd, total, 1)

    pair = Pair(command, environ, loops, what)
    (counted,) = count_pairs([pair], timeout=launcher.options.timeout, cwd=launcher.side.cwd)
    for done, total in zip(counted.finished, (loops, 2 * loops)):
        decode_benchmark(done.data, f"{what} ({total} loops under valgrind)", done.stderr)  # the benchmark asked for
    assert counted.counts is not None
    return counted.counts, counted.stderr


class Pair(NamedTuple):
    """Two workers under cachegrind that differ only in their loops:
    ``command(half, loops, write_fd)`` is the command line of each (half
    ``"a"`` runs *loops* loops, ``"b"`` twice as many), both with the
    environment *environ* (hash seed included)."""

    command: Callable[[str, int, int], list[str]]
    environ: dict[str, str]
    loops: int
    what: str


class Counted(NamedTuple):
    """A :class:`Pair` that ran: how each worker finished (``a``, ``b``),
    the counts of one loop (None when a worker wrote no counts), and what
    they wrote on stderr, less valgrind's notes."""

    finished: list[Finished]
    counts: dict[str, float] | None
    stderr: str


def count_pairs(
    pairs: Sequence[Pair], *, timeout: float | None, cwd: str | None, check: bool = True, merge_output: bool = False
) -> list[Counted]:
    """Run the workers of *pairs* at the same time, each writing its counts
    to a file of its own (:data:`OUTPUT_VARIABLE`), and difference each
    pair: start-up, imports, setup and the first call cancel.  *check*: a
    worker that fails or writes no counts raises WorkerError (otherwise the
    caller reads how it :class:`Finished`)."""
    with tempfile.TemporaryDirectory(prefix="perf-counts-") as folder:
        jobs = []
        pipes: list[tuple[int, int]] = []
        try:
            for index, pair in enumerate(pairs):
                for half, total in (("a", pair.loops), ("b", 2 * pair.loops)):
                    pipes.append(os.pipe())
                    command = pair.command(half, total, pipes[-1][1])
                    env = {**pair.environ, OUTPUT_VARIABLE: os.path.join(folder, f"{index}{half}")}  # one length
                    jobs.append((command, env, pipes[-1], f"{pair.what} ({total} loops under valgrind)"))
        except BaseException:
            for fds in pipes:
                for fd in fds:
                    os.close(fd)
            raise
        finished = run_commands(jobs, timeout=timeout, cwd=cwd, check=check, merge_output=merge_output)
        counted = []
        for index, pair in enumerate(pairs):
            done = finished[2 * index : 2 * index + 2]
            try:
                low, high = (read_totals(os.path.join(folder, f"{index}{half}")) for half in "ab")
                counts: dict[str, float] | None = per_loop(low, high, pair.loops)
            except WorkerError:
                if check:
                    raise
                counts = None
            stderr = without_notes("".join(process.stderr.decode("utf-8", "replace") for process in done))
            counted.append(Counted(done, counts, stderr))
    return counted


def without_notes(output: str) -> str:
    """A worker's *output* without valgrind's notes."""
    return "".join(line for line in output.splitlines(True) if not _VALGRIND_NOTE.match(line))
