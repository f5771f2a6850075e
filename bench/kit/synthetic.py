"""Synthetic result files and histories made with perf's own API.

:func:`build_suite`: a suite like a pyperformance run (bench/cost/'s
load, analysis and history-add timings).

:func:`make_history` (issue 16, bench/history/): one result file (a
:class:`perf.BenchmarkSuite`) per commit, each the recording of every
benchmark on one machine:

* each benchmark has a base time; each process of a recording draws its own
  level (``--between``: about 2 % noise between processes: code placement,
  hash seed, ASLR), and each of its values adds ``--within`` (about 1 %);
* each recording has a drift shared by all its benchmarks (``drift``: the
  machine was a little faster or slower that day);
* with ``spike_rate``, that share of the recordings is hit by a load spike:
  a window of consecutive processes (benchmarks run one after another)
  lose 5-40 % of their speed, as when another job takes the CPU for a while;
* steps: ``(benchmark index or None for all, first commit, factor)``, e.g.
  a 3 % slowdown of benchmark 7 from commit 40 on: ``(7, 40, 1.03)``;
* with ``slow_runs`` (issue 22), a busy machine's runs of slow time: the
  machine state is a chain over time slots that turns busy with that
  chance per slot and stays busy ``run_length`` slots on average, slowing
  every process of a busy slot by 5-40 % (each process drawing its own
  share of it); ``off_cpu`` of that slowdown is time off the CPU, which
  the process's ``cpu_share`` records (the rest, caches and memory, it
  does not).  A time slot is a recording when commits are recorded one at
  a time, a round when ``interleaved`` records them all in one session
  (``history record``: one process of every commit per round, each run
  carrying its round and the session, ``ab_pair`` and ``ab_seed``).

:func:`make_history` returns the suites with their commit ids and dates.
"""

from __future__ import annotations

import datetime
import hashlib
import random
from typing import NamedTuple, Sequence

import perf

#: metadata a real pyperf/perf run stores once for the whole suite
SUITE_METADATA = {
    "aslr": "Full randomization",
    "boot_time": "2026-11-21 11:49:47",
    "cpu_config": "idle:haltpoll",
    "cpu_count": 8,
    "cpu_model_name": "Intel(R) Xeon(R) Processor",
    "hostname": "bench-host",
    "platform": "Linux-6.1-x86_64-with-glibc2.36",
    "python_cflags": "-fno-strict-overflow -Wsign-compare -DNDEBUG -g -O3 -Wall",
    "python_compiler": "GCC 12.2.0",
    "python_executable": "/opt/venv/bin/python",
    "python_implementation": "cpython",
    "python_version": "3.12.1 (64-bit)",
    "timer": "clock_gettime(CLOCK_MONOTONIC), resolution: 1.00 ns",
    "perf_version": perf.__version__,
}

#: per-run CPU frequencies: most runs see the nominal one
CPU_FREQS = ("0-7=2600 MHz",) * 6 + ("0-3=2600 MHz;4-7=2601 MHz", "0-7=2599 MHz")


def build_suite(benchmarks: int, processes: int, calibration: bool = True, seed: int = 42) -> perf.BenchmarkSuite:
    """B benchmarks x P processes x 3 values (+1 warmup), as a real run.

    Each benchmark starts with a loop calibration run (no values, a ramp of
    warmups), as pyperf's first worker; every run carries the metadata a
    worker records (date, duration, load average, max RSS, runnable
    threads, uptime, CPU frequency), and the system metadata is common.
    Another *seed* gives other figures for the same benchmark names.
    """
    rng = random.Random(seed)
    result = []
    uptime = 3600.0
    for index in range(benchmarks):
        mean = rng.uniform(1e-6, 1e-1)
        loops = 2 ** rng.randint(1, 15)
        runs = []
        for process in range(-1 if calibration else 0, processes):
            metadata = dict(SUITE_METADATA, name=f"bench_{index:03d}", loops=loops)
            metadata["date"] = f"2026-11-21 12:{process % 60:02d}:{index % 60:02d}.{rng.randint(0, 999999):06d}"
            metadata["duration"] = rng.uniform(0.3, 0.6)
            metadata["load_avg_1min"] = round(rng.uniform(0, 2), 2)
            metadata["mem_max_rss"] = rng.randint(10**7, 10**8)
            metadata["runnable_threads"] = rng.randint(1, 3)
            metadata["uptime"] = uptime = uptime + rng.uniform(0.3, 0.6)
            metadata["cpu_freq"] = rng.choice(CPU_FREQS)
            if process < 0:
                metadata["calibrate_loops"] = loops
                warmups = [(2**k, mean * rng.uniform(0.95, 1.5)) for k in range(loops.bit_length())]
                runs.append(perf.Run([], warmups=warmups, metadata=metadata, collect_metadata=False))
                continue
            values = [mean * rng.uniform(0.95, 1.05) for _ in range(3)]
            warmups = [(loops, mean * rng.uniform(0.95, 1.2))]
            runs.append(perf.Run(values, warmups=warmups, metadata=metadata, collect_metadata=False))
        result.append(perf.Benchmark(runs))
    return perf.BenchmarkSuite(result)


# -- histories ----------------------------------------------------------------------

#: the first commit's date; commits are a day apart
START = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.timezone.utc)


class Step(NamedTuple):
    #: the benchmark index, or None: every benchmark
    benchmark: int | None
    #: the first commit with the new speed
    commit: int
    #: time factor (1.03: 3 % slower)
    factor: float


class Recording(NamedTuple):
    commit: str
    date: str
    suite: perf.BenchmarkSuite
    #: the load spike of this recording, as (first process, last process, factor), or None
    spike: tuple[int, int, float] | None


def commit_id(index: int, seed: int) -> str:
    return hashlib.sha1(f"{seed}:{index}".encode()).hexdigest()


def bench_name(index: int) -> str:
    return f"bench_{index:03d}"


def _factors(steps: Sequence[Step], benchmark: int, commit: int) -> float:
    factor = 1.0
    for step in steps:
        if (step.benchmark is None or step.benchmark == benchmark) and commit >= step.commit:
            factor *= step.factor
    return factor


def _spike(rng: random.Random, total: int, spike_rate: float) -> tuple[int, int, float] | None:
    if rng.random() >= spike_rate:
        return None
    length = rng.randint(max(1, total // 20), total)
    first = rng.randint(0, total - length)
    return first, first + length - 1, 1.0 + rng.uniform(0.05, 0.40)


class Load(NamedTuple):
    """Runs of slow time on a busy machine (see the module docstring)."""

    #: the chance that an idle time slot turns busy
    rate: float = 0.0
    #: the mean number of slots a busy run lasts
    length: float = 3.0
    #: the share of a busy slowdown that is time off the CPU
    off_cpu: float = 0.8


def busy_slots(rng: random.Random, count: int, load: Load) -> list[float]:
    """The slowdown of each of *count* time slots (0.0: idle)."""
    slots, level = [], 0.0
    for _ in range(count):
        if level and rng.random() < 1.0 / max(1.0, load.length):
            level = 0.0
        elif not level and rng.random() < load.rate:
            level = rng.uniform(0.05, 0.40)
        slots.append(level)
    return slots


def _process(rng: random.Random, level: float, slow: float, load: Load) -> tuple[float, float]:
    """(process level, cpu share) of a process at *level* in a slot slowed by *slow*."""
    lost = slow * rng.uniform(0.5, 1.5)
    wall = level * (1 + lost)
    cpu = level * (1 + lost * (1 - load.off_cpu))
    return wall, min(1.0, cpu / wall * rng.uniform(0.999, 1.0))


def make_history(
    seed: int,
    *,
    commits: int = 80,
    benchmarks: int = 50,
    processes: int = 20,
    values: int = 3,
    between: float = 0.02,
    within: float = 0.01,
    drift: float = 0.01,
    spike_rate: float = 0.0,
    steps: Sequence[Step] = (),
    hostname: str = "bench-machine",
    load: Load | None = None,
    interleaved: bool = False,
) -> list[Recording]:
    """The recordings of a synthetic history (see the module docstring)."""
    rng = random.Random(seed)
    load = load or Load()
    bases = [rng.uniform(1e-3, 50e-3) for _ in range(benchmarks)]
    slots = busy_slots(rng, processes if interleaved else commits, load)
    session = rng.randrange(2**31)
    shared = rng.gauss(0.0, drift)  # one session: one machine state
    recordings = []
    for index in range(commits):
        machine = shared if interleaved else rng.gauss(0.0, drift)
        spike = _spike(rng, benchmarks * processes, spike_rate)
        suite_benchmarks = []
        for bench in range(benchmarks):
            level = bases[bench] * _factors(steps, bench, index) * (1 + machine)
            runs = []
            for process in range(processes):
                position = bench * processes + process
                slow = spike[2] if spike and spike[0] <= position <= spike[1] else 1.0
                busy = slots[process] if interleaved else slots[index]
                wall, share = _process(rng, level * slow * (1 + rng.gauss(0.0, between)), busy, load)
                metadata: dict[str, object] = {"name": bench_name(bench), "hostname": hostname}
                if load.rate:
                    metadata["cpu_share"] = share
                if interleaved:
                    metadata.update(ab_pair=process + 1, ab_seed=session)
                run_values = [wall * (1 + rng.gauss(0.0, within)) for _ in range(values)]
                runs.append(perf.Run(run_values, metadata=metadata, collect_metadata=False))
            suite_benchmarks.append(perf.Benchmark(runs))
        date = (START + datetime.timedelta(days=index)).isoformat()
        recordings.append(Recording(commit_id(index, seed), date, perf.BenchmarkSuite(suite_benchmarks), spike))
    return recordings
