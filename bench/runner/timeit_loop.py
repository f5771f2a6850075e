"""perf timeit against its floor: the stdlib's timeit, in the same minutes.

For every interpreter found (CPython 3.9-3.13 from pyenv, PyPy when
installed) and two tiny statements (``pass``; ``x`` with ``-s x=1``), each
round runs, one after the other:

* the stdlib: ``timeit.Timer(stmt, setup)``, autorange, best of 3 repeats,
  per loop (what ``python -m timeit`` prints), in as many fresh processes
  as perf runs workers (12 with ``--fast`` here): one process sees one
  memory layout and one moment of a loaded machine, and perf's minimum is
  taken over all its processes, so the floor gets as many draws;
* ``python -m perf timeit --fast`` from this tree, in its worker processes;
* ``python -m pyperf timeit --fast`` when that interpreter has pyperf;

and prints the per-loop minimum of each tool over the rounds (perf: the
smallest value of all its processes; its mean of process means and the
loop overhead it recorded are shown beside).  The criterion of issue 13:
perf's minimum within 5 % of the stdlib's, measured with the same loop
body (column ``stdlib=``; from 3.10 the stdlib's template adds a ``pass``
line after the statement, one NOP per iteration that perf and pyperf do
not run, so the stdlib's own figure for ``pass`` is higher).

Then the interpreter comparison of issue 13:
``timeit --python 3.12 --compare-to 3.11 -s "d = {str(i): i for i in
range(100)}" "d['50']"``, whose ratio must agree with the stdlib's ratio of
minimums (measured around it) within 3 %.

PyPy: perf's timeit loop on PyPy is chosen by measuring both loop shapes
(a counting ``while`` loop, the ``itertools.repeat`` loop) in one PyPy
process after the JIT has warmed up: ``--pypy-loops`` prints that.

Usage::

    python bench/runner/timeit_loop.py [--rounds 3] [--only 3.11,3.12] [--skip-compare]
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import ROOT
from kit.results import Parser
from kit.run import perf_env, stdout_of
from kit.tools import alternate, has_module, pyenv_pythons

import perf
from perf.analysis.benchmarks import compare_benchmarks, loop_overhead

STATEMENTS = (("pass", None), ("x", "x=1"))
COMPARE_SETUP = "d = {str(i): i for i in range(100)}"
COMPARE_STMT = "d['50']"

#: prints [as-is, same body]: the stdlib's best per-loop time with its own
#: template, and with the trailing ``pass`` line that 3.10+ adds to the loop
#: body removed (it compiles to one more NOP per iteration on 3.10+, which
#: perf's and pyperf's loops do not run)
STDLIB = """
import json, sys, timeit
stmt, setup = sys.argv[1], sys.argv[2]
own = timeit.template
same = own.replace("        {stmt}\\n        pass\\n", "        {stmt}\\n")
best = []
for template in (own, same):
    timeit.template = template
    timer = timeit.Timer(stmt, setup)
    number, _ = timer.autorange()
    best.append(min(timer.repeat(repeat=3, number=number)) / number)
print(json.dumps(best))
"""

PYPY_LOOPS = """
import json, sys
sys.path.insert(0, sys.argv[1])
from perf.measure.child.tasks import TimeitCode
results = {}
for stmt, setup in (("pass", ()), ("x", "x=1")):
    for counting in (True, False):
        function = TimeitCode(stmt, setup, counting_loop=counting).time_function()
        loops = 10**7
        for _ in range(20):  # the JIT warms up
            function(loops)
        results[f"{stmt} {'counting' if counting else 'repeat'}"] = min(function(loops) for _ in range(30)) / loops
print(json.dumps(results))
"""


#: stdlib processes per round: as many as perf --fast runs workers here
PROCESSES = 12


def stdlib_minimum(python: str, stmt: str, setup: str | None, processes: int = PROCESSES) -> tuple[float, float]:
    """The stdlib's best per-loop time over *processes* fresh processes:
    with its own loop body, and with perf's (no trailing ``pass``)."""
    best = []
    for _ in range(processes):
        best.append(json.loads(stdout_of([python, "-c", STDLIB, stmt, setup or "pass"])))
    return min(own for own, _same in best), min(same for _own, same in best)


def run_tool(python: str, tool: str, stmt: str, setup: str | None, *, folder: str, env: dict[str, str]) -> str | None:
    path = os.path.join(folder, f"{tool}-{len(os.listdir(folder))}.json")
    command = [python, "-m", tool, "timeit", "--fast", "-q", "-o", path]
    if setup:
        command += ["-s", setup]
    command.append(stmt)
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        print(f"  {tool} failed on {python}: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return path


def figures(path: str) -> tuple[float, float, float | None]:
    """(minimum value, mean of process means, median loop overhead)."""
    benchmark = perf.Benchmark.load(path)
    means = benchmark.get_process_means()
    return min(benchmark.get_values()), sum(means) / len(means), loop_overhead(benchmark)


def ns(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e9:.2f} ns"


def floor_table(pythons: list[tuple[str, str]], rounds: int, env: dict[str, str], folder: str) -> None:
    print(
        f"Per-loop minimum over {rounds} rounds (stdlib: best of 3 repeats in each of {PROCESSES} processes "
        "per round; perf/pyperf: timeit --fast)"
    )
    print("stdlib: its own loop body; stdlib=: the same body as perf's (3.10+ adds a 'pass' line: one NOP)")
    header = f"{'python':7} {'stmt':5} {'stdlib':>9} {'stdlib=':>9} {'perf min':>9} {'ratio':>6} {'perf mean':>10} "
    print(header + f"{'overhead':>9} {'pyperf min':>11} {'verdict':>8}")
    for name, python in pythons:
        tools = ["perf"] + (["pyperf"] if has_module(python, "pyperf", env) else [])
        for stmt, setup in STATEMENTS:
            stdlib: list[tuple[float, float]] = []
            results: dict[str, list[tuple[float, float, float | None]]] = {tool: [] for tool in tools}
            for index in range(rounds):
                order = alternate(tools, index)
                stdlib.append(stdlib_minimum(python, stmt, setup))
                for tool in order:
                    path = run_tool(python, tool, stmt, setup, folder=folder, env=env)
                    if path:
                        results[tool].append(figures(path))
            own = min(result[0] for result in stdlib)
            floor = min(result[1] for result in stdlib)
            perf_min = min(result[0] for result in results["perf"])
            perf_mean = min(result[1] for result in results["perf"])
            overheads = [result[2] for result in results["perf"] if result[2] is not None]
            pyperf_min = min(result[0] for result in results["pyperf"]) if results.get("pyperf") else None
            ratio = perf_min / floor
            verdict = "ok" if abs(ratio - 1) <= 0.05 else "OFF"
            print(
                f"{name:7} {stmt:5} {ns(own):>9} {ns(floor):>9} {ns(perf_min):>9} {ratio:6.3f} {ns(perf_mean):>10} "
                f"{ns(min(overheads) if overheads else None):>9} {ns(pyperf_min):>11} {verdict:>8}",
                flush=True,
            )


def compare_ratio(pythons: dict[str, str], rounds: int, env: dict[str, str], folder: str) -> None:
    if "3.11" not in pythons or "3.12" not in pythons:
        print("3.11 or 3.12 missing: no interpreter comparison")
        return
    print()
    print(f"3.12 against 3.11 on {COMPARE_STMT!r} (setup {COMPARE_SETUP!r}), {rounds} rounds")
    print(
        f"{'round':5} {'stdlib 3.11':>12} {'stdlib 3.12':>12} {'stdlib ratio':>13} {'perf ratio':>11} {'perf CI':>17}"
    )
    all_stdlib: list[float] = []
    all_perf: list[float] = []
    for index in range(rounds):
        before = {name: stdlib_minimum(pythons[name], COMPARE_STMT, COMPARE_SETUP)[1] for name in ("3.11", "3.12")}
        output = os.path.join(folder, f"compare-{index}.json")
        command = [pythons["3.12"], "-m", "perf", "timeit", "-q", "--python", pythons["3.12"]]
        command += ["--compare-to", pythons["3.11"], "-o", output, "-s", COMPARE_SETUP, COMPARE_STMT]
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        if done.returncode:
            print(f"perf --compare-to failed: {done.stderr.strip()}")
            return
        after = {name: stdlib_minimum(pythons[name], COMPARE_STMT, COMPARE_SETUP)[1] for name in ("3.11", "3.12")}
        stdlib = {name: min(before[name], after[name]) for name in before}
        sides = {}
        for path in glob.glob(os.path.join(folder, f"compare-{index}-*.json")):
            benchmark = perf.Benchmark.load(path)
            version = str(benchmark.get_metadata()["python_version"])
            sides["3.12" if version.startswith("3.12") else "3.11"] = benchmark
        comparison = compare_benchmarks(sides["3.11"], sides["3.12"])
        stdlib_ratio = stdlib["3.12"] / stdlib["3.11"]
        all_stdlib.append(stdlib_ratio)
        all_perf.append(comparison.ratio)
        interval = f"{comparison.low:.3f}x .. {comparison.high:.3f}x"
        print(
            f"{index + 1:5} {ns(stdlib['3.11']):>12} {ns(stdlib['3.12']):>12} {stdlib_ratio:12.3f}x "
            f"{comparison.ratio:10.3f}x {interval:>17}",
            flush=True,
        )
    agreement = max(abs(p / s - 1) for p, s in zip(all_perf, all_stdlib))
    print(f"largest disagreement perf/stdlib ratio: {agreement * 100:.1f}% (criterion: 3%)")


def pypy_loops(pythons: dict[str, str]) -> None:
    if "pypy3" not in pythons:
        print("\nPyPy not installed: loop shapes not measured")
        return
    print("\nPyPy: per-loop minimum of perf's timeit loop shapes, in one process after JIT warm-up")
    for _ in range(3):
        results = json.loads(stdout_of([pythons["pypy3"], "-c", PYPY_LOOPS, ROOT]))
        print("  " + "; ".join(f"{key}: {value * 1e9:.3f} ns" for key, value in results.items()), flush=True)


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", help="comma-separated names (3.9 .. 3.13, pypy3)")
    parser.add_argument("--skip-compare", action="store_true")
    args = parser.parse_args()
    pythons = pyenv_pythons(args.only.split(",") if args.only else None)
    env = perf_env(lock="own")
    print("Interpreters: " + ", ".join(f"{name} ({path})" for name, path in pythons))
    with tempfile.TemporaryDirectory() as folder:
        floor_table(pythons, args.rounds, env, folder)
        if not args.skip_compare:
            compare_ratio(dict(pythons), args.rounds, env, folder)
    pypy_loops(dict(pythons))


if __name__ == "__main__":
    main()
