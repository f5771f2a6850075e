"""A/A false alarms of pytest-benchmark's and perf's pytest comparisons on a busy machine (issue 25).

The 20-benchmark test file of pytest_suite.py, run as two pytest sessions
of the very same code, A then B one after the other, for each tool,
``--pairs`` times (the tool that goes first alternates from pair to pair),
while bench/kit/load.py's load comes and goes (phases of 2-6 s).  Nothing
changed between A and B, so every difference claimed is a false alarm:

* pytest-benchmark, with its own storage folder per pair::

      A: --benchmark-autosave --benchmark-storage DIR --benchmark-json a.json
      B: --benchmark-storage DIR --benchmark-compare --benchmark-compare-fail=mean:5% --benchmark-json b.json

  a claim is a benchmark named in its "Performance has regressed" lines
  (B.mean / A.mean * 100 - 100 > 5); the same rule applied to the two JSON
  files is printed beside it, and the two-sided rule (|B/A - 1| > 5 %)
  too, since perf claims either direction;
* perf::

      A: --perf-output a.json
      B: --perf-output b.json --perf-compare a.json --perf-fail-on-slowdown 5

  a claim is a benchmark whose verdict is ``slower`` or ``faster``, as
  ``python -m perf compare_to a.json b.json`` gives it (its comparison,
  ``perf.analysis.finished.finish_comparison`` with compare_to's defaults,
  on the two files); ``small change`` verdicts are counted apart, and the
  benchmarks ``--fail-on-slowdown 5`` names, whether the suite's geometric
  mean is called slower or faster, and whether the gate fails (checked
  against session B's exit status).

A session failed when its exit status is not 0 (pytest-benchmark's
regression check raises out of pytest, exit status 1; perf's gate exits
with 1).  Totals: claims / comparisons with the Wilson 95 % interval, and
sessions failed / pairs.

Usage::

    python bench/pytest_plugin/pytest_aa.py [--pairs 5] [--load mixed|cpu|memory|none] [--seed 25] [--budget B]
                                            [--tools ptb,perf] [--output FILE] [--keep DIR]
                                            [--ptb-python PY] [--perf-python PY]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import statistics
import sys
import time
from typing import NamedTuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.load import Load, busy_share
from kit.results import Parser
from kit.run import work_folder
from kit.tools import LABELS, PYTEST_TOOLS, add_pytest_tools, alternate, versions
from pytest_suite import SUITE_FILE, run_session, short_name, write_suite

from perf.analysis.compare import FASTER, SLOWER, SMALL_CHANGE
from perf.analysis.finished import find_slowdowns, finish_comparison
from perf.analysis.win_rate import wilson_interval
from perf.model.suite import BenchmarkSuite

#: pytest-benchmark's gate and perf's
FAIL_PERCENT = 5
#: counts made once per pair, not per benchmark
PER_PAIR = ("geomean", "gate fails")
REGRESSED = re.compile(r"^\s*(\S+).* - Field 'mean' has failed PercentageRegressionCheck")


class Pair(NamedTuple):
    """One A/A pair of one tool."""

    tool: str
    number: int
    walls: tuple[float, float]
    #: share of the pair's time the load was busy
    busy: float | None
    #: comparisons made (benchmarks in both sessions)
    compared: int
    #: the tool's own claims (ptb: regressed by its check; perf: slower or faster)
    claims: list[str]
    #: more counts, by what they mean
    counts: dict[str, int]
    #: |B/A - 1| of each benchmark, in %
    changes: list[float]
    #: session B's exit status
    status: int


def ptb_means(path: str) -> dict[str, float]:
    with open(path) as file:
        return {short_name(entry["name"]): entry["stats"]["mean"] for entry in json.load(file)["benchmarks"]}


def ptb_pair(number: int, args: argparse.Namespace, folder: str) -> tuple[Pair, tuple[float, float]]:
    storage = os.path.join(folder, f"ptb-{number}-storage")
    a_json, b_json = (os.path.join(folder, f"ptb-{number}-{side}.json") for side in "ab")
    base = [args.ptb_python, "-m", "pytest", "-p", "no:cacheprovider", "-q", SUITE_FILE, "--benchmark-storage", storage]
    start = time.time()
    _a, wall_a = run_session([*base, "--benchmark-autosave", "--benchmark-json", a_json], folder)
    fail = f"--benchmark-compare-fail=mean:{FAIL_PERCENT}%"
    b, wall_b = run_session([*base, "--benchmark-compare", fail, "--benchmark-json", b_json], folder, (1,))
    if b.returncode and "Performance has regressed" not in b.stdout + b.stderr:
        sys.stderr.write(b.stdout[-4000:] + b.stderr[-4000:])
        raise SystemExit(f"pytest-benchmark's session B failed without a regression (pair {number})")
    claims = [m.group(1) for line in (b.stdout + b.stderr).splitlines() if (m := REGRESSED.match(line))]
    before, after = ptb_means(a_json), ptb_means(b_json)
    common = sorted(set(before) & set(after))
    ratios = {name: after[name] / before[name] for name in common}
    counts = {
        "json rule": sum(1 for ratio in ratios.values() if ratio * 100 - 100 > FAIL_PERCENT),
        "two-sided": sum(1 for ratio in ratios.values() if abs(ratio - 1) * 100 > FAIL_PERCENT),
    }
    changes = [abs(ratio - 1) * 100 for ratio in ratios.values()]
    pair = Pair("ptb", number, (wall_a, wall_b), None, len(common), claims, counts, changes, b.returncode)
    return pair, (start, time.time())


def perf_pair(number: int, args: argparse.Namespace, folder: str) -> tuple[Pair, tuple[float, float]]:
    a_json, b_json = (os.path.join(folder, f"perf-{number}-{side}.json") for side in "ab")
    base = [args.perf_python, "-m", "pytest", "-p", "no:cacheprovider", "-q", SUITE_FILE]
    base += ["--perf-budget", args.budget] if args.budget else []
    start = time.time()
    _a, wall_a = run_session([*base, "--perf-output", a_json], folder)
    gate = ["--perf-compare", a_json, "--perf-fail-on-slowdown", str(FAIL_PERCENT)]
    b, wall_b = run_session([*base, "--perf-output", b_json, *gate], folder, (1,))
    if b.returncode and " passed" in b.stdout and " failed" in b.stdout:
        sys.stderr.write(b.stdout[-4000:] + b.stderr[-4000:])
        raise SystemExit(f"perf's session B had failing tests (pair {number})")
    comparison = finish_comparison([BenchmarkSuite.load(a_json), BenchmarkSuite.load(b_json)])
    verdicts = {short_name(entry.name): entry.comparisons[0] for entry in comparison.entries}
    claims = [name for name, result in verdicts.items() if result.verdict in (SLOWER, FASTER)]
    counts = {
        "slower": sum(1 for result in verdicts.values() if result.verdict == SLOWER),
        "faster": sum(1 for result in verdicts.values() if result.verdict == FASTER),
        "small change": sum(1 for result in verdicts.values() if result.verdict == SMALL_CHANGE),
        "gate": sum(1 for slowdown in find_slowdowns(comparison, FAIL_PERCENT) if slowdown.name is not None),
        "geomean": int(any(mean.verdict in (SLOWER, FASTER) for mean in comparison.geometric_means or ())),
        "gate fails": int(bool(find_slowdowns(comparison, FAIL_PERCENT))),
    }
    if counts["gate fails"] != bool(b.returncode):
        print(f"note: pair {number}: the files' comparison and session B's exit status {b.returncode} disagree")
    changes = [abs(result.ratio - 1) * 100 for result in verdicts.values()]
    pair = Pair("perf", number, (wall_a, wall_b), None, len(verdicts), claims, counts, changes, b.returncode)
    return pair, (start, time.time())


def rate(hits: int, total: int) -> str:
    low, high = wilson_interval(hits / total, total) if total else (math.nan, math.nan)
    share = hits / total if total else math.nan
    return f"{hits}/{total} = {share:.1%} [{low:.1%}, {high:.1%}]"


def print_pair(pair: Pair) -> None:
    busy = "-" if pair.busy is None else f"{pair.busy:.0%}"
    counts = ", ".join(f"{key} {value}" for key, value in pair.counts.items())
    median_change = statistics.median(pair.changes) if pair.changes else math.nan
    print(
        f"{pair.number:>4}  {LABELS[pair.tool]:16}  {pair.walls[0]:6.1f} s {pair.walls[1]:6.1f} s  {busy:>4}  "
        f"{len(pair.claims):>2}/{pair.compared:<2}  {'FAILED' if pair.status else 'passed':6}  "
        f"|B/A-1| median {median_change:.1f} % max {max(pair.changes, default=math.nan):.1f} %  ({counts})",
        flush=True,
    )
    if pair.claims:
        print(f"{'':6}claimed: {', '.join(pair.claims)}", flush=True)


def print_totals(pairs: list[Pair], tools: list[str]) -> None:
    print()
    print("Totals (false claims / comparisons, Wilson 95 % interval; sessions failed / pairs):")
    for tool in tools:
        mine = [pair for pair in pairs if pair.tool == tool]
        if not mine:
            continue
        compared = sum(pair.compared for pair in mine)
        claims = sum(len(pair.claims) for pair in mine)
        failed = sum(1 for pair in mine if pair.status)
        what = f"regressed by mean:{FAIL_PERCENT}%" if tool == "ptb" else "verdict slower or faster"
        print(f"  {LABELS[tool]:16} {what:26} {rate(claims, compared)}; sessions failed {rate(failed, len(mine))}")
        for key in mine[0].counts:
            total = sum(pair.counts[key] for pair in mine)
            base = len(mine) if key in PER_PAIR else compared
            print(f"  {'':16} {key:26} {rate(total, base)}")
        changes = [change for pair in mine for change in pair.changes]
        print(
            f"  {'':16} {'|B/A - 1|':26} median {statistics.median(changes):.2f} %, "
            f"90th percentile {statistics.quantiles(changes, n=10)[-1]:.2f} %, max {max(changes):.2f} %"
        )


def parse_args() -> argparse.Namespace:
    parser = Parser(__doc__, output=True)
    parser.add_argument("--pairs", type=int, default=5, help="A/A pairs of each tool (default: 5)")
    parser.add_argument("--load", choices=("mixed", "cpu", "memory", "none"), default="mixed")
    parser.add_argument("--seed", type=int, default=25, help="the load's seed (default: 25)")
    parser.add_argument("--budget", choices=("fast", "default", "rigorous"), help="--perf-budget (default: none given)")
    parser.add_argument(
        "--keep", metavar="DIR", help="write the test file, JSON files and load log there and keep them"
    )
    return add_pytest_tools(parser)


def run(args: argparse.Namespace, folder: str) -> None:
    write_suite(folder)
    print(f"pytest A/A: {args.pairs} pairs of each of {', '.join(args.tools)}; load {args.load} (seed {args.seed})")
    for tool in args.tools:
        python = args.ptb_python if tool == "ptb" else args.perf_python
        packages = "pytest pytest-benchmark" if tool == "ptb" else "pytest perf"
        print(f"{LABELS[tool]}: {shlex.join([python, '-m', 'pytest'])}: python {versions(python, packages)}")
    print(
        f"budget: {args.budget or 'the plugin default'}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}"
    )
    print()
    print(f"{'pair':>4}  {'tool':16}  {'wall A':>8} {'wall B':>8}  {'busy':>4}  claims  B")
    log_path = os.path.join(folder, "load.jsonl")
    pairs = []
    with Load(args.load, args.seed, log_path):  # busy and idle phases of 2-6 s
        for number in range(1, args.pairs + 1):
            for tool in alternate(args.tools, number - 1):
                pair, (start, end) = (ptb_pair if tool == "ptb" else perf_pair)(number, args, folder)
                pair = pair._replace(busy=busy_share(log_path, start, end))
                pairs.append(pair)
                print_pair(pair)
    print_totals(pairs, [tool for tool in PYTEST_TOOLS if tool in args.tools])
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


def main() -> None:
    args = parse_args()
    with work_folder(args.keep, "perf-pytest-aa-", "files kept in") as folder:
        run(args, folder)


if __name__ == "__main__":
    main()
