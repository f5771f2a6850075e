"""Import cost of perf next to pyperf, from ``python -X importtime``.

Usage: python bench/cost/import_time.py [--python PY] [--pyperf-python PY] [-n N]

Prints the median cumulative import time (microseconds) of:
``import perf``, ``import perf`` plus the model classes (what a script that
loads a result file pays), and ``import pyperf`` when an interpreter with
pyperf is given (default: the current one, if pyperf is importable).
Each figure is the median of N fresh interpreters; this machine is noisy,
so read the figures as orders of magnitude, not exact costs.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.results import Parser
from kit.run import perf_env


def cumulative_us(python: str, code: str, package: str) -> int:
    """Import time of *package* and its submodules, lazy ones included:
    the sum of the cumulative times of top-level entries in its name space."""
    command = [python, "-X", "importtime", "-c", code]
    stderr = subprocess.run(command, capture_output=True, text=True, env=perf_env(), check=True).stderr
    total = 0
    for line in stderr.splitlines():
        fields = line.split("|")
        if len(fields) != 3 or fields[2].startswith("  "):
            continue  # header line, or a nested import (counted by its parent)
        name = fields[2].strip()
        if name == package or name.startswith(package + "."):
            total += int(fields[1])
    return total


def median_us(python: str, code: str, module: str, count: int) -> float:
    return statistics.median(cumulative_us(python, code, module) for _ in range(count))


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--pyperf-python", default=sys.executable)
    parser.add_argument("-n", type=int, default=15)
    args = parser.parse_args()
    cases = [
        ("import perf", args.python, "import perf", "perf"),
        ("import perf; perf.Run...", args.python, "import perf; perf.Run, perf.Benchmark, perf.BenchmarkSuite", "perf"),
        ("import perf.storage.files", args.python, "import perf.storage.files", "perf"),
        ("import pyperf", args.pyperf_python, "import pyperf", "pyperf"),
    ]
    print(f"median of {args.n} runs, cumulative import time")
    for label, python, code, module in cases:
        try:
            micro = median_us(python, code, module, args.n)
        except subprocess.CalledProcessError:
            print(f"{label:30} unavailable ({python})")
            continue
        print(f"{label:30} {micro / 1000:8.2f} ms")


if __name__ == "__main__":
    main()
