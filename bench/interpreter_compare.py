"""Two interpreters recorded separately, then ``compare_to``, against one
interleaved run made in the same minutes (issue 21).

A user compares CPython 3.11 and 3.12 the way the issue did: records each
(``python3.X -m perf timeit -o``), then runs ``compare_to``.  The
corrections for a busy machine must not turn the interpreters' real
difference into another one: the interleaved run (``--compare-to``, the
two sides alternating, so the machine's drift hits both) is the yardstick.

``record``: for each cycle and statement, the two separate recordings
(their order alternates from cycle to cycle), then the interleaved run.
``analyze``: per pair, compare_to's ratio (the verdict's: corrected where
the workers' evidence allows), the ratio as recorded (``--no-correction``)
and the interleaved ratio; then the median over the pairs of each
statement and its distance to the interleaved median.

Usage::

    python bench/interpreter_compare.py record FOLDER REF_PYTHON CHANGED_PYTHON [--cycles 3]
    python bench/interpreter_compare.py analyze FOLDER
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

STATEMENTS = {"sorted": "sorted(range(1000))", "listcomp": "[x*2 for x in range(100)]"}


def _run(command: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()}")


def record(args: argparse.Namespace) -> None:
    os.makedirs(args.folder, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.setdefault("PERF_LOCK_DIR", tempfile.mkdtemp(prefix="perf-lock-"))
    manifest = []
    for cycle in range(args.cycles):
        for name, statement in STATEMENTS.items():
            sides = [("ref", args.reference), ("changed", args.changed)]
            if cycle % 2:
                sides.reverse()
            entry = {"cycle": cycle, "statement": name}
            for side, python in sides:
                path = os.path.join(args.folder, f"{cycle}-{name}-{side}.json")
                _run([python, "-m", "perf", "timeit", "-q", "--name", name, "-o", path, statement], env)
                entry[side] = os.path.basename(path)
            path = os.path.join(args.folder, f"{cycle}-{name}-ab.json")
            command = [args.changed, "-m", "perf", "timeit", "-q", "--name", name, "--compare-to", args.reference]
            _run([*command, "--python-names", "ref:changed", "-o", path, statement], env)
            entry["interleaved"] = [
                os.path.basename(path).replace(".json", f"-{side}.json") for side in ("ref", "changed")
            ]
            manifest.append(entry)
            print(f"cycle {cycle + 1}/{args.cycles}: {name} done", flush=True)
    with open(os.path.join(args.folder, "manifest.json"), "w") as file:
        json.dump({"reference": args.reference, "changed": args.changed, "pairs": manifest}, file, indent=1)


def analyze(args: argparse.Namespace) -> None:
    import perf
    from perf.analysis.benchmarks import compare_benchmarks

    with open(os.path.join(args.folder, "manifest.json")) as file:
        manifest = json.load(file)

    def load(name: str) -> perf.Benchmark:
        return perf.Benchmark.load(os.path.join(args.folder, name))

    print(f"reference {manifest['reference']}, changed {manifest['changed']}; ratio changed / reference")
    by_statement: dict[str, list[tuple[float, float, float]]] = {}
    for entry in manifest["pairs"]:
        reference, changed = load(entry["ref"]), load(entry["changed"])
        corrected = compare_benchmarks(reference, changed)
        raw = compare_benchmarks(reference, changed, correct=False)
        interleaved = compare_benchmarks(*(load(name) for name in entry["interleaved"]))
        adjustment = corrected.adjustment
        probe = adjustment.machine[0] if adjustment is not None and adjustment.machine else float("nan")
        kinds = "/".join(adjustment.probes) if adjustment is not None else "-"
        print(
            f"cycle {entry['cycle']} {entry['statement']:8}: compare_to {corrected.ratio:.3f} "
            f"[{corrected.low:.3f} .. {corrected.high:.3f}] {corrected.verdict:12} | as recorded {raw.ratio:.3f} "
            f"| interleaved {interleaved.ratio:.3f} [{interleaved.low:.3f} .. {interleaved.high:.3f}] "
            f"| probe ratio {probe:.3f} ({kinds})"
        )
        by_statement.setdefault(entry["statement"], []).append((corrected.ratio, raw.ratio, interleaved.ratio))
    print()
    for name, rows in by_statement.items():
        separate = statistics.median(row[0] for row in rows)
        recorded = statistics.median(row[1] for row in rows)
        interleaved = statistics.median(row[2] for row in rows)
        print(
            f"{name:8} {len(rows)} pairs: median compare_to {separate:.3f}, as recorded {recorded:.3f}, "
            f"interleaved {interleaved:.3f}: compare_to is {abs(separate / interleaved - 1):.1%} from the "
            f"interleaved ratio (as recorded: {abs(recorded / interleaved - 1):.1%})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    recorder = commands.add_parser("record")
    recorder.add_argument("folder")
    recorder.add_argument("reference")
    recorder.add_argument("changed")
    recorder.add_argument("--cycles", type=int, default=3)
    analyzer = commands.add_parser("analyze")
    analyzer.add_argument("folder")
    args = parser.parse_args()
    record(args) if args.command == "record" else analyze(args)


if __name__ == "__main__":
    main()
