"""Counts as a user records them: issue 31's done-when figures for the runner and compare_to.

With a load beside every step (``--load``, default ``mixed``: a real mix
of other jobs), each step runs ``python -m perf timeit --metric
instructions`` from this tree, with its defaults, as a user would:

1. A/A: two recordings of ``sorted(range(1000))`` one after the other, and
   two of a dict comprehension over strings (hash-sensitive): the ratio of
   their means and ``compare_to --fail-on-slowdown 0.1``'s exit status
   (0: passed);
2. 1 % more work: ``sorted(range(1010))`` against the first recording,
   ``compare_to --fail-on-slowdown 0.5`` (non-zero: it failed, as it must);
3. the sum of 1,000,000 ints in memory order and in shuffled order: the
   ratios of instructions, D1 and LL misses, and what ``compare_to
   --explain`` says;
4. the spread of the dict comprehension across the hash seeds of its
   samples;
5. the wall time of a default count run against a default time run of the
   same statement, alternated (``--rounds``), in the same minutes.

Usage::

    python bench/counts/count_runs.py [--load mixed --seed 31] [--rounds 2] [--output FILE]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.load import Load
from kit.results import Parser, print_table
from kit.run import perf_env

import perf

SORTED = ("", "sorted(range(1000))")
SORTED_MORE = ("", "sorted(range(1010))")
DICT = ("keys = [str(i) for i in range(200)]", "{key: 1 for key in keys}")
IN_ORDER = ("values = list(range(1_000_000))", "sum(values)")
SHUFFLED = ("import random; values = list(range(1_000_000)); random.Random(1).shuffle(values)", "sum(values)")


def perf_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "perf", *args]


def record(folder: str, name: str, setup: str, stmt: str, *options: str) -> tuple[str, float]:
    """A default timeit run (with *options*) saved to FOLDER/NAME.json; its wall time."""
    path = os.path.join(folder, f"{name}.json")
    command = perf_command("timeit", "-q", *options, "-o", path, *(("-s", setup) if setup else ()), stmt)
    start = time.perf_counter()
    done = subprocess.run(command, env=perf_env(lock="own"), capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{name}: {done.stderr.strip()}")
    return path, wall


def compare(reference: str, changed: str, *options: str) -> subprocess.CompletedProcess[str]:
    command = perf_command("compare_to", reference, changed, *options)
    return subprocess.run(command, env=perf_env(lock="own"), capture_output=True, text=True, check=False)


def means(path: str) -> dict[str, float]:
    """The mean per loop of the value and of each count of a file."""
    benchmark = perf.Benchmark.load(path)
    runs = benchmark.get_runs()
    found = {"value": benchmark.mean(), "samples": float(len(runs))}
    for key in ("instructions", "d1_misses", "ll_misses", "cycles_estimate"):
        found[key] = sum(run.get_metadata()[key] for run in runs) / len(runs)
    return found


def aa_rows(folder: str) -> list[list[str]]:
    rows = []
    for name, (setup, stmt) in (("sorted", SORTED), ("dict", DICT)):
        first, _ = record(folder, f"{name}-1", setup, stmt, "--metric", "instructions")
        second, _ = record(folder, f"{name}-2", setup, stmt, "--metric", "instructions")
        ratio = means(second)["value"] / means(first)["value"]
        gate = compare(first, second, "--fail-on-slowdown", "0.1")
        rows.append([f"A/A {name}", f"{means(first)['value']:,.1f}", f"{(ratio - 1) * 100:+.4f} %"])
        rows[-1].append(f"--fail-on-slowdown 0.1: exit {gate.returncode}")
    reference = os.path.join(folder, "sorted-1.json")
    more, _ = record(folder, "sorted-1010", *SORTED_MORE, "--metric", "instructions")
    ratio = means(more)["value"] / means(reference)["value"]
    gate = compare(reference, more, "--fail-on-slowdown", "0.5")
    rows.append(["1010 against 1000 items", f"{means(more)['value']:,.1f}", f"{(ratio - 1) * 100:+.4f} %"])
    rows[-1].append(f"--fail-on-slowdown 0.5: exit {gate.returncode}")
    return rows


def layout(folder: str) -> tuple[list[list[str]], str]:
    in_order, _ = record(folder, "in-order", *IN_ORDER, "--metric", "instructions")
    shuffled, _ = record(folder, "shuffled", *SHUFFLED, "--metric", "instructions")
    low, high = means(in_order), means(shuffled)
    rows = [[key, f"{low[key]:,.0f}", f"{high[key]:,.0f}", f"{high[key] / low[key]:.3f}x"] for key in low]
    explained = compare(in_order, shuffled, "--explain")
    return rows, explained.stdout + explained.stderr


def seed_spread(folder: str) -> str:
    runs = perf.Benchmark.load(os.path.join(folder, "dict-1.json")).get_runs()
    values = sorted(run.values[0] for run in runs)
    seeds = [run.get_metadata()["hash_seed"] for run in runs]
    return (
        f"dict comprehension over {len(values)} hash seeds ({min(seeds)}..{max(seeds)}): {values[0]:,.1f} .. "
        f"{values[-1]:,.1f} instructions per loop, spread {(values[-1] / values[0] - 1) * 100:.2f} %"
    )


def wall_rows(folder: str, rounds: int) -> list[list[str]]:
    walls: dict[str, list[float]] = {"time": [], "instructions": []}
    for number in range(rounds):
        order = ("time", "instructions") if number % 2 == 0 else ("instructions", "time")
        for metric in order:
            _, wall = record(folder, f"wall-{metric}-{number}", *SORTED, "--metric", metric)
            walls[metric].append(wall)
    ratio = [count / timed for count, timed in zip(walls["instructions"], walls["time"])]
    rows = [[metric, " ".join(f"{wall:.1f} s" for wall in values)] for metric, values in walls.items()]
    rows.append(["counts / time", " ".join(f"{value:.2f}" for value in ratio)])
    return rows


def main() -> None:
    parser = Parser(__doc__, output=True)
    parser.add_argument("--load", default="mixed", choices=("mixed", "cpu", "memory", "none"))
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--rounds", type=int, default=2, help="alternated count and time runs (default: 2)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as folder, Load(args.load, args.seed, os.path.join(folder, "load.jsonl")):
        print("\nRecordings one after the other (default timeit --metric instructions):")
        print_table(["recordings", "instructions/loop", "changed / reference", "compare_to"], aa_rows(folder))
        rows, explained = layout(folder)
        print("\nSum of 1,000,000 ints, memory order against shuffled (means per loop of the samples):")
        print_table(["count", "in order", "shuffled", "ratio"], rows)
        print("\ncompare_to --explain:\n" + explained.rstrip())
        print("\n" + seed_spread(folder))
        print("\nWall time of a default run of sorted(range(1000)), alternated:")
        print_table(["metric", "wall time per round"], wall_rows(folder, args.rounds))


if __name__ == "__main__":
    main()
