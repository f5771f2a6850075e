"""perf's default run against pyperf's, side by side, interleaved.

Runs the same benchmarks with ``python -m perf`` and (when installed)
``python -m pyperf``, alternating the order inside each round so that
machine drift hits both tools alike, and prints per tool:

* wall time of the whole command (median over rounds);
* efficiency: time spent measuring (every calibration, warmup and value
  sample) / wall time;
* start-up cost per worker: (wall time - time measuring) / workers;
* the process-level standard error of the mean: standard deviation of the
  per-process means / sqrt(processes), as a percentage of the mean
  (doc/design.rst, R1) -- the precision the run actually bought.

Usage::

    python bench/runner/runner_budget.py [--rounds 5] [--python PYTHON] [-- extra runner options]

PYTHON must be able to import perf (run from the source tree, or installed)
and, for the comparison, pyperf.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.results import Parser
from kit.run import perf_env, recorded
from kit.stats import raw_time
from kit.tools import alternate, has_module

SCRIPT = """
import {tool} as pyperf

def work(n):
    return sorted(str(i) for i in range(n))

runner = pyperf.Runner()
runner.bench_func("sort_strings", work, 200)
"""

STATEMENT = "sorted(range(1000))"


def measure(command: list[str], output: str, env: dict[str, str]) -> dict[str, float]:
    wall, benchmark = recorded(command, output, env)
    runs = benchmark.get_runs()
    workers = len({run.get_metadata().get("date") for run in runs})
    means = [statistics.fmean(run.values) for run in runs if run.values]
    mean = statistics.fmean(means)
    se = statistics.stdev(means) / math.sqrt(len(means))
    deviations = [value / mean - 1 for value in means]
    measuring = raw_time(benchmark)
    return {
        "wall": wall,
        "efficiency": measuring / wall,
        "startup": (wall - measuring) / workers,
        "se": 100 * se / mean,
        "deviations": deviations,  # type: ignore[dict-item]
        "processes": len(means),
        "values": benchmark.get_nvalue(),
    }


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="LABEL=OPTIONS",
        help="also run perf with these options (e.g. 'perf-24x2=-p 24 -n 2')",
    )
    parser.add_argument("extra", nargs="*", help="extra runner options for every tool")
    args = parser.parse_args()
    env = perf_env()
    have_pyperf = has_module(args.python, "pyperf", env)
    # label -> (module, options)
    variants = {"perf": ("perf", [])}
    for variant in args.variant:
        label, _, options = variant.partition("=")
        variants[label] = ("perf", options.split())
    if have_pyperf:
        variants["pyperf"] = ("pyperf", [])
    tools = list(variants)
    with tempfile.TemporaryDirectory() as tmp:
        scripts = {}
        for tool in ("perf", "pyperf"):
            scripts[tool] = os.path.join(tmp, f"bench_{tool}.py")
            with open(scripts[tool], "w") as file:
                file.write(SCRIPT.format(tool=tool))
        cases = {
            f"timeit {STATEMENT!r}": lambda label: [
                args.python,
                "-m",
                variants[label][0],
                "timeit",
                *variants[label][1],
                *args.extra,
                STATEMENT,
            ],
            "bench script (bench_func)": lambda label: [
                args.python,
                scripts[variants[label][0]],
                *variants[label][1],
                *args.extra,
            ],
        }
        results: dict[tuple[str, str], list[dict[str, float]]] = {}
        for round_index in range(args.rounds):
            order = alternate(tools, round_index)
            for case, build in cases.items():
                for tool in order:
                    figures = measure(build(tool), os.path.join(tmp, "result.json"), env)
                    results.setdefault((case, tool), []).append(figures)
            print(f"round {round_index + 1}/{args.rounds} done", file=sys.stderr)
    print(f"Python: {args.python}; {args.rounds} rounds, tools interleaved; medians over rounds")
    print()
    header = f"{'case':32} {'tool':10} {'processes x values':>18} {'wall (s)':>9} {'efficiency':>10} "
    header += f"{'start-up/worker':>15} {'SE of mean':>10} {'pooled SE':>10}"
    print(header)
    print("-" * len(header))
    for case in cases:
        for tool in tools:
            runs = results[(case, tool)]
            med = {key: statistics.median(run[key] for run in runs) for key in runs[0] if key != "deviations"}
            # pooled over rounds: each process mean relative to its round's
            # mean; far steadier than the median of per-round estimates
            pooled = [deviation for run in runs for deviation in run["deviations"]]  # type: ignore[attr-defined]
            pooled_se = 100 * statistics.stdev(pooled) / math.sqrt(med["processes"])
            shape = f"{med['processes']:.0f} x {med['values'] / med['processes']:.0f}"
            print(
                f"{case:32} {tool:10} {shape:>18} {med['wall']:9.2f} {med['efficiency']:10.0%} "
                f"{med['startup'] * 1e3:12.0f} ms {med['se']:9.2f}% {pooled_se:9.2f}%"
            )
        if have_pyperf:
            pyperf_wall = statistics.median(run["wall"] for run in results[(case, "pyperf")])
            for tool in tools[:-1]:
                wall = statistics.median(run["wall"] for run in results[(case, tool)])
                print(f"{'':32} {tool} wall time = {wall / pyperf_wall:.0%} of pyperf's")
    print()
    print("SE of mean: standard deviation of process means / sqrt(processes), % of the mean (median of rounds).")
    print("pooled SE: the same from the process means of every round, each relative to its round's mean.")


if __name__ == "__main__":
    main()
