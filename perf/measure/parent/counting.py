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

Must not: print, exit, or decide the schedule.
"""

from __future__ import annotations

import os
import random
import re
import tempfile
import time
from typing import TYPE_CHECKING, Any

from perf.errors import WorkerError
from perf.measure.cachegrind import OUTPUT_VARIABLE, installed_source, per_loop, read_totals
from perf.measure.parent.workers import WorkerLauncher, WorkerOutput, run_commands
from perf.measure.protocol import decode_benchmark
from perf.model.benchmark import Benchmark
from perf.model.metadata import COUNTER_KEY
from perf.model.run import Run

if TYPE_CHECKING:
    from perf.measure.options import RunOptions

#: the loops of a sample are calibrated for --min-time divided by this (a
#: loop costs 20-80 times more under valgrind)
CALIBRATION_DIVISOR = 10
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
    loops = run.get_loops()
    counts, stderr = count_pair(launcher, task, loops, what, sample)
    metadata = {key: value for key, value in run.get_metadata().items() if key not in TIME_KEYS}
    inner_loops = run.get_inner_loops()
    counts = {key: value / inner_loops for key, value in counts.items()}
    metadata.update(counts, unit="integer", loops=loops, duration=time.monotonic() - start)
    metadata[COUNTER_KEY] = installed_source()
    metadata[SEED_KEY] = sample
    if counts["instructions"] <= 0:
        raise WorkerError(f"{what}: {loops} more loops counted no more instructions: does the benchmark do any work?")
    counted = Run([counts["instructions"]], metadata=metadata, collect_metadata=False)
    return WorkerOutput(Benchmark([counted]), timed.stderr + stderr, time.monotonic() - start)


def timing_options(options: RunOptions) -> RunOptions:
    """The options of the worker that times a sample: no valgrind, and the
    loops calibrated for a shorter time."""
    return options._replace(metric="time", warmups=0, min_time=options.min_time / CALIBRATION_DIVISOR)


def count_pair(launcher: WorkerLauncher, task: int, loops: int, what: str, seed: int) -> tuple[dict[str, float], str]:
    """The counts of *loops* loops: two workers under cachegrind, *loops*
    and 2 x *loops* loops, at the same time; and what they wrote on stderr."""
    environ = launcher.worker_env(random.Random(seed))
    environ["PYTHONHASHSEED"] = str(seed)
    with tempfile.TemporaryDirectory(prefix="perf-counts-") as folder:
        jobs = []
        for name, total in (("a", loops), ("b", 2 * loops)):
            read_fd, write_fd = os.pipe()
            command = launcher.worker_command(task, write_fd, total, 1)
            env = {**environ, OUTPUT_VARIABLE: os.path.join(folder, name)}  # names of one length
            jobs.append((command, env, (read_fd, write_fd), f"{what} ({total} loops under valgrind)"))
        finished = run_commands(jobs, timeout=launcher.options.timeout, cwd=launcher.side.cwd)
        for (_, _, _, described), done in zip(jobs, finished):
            decode_benchmark(done.data, described, done.stderr)  # it ran the benchmark it was asked for
        low, high = (read_totals(os.path.join(folder, name)) for name in ("a", "b"))
    stderr = "".join(done.stderr.decode("utf-8", "replace") for done in finished)
    stderr = "".join(line for line in stderr.splitlines(True) if not _VALGRIND_NOTE.match(line))
    return per_loop(low, high, loops), stderr
