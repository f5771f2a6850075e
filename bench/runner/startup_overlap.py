"""Does a worker's start-up on the other CPU slow the values on this one?

perf starts the next worker while the current one warms up (doc/runner.rst,
"Workers start while the previous one warms up"), and holds the current
worker's values until the next one is ready, so that no start-up runs
beside a value.  This script measures what that rule protects against: in
this process it takes values of ``sorted(range(1000))`` (0.1 s each,
timed call by call) in triples, the middle one while a perf worker's
start-up runs (a fresh interpreter importing what a timeit worker imports
and collecting its metadata), the two others alone; it prints the ratio of
the middle value to the mean of the two others (1.0: no disturbance),
its median and quartiles, and a bootstrap interval of the median.

Usage::

    python bench/runner/startup_overlap.py [--triples 300] [--python PYTHON]
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.results import Parser
from kit.run import perf_env

STARTUP = (
    "import perf.cli.runner, perf.measure.child.worker, perf.collect; "
    "compile('sorted(range(1000))', 'timeit', 'exec'); perf.collect.collect_metadata()"
)
DATA = list(range(1000))


def value(seconds: float = 0.1) -> float:
    """Mean time of one call over *seconds*."""
    loops, total = 0, 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        before = time.perf_counter()
        sorted(DATA)
        total += time.perf_counter() - before
        loops += 1
    return total / loops


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("--triples", type=int, default=300)
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the start-ups")
    args = parser.parse_args()
    env = perf_env(bytecode=True)
    ratios, startups = [], []
    for _ in range(args.triples):
        before = value()
        started = time.perf_counter()
        process = subprocess.Popen([args.python, "-c", STARTUP], env=env)
        beside = value()
        process.wait()
        startups.append(time.perf_counter() - started)
        after = value()
        ratios.append(beside / ((before + after) / 2))
    ratios.sort()
    quartiles = statistics.quantiles(ratios, n=4)
    rng = random.Random(1)
    medians = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    print(
        f"{len(ratios)} triples; a start-up took {statistics.median(startups) * 1e3:.0f} ms (median), "
        "inside the middle value of 100 ms"
    )
    print(
        f"value beside a start-up / mean of the values before and after: median {statistics.median(ratios):.4f} "
        f"(95 % bootstrap interval {medians[50]:.4f} .. {medians[1949]:.4f}), "
        f"quartiles {quartiles[0]:.4f} .. {quartiles[2]:.4f}"
    )


if __name__ == "__main__":
    main()
