"""Seed 000's story on a busy machine: does ``history changes`` name the
right commits from real recordings made while other work runs? (issue 22)

``record``: builds the repository of doc/history.rst
(doc/examples/history_repo.py: 24 commits, +8 % at commit 14, reverted at
commit 20), starts bench/kit/load.py's load beside it (phases of 1-6 s),
then records every commit with the default clock and the bench script's
default budget:

* ``--mode interleaved``: one ``history record`` of the 24 revisions
  (perf's way: rounds of one process per commit);
* ``--mode sequential``: one ``history record`` per revision, one after the
  other (a commit at a time, as a CI job or the tool before issue 22 did).

``analyze``: ``history changes --json`` of each store, against the planted
changes: found (at the right commit, in the right direction), false
(anything else) and missed; and the wall time of the recording.

Usage::

    python bench/history/history_busy.py record FOLDER [--mode interleaved|sequential] [--load cpu|mixed|none]
                                                [--seed 1]
    python bench/history/history_busy.py analyze FOLDER [FOLDER...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit import ROOT
from kit.load import Load
from kit.results import Parser
from kit.run import checked, perf_env, stdout_of

#: the planted changes: index of the first commit after each, and its direction
PLANTED = ((14, "slower"), (20, "faster"))


def perf_command(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    return checked([sys.executable, "-m", "perf", *args], cwd=cwd, env=perf_env(lock="own"))


def commits_of(repo: str) -> list[str]:
    command = ["git", "rev-list", "--reverse", "HEAD"]
    return stdout_of(command, cwd=repo).split()


def record(args: argparse.Namespace) -> None:
    os.makedirs(args.folder, exist_ok=False)
    repo = os.path.join(args.folder, "repo")
    subprocess.run([sys.executable, os.path.join(ROOT, "doc", "examples", "history_repo.py"), repo], check=True)
    commits = commits_of(repo)
    store = os.path.join(args.folder, "store")
    start = time.time()
    with Load(args.load, args.seed, os.path.join(args.folder, "load.jsonl"), (1.0, 6.0)):
        batches = [commits] if args.mode == "interleaved" else [[commit] for commit in commits]
        for batch in batches:
            perf_command("history", "record", store, *batch, "--machine", "vm", "--", "bench.py", cwd=repo)
    info = {"mode": args.mode, "load": args.load, "seed": args.seed, "seconds": time.time() - start}
    with open(os.path.join(args.folder, "info.json"), "w") as file:
        json.dump(info, file)
    print(f"{args.folder}: {info}")


def analyze(args: argparse.Namespace) -> None:
    totals = {"found": 0, "false": 0, "missed": 0}
    for folder in args.folders:
        with open(os.path.join(folder, "info.json")) as file:
            info = json.load(file)
        commits = commits_of(os.path.join(folder, "repo"))
        changes = json.loads(perf_command("history", "changes", os.path.join(folder, "store"), "--json").stdout)
        planted = {(commits[index], direction) for index, direction in PLANTED}
        seen = {(change["after"], change["direction"]) for change in changes}
        found, false = planted & seen, seen - planted
        totals["found"] += len(found)
        totals["false"] += len(false)
        totals["missed"] += len(planted - seen)
        described = ", ".join(
            f"{commits.index(change['after'])} {change['direction']} {change['ratio']:.3f}x "
            f"[{change['ci_low']:.3f}x .. {change['ci_high']:.3f}x]"
            for change in changes
        )
        print(
            f"{folder}: {info['mode']}, load {info['load']} (seed {info['seed']}), "
            f"{info['seconds'] / 60:.1f} min: found {len(found)}/2, false {len(false)}: {described or 'no change'}"
        )
    print(f"total: found {totals['found']}, false {totals['false']}, missed {totals['missed']}")


def main() -> None:
    parser = Parser(__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    recorder = commands.add_parser("record")
    recorder.add_argument("folder")
    recorder.add_argument("--mode", choices=("interleaved", "sequential"), default="interleaved")
    recorder.add_argument("--load", choices=("cpu", "mixed", "none"), default="cpu")
    recorder.add_argument("--seed", type=int, default=1)
    analyzer = commands.add_parser("analyze")
    analyzer.add_argument("folders", nargs="+")
    args = parser.parse_args()
    record(args) if args.command == "record" else analyze(args)


if __name__ == "__main__":
    main()
