"""Time to load (and re-dump) a large result file, perf next to pyperf.

Usage: python bench/cost/load_time.py [--benchmarks 200] [--processes 20] [-n 7]

Builds a suite like a pyperformance run (``kit.synthetic.build_suite``): B benchmarks x P worker processes x
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

import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.results import Parser
from kit.run import perf_env
from kit.synthetic import build_suite


def wall_time(python: str, code: str) -> float:
    env = perf_env()
    start = time.perf_counter()
    subprocess.run([python, "-c", code], check=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = Parser(__doc__)
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
