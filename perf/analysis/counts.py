"""Instruction counts (``--metric instructions``): a count benchmark's
counts per loop, and what changed between two files.

Each run of a count benchmark (:meth:`perf.Benchmark.get_counter_source`)
carries, per loop, its instructions, I1, D1 and LL misses and estimated
cycles (:data:`perf.model.metadata.COUNT_KEYS`).

* :func:`count_means`: their means over the runs with values (a
  :class:`Counts`), for ``stats`` and the report;
* :func:`explain_comparison`: for ``compare_to --explain`` and the report,
  the ratio of each count (changed / reference, of the means) for each
  compared count benchmark and changed file, and its reading (an
  :class:`Explained`).

The reading (doc/analyze.rst, "Why did the counts change?"):

* the *work* changed when the instructions moved by
  :data:`SAME_INSTRUCTIONS` (0.1 %) or more; it is *uncertain* when the
  comparison's interval of the values (instructions per loop) reaches
  across 1x: the difference is within the spread of the processes (hash
  seeds; with a single process on a side, no spread is known, and the
  reading is of the two means);
* a kind of miss changed when its ratio is :data:`MISS_RATIO` (1.25x) or
  more either way (or it rose from none) *and* the change costs at least
  :data:`MISS_SHARE` (1 %) of the reference's estimated cycles at the
  estimate's weights (:data:`MISS_WEIGHTS`: 10 cycles per I1 or D1 miss,
  100 per LL miss): 3 I1 misses that become 9 are not worth a word;
* changed I1 misses point to code placement, changed D1 or LL misses to
  memory layout.

Must not: format text, read files, or print.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Protocol, Sequence

from perf.analysis.compare import Comparison
from perf.analysis.statistics import mean
from perf.model.benchmark import Benchmark
from perf.model.metadata import COUNT_KEYS

__all__ = [
    "CODE_PLACEMENT",
    "Compared",
    "MEMORY_LAYOUT",
    "MISS_RATIO",
    "MISS_SHARE",
    "MISS_WEIGHTS",
    "SAME_INSTRUCTIONS",
    "CountChange",
    "CountRatio",
    "Counts",
    "Explained",
    "Reading",
    "count_means",
    "explain_comparison",
]

#: below this relative change of the instructions, the work is the same
SAME_INSTRUCTIONS = 0.001
#: a kind of miss changed when its ratio is this far from 1x, either way...
MISS_RATIO = 1.25
#: ...and the change costs this share of the reference's estimated cycles
MISS_SHARE = 0.01
#: cycles per miss of the estimate (KCachegrind's, without branches)
MISS_WEIGHTS = {"i1_misses": 10, "d1_misses": 10, "ll_misses": 100}
#: what changed misses point to
CODE_PLACEMENT = "code placement"
MEMORY_LAYOUT = "memory layout"
_CAUSES = {"i1_misses": CODE_PLACEMENT, "d1_misses": MEMORY_LAYOUT, "ll_misses": MEMORY_LAYOUT}


class Counts(NamedTuple):
    """The means of a count benchmark's counts per loop over its runs with
    values, in the order of COUNT_KEYS (None: no run has that count)."""

    instructions: float | None
    i1_misses: float | None
    d1_misses: float | None
    ll_misses: float | None
    cycles_estimate: float | None
    #: the runs with values, and their distinct hash seeds (``hash_seed``)
    processes: int
    hash_seeds: int


def count_means(benchmark: Benchmark) -> Counts | None:
    """The :class:`Counts` of *benchmark*; None when it is no count
    benchmark or has no values."""
    runs = [run for run in benchmark.get_runs() if run.values]
    if benchmark.get_counter_source() is None or not runs:
        return None
    means: list[float | None] = []
    for key in COUNT_KEYS:
        found = [value for value in (run._get(key) for run in runs) if isinstance(value, (int, float))]
        means.append(mean(found) if found else None)
    seeds = {run._get("hash_seed") for run in runs} - {None}
    return Counts._make([*means, len(runs), len(seeds)])


class CountRatio(NamedTuple):
    """One count of a changed benchmark against its reference (means)."""

    reference: float
    changed: float
    #: changed / reference: 1.0 when both are 0; None when only the
    #: reference is 0 (a count from nothing)
    ratio: float | None


def _ratio(reference: float | None, changed: float | None) -> CountRatio | None:
    if reference is None or changed is None:
        return None
    if reference == 0:
        return CountRatio(reference, changed, 1.0 if changed == 0 else None)
    return CountRatio(reference, changed, changed / reference)


class Reading(NamedTuple):
    """What the counts say about a change (see the module documentation)."""

    #: the relative change of the instructions (changed / reference - 1)
    instructions: float
    #: the instructions moved by SAME_INSTRUCTIONS or more
    work: bool
    #: ... within the spread of the processes: the comparison's interval
    #: of the values reaches across 1x
    uncertain: bool
    #: the misses that changed: (key, ratio; None: from none), in COUNT_KEYS order
    misses: tuple[tuple[str, float | None], ...]
    #: what they point to (CODE_PLACEMENT, MEMORY_LAYOUT), each once
    causes: tuple[str, ...]
    #: every count is the same on both sides
    identical: bool


class CountChange(NamedTuple):
    """The counts of one changed file's benchmark against the reference's."""

    name: str
    #: the changed file (its index among the changed files: 0 is the first)
    changed: int
    #: the ratio of each count, in the order of COUNT_KEYS (None: a side
    #: lacks it)
    ratios: tuple[CountRatio | None, ...]
    #: the reading; None without instructions on both sides
    reading: Reading | None


class Explained(NamedTuple):
    """``compare_to --explain``: the counts of the compared benchmarks."""

    #: each compared count benchmark and changed file, in the order of the
    #: comparison
    changes: tuple[CountChange, ...]
    #: the compared benchmarks that are not count benchmarks
    without_counts: tuple[str, ...]


def _changed_misses(ratios: dict[str, CountRatio | None]) -> list[tuple[str, float | None]]:
    instructions, cycles = ratios["instructions"], ratios["cycles_estimate"]
    base = cycles.reference if cycles is not None else instructions.reference if instructions is not None else 0.0
    changed = []
    for key, weight in MISS_WEIGHTS.items():
        found = ratios[key]
        if found is None or found.ratio == 1.0:
            continue
        far = found.ratio is None or not 1 / MISS_RATIO < found.ratio < MISS_RATIO
        if far and weight * abs(found.changed - found.reference) >= MISS_SHARE * base:
            changed.append((key, found.ratio))
    return changed


def _reading(ratios: dict[str, CountRatio | None], comparison: Comparison) -> Reading | None:
    instructions = ratios["instructions"]
    if instructions is None or instructions.ratio is None:
        return None
    relative = instructions.ratio - 1
    work = abs(relative) >= SAME_INSTRUCTIONS
    # the interval of the values (instructions per loop) has a width, and contains 1x
    # (none with a single process on a side: no spread is known)
    low, high = comparison.low, comparison.high
    uncertain = work and low <= 1.0 <= high and low < high and math.isfinite(high)
    misses = tuple(_changed_misses(ratios))
    causes = tuple(dict.fromkeys(_CAUSES[key] for key, _ratio in misses))
    identical = all(found is None or found.reference == found.changed for found in ratios.values())
    return Reading(relative, work, uncertain, misses, causes, identical)


def _change(name: str, index: int, pair: Sequence[Counts | None], comparison: Comparison) -> CountChange:
    reference, changed = pair
    found = {
        key: _ratio(getattr(reference, key), getattr(changed, key))
        if reference is not None and changed is not None
        else None
        for key in COUNT_KEYS
    }
    return CountChange(name, index, tuple(found.values()), _reading(found, comparison))


class Compared(Protocol):
    """What :func:`explain_comparison` reads of a compared benchmark: a
    :class:`perf.analysis.suites.BenchmarkComparison` (a protocol, not an
    import: suites imports summaries, which imports this module)."""

    @property
    def name(self) -> str: ...
    @property
    def reference(self) -> Benchmark: ...
    @property
    def changed(self) -> Sequence[Benchmark]: ...
    @property
    def comparisons(self) -> Sequence[Comparison]: ...


def explain_comparison(entries: Sequence[Compared]) -> Explained:
    """The :class:`Explained` of the compared benchmarks *entries* (a
    finished comparison's ``entries``)."""
    changes: list[CountChange] = []
    without: list[str] = []
    for entry in entries:
        if entry.reference.get_counter_source() is None:
            without.append(entry.name)
            continue
        reference = count_means(entry.reference)
        for index, (benchmark, comparison) in enumerate(zip(entry.changed, entry.comparisons)):
            changes.append(_change(entry.name, index, (reference, count_means(benchmark)), comparison))
    return Explained(tuple(changes), tuple(without))
