"""Accuracy of ``perf bisect`` on an example repository with a planted regression.

Issue 16's targets: on a git repository of about 30 commits of a
pure-Python module with a planted 5 % regression, ``perf bisect`` names
the right commit in at least 19 of 20 trials, never gives a wrong answer
without saying "cannot decide", and measures at most log2(N) + 3 commits
(GOOD and BAD counted).

Each trial builds the repository of ``bench/example_repo.py`` (30 commits;
the regression planted at a different commit in each trial, spread over
1..29 from a fixed seed), runs the whole command line in a fresh process::

    python -m perf bisect GOOD BAD --repo REPO --json FILE -- bench.py ARGS

and prints the commit it named, right / WRONG / cannot decide, the commits
it measured (from the --json steps, GOOD included), the rounds and the
wall time.  Then the totals.

The default ARGS (``--args``) are bisect's own budget (10 pairs of
processes, 3 values per round, at most 3 rounds per step) with
``--clock cpu --min-time 0.05``: on a shared machine, the CPU time of the
worker's thread leaves out the time other processes took the CPU from
it, which is what makes a 5 % step decidable in one round or two when the
machine is busy (with the wall clock, steps end "undecided" more often);
values of 50 ms keep a trial under about two minutes.

    python bench/bisect_accuracy.py [--trials 20] [--commits 30] [--args "..."]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from example_repo import build_example_repo

DEFAULT_ARGS = "--clock cpu --min-time 0.05"


def regression_points(trials: int, commits: int, seed: int) -> list[int]:
    """Where the regression is planted in each trial: spread over
    1..commits-1 (every region of the range), in a shuffled order."""
    rng = random.Random(seed)
    points = [1 + (index * (commits - 1)) // trials for index in range(trials)]
    points = [min(commits - 1, point + rng.randrange(max(1, (commits - 1) // trials))) for point in points]
    rng.shuffle(points)
    return points


def run_trial(number: int, regression: int, commits: int, bench_args: list[str], folder: str) -> dict[str, object]:
    path = os.path.join(folder, f"repo-{number}")
    repo = build_example_repo(path, commits=commits, regression=regression)
    output = os.path.join(folder, f"bisect-{number}.json")
    command = [sys.executable, "-m", "perf", "bisect", repo.commits[0], repo.commits[-1], "--repo", path]
    command += ["--json", output, "--", "bench.py", *bench_args]
    start = time.monotonic()
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.monotonic() - start
    if completed.returncode not in (0, 1) or not os.path.exists(output):
        sys.stderr.write(completed.stdout + completed.stderr)
        raise SystemExit(f"trial {number}: perf bisect failed with exit status {completed.returncode}")
    with open(output) as file:
        document = json.load(file)
    found = document["first_bad"]
    if found is None:
        outcome = "cannot decide"
    elif found == repo.first_bad:
        outcome = "right"
    else:
        outcome = "WRONG"
    steps = document["steps"]
    return {
        "regression": regression,
        "found": found,
        "outcome": outcome,
        "measured": 1 + len(steps),
        "rounds": sum(step["rounds"] for step in steps),
        "elapsed": elapsed,
        "output": completed.stdout,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument(
        "--args", default=DEFAULT_ARGS, help="runner options of the bench script (default: %(default)s)"
    )
    parser.add_argument("--verbose", action="store_true", help="print each bisection's output")
    args = parser.parse_args()
    bench_args = shlex.split(args.args)
    limit = math.log2(args.commits) + 3
    print(f"perf bisect accuracy: {args.trials} trials, {args.commits} commits, a planted 5 % regression")
    print(f"ARGS: bench.py {args.args}; at most log2({args.commits}) + 3 = {limit:.1f} commits measured")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start")
    print()
    print(f"{'trial':>5}  {'planted':>7}  {'found':>7}  {'outcome':<13}  {'commits':>7}  {'rounds':>6}  {'wall':>7}")
    results = []
    with tempfile.TemporaryDirectory(prefix="perf-bisect-accuracy-") as folder:
        for number, regression in enumerate(regression_points(args.trials, args.commits, args.seed), 1):
            result = run_trial(number, regression, args.commits, bench_args, folder)
            results.append(result)
            found = str(result["found"])[:7] if result["found"] else "-"
            print(
                f"{number:>5}  {regression:>7}  {found:>7}  {result['outcome']:<13}  {result['measured']:>7}  "
                f"{result['rounds']:>6}  {result['elapsed']:>6.0f}s",
                flush=True,
            )
            if args.verbose or result["outcome"] != "right":
                print("       " + str(result["output"]).rstrip().replace("\n", "\n       "), flush=True)
    outcomes = [result["outcome"] for result in results]
    measured = [int(result["measured"]) for result in results]  # type: ignore[call-overload]
    walls = [float(result["elapsed"]) for result in results]  # type: ignore[arg-type]
    print()
    print(f"right: {outcomes.count('right')}/{len(results)}")
    print(f"wrong: {outcomes.count('WRONG')}/{len(results)}")
    print(f"cannot decide: {outcomes.count('cannot decide')}/{len(results)}")
    print(f"commits measured: max {max(measured)}, mean {sum(measured) / len(measured):.1f} (limit {limit:.1f})")
    walls.sort()
    print(
        f"wall time per trial: median {walls[len(walls) // 2]:.0f} s, min {walls[0]:.0f} s, max {walls[-1]:.0f} s, "
        f"total {sum(walls) / 60:.1f} min"
    )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
