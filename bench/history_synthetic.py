"""Synthetic performance histories made with perf's own API (issue 16).

One result file (a :class:`perf.BenchmarkSuite`) per commit, each the
recording of every benchmark on one machine:

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

:func:`make_history` returns the suites with their commit ids and dates;
:func:`process_table` reduces them to what the store's index keeps (process
means per benchmark per recording), for the detection benchmarks that do
not need files on disk.
"""

from __future__ import annotations

import datetime
import hashlib
import random
from typing import NamedTuple, Sequence

import perf

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


def process_table(recordings: Sequence[Recording]) -> dict[str, list[tuple[str, list[float]]]]:
    """benchmark name -> [(commit, its process means)] in commit order."""
    table: dict[str, list[tuple[str, list[float]]]] = {}
    for recording in recordings:
        for benchmark in recording.suite:
            table.setdefault(benchmark.get_name(), []).append((recording.commit, benchmark.get_process_means()))
    return table
