"""``analyze`` of bench/busy/correction_study.py: each correction method on the
recorded pairs, against the interleaved ratio, and on the A/A pairs.

A method takes two Benchmarks (reference, changed) and returns a
:class:`perf.analysis.compare.Comparison` (ratio, interval, verdict).  For
each folder (one load) and method it prints:

* coverage: the pairs whose interval holds the interleaved ratio;
* distance: the median of |log(ratio / interleaved ratio)|, in %;
* width: the median half-width of the interval, in %;
* A/A: the pairs of separate recordings of identical code (the same
  interpreter and statement, in consecutive cycles of that statement)
  called different (slower, faster or small change).
"""

from __future__ import annotations

import math
import os
import statistics
from typing import Callable

from kit.load import read_jsonl  # first: perf from this tree

from perf.analysis import compare, interference
from perf.analysis.compare import Comparison
from perf.analysis.interference import process_evidence
from perf.model.benchmark import Benchmark
from perf.storage.files import load_benchmark

MARGIN = 0.01
Method = Callable[[Benchmark, Benchmark], Comparison]


def _logs(benchmark: Benchmark, cpu: bool) -> tuple[list[float], list[float]]:
    """(log process means, log probes), the means times their CPU share
    when *cpu* and the benchmark keeps the CPU."""
    evidence = process_evidence(benchmark)
    means = [item.mean for item in evidence]
    if cpu:
        shares = [item.cpu_share or 0.0 for item in evidence]
        means = interference.cpu_time_means(means, shares)
    return [math.log(value) for value in means], [math.log(item.probe or 1.0) for item in evidence]


def raw(reference: Benchmark, changed: Benchmark) -> Comparison:
    ref, new = (_logs(side, False)[0] for side in (reference, changed))
    return compare.compare_process_means([math.exp(v) for v in ref], [math.exp(v) for v in new], MARGIN)


def before(reference: Benchmark, changed: Benchmark) -> Comparison:
    """compare_to before issue 29 (a frozen copy): the CPU time only where a
    process kept 95 % of the CPU, then the probe's whole shift (slope 1),
    shrunk by its noise, with only the probe's own error in the interval."""
    sides = [process_evidence(side) for side in (reference, changed)]
    means = []
    for side in sides:
        keeps = max(item.cpu_share or 0.0 for item in side) >= interference.CPU_BOUND_SHARE
        means.append([item.mean * item.cpu_share if keeps and item.cpu_share else item.mean for item in side])
    comparison = compare.compare_process_means(means[0], means[1], MARGIN)
    machine = compare.compare_process_means(*[[item.probe for item in side] for side in sides])
    shift = math.log(machine.ratio)
    weight = interference.machine_weight(shift, machine.standard_error)
    if weight * abs(shift) < interference.NEGLIGIBLE_CORRECTION:
        return comparison
    error = math.hypot(comparison.standard_error, weight * machine.standard_error)
    return compare.t_comparison(
        math.log(comparison.ratio) - weight * shift,
        error,
        min(comparison.df, machine.df),
        variances=error**2 * len(sides[0]),
        counts=(len(sides[0]), len(sides[1])),
        levels=(MARGIN, 0.95),
        method=compare.WELCH,
    )


def current(reference: Benchmark, changed: Benchmark) -> Comparison:
    """What compare_to prints now (the code under test)."""
    from perf.analysis.benchmarks import compare_benchmarks

    return compare_benchmarks(reference, changed, MARGIN)


METHODS: dict[str, Method] = {
    "raw (as recorded)": raw,
    "before issue 29": before,
    "compare_to now": current,
}


def _interleaved(folder: str, entry: dict[str, object]) -> Comparison:
    ref, new = (load_benchmark(os.path.join(folder, name)) for name in entry["interleaved"])  # type: ignore[union-attr]
    means = [[item.mean for item in process_evidence(side)] for side in (ref, new)]
    return compare.compare_paired_process_means(means[0], means[1], MARGIN)


def _pct(value: float) -> str:
    return f"{100 * value:5.1f}%"


def analyze(folders: list[str], methods: dict[str, Method] | None = None) -> None:
    methods = methods or METHODS
    for folder in folders:
        entries = read_jsonl(os.path.join(folder, "manifest.jsonl"))
        load_kind = entries[0].get("load") if entries else "?"
        print(f"\n== {folder}: load {load_kind}, {len(entries)} pairs")
        yardsticks = [_interleaved(folder, entry) for entry in entries]
        pairs = [
            tuple(load_benchmark(os.path.join(folder, str(entry[side]))) for side in ("ref", "changed"))
            for entry in entries
        ]
        aa = []
        by_statement: dict[str, list[int]] = {}
        for index, entry in enumerate(entries):
            by_statement.setdefault(str(entry["statement"]), []).append(index)
        for index, entry in enumerate(entries):
            if "ref2" in entry:  # recorded one after the other
                aa.append((pairs[index][0], load_benchmark(os.path.join(folder, str(entry["ref2"])))))
        for indexes in by_statement.values() if not aa else ():
            for first, second in zip(indexes, indexes[1:]):
                aa.append((pairs[first][0], pairs[second][0]))
                aa.append((pairs[first][1], pairs[second][1]))
        print(f"{'method':28} {'coverage':>10} {'distance':>9} {'half-width':>10} {'A/A claims':>11}")
        for name, method in methods.items():
            covered, distances, widths = 0, [], []
            for (ref, new), yardstick in zip(pairs, yardsticks):
                result = method(ref, new)
                covered += result.low <= yardstick.ratio <= result.high
                distances.append(abs(math.log(result.ratio / yardstick.ratio)))
                widths.append((math.log(result.high) - math.log(result.low)) / 2)
            claims = sum(method(one, other).different for one, other in aa)
            print(
                f"{name:28} {covered:4d}/{len(pairs):<4d} {_pct(statistics.median(distances)):>9} "
                f"{_pct(statistics.median(widths)):>10} {claims:5d}/{len(aa):<4d}"
            )
        print("per pair: interleaved ratio; as recorded; compare_to now with its interval (* outside)")
        for entry, (ref, new), yardstick in zip(entries, pairs, yardsticks):
            now, recorded = current(ref, new), raw(ref, new)
            outside = "" if now.low <= yardstick.ratio <= now.high else " *"
            print(
                f"  {entry['cycle']:3} {entry['statement']:7} {yardstick.ratio:.3f}; {recorded.ratio:.3f}; "
                f"{now.ratio:.3f} [{now.low:.3f} .. {now.high:.3f}] {now.verdict}{outside}"
            )


# -- candidates of issue 29 -----------------------------------------------------------

#: a process whose time off the CPU is at most this many seconds per
#: involuntary context switch was preempted (a scheduler slice), not waiting
PREEMPTION_SLICE = 0.05


def _side(benchmark: Benchmark) -> tuple[list[float], list[float], bool]:
    """(log process means with the time off the CPU left out where the
    machine took it, log probes, whether it was left out)."""
    means, shares, probes, lost, switches = [], [], [], 0.0, 0
    for run in benchmark.get_runs():
        if not run.values:
            continue
        metadata = run.get_metadata()
        mean = math.fsum(run.values) / len(run.values)
        share = float(metadata["cpu_share"])
        means.append(mean)
        shares.append(share)
        seconds = math.fsum(run.values) * run.get_total_loops()
        lost += seconds * (1 - share)
        switches += int(metadata.get("involuntary_switches", 0))
        probes.append(math.sqrt(metadata["speed_probe_before"] * metadata["speed_probe_after"]))
    keeps = max(shares) >= interference.CPU_BOUND_SHARE or lost <= PREEMPTION_SLICE * switches
    if keeps:
        means = [mean * share for mean, share in zip(means, shares)]
    return [math.log(v) for v in means], [math.log(v) for v in probes], keeps


def _welch(sides: list[list[float]]) -> Comparison:
    return compare.compare_process_means([math.exp(v) for v in sides[0]], [math.exp(v) for v in sides[1]], MARGIN)


def _shifted(base: Comparison, shift: float, extra: float) -> Comparison:
    difference = math.log(base.ratio) - shift
    error = math.hypot(base.standard_error, extra)
    return compare.t_comparison(
        difference,
        error,
        base.df,
        variances=error**2 * base.reference_processes,
        counts=(base.reference_processes, base.changed_processes),
        levels=(MARGIN, 0.95),
        method=compare.WELCH,
    )


def candidate(probe: str, kappa: float = 0.0) -> Method:
    """CPU time left out where preemption explains it; then the probe:
    'none', 'shrunk' (today's: weight x shift, the weighted probe error),
    each with a tracking error kappa x |shift| in the interval."""

    def method(reference: Benchmark, changed: Benchmark) -> Comparison:
        sides = [_side(reference), _side(changed)]
        base = _welch([sides[0][0], sides[1][0]])
        probe_cmp = _welch([sides[0][1], sides[1][1]])
        shift = math.log(probe_cmp.ratio)
        if probe == "none":
            return _shifted(base, 0.0, kappa * abs(shift))
        weight = interference.machine_weight(shift, probe_cmp.standard_error)
        return _shifted(base, weight * shift, math.hypot(weight * probe_cmp.standard_error, kappa * abs(shift)))

    return method


CANDIDATES: dict[str, Method] = {
    "cpu (preempted too)": candidate("none"),
    "cpu + probe shrunk": candidate("shrunk"),
    "cpu + probe, kappa 0.5": candidate("shrunk", 0.5),
    "cpu + probe, kappa 1": candidate("shrunk", 1.0),
}
