"""Time to load (and re-dump) a large result file, perf next to pyperf.

Usage: python bench/load_time.py [--benchmarks 200] [--processes 20] [-n 7]

Builds a suite like a pyperformance run: B benchmarks x P worker processes x
3 values (+1 warmup), with per-run metadata as a real run has (date,
duration, load average, mem_max_rss...), writes it once, then measures in
fresh interpreters:

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


def build_suite(benchmarks: int, processes: int) -> perf.BenchmarkSuite:
    rng = random.Random(42)
    common = {
        "hostname": "bench-host",
        "platform": "Linux-6.1-x86_64-with-glibc2.36",
        "python_version": "3.12.1 (64-bit)",
        "cpu_count": 8,
        "perf_version": perf.__version__,
    }
    result = []
    for index in range(benchmarks):
        mean = rng.uniform(1e-6, 1e-1)
        runs = []
        for process in range(processes):
            metadata = dict(common, name=f"bench_{index:03d}", loops=2 ** rng.randint(1, 15))
            metadata["date"] = f"2026-11-21 12:{process % 60:02d}:{index % 60:02d}.{rng.randint(0, 999999):06d}"
            metadata["duration"] = rng.uniform(0.3, 0.6)
            metadata["load_avg_1min"] = round(rng.uniform(0, 2), 2)
            metadata["mem_max_rss"] = rng.randint(10**7, 10**8)
            values = [mean * rng.uniform(0.95, 1.05) for _ in range(3)]
            warmups = [(metadata["loops"], mean * rng.uniform(0.95, 1.2))]
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
