"""Which speed probe measures the machine and not the interpreter (issue 21).

``spread``: workers of several interpreters, started in shuffled rounds
(one worker per interpreter per round, in a new random order each round,
so that the machine's drift hits them alike), each time every candidate
probe of bench/busy/probe_candidates.py before and after 0.3 s of Python work
(as a perf worker does around its values).  Prints, per candidate, each
interpreter's median probe (geometric mean of before and after, as
perf.analysis.interference reads a worker) and the spread of the medians
(highest / lowest - 1): a probe that measures the machine has the same
median in every interpreter.

``perf``: the same, but each worker is a real ``python -m perf timeit``
(one process, ``-p 1``) of the interpreter, and the probe read is the one
perf recorded (``speed_probe_before``/``speed_probe_after``, and
``speed_probe`` for its kind): the figure of the issue's "done when".
``--baseline TREE`` also runs, in the same rounds, the perf of another
source tree (a git worktree of an older commit: its probe, in the same
minutes).

Usage::

    python bench/busy/probe_study.py spread [--rounds 30] [--seed 1] PYTHON...
    python bench/busy/probe_study.py perf [--rounds 30] [--seed 1] [--baseline TREE] PYTHON...
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import ROOT
from kit.results import Parser
from kit.run import perf_env, stdout_of
from kit.tools import python_label, python_path, shuffled_rounds

#: probe_candidates.py's folder
HERE = os.path.dirname(os.path.abspath(__file__))

WORKER = """
import json, sys, time
sys.path.insert(0, {here!r})
import probe_candidates as candidates
workloads = candidates.build()
before = candidates.measure_all(workloads)
end = time.perf_counter() + 0.3
while time.perf_counter() < end:
    sorted(range(1000))
after = candidates.measure_all(workloads)
sys.stdout.write(json.dumps({{"before": before, "after": after}}))
"""


def spread_worker(python: str) -> dict[str, float]:
    result = json.loads(stdout_of([python, "-c", WORKER.format(here=HERE)], env=perf_env(lock="own")))
    return {name: math.sqrt(result["before"][name] * result["after"][name]) for name in result["before"]}


def perf_worker(python: str, folder: str, index: int, tree: str = ROOT) -> dict[str, float]:
    path = os.path.join(folder, f"{index}.json")
    command = [python, "-m", "perf", "timeit", "-q", "-p", "1", "-o", path, "sorted(range(1000))"]
    # in *folder*: python -m perf puts the current folder first on sys.path
    stdout_of(command, env=perf_env(tree=tree, lock="own"), cwd=folder)
    with open(path) as file:
        data = json.load(file)
    probes: dict[str, float] = {}
    for benchmark in data["benchmarks"]:
        common = benchmark.get("metadata", {})
        for run in benchmark["runs"]:
            metadata = dict(data.get("metadata", {}), **common, **run.get("metadata", {}))
            if run.get("values") and "speed_probe_before" in metadata:
                kind = str(metadata.get("speed_probe", "python"))
                probes[kind] = math.sqrt(metadata["speed_probe_before"] * metadata["speed_probe_after"])
    return probes


def run(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    labels = {python: python_label(python) for python in args.pythons}
    samples: dict[str, dict[str, list[float]]] = {python: {} for python in args.pythons}
    folder = tempfile.mkdtemp(prefix="probe-study-")
    index = 0
    for round_number, order in enumerate(shuffled_rounds(args.pythons, args.rounds, rng)):
        for python in order:
            if args.command == "spread":
                result = spread_worker(python)
            else:
                result = perf_worker(python, folder, index)
                if args.baseline:
                    index += 1
                    baseline = perf_worker(python, folder, index, args.baseline)
                    result.update({f"{kind} (baseline)": value for kind, value in baseline.items()})
            index += 1
            for name, value in result.items():
                samples[python].setdefault(name, []).append(value)
        print(f"round {round_number + 1}/{args.rounds}", file=sys.stderr, flush=True)
    names = sorted({name for per_python in samples.values() for name in per_python})
    print(f"{args.rounds} rounds, one worker per interpreter per round, shuffled; seed {args.seed}")
    print("median probe per interpreter (microseconds), spread = highest median / lowest - 1")
    width = max(10, *(len(name) + 1 for name in names))
    header = f"{'probe':{width}}" + "".join(f"{labels[python]:>16}" for python in args.pythons) + f"{'spread':>9}"
    print(header)
    for name in names:
        medians = [statistics.median(samples[python][name]) for python in args.pythons if samples[python].get(name)]
        cells = "".join(
            f"{statistics.median(samples[python][name]) * 1e6:16.1f}" if samples[python].get(name) else f"{'-':>16}"
            for python in args.pythons
        )
        spread = max(medians) / min(medians) - 1 if medians else math.nan
        print(f"{name:{width}}{cells}{spread:9.1%}")
    print("\nnoise: median absolute deviation / median, per interpreter (one worker's probe)")
    for name in names:
        cells = ""
        for python in args.pythons:
            values = samples[python].get(name)
            if not values:
                cells += f"{'-':>16}"
                continue
            center = statistics.median(values)
            cells += f"{statistics.median(abs(value - center) for value in values) / center:16.1%}"
        print(f"{name:{width}}{cells}")


def main() -> None:
    parser = Parser(__doc__, trees=("baseline",))
    parser.add_argument("command", choices=("spread", "perf"))
    parser.add_argument("pythons", nargs="+", type=python_path, help="paths, commands or pyenv versions (3.12)")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline", metavar="TREE", help="perf: also the perf of this source tree, same rounds")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
