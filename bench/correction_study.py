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

* ``cpu``: bench/busy_compare.py's (busy and idle phases of 2-6 s; a busy
  phase spins both CPUs or copies 64 MB buffers);
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

    python bench/correction_study.py record FOLDER REF_PYTHON CHANGED_PYTHON --load heavy [--cycles 20] [--aa]
                                          [--jobs-python PYTHON]
    python bench/correction_study.py analyze FOLDER [FOLDER...]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

STATEMENTS = {"sorted": "sorted(range(1000))", "join": "'-'.join(map(str, range(100)))"}
#: pure-Python pyperformance benchmarks with no third-party dependency
JOBS = ("nbody", "richards", "json_dumps", "deepcopy", "gc_collect", "chaos", "float", "go", "raytrace", "xml_etree")
MEMORY = (
    "import random, time, sys\n"
    "end = time.monotonic() + float(sys.argv[1])\n"
    "items = list(range(4 << 20)); random.shuffle(items)\n"
    "while time.monotonic() < end: sum(items); items.reverse()\n"
)


def _jobs_loop(python: str, seed: int, log_path: str) -> None:
    """pyperformance benchmarks one after another, forever."""
    import pyperformance  # the environment must have it

    folder = os.path.join(os.path.dirname(pyperformance.__file__), "data-files", "benchmarks")
    rng = random.Random(seed)
    with open(log_path, "a") as log, tempfile.TemporaryDirectory() as scratch:
        while True:
            name = rng.choice(JOBS)
            script = os.path.join(folder, f"bm_{name}", "run_benchmark.py")
            start = time.time()
            subprocess.run(
                [python, script, "--fast", "-q", "-o", os.path.join(scratch, f"{name}.json")],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(scratch, f"{name}.json"))
            log.write(json.dumps({"start": start, "kind": name, "seconds": time.time() - start}) + "\n")
            log.flush()


def _memory_loop() -> None:
    while True:
        subprocess.run([sys.executable, "-c", MEMORY, "60"], check=False)


def load_main(kind: str, seed: int, log_path: str, jobs_python: str) -> None:
    if kind == "cpu":
        from busy_compare import load_main as cpu_load

        cpu_load("mixed", seed, log_path)
        return
    streams = 1 if kind == "jobs" else 2
    children = [
        subprocess.Popen([jobs_python, __file__, "jobs-stream", jobs_python, str(seed + index), log_path])
        for index in range(streams)
    ]
    if kind == "heavy":
        children.append(subprocess.Popen([sys.executable, __file__, "memory-stream"]))
    for child in children:
        child.wait()


def _run(command: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()}")


def record(args: argparse.Namespace) -> None:
    os.makedirs(args.folder, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.setdefault("PERF_LOCK_DIR", tempfile.mkdtemp(prefix="perf-lock-"))
    load = None
    if args.load != "none":
        command = [sys.executable, __file__, "load", args.load, str(args.seed), os.path.join(args.folder, "load.jsonl")]
        load = subprocess.Popen([*command, args.jobs_python], start_new_session=True)
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
                    _run([python, "-m", "perf", "timeit", "-q", "--name", name, "-o", path, statement], env)
                    entry[side] = os.path.basename(path)
                path = os.path.join(args.folder, f"{cycle:03d}-{name}-ab.json")
                command = [args.changed, "-m", "perf", "timeit", "-q", "--name", name, "--compare-to", args.reference]
                _run([*command, "--python-names", "ref:changed", "-o", path, statement], env)
                entry["interleaved"] = [path.replace(".json", f"-{side}.json") for side in ("ref", "changed")]
                entry["interleaved"] = [os.path.basename(item) for item in entry["interleaved"]]  # type: ignore[attr-defined]
                entry["end"] = time.time()
                manifest.write(json.dumps(entry) + "\n")
                manifest.flush()
                print(f"cycle {cycle + 1 - first}/{args.cycles} ({name}) done", flush=True)
    finally:
        if load is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(load.pid, signal.SIGTERM)
            load.wait()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "load":
        load_main(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "jobs-stream":
        _jobs_loop(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "memory-stream":
        _memory_loop()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record")
    rec.add_argument("folder")
    rec.add_argument("reference")
    rec.add_argument("changed")
    rec.add_argument("--load", choices=("cpu", "jobs", "heavy", "none"), default="heavy")
    rec.add_argument("--cycles", type=int, default=20)
    rec.add_argument("--seed", type=int, default=1)
    rec.add_argument("--jobs-python", default=sys.executable)
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
