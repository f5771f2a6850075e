"""Time to load (and re-dump) a large result file, perf next to pyperf.

Usage: python bench/load_time.py [--benchmarks 200] [--processes 20] [-n 7]

Builds a suite like a pyperformance run: B benchmarks x P worker processes x
3 values (+1 warmup), each benchmark after a loop calibration run, with
per-run metadata as a real run has (date, duration, load average,
mem_max_rss, uptime, cpu_freq...) and the system's metadata common to the
suite (1.35 MB for 200 x 20), writes it once, then measures in fresh
interpreters:

* ``python -c "import X; X.BenchmarkSuite.load(FILE)"`` (whole command,
  interpreter start-up included, as a user running an analysis pays it);
* the same with ``.dump()`` of the loaded suite to a new file.

pyperf is measured when it can be imported (the ``test`` extra installs it).
Figures are medians of N runs on a shared, noisy machine.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import perf  # noqa: E402

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


def wall_time(python: str, code: str) -> float:
    env = dict(os.environ, PYTHONPATH=ROOT)
    start = time.perf_counter()
    subprocess.run([python, "-c", code], check=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", type=int, default=200)
    parser.add_argument("--processes", type=int, default=20)
    parser.add_argument("-n", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "suite.json")
        build_suite(args.benchmarks, args.processes).dump(path)
        size = os.path.getsize(path)
        print(f"{args.benchmarks} benchmarks x {args.processes} processes x 3 values: {size / 1e6:.2f} MB")
        output = os.path.join(tmp, "out.json")
        for module in ("perf", "pyperf"):
            load = f"import {module}; {module}.BenchmarkSuite.load({path!r})"
            dump = f"{load}.dump({output!r}, replace=True)"
            try:
                figures = [
                    statistics.median(wall_time(sys.executable, code) for _ in range(args.n)) for code in (load, dump)
                ]
            except subprocess.CalledProcessError:
                print(f"{module:7} unavailable")
                continue
            print(f"{module:7} load {figures[0] * 1000:7.0f} ms   load+dump {figures[1] * 1000:7.0f} ms")
        start_up = statistics.median(wall_time(sys.executable, "pass") for _ in range(args.n))
        print(f"(interpreter start-up alone: {start_up * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
