"""A timeline of counts: ``history record --metric instructions`` finds a 1 % step exactly.

Builds bench/history/example_repo.py's repository with 12 commits and a
1 % regression at the 7th (``--commits``, ``--regression``,
``--slowdown``), records every commit into a new store with ``--metric
instructions`` (the default count budget of history record: one sample per
commit) while a load runs beside it (``--load``), then prints ``history
show`` and ``history changes``, checks that the one change found is the
planted one, and gives the wall time.

Usage::

    python bench/counts/count_history.py [--commits 12] [--regression 6] [--slowdown 0.01] [--load mixed]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "history"))

from example_repo import build_example_repo
from kit.load import Load
from kit.results import Parser
from kit.run import perf_env


def perf(*args: str, cwd: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "perf", *args]
    done = subprocess.run(command, env=perf_env(lock="own"), cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"exit status {done.returncode}: {' '.join(args)}\n{done.stderr}")
    return done


def main() -> None:
    parser = Parser(__doc__, output=True)
    parser.add_argument("--commits", type=int, default=12)
    parser.add_argument("--regression", type=int, default=6, help="index of the first slower commit (default: 6)")
    parser.add_argument("--slowdown", type=float, default=0.01)
    parser.add_argument("--load", default="mixed", choices=("mixed", "cpu", "memory", "none"))
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        repo = build_example_repo(os.path.join(folder, "repo"), args.commits, args.regression, args.slowdown)
        store = os.path.join(folder, "store")
        with Load(args.load, args.seed, os.path.join(folder, "load.jsonl")):
            start = time.monotonic()
            perf("history", "record", store, *repo.commits, "--repo", repo.path, "--", "bench.py",
                 "--metric", "instructions", cwd=repo.path)  # fmt: skip
            wall = time.monotonic() - start
        print(perf("history", "show", store, cwd=repo.path).stdout.rstrip())
        print()
        print(perf("history", "changes", store, cwd=repo.path).stdout.rstrip())
        changes = json.loads(perf("history", "changes", store, "--json", cwd=repo.path).stdout)
    planted = repo.first_bad
    found = [change["after"] for change in changes]
    outcome = "exactly the planted change" if found == [planted] else f"NOT the planted change only: {found}"
    print(f"\n{args.commits} commits, +{args.slowdown:.0%} planted at commit {args.regression + 1} ({planted[:10]}):")
    print(f"history changes found {len(found)} change(s): {outcome}")
    each = wall / args.commits
    print(f"history record --metric instructions: {wall:.0f} s for {args.commits} commits ({each:.1f} s each)")


if __name__ == "__main__":
    main()
