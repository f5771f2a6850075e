"""A benchmark whose first call is slow: calibrated on warm calls? (issue 29)

cattrs generates a converter on first use: "calibrate 1: 486 ms (loops:
1)", then values of 0.65-1.4 ms against the 20 ms the budget promised, and
a result of +-21 %.  This script builds such a benchmark (its first call
sleeps 486 ms, later calls do ~0.7 ms of work) and measures it, in the same
minutes, with:

* stdlib ``timeit`` after one warm call (the floor: the warm per-call time);
* perf, as a bench script (``Runner.bench_func``, ``--fast``);
* perf's pytest plugin (``--perf-budget fast``);
* pyperf, the same bench script with ``import pyperf`` (``--fast``);
* with ``--before ROOT``: perf from another source tree (a checkout of an
  earlier commit), as a bench script.

For each it prints the loops per value, the mean per call and its ratio
to timeit's warm time, the longest value per call, the processes, and the
half-width of the 95 % interval of the mean.

Usage::

    python bench/runner/cold_first_call.py [--rounds 3] [--python PYTHON] [--before ROOT]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import ROOT
from kit.results import Parser
from kit.run import checked, perf_env

COLD_MODULE = """
import time

built = []


def work():
    if not built:
        time.sleep(0.486)  # the converter is generated on first use
        built.append(True)
    return sum(range(25000))
"""
SCRIPT = """
import {module}
import coldmod

{module}.Runner().bench_func("cold", coldmod.work)
"""
TEST = """
import coldmod

def test_cold(benchmark):
    benchmark(coldmod.work)
"""
WARM = "import timeit, coldmod; coldmod.work(); print(min(timeit.repeat(coldmod.work, number=200, repeat=7)) / 200)"


def _run(command: list[str], folder: str, root: str = ROOT) -> str:
    return checked(command, cwd=folder, env=perf_env(folder, tree=root, lock=folder)).stdout


def _figures(path: str, name: str | None = None) -> tuple[int, float, float, int, float]:
    """(loops of the values, mean per call, longest value per call,
    processes, half-width of the 95 % interval of the mean in %)."""
    from perf.analysis.intervals import benchmark_mean_interval
    from perf.storage.files import load

    suite = load(path)
    names = [item for item in suite.get_benchmark_names() if name is None or name in item]
    benchmark = suite.get_benchmark(names[0])
    runs = [run for run in benchmark.get_runs() if run.values]
    values = [value for run in runs for value in run.values]
    interval = benchmark_mean_interval(benchmark)
    half = 100 * (interval.high - interval.low) / 2 / interval.estimate if interval else float("nan")
    return min(run.get_loops() for run in runs), statistics.fmean(values), max(values), len(runs), half


def one_round(python: str, folder: str, before: str | None) -> dict[str, tuple[int, float, float, int, float]]:
    results = {}
    warm = float(_run([python, "-c", WARM], folder))
    tools = [("perf", "perf", ROOT), ("pyperf", "pyperf", ROOT)]
    if before:
        tools.append(("perf (--before tree)", "perf", before))
    for label, module, root in tools:
        with open(os.path.join(folder, "bench.py"), "w") as file:
            file.write(SCRIPT.format(module=module))
        output = os.path.join(folder, "bench.json")
        if os.path.exists(output):
            os.unlink(output)
        _run([python, "bench.py", "--fast", "-q", "-o", output], folder, root)
        results[f"{label} bench script --fast"] = _figures(output)
    output = os.path.join(folder, "plugin.json")
    if os.path.exists(output):
        os.unlink(output)
    plugin = ["--perf-budget", "fast", "--perf-output", output]
    _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin], folder)
    results["perf pytest plugin, fast budget"] = _figures(output, "test_cold")
    return {"stdlib timeit, warm (floor)": (200, warm, warm, 1, float("nan")), **results}


def main() -> None:
    parser = Parser(__doc__, trees=("before",))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--before", help="another perf source tree, measured as a bench script too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "coldmod.py"), "w") as file:
            file.write(COLD_MODULE)
        with open(os.path.join(folder, "test_cold.py"), "w") as file:
            file.write(textwrap.dedent(TEST))
        print(f"python: {args.python}; first call 486 ms, then ~0.7 ms of work a call")
        ratios: dict[str, list[float]] = {}
        for number in range(args.rounds):
            results = one_round(args.python, folder, args.before)
            warm = results["stdlib timeit, warm (floor)"][1]
            print(f"\nround {number + 1}:")
            print(f"  {'tool':40} {'loops':>6} {'mean/call':>10} {'x warm':>7} {'longest':>9} processes  +-95%")
            for tool, (loops, mean, longest, processes, half) in results.items():
                ratios.setdefault(tool, []).append(mean / warm)
                print(
                    f"  {tool:40} {loops:6d} {mean * 1e3:8.3f}ms {mean / warm:7.3f} "
                    f"{longest * 1e3:7.2f}ms {processes:5d}  {half:5.1f}%"
                )
        print("\nmedian over the rounds of mean/call against timeit's warm time:")
        for tool, values in ratios.items():
            print(f"  {tool:40} {statistics.median(values):.3f} (range {min(values):.3f}-{max(values):.3f})")


if __name__ == "__main__":
    main()
