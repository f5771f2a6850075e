"""The busy-machine correction of compare_to against the interleaved ratio,
under several kinds of real load (issue 29).

A user compares two interpreters the way issue 29 did: records each
(``python3.X -m perf timeit -o``), then runs ``compare_to``.  The yardstick
is an interleaved run of the same statement made in the same minutes
(``--compare-to``: the two sides alternate, so the machine's drift hits
both).

``record``: starts a load, then runs cycles.  Each cycle takes one
statement (they alternate from cycle to cycle), records the reference and
the changed interpreter separately (their order alternates), then the
interleaved run.  The loads:

* ``cpu``: bench/kit/load.py's ``mixed`` load, bench/busy/busy_compare.py's
  (busy and idle phases of 2-6 s; a busy phase spins both CPUs or copies
  64 MB buffers);
* ``jobs``: a real mix of other benchmark jobs, pyperformance benchmarks
  (pyperf) run one after another, forever;
* ``heavy``: two such benchmark streams at once, plus a memory-heavy job
  (sums of 4-million-item lists, 32 MB of pointers, in shuffled order);
* ``none``.

The pyperformance benchmarks run from the environment given by
``--jobs-python`` (a Python with pyperformance and pyperf installed).

With ``--aa`` each cycle also records the reference a second time, right
after the first: an A/A pair of recordings made one after the other.

``analyze``: per pair, the ratio as recorded, today's correction and the
candidate corrections, with their intervals, against the interleaved ratio;
and the A/A pairs of separate recordings that the folders hold (with
``--aa``, the two reference recordings of each cycle; else two recordings
of the same interpreter and statement in consecutive cycles of that
statement): how often each method called identical code different.

Usage::

    python bench/busy/correction_study.py record FOLDER REF_PYTHON CHANGED_PYTHON --load heavy [--cycles 20]
                                                 [--aa] [--jobs-python PYTHON]
    python bench/busy/correction_study.py analyze FOLDER [FOLDER...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

from kit.load import Load
from kit.results import Parser
from kit.run import checked, perf_env
from kit.tools import python_path

STATEMENTS = {"sorted": "sorted(range(1000))", "join": "'-'.join(map(str, range(100)))"}
#: --load: bench/kit/load.py's kinds
LOADS = {"cpu": "mixed", "jobs": "jobs", "heavy": "heavy", "none": "none"}


def record(args: argparse.Namespace) -> None:
    os.makedirs(args.folder, exist_ok=True)
    env = perf_env(lock="own")
    load = Load(LOADS[args.load], args.seed, os.path.join(args.folder, "load.jsonl"), jobs_python=args.jobs_python)
    if args.load != "none":
        load.start()
        time.sleep(5)  # let the load start
    manifest_path = os.path.join(args.folder, "manifest.jsonl")
    first = 0
    if os.path.exists(manifest_path):
        with open(manifest_path) as manifest:
            first = sum(1 for _ in manifest)
    names = sorted(STATEMENTS)
    try:
        with open(manifest_path, "a") as manifest:
            for cycle in range(first, first + args.cycles):
                name = names[cycle % len(names)]
                statement = STATEMENTS[name]
                sides = [("ref", args.reference), ("changed", args.changed)]
                if (cycle // len(names)) % 2:
                    sides.reverse()
                if args.aa:  # a second recording of the reference, right after the first
                    at = [side for side, _ in sides].index("ref") + 1
                    sides.insert(at, ("ref2", args.reference))
                entry: dict[str, object] = {"cycle": cycle, "statement": name, "load": args.load, "start": time.time()}
                for side, python in sides:
                    path = os.path.join(args.folder, f"{cycle:03d}-{name}-{side}.json")
                    checked([python, "-m", "perf", "timeit", "-q", "--name", name, "-o", path, statement], env=env)
                    entry[side] = os.path.basename(path)
                path = os.path.join(args.folder, f"{cycle:03d}-{name}-ab.json")
                command = [args.changed, "-m", "perf", "timeit", "-q", "--name", name, "--compare-to", args.reference]
                checked([*command, "--python-names", "ref:changed", "-o", path, statement], env=env)
                entry["interleaved"] = [path.replace(".json", f"-{side}.json") for side in ("ref", "changed")]
                entry["interleaved"] = [os.path.basename(item) for item in entry["interleaved"]]  # type: ignore[attr-defined]
                entry["end"] = time.time()
                manifest.write(json.dumps(entry) + "\n")
                manifest.flush()
                print(f"cycle {cycle + 1 - first}/{args.cycles} ({name}) done", flush=True)
    finally:
        load.stop()


def main() -> None:
    parser = Parser(__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record")
    rec.add_argument("folder")
    rec.add_argument("reference", type=python_path, help="a path, a command or a pyenv version (3.11.7)")
    rec.add_argument("changed", type=python_path)
    rec.add_argument("--load", choices=tuple(LOADS), default="heavy")
    rec.add_argument("--cycles", type=int, default=20)
    rec.add_argument("--seed", type=int, default=1)
    rec.add_argument("--jobs-python", help="has pyperformance and pyperf (default: this interpreter)")
    rec.add_argument("--aa", action="store_true", help="record the reference twice in a row (an A/A pair)")
    ana = commands.add_parser("analyze")
    ana.add_argument("folders", nargs="+")
    args = parser.parse_args()
    if args.command == "record":
        record(args)
    else:
        from correction_analysis import CANDIDATES, METHODS, analyze

        analyze(args.folders, {**METHODS, **CANDIDATES})


if __name__ == "__main__":
    main()
