"""Comparing two :class:`~perf.Benchmark` objects: which test applies.

* Runs of an interleaved comparison (``--compare-to``) carry their pair
  number and the seed of the run (``ab_pair``, ``ab_seed`` metadata): when
  both benchmarks come from the same interleaved run and every pair is
  complete, the comparison is paired (doc/design.rst, R6), else it
  falls back to the unpaired test;
* ``robust`` asks for the rank tests (:mod:`perf.analysis.ranks`:
  Wilcoxon's signed ranks on the pairs, Mann-Whitney otherwise);
* fewer than 2 processes on a side: no interval, an inconclusive verdict.

:func:`benchmark_wins` chooses the win rate the same way: over the pairs
of an interleaved run, else over every pair of process means.

Must not: format text or print.
"""

from __future__ import annotations

from perf.analysis import compare, ranks
from perf.analysis.compare import Comparison
from perf.analysis.statistics import mean, median
from perf.analysis.win_rate import WinRate, paired_win_rate, win_rate
from perf.model.benchmark import Benchmark

#: the metadata of an interleaved run (written by perf.measure.parent.schedule)
PAIR_KEY = "ab_pair"
SEED_KEY = "ab_seed"

#: seconds per statement of the empty timing loop (perf.measure.child.worker)
LOOP_OVERHEAD_KEY = "loop_overhead"

__all__ = [
    "LOOP_OVERHEAD_KEY",
    "PAIR_KEY",
    "SEED_KEY",
    "benchmark_wins",
    "compare_benchmarks",
    "loop_overhead",
    "paired_process_means",
]


def loop_overhead(benchmark: Benchmark) -> float | None:
    """The median loop overhead of the runs with values (seconds per
    statement, as the values), or None when no run measured it."""
    overheads = [run._get(LOOP_OVERHEAD_KEY) for run in benchmark.get_runs() if run.values]
    measured = [value for value in overheads if isinstance(value, (int, float))]
    return median(measured) if measured else None


def _pairs(benchmark: Benchmark) -> tuple[object, dict[int, float]] | None:
    """(seed, pair number -> process mean) of the runs with values, or
    None when a run lacks the keys or two runs claim one pair."""
    seeds = set()
    means: dict[int, float] = {}
    for run in benchmark.get_runs():
        if not run.values:
            continue
        # one key at a time, without copying the run's metadata dict
        pair, seed = run._get(PAIR_KEY), run._get(SEED_KEY)
        if not isinstance(pair, int) or seed is None or pair in means:
            return None
        seeds.add(seed)
        means[pair] = mean(run.values)  # as Benchmark.get_process_means()
    if len(seeds) != 1:
        return None
    return seeds.pop(), means


def paired_process_means(reference: Benchmark, changed: Benchmark) -> tuple[list[float], list[float]] | None:
    """The process means of both sides in pair order, when the two
    benchmarks are the two sides of one interleaved run with every pair
    complete (the same pairs, the same seed); else None."""
    ref_pairs, new_pairs = _pairs(reference), _pairs(changed)
    if ref_pairs is None or new_pairs is None or ref_pairs[0] != new_pairs[0]:
        return None
    if ref_pairs[1].keys() != new_pairs[1].keys() or len(ref_pairs[1]) < 2:
        return None
    order = sorted(ref_pairs[1])
    return [ref_pairs[1][pair] for pair in order], [new_pairs[1][pair] for pair in order]


def compare_benchmarks(
    reference: Benchmark,
    changed: Benchmark,
    margin: float = compare.DEFAULT_MARGIN,
    robust: bool = False,
    correct: bool = True,
) -> Comparison:
    """Compare *changed* with *reference* with the test that applies;
    *correct* False compares separate recordings as recorded, without the
    workers' evidence of a busy machine."""
    ref_means, new_means = reference.get_process_means(), changed.get_process_means()
    if len(ref_means) < 2 or len(new_means) < 2:
        return compare.unknown_comparison(ref_means, new_means)
    paired = paired_process_means(reference, changed)
    if paired is not None:
        if robust:
            return ranks.signed_rank_compare_process_means(*paired, margin)
        return compare.compare_paired_process_means(*paired, margin)
    if robust:
        return ranks.rank_compare_process_means(ref_means, new_means, margin)
    if correct and reference.get_counter_source() is None:  # a busy machine moves no instruction count
        from perf.analysis.recordings import compare_recordings

        # separate recordings: correct for a busy machine with the workers' evidence
        adjusted = compare_recordings(reference, changed, margin)
        if adjusted is not None:
            return adjusted
    return compare.compare_process_means(ref_means, new_means, margin)


def benchmark_wins(reference: Benchmark, changed: Benchmark) -> tuple[WinRate, bool] | None:
    """How often a changed process beats a reference process, and whether
    it was counted over the pairs of an interleaved run; None when a side
    has fewer than 2 processes."""
    paired = paired_process_means(reference, changed)
    if paired is not None:
        return paired_win_rate(*paired), True
    ref_means, new_means = reference.get_process_means(), changed.get_process_means()
    if len(ref_means) < 2 or len(new_means) < 2:
        return None
    return win_rate(ref_means, new_means), False
