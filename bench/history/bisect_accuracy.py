"""Accuracy of ``perf bisect`` on an example repository with a planted regression.

Issue 22's acceptance trial: on a git repository of 30 commits of a
pure-Python module (``bench/history/example_repo.py``) with a planted 5 %
regression, while a seeded load comes and goes beside it, ``perf bisect``
with the default clock (wall time) and the default budget of a session
names the right commit in at least 9 of 10 trials, never a wrong one, in
a median of at most 10 minutes per trial.

Each trial builds the repository (the regression planted at a different
commit in each trial, spread over 1..29 from the seed), starts the load
(``--load``: bench/kit/load.py's, phases of 1-6 s, a seed of its own), and
runs the whole command line in a fresh process::

    python -m perf bisect GOOD BAD --repo REPO --json FILE [--budget B] -- bench.py [ARGS]

then stops the load.  It prints the commit named, right / WRONG / cannot
decide, the commits measured (GOOD and BAD included), the sessions, the
wall time, how noisy the machine was (the per-round spread of BAD against
GOOD: how far back-to-back processes moved apart, as timed and with the
time off the CPU left out) and the share of the trial the load was busy.
Then the totals and the targets.

``--args`` adds runner options to ``bench.py`` (default: none, bisect's
own session of 10 rounds x 3 values, wall clock); ``--budget`` is passed
to bisect (default: its own, 20 minutes).

    python bench/history/bisect_accuracy.py [--trials 10] [--commits 30] [--load mixed|cpu|memory|none]
                                            [--seed 22] [--budget 20m] [--args "..."] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from example_repo import build_example_repo
from kit.load import Load, busy_share
from kit.results import Parser
from kit.run import perf_env

#: seconds of an idle or busy phase of the load
PHASE = (1.0, 6.0)
#: targets of issue 22
TARGET_RIGHT, TARGET_MEDIAN = 0.9, 600.0


def regression_points(trials: int, commits: int, seed: int) -> list[int]:
    """Where the regression is planted in each trial: spread over
    1..commits-1 (every region of the range), in a shuffled order."""
    rng = random.Random(seed)
    points = [1 + (index * (commits - 1)) // trials for index in range(trials)]
    points = [min(commits - 1, point + rng.randrange(max(1, (commits - 1) // trials))) for point in points]
    rng.shuffle(points)
    return points


def run_trial(number: int, regression: int, args: argparse.Namespace, folder: str) -> dict[str, object]:
    path = os.path.join(folder, f"repo-{number}")
    repo = build_example_repo(path, commits=args.commits, regression=regression, slowdown=args.slowdown)
    output = os.path.join(folder, f"bisect-{number}.json")
    command = [sys.executable, "-m", "perf", "bisect", repo.commits[0], repo.commits[-1], "--repo", path]
    command += ["--json", output] + (["--budget", args.budget] if args.budget else [])
    command += ["--", "bench.py", *shlex.split(args.args)]
    log_path = os.path.join(folder, f"load-{number}.jsonl")
    with Load(args.load, args.seed * 1000 + number, log_path, PHASE):
        start_wall, start = time.time(), time.monotonic()
        completed = subprocess.run(command, capture_output=True, text=True, check=False, env=perf_env(lock="own"))
    elapsed = time.monotonic() - start
    if completed.returncode not in (0, 1) or not os.path.exists(output):
        sys.stderr.write(completed.stdout + completed.stderr)
        raise SystemExit(f"trial {number}: perf bisect failed with exit status {completed.returncode}")
    with open(output) as file:
        document = json.load(file)
    found = document["first_bad"]
    outcome = "cannot decide" if found is None else "right" if found == repo.first_bad else "WRONG"
    return {
        "regression": regression,
        "found": found,
        "outcome": outcome,
        "measured": document["measured"],
        "sessions": sum(step["sessions"] for step in document["steps"]),
        "elapsed": elapsed,
        "spread": document["spread"],
        "spread_as_timed": document["spread_as_timed"],
        "busy": busy_share(log_path, start_wall, start_wall + elapsed),
        "output": completed.stdout,
    }


def _percent(value: object) -> str:
    return "-" if value is None else f"{float(value) * 100:.1f}%"  # type: ignore[arg-type]


def print_row(number: int, result: dict[str, object]) -> None:
    found = str(result["found"])[:7] if result["found"] else "-"
    print(
        f"{number:>5}  {result['regression']:>7}  {found:>7}  {result['outcome']:<13}  {result['measured']:>7}  "
        f"{result['sessions']:>8}  {float(result['elapsed']):>6.0f}s  {_percent(result['spread_as_timed']):>8}  "  # type: ignore[arg-type]
        f"{_percent(result['spread']):>8}  {_percent(result['busy']):>5}",
        flush=True,
    )


def print_totals(results: list[dict[str, object]]) -> None:
    outcomes = [result["outcome"] for result in results]
    measured = [int(result["measured"]) for result in results]  # type: ignore[call-overload]
    walls = sorted(float(result["elapsed"]) for result in results)  # type: ignore[arg-type]
    count = len(results)
    right, wrong = outcomes.count("right"), outcomes.count("WRONG")
    median = walls[count // 2] if count % 2 else (walls[count // 2 - 1] + walls[count // 2]) / 2
    print()
    print(f"right: {right}/{count}")
    print(f"wrong: {wrong}/{count}")
    print(f"cannot decide: {outcomes.count('cannot decide')}/{count}")
    print(f"commits measured: max {max(measured)}, mean {sum(measured) / count:.1f}")
    print(
        f"wall time per trial: median {median:.0f} s, min {walls[0]:.0f} s, max {walls[-1]:.0f} s, "
        f"total {sum(walls) / 60:.1f} min"
    )
    for key, what in (("spread_as_timed", "as timed"), ("spread", "time off the CPU left out")):
        spreads = sorted(float(result[key]) for result in results if result[key] is not None)  # type: ignore[arg-type]
        if spreads:
            print(f"per-round spread of BAD/GOOD, {what}: median {spreads[len(spreads) // 2] * 100:.1f} %")
    verdict = right >= TARGET_RIGHT * count and not wrong and median <= TARGET_MEDIAN
    print(
        f"targets (at least {TARGET_RIGHT:.0%} right, none wrong, median at most {TARGET_MEDIAN / 60:.0f} min): "
        f"{'met' if verdict else 'NOT met'}"
    )


def main() -> None:
    parser = Parser(__doc__)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--load", choices=("mixed", "cpu", "memory", "none"), default="mixed")
    parser.add_argument("--budget", default="", help="perf bisect --budget (default: bisect's own)")
    parser.add_argument("--args", default="", help="runner options of bench.py (default: none)")
    parser.add_argument("--slowdown", type=float, default=0.05, help="the planted regression (default: 0.05)")
    parser.add_argument("--verbose", action="store_true", help="print each bisection's output")
    args = parser.parse_args()
    print(
        f"perf bisect accuracy: {args.trials} trials, {args.commits} commits, a planted {args.slowdown:.0%} regression"
    )
    print(f"ARGS: bench.py {args.args}".rstrip() + f"; budget: {args.budget or 'bisect default'}; load: {args.load}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start")
    print()
    print(
        f"{'trial':>5}  {'planted':>7}  {'found':>7}  {'outcome':<13}  {'commits':>7}  {'sessions':>8}  {'wall':>7}  "
        f"{'as timed':>8}  {'CPU-only':>8}  {'busy':>5}"
    )
    results = []
    with tempfile.TemporaryDirectory(prefix="perf-bisect-accuracy-") as folder:
        for number, regression in enumerate(regression_points(args.trials, args.commits, args.seed), 1):
            result = run_trial(number, regression, args, folder)
            results.append(result)
            print_row(number, result)
            if args.verbose or result["outcome"] != "right":
                print("       " + str(result["output"]).rstrip().replace("\n", "\n       "), flush=True)
    print_totals(results)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
