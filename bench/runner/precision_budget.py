"""Precision per second of a default run: perf against pyperf, side by side.

Each case is run with its default options by every tool, the tools
alternating inside each round (the order turns from round to round), so
that the machine's drift hits them alike.  For each run it keeps:

* wall: the whole command, start-up included;
* half-width: of the 95 % interval of the mean of the process means,
  relative to the mean, computed the same way for every tool (perf's
  :func:`perf.analysis.intervals.mean_interval`);
* score: wall x half-width^2.  It does not change when a run is made
  longer (the half-width shrinks as 1/sqrt(time)), so it is the cost of
  a unit of precision: lower is better;
* measuring / wall: every calibration, warmup and value over wall time.

and prints, for each perf tree, the ratio of its score (wall, half-width)
to pyperf's of the same case in the same round: the median and the upper
quartile over every case and round.

Cases: six ``timeit`` statements (the zoo), and three pyperformance
benchmarks (nbody, richards, float) taken from the pyperformance wheel
(downloaded with pip into ``--cache`` when missing), run as bench scripts
with ``import pyperf`` (perf runs them through ``import perf as pyperf``).

Usage::

    python bench/runner/precision_budget.py --pyperf-python VENV/bin/python \\
        [--perf LABEL=TREE ...] [--rounds 2] [--only CASE ...]

``--pyperf-python`` is an interpreter with pyperf installed; perf's trees
run with that same interpreter (PYTHONPATH=TREE), so every tool starts the
same Python.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import ROOT
from kit.results import Parser, print_table
from kit.run import perf_env, recorded
from kit.stats import raw_time
from kit.tools import alternate

from perf.analysis.intervals import mean_interval

PYPERFORMANCE = "pyperformance==1.11.0"
PYPERFORMANCE_BENCHMARKS = ("nbody", "richards", "float")

#: the zoo: name -> timeit arguments
ZOO = {
    "sorted": ["sorted(range(1000))"],
    "dict_comprehension": ["{i: i for i in range(1000)}"],
    "str_join": ["-s", "items = [str(i) for i in range(100)]", "','.join(items)"],
    "json_dumps": ["-s", "import json; d = {'a': list(range(100)), 'b': 'x' * 100}", "json.dumps(d)"],
    "regex": [
        "-s",
        "import re; r = re.compile(r'(\\w+)@(\\w+)\\.com'); text = 'mail bob@example.com or ann@test.com ' * 20",
        "r.findall(text)",
    ],
    "generator_sum": ["sum(i * i for i in range(1000))"],
}


def pyperformance_scripts(cache: str, folder: str) -> dict[str, str]:
    """The run_benchmark.py of each benchmark, extracted from the wheel."""
    os.makedirs(cache, exist_ok=True)
    wheels = [name for name in os.listdir(cache) if name.startswith("pyperformance-") and name.endswith(".whl")]
    if not wheels:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", cache, PYPERFORMANCE], check=True
        )
        wheels = [name for name in os.listdir(cache) if name.endswith(".whl")]
    scripts = {}
    with zipfile.ZipFile(os.path.join(cache, wheels[0])) as wheel:
        for name in PYPERFORMANCE_BENCHMARKS:
            source = wheel.read(f"pyperformance/data-files/benchmarks/bm_{name}/run_benchmark.py").decode()
            for tool in ("perf", "pyperf"):
                text = source if tool == "pyperf" else source.replace("import pyperf\n", "import perf as pyperf\n")
                path = os.path.join(folder, f"{tool}_{name}.py")
                with open(path, "w") as file:
                    file.write(text)
                scripts[f"{tool}:{name}"] = path
    return scripts


def measure(command: list[str], output: str, env: dict[str, str]) -> dict[str, float]:
    wall, benchmark = recorded(command, output, env)
    means = benchmark.get_process_means()
    interval = mean_interval(means, 0.95)
    half = (interval.high - interval.estimate) / interval.estimate
    return {
        "wall": wall,
        "half": half,
        "score": wall * half**2,
        "efficiency": raw_time(benchmark) / wall,
        "processes": len(means),
        "values": benchmark.get_nvalue() / len(means),
    }


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("--pyperf-python", required=True, help="a Python with pyperf installed")
    parser.add_argument(
        "--perf",
        action="append",
        default=[],
        metavar="LABEL=TREE[:OPTIONS]",
        help="a perf source tree, and runner options for it (quoted, after a colon)",
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", action="append", default=[], metavar="CASE")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "perf-bench-pyperformance"))
    args = parser.parse_args()
    given = dict(item.partition("=")[::2] for item in args.perf) or {"perf": ROOT}
    trees = {label: spec.partition(":")[0] for label, spec in given.items()}
    extra = {label: spec.partition(":")[2].split() for label, spec in given.items()}
    extra["pyperf"] = []
    python = args.pyperf_python
    tools = [*trees, "pyperf"]
    # bytecode written and kept, as an installed perf and pyperf have it
    envs = {label: perf_env(tree=tree, lock="own", bytecode=True) for label, tree in trees.items()}
    envs["pyperf"] = perf_env(tree=None, lock="own", bytecode=True)
    for tree in set(trees.values()):
        subprocess.run([python, "-m", "compileall", "-q", os.path.join(tree, "perf")], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        scripts = pyperformance_scripts(args.cache, tmp)

        def command(case: str, tool: str) -> list[str]:
            module = "pyperf" if tool == "pyperf" else "perf"
            if case in ZOO:
                return [python, "-m", module, "timeit", *extra[tool], *ZOO[case]]
            return [python, scripts[f"{module}:{case}"], *extra[tool]]

        cases = [case for case in (*ZOO, *PYPERFORMANCE_BENCHMARKS) if not args.only or case in args.only]
        results: dict[tuple[str, str, int], dict[str, float]] = {}
        for round_index in range(args.rounds):
            for case in cases:
                for tool in alternate(tools, round_index + cases.index(case)):
                    figures = measure(command(case, tool), os.path.join(tmp, "result.json"), envs[tool])
                    results[(case, tool, round_index)] = figures
                    print(
                        f"  round {round_index + 1} {case:20} {tool:10} {figures['processes']:3.0f} x "
                        f"{figures['values']:4.1f}  wall {figures['wall']:6.2f} s  +-{figures['half']:6.2%}  "
                        f"measuring {figures['efficiency']:4.0%}",
                        flush=True,
                    )
    print()
    print(f"{python}: every case, {args.rounds} rounds, tools alternating; score = wall x half-width^2")
    rows = []
    for case in cases:
        for tool in tools:
            runs = [results[(case, tool, r)] for r in range(args.rounds)]
            rows.append(
                [
                    case,
                    tool,
                    f"{statistics.median(run['processes'] for run in runs):.0f} x "
                    f"{statistics.median(run['values'] for run in runs):.1f}",
                    f"{statistics.median(run['wall'] for run in runs):.2f}",
                    f"+-{statistics.median(run['half'] for run in runs):.2%}",
                    f"{statistics.median(run['efficiency'] for run in runs):.0%}",
                    f"{statistics.median(run['score'] for run in runs) * 1e6:.1f}",
                ]
            )
    print_table(["case", "tool", "P x V", "wall s", "half-width", "measuring", "score x1e6"], rows, left=2)
    print()
    for tool in tools[:-1]:
        ratios: dict[str, list[float]] = {"score": [], "wall": [], "half": []}
        for case in cases:
            for r in range(args.rounds):
                ours, theirs = results[(case, tool, r)], results[(case, "pyperf", r)]
                for key, values in ratios.items():
                    values.append(ours[key] / theirs[key])
        summary = []
        for key, values in ratios.items():
            quartiles = statistics.quantiles(values, n=4, method="inclusive")
            summary.append(
                f"{key} median {statistics.median(values):.2f} (quartiles {quartiles[0]:.2f}-{quartiles[2]:.2f}, "
                f"range {min(values):.2f}-{max(values):.2f})"
            )
        print(f"{tool} / pyperf over {len(ratios['score'])} runs: " + "; ".join(summary))
        if "sorted" in cases:
            rounds = range(args.rounds)
            walls = [results[("sorted", tool, r)]["wall"] / results[("sorted", "pyperf", r)]["wall"] for r in rounds]
            halves = [results[("sorted", tool, r)]["half"] / results[("sorted", "pyperf", r)]["half"] for r in rounds]
            print(
                f"  timeit sorted(range(1000)): wall {', '.join(f'{w:.2f}' for w in walls)} of pyperf's, "
                f"half-width {', '.join(f'{h:.2f}' for h in halves)} of pyperf's"
            )


if __name__ == "__main__":
    main()
