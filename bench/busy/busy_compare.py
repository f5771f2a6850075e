"""Separate recordings compared on a busy machine (issue 14).

A user records A (``-o a.json``), changes the code, records B and runs
``compare_to a.json b.json``.  This script does exactly that, many times,
while a background load comes and goes, then judges each pair with
pyperf's test, the Welch test without correction (``today``), compare_to
before issue 29 and compare_to now (the mechanisms tried before, and not
kept, are in bench/results/busy_compare-2026-11-25-mixed.txt).

``record``: starts the load (bench/kit/load.py, phases of 2-6 s), then
runs cycles.  Each cycle records, one after the other, with
``python -m perf timeit [--fast] --name loop "for i in range(N): pass"``::

    A (N=100), A (N=100), B3 (N=103), B10 (N=110)

in ``--fast`` mode, then the same four in default mode.  The pairs, each
two recordings made one after the other:

* A/A: the two A recordings;
* A/B 3 %: the second A and B3;
* A/B 10 %: B10 and the first A of the next cycle (B first: the order of
  the sides alternates between the two A/B kinds).

(The real work ratios are 1.03 and 1.10 only roughly: the loop has a fixed
cost per value too; ``analyze`` prints the ratios measured on the whole
set, where the load averages out.)

``analyze``: reads the recordings and prints, per mode and method, how
often each pair kind was called different (``slower``, ``faster`` or
``small change``), with the exact (Clopper-Pearson) 95 % interval, and the
wrong-direction rate of the A/B kinds.

Usage::

    python bench/busy/busy_compare.py record FOLDER [--cycles 40] [--load mixed|cpu|memory|none] [--seed 1]
                                             [--study candidates|baseline]
    python bench/busy/busy_compare.py analyze FOLDER [FOLDER...] [--probe NAME] [--probe-table]

``--study`` (issue 21): the workers also time the candidate probes of
bench/busy/probe_candidates.py, every one (``candidates``:
bench/busy/probe_study_site/) or perf's first probe only (``baseline``:
bench/busy/probe_baseline_site/); ``analyze --probe NAME`` then judges every
method with candidate NAME (``a+b``: the sum of their times) in place of
the probe perf recorded, on the same recordings, and ``--probe-table``
says how well each candidate tracks the machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/, for kit

import correction_analysis
from kit.load import Load, kinds_during, read_jsonl
from kit.results import Parser
from kit.run import checked, perf_env
from kit.stats import clopper_pearson, pyperf_test

import perf
from perf.analysis import compare
from perf.analysis.compare import DIFFERENT
from perf.analysis.interference import probe_ratio, process_evidence, summarize

#: this folder: probe_candidates.py and the sites of --study
HERE = os.path.dirname(os.path.abspath(__file__))
SIDES = {"A": 100, "B3": 103, "B10": 110}
CYCLE = ("A", "A", "B3", "B10")
MODES = ("fast", "default")


def record_one(folder: str, index: int, mode: str, side: str, env: dict[str, str]) -> dict[str, object]:
    path = os.path.join(folder, f"{index:04d}-{mode}-{side}.json")
    command = [sys.executable, "-m", "perf", "timeit", "-q", "--name", "loop", "-o", path]
    if mode == "fast":
        command.append("--fast")
    command.append(f"for i in range({SIDES[side]}): pass")
    start = time.time()
    checked(command, env=env)
    return {
        "index": index,
        "mode": mode,
        "side": side,
        "file": os.path.basename(path),
        "start": start,
        "end": time.time(),
    }


def read_manifest(folder: str) -> list[dict[str, object]]:
    return read_jsonl(os.path.join(folder, "manifest.jsonl"))


def record(args: argparse.Namespace) -> None:
    os.makedirs(args.folder, exist_ok=True)
    site = {"candidates": "probe_study_site", "baseline": "probe_baseline_site"}.get(args.study or "")
    env = perf_env(*([os.path.join(HERE, site), HERE] if site else []), lock="own")
    manifest_path = os.path.join(args.folder, "manifest.jsonl")
    earlier = read_manifest(args.folder)
    index = len(earlier)
    first_cycle = max((int(entry["cycle"]) for entry in earlier), default=-1) + 1  # --cycles N more
    with Load(args.load, args.seed, os.path.join(args.folder, "load.jsonl")), open(manifest_path, "a") as manifest:
        for cycle in range(first_cycle, first_cycle + args.cycles):
            for mode in MODES:
                for side in CYCLE:
                    entry = record_one(args.folder, index, mode, side, env)
                    entry.update(cycle=cycle, load=args.load)
                    manifest.write(json.dumps(entry) + "\n")
                    manifest.flush()
                    index += 1
            print(f"cycle {cycle + 1 - first_cycle}/{args.cycles} done", flush=True)


# -- analysis ------------------------------------------------------------------------


#: (id of the first benchmark, id of the second) -> (start, end) of the pair
SPANS: dict[object, tuple[float, float]] = {}


def load_kinds(folders: list[str], reference, changed) -> str:
    """Which loads were busy while the pair was recorded: cpu, memory,
    both, or idle (from the load log)."""
    span = SPANS.get((id(reference), id(changed))) or SPANS.get((id(changed), id(reference)))
    if span is None:
        return "?"
    kinds = kinds_during([os.path.join(folder, "load.jsonl") for folder in folders], *span)
    return "both" if len(kinds) == 2 else (kinds.pop() if kinds else "idle")


def breakdown(folders: list[str], pairs) -> None:
    """A/A claims and 3 % findings by the kind of load during the pair."""
    print("\nBy the load during the pair (both modes): today -> compare_to now")
    table: dict[tuple[str, str], list[int]] = {}
    for items in pairs.values():
        for kind, reference, changed in items:
            load = load_kinds(folders, reference, changed)
            cell = table.setdefault((kind, load), [0, 0, 0])
            cell[0] += 1
            for index, method in ((1, method_today), (2, correction_analysis.current)):
                comparison = method(reference, changed)
                cell[index] += comparison.verdict in DIFFERENT and (kind == "A/A" or comparison.ratio > 1)
    for (kind, load), (count, today, now) in sorted(table.items()):
        print(f"  {kind:4} {load:6} {count:3} pairs: {'claimed' if kind == 'A/A' else 'found'} {today} -> {now}")


#: analyze --probe NAME: the candidate probe read in place of the recorded one
PROBE: list[str] = []


def load_benchmark(path: str):
    """The recording at *path*; with ``--probe NAME``, its runs' speed probe
    is candidate NAME's (recorded in study mode)."""
    if not PROBE:
        return perf.Benchmark.load(path)
    with open(path) as file:
        data = json.load(file)
    for benchmark in data["benchmarks"]:
        benchmark.get("metadata", {}).pop("speed_probe", None)
        for run in benchmark["runs"]:
            metadata = run.get("metadata", {})
            for end in ("before", "after"):
                keys = [f"probe_{name}_{end}" for name in PROBE[0].split("+")]  # a+b: the sum of their times
                if all(key in metadata for key in keys):
                    metadata[f"speed_probe_{end}"] = sum(metadata[key] for key in keys)
                    metadata["speed_probe"] = f"candidate-{PROBE[0]}"
    return perf.Benchmark.loads(json.dumps(data))


def load_pairs(folders: list[str], cycles: range | None = None) -> dict[str, list[tuple[str, object, object]]]:
    """mode -> [(kind, reference benchmark, changed benchmark)] in time
    order, of the recordings of *cycles* (all by default)."""
    pairs: dict[str, list[tuple[str, object, object]]] = {mode: [] for mode in MODES}
    for folder in folders:
        entries = [entry for entry in read_manifest(folder) if cycles is None or int(entry["cycle"]) in cycles]
        by_mode: dict[str, list[dict[str, object]]] = {mode: [] for mode in MODES}
        for entry in entries:
            by_mode[str(entry["mode"])].append(entry)
        for mode, recordings in by_mode.items():
            benchmarks = [load_benchmark(os.path.join(folder, str(entry["file"]))) for entry in recordings]
            sides = [str(entry["side"]) for entry in recordings]
            for position in range(len(recordings) - 1):
                span = (float(recordings[position]["start"]), float(recordings[position + 1]["end"]))
                SPANS[id(benchmarks[position])] = SPANS[id(benchmarks[position + 1])] = span
                SPANS[(id(benchmarks[position]), id(benchmarks[position + 1]))] = span
                first, second = sides[position], sides[position + 1]
                if (first, second) == ("A", "A") and position % 4 == 0:
                    pairs[mode].append(("A/A", benchmarks[position], benchmarks[position + 1]))
                elif (first, second) == ("A", "B3"):
                    pairs[mode].append(("3%", benchmarks[position], benchmarks[position + 1]))
                elif (first, second) == ("B10", "A"):
                    pairs[mode].append(("10%", benchmarks[position + 1], benchmarks[position]))
    return pairs


def method_today(reference, changed):
    return compare.compare_process_means(reference.get_process_means(), changed.get_process_means())


# -- what the probe table and the details need ----------------------------------------


def records(benchmark):
    """(process mean, cpu share, speed probe) of each run with values, in time order."""
    return [(e.mean, 1.0 if e.cpu_share is None else e.cpu_share, e.probe) for e in process_evidence(benchmark)]


def method_cpu_time(reference, changed):
    """Welch on log(process mean x cpu share): the CPU time per loop."""
    return compare.compare_process_means(
        [mean * share for mean, share, _ in records(reference)], [mean * share for mean, share, _ in records(changed)]
    )


def probe_comparison(reference, changed):
    return compare.compare_process_means(
        [probe for _, _, probe in records(reference)], [probe for _, _, probe in records(changed)]
    )


def method_pyperf(reference, changed):
    """pyperf 2.10's compare_to: a t-test on all values (run the analysis
    with an interpreter that has pyperf to see this row)."""
    significant, _score = pyperf_test()[0](reference.get_values(), changed.get_values())
    ratio = changed.mean() / reference.mean()
    verdict = (compare.SLOWER if ratio > 1 else compare.FASTER) if significant else compare.INCONCLUSIVE
    return compare.Comparison(ratio, ratio, ratio, 0.95, verdict, 0, 0, math.nan)


METHODS = {
    "pyperf compare_to (t-test on values)": method_pyperf,
    "today (Welch, log process means)": method_today,
    "before issue 29": correction_analysis.before,  # compare_to before issue 29, a frozen copy
    "compare_to now": correction_analysis.current,  # compare_to as it is in this tree
}


def probe_table(folders: list[str]) -> None:
    """How well each candidate probe (recorded with --study) tracks the
    machine: over every pair, the CPU-time log ratio around its kind's
    median (the noise between recordings) against the probe's log ratio:
    their correlation, the regression slope (1: the probe moves as the
    benchmark does), and the standard deviation of the noise before and
    after compare_to's shrunk correction with that probe."""
    names = sorted(
        {
            key[len("probe_") : -len("_before")]
            for folder in folders
            for entry in read_manifest(folder)[:1]
            for key in _run_keys(os.path.join(folder, str(entry["file"])))
            if key.startswith("probe_") and key.endswith("_before")
        }
    )
    if not names:
        print("\nNo candidate probes in these recordings (record them with --study).")
        return
    names += ["crc32+adler32", "crc32+inflate", "crc32+adler32+inflate"]
    print("\nProbe candidates: pairs' CPU-time log ratio (around its kind's median) against the probe's log ratio")
    print(f"{'mode':8} {'probe':10} {'pairs':>5} {'corr':>6} {'slope':>6} {'sd before':>10} {'sd after':>9}")
    for mode in MODES:
        for name in names:
            PROBE[:] = [name]
            pairs = load_pairs(folders)[mode]
            rows = []
            for kind, reference, changed in pairs:
                bench = method_cpu_time(reference, changed)
                probe = probe_comparison(reference, changed)
                shift = math.log(probe.ratio)
                weight = shift**2 / (shift**2 + probe.standard_error**2) if probe.standard_error else 1.0
                rows.append((kind, math.log(bench.ratio), shift, weight))
            centers = {kind: statistics.median(r[1] for r in rows if r[0] == kind) for kind in {r[0] for r in rows}}
            y = [r[1] - centers[r[0]] for r in rows]
            x = [r[2] for r in rows]
            after = [value - weight * shift for value, (_, _, shift, weight) in zip(y, rows)]
            mx, my = statistics.fmean(x), statistics.fmean(y)
            sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
            sxx = sum((a - mx) ** 2 for a in x)
            syy = sum((b - my) ** 2 for b in y)
            corr = sxy / math.sqrt(sxx * syy) if sxx and syy else math.nan
            slope = sxy / sxx if sxx else math.nan
            print(
                f"{mode:8} {name:10} {len(rows):5d} {corr:6.2f} {slope:6.2f} "
                f"{statistics.stdev(y):10.2%} {statistics.stdev(after):9.2%}"
            )
    PROBE.clear()


def _run_keys(path: str) -> set[str]:
    with open(path) as file:
        data = json.load(file)
    return {key for benchmark in data["benchmarks"] for run in benchmark["runs"] for key in run.get("metadata", {})}


def details(pairs) -> None:
    """One line per pair: today's and the CPU-time ratio, the probe ratio,
    the CPU shares of both sides."""
    for mode, items in pairs.items():
        print(f"\n{mode}: kind  today ratio [CI] verdict | cpu-time ratio [CI] verdict | probe ratio | shares")
        for kind, reference, changed in items:
            today, cpu = method_today(reference, changed), method_cpu_time(reference, changed)
            probe = probe_ratio(reference, changed)
            shares = [summarize(bench) for bench in (reference, changed)]
            share_text = " / ".join(f"{s.median_share:.3f} ({s.marked} marked)" for s in shares)
            print(
                f"  {kind:4} {today.ratio:.3f} [{today.low:.3f} {today.high:.3f}] {today.verdict:12} | "
                f"{cpu.ratio:.3f} [{cpu.low:.3f} {cpu.high:.3f}] {cpu.verdict:12} | "
                f"{probe.ratio if probe else float('nan'):.3f} | {share_text}"
            )


def real_ratios(folders: list[str]) -> None:
    """B3/A and B10/A over every recording (CPU-time process means, median
    of each side): the load averages out."""
    sides: dict[str, list[float]] = {side: [] for side in SIDES}
    for folder in folders:
        for entry in read_manifest(folder):
            benchmark = perf.Benchmark.load(os.path.join(folder, str(entry["file"])))
            sides[str(entry["side"])].extend(mean * share for mean, share, _ in records(benchmark))
    reference = statistics.median(sides["A"])
    ratios = ", ".join(f"{side}/A {statistics.median(sides[side]) / reference:.3f}" for side in ("B3", "B10"))
    print(f"Real work ratios (median CPU-time process means of all recordings): {ratios}")


def analyze(args: argparse.Namespace) -> None:
    try:
        import pyperf  # noqa: F401
    except ImportError:
        METHODS.pop("pyperf compare_to (t-test on values)")

    cycles = None
    if args.cycles:
        first, last = map(int, args.cycles.split("-"))
        cycles = range(first, last + 1)
        print(f"Cycles {first} to {last} only")
    if args.probe_table:
        probe_table(args.folders)
        return
    pairs = load_pairs(args.folders, cycles)
    real_ratios(args.folders)
    breakdown(args.folders, pairs)
    if args.details:
        details(pairs)
    for mode in MODES:
        kinds = {}
        for kind, _reference, _changed in pairs[mode]:
            kinds[kind] = kinds.get(kind, 0) + 1
        if not kinds:
            continue
        print(f"\n{mode} mode: " + ", ".join(f"{count} {kind} pairs" for kind, count in kinds.items()))
        print(f"{'method':34} {'A/A claimed':>22} {'3% found':>22} {'10% found':>22} {'wrong way':>10}")
        for name, method in METHODS.items():
            cells = []
            wrong = 0
            total_ab = 0
            for kind in ("A/A", "3%", "10%"):
                verdicts = [method(reference, changed) for k, reference, changed in pairs[mode] if k == kind]
                claimed = [comparison for comparison in verdicts if comparison.verdict in DIFFERENT]
                if kind == "A/A":
                    hits = len(claimed)
                else:
                    hits = sum(1 for comparison in claimed if comparison.ratio > 1)
                    wrong += sum(1 for comparison in claimed if comparison.ratio < 1)
                    total_ab += len(verdicts)
                low, high = clopper_pearson(hits, len(verdicts)) if verdicts else (0.0, 0.0)
                share = hits / len(verdicts) if verdicts else 0.0
                cells.append(f"{hits}/{len(verdicts)} {share:5.1%} [{low:.0%}-{high:.0%}]")
            wrong_text = f"{wrong}/{total_ab}"
            print(f"{name:34} {cells[0]:>22} {cells[1]:>22} {cells[2]:>22} {wrong_text:>10}")


def main() -> None:
    parser = Parser(__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    recorder = commands.add_parser("record")
    recorder.add_argument("folder")
    recorder.add_argument("--cycles", type=int, default=40)
    recorder.add_argument("--load", choices=("mixed", "cpu", "memory", "none"), default="mixed")
    recorder.add_argument("--seed", type=int, default=1)
    recorder.add_argument(
        "--study", choices=("candidates", "baseline"), help="workers also time candidate probes (issue 21)"
    )
    analyzer = commands.add_parser("analyze")
    analyzer.add_argument("folders", nargs="+")
    analyzer.add_argument("--details", action="store_true", help="one line per pair")
    analyzer.add_argument("--cycles", help="FIRST-LAST: only the pairs of these cycles (0-based, inclusive)")
    analyzer.add_argument("--probe", help="read candidate probe NAME (recorded with --study) as the speed probe")
    analyzer.add_argument(
        "--probe-table", action="store_true", help="how well each candidate probe tracks the machine (--study)"
    )
    args = parser.parse_args()
    if getattr(args, "probe", None):
        PROBE.append(args.probe)
        print(f"Speed probe read: candidate {args.probe!r} (bench/busy/probe_candidates.py)")
    if args.command == "record":
        record(args)
    else:
        analyze(args)


if __name__ == "__main__":
    main()
