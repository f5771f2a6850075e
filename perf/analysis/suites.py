"""One suite comparison: the benchmarks of several files matched by name and
compared to the first file's (the reference).

:func:`compare_suites` is the one place that decides which benchmarks are
compared, for ``compare_to``, ``report``, ``plot --kind compare`` and the
runner's ``--compare-to`` alike.  The rule:

* a benchmark is compared when every file has one of its name; the
  comparisons follow the order of the reference file;
* a name that some file lacks is *missing* (:class:`Missing`: the name and
  the files that lack it);
* a benchmark that every file has is *incompatible* (:class:`Incompatible`)
  and left out when a file has no values of it (only calibration runs:
  :data:`NO_VALUES`), else when the files counted it with different
  counters, or counted it in one file and not in another
  (:data:`DIFFERENT_COUNTERS`: ``counter_source``, instruction counts of
  ``--metric instructions``), else when they measured it in different units
  (:data:`DIFFERENT_UNITS`), else when they timed it with different clocks
  (:data:`DIFFERENT_CLOCKS`: CPU time leaves out what wall time includes,
  their ratio is no speed-up); the first reason found, in that order;
* every other benchmark is compared with
  :func:`perf.analysis.benchmarks.compare_benchmarks` (the test that
  applies: paired for the two sides of an interleaved run).

Callers decide what a missing or incompatible benchmark means for them
(an error for ``compare_to`` and ``report``, a note under the figure of
``plot``); they select benchmarks by name (``-b``) before the comparison.
The commands reach it through :mod:`perf.analysis.finished`, which adds
everything that is said about the comparison.

Also here, on the comparisons of a suite: its geometric mean with an
interval (:func:`combine_comparisons`, :func:`geometric_means`) and what
chance alone gives among many comparisons (:func:`expected_by_chance`,
:func:`benjamini_hochberg`, :func:`count_differences`).

Must not: read files, select benchmarks by name, format text, or print.
"""

from __future__ import annotations

import math
from typing import Final, Iterable, NamedTuple, Sequence

from perf.analysis.benchmarks import compare_benchmarks
from perf.analysis.compare import (
    DEFAULT_MARGIN,
    INCONCLUSIVE,
    SUITE,
    Comparison,
    check_levels,
    t_p_value,
    verdict_of,
)
from perf.analysis.statistics import mean
from perf.analysis.student_t_quantile import student_t_ppf
from perf.analysis.summaries import ValueFigures, value_figures
from perf.model.benchmark import Benchmark

__all__ = [
    "DIFFERENT_CLOCKS",
    "DIFFERENT_COUNTERS",
    "DIFFERENT_UNITS",
    "NO_VALUES",
    "BenchmarkComparison",
    "Differences",
    "Incompatible",
    "Missing",
    "Reason",
    "SuiteComparison",
    "benjamini_hochberg",
    "combine_comparisons",
    "compare_suites",
    "count_differences",
    "expected_by_chance",
    "geometric_means",
    "incompatibility",
]


class Reason:
    """Why a benchmark that every file has is not compared (the
    ``reason`` of an :class:`Incompatible`, a plain string); a class, so
    that perf.render can name them."""

    NO_VALUES: Final = "no values"
    DIFFERENT_UNITS: Final = "different units"
    DIFFERENT_CLOCKS: Final = "different clocks"
    DIFFERENT_COUNTERS: Final = "different counters"


#: why a benchmark that every file has is not compared
NO_VALUES = Reason.NO_VALUES
DIFFERENT_UNITS = Reason.DIFFERENT_UNITS
DIFFERENT_CLOCKS = Reason.DIFFERENT_CLOCKS
DIFFERENT_COUNTERS = Reason.DIFFERENT_COUNTERS


class BenchmarkComparison(NamedTuple):
    """One benchmark found in every file, and its comparison to the
    reference for each changed file."""

    name: str
    reference: Benchmark
    #: the benchmark of each changed file, in the order of the files
    changed: Sequence[Benchmark]
    #: the comparison of each of them to the reference
    comparisons: Sequence[Comparison]
    #: pyperf's figures of the values of each benchmark (mean +- std dev:
    #: what the text shows beside the ratio), the reference first
    figures: Sequence[ValueFigures | None]

    @property
    def different(self) -> bool:
        """True when some changed file differs from the reference."""
        return any(comparison.different for comparison in self.comparisons)


class Incompatible(NamedTuple):
    """A benchmark that every file has, left out of the comparison."""

    name: str
    #: NO_VALUES, DIFFERENT_COUNTERS, DIFFERENT_UNITS or DIFFERENT_CLOCKS
    reason: str
    #: the benchmark of each file, the reference first
    benchmarks: Sequence[Benchmark]


class Missing(NamedTuple):
    """A benchmark name that some files have and others lack."""

    name: str
    #: the files that lack it (their indexes: the reference is 0)
    absent: Sequence[int]


class SuiteComparison(NamedTuple):
    """What :func:`compare_suites` found."""

    #: the compared benchmarks, in the order of the reference file
    entries: Sequence[BenchmarkComparison]
    #: the benchmarks that every file has but that were left out, in the
    #: order of the reference file
    incompatible: Sequence[Incompatible]
    #: the names that some file lacks, in the order of first appearance
    missing: Sequence[Missing]
    #: the suite's geometric mean for each changed file (None with fewer
    #: than 2 compared benchmarks)
    geometric_means: Sequence[Comparison] | None
    #: the equivalence margin of the comparisons
    margin: float
    #: separate recordings were corrected for a busy machine where their
    #: workers left the evidence (False: ``--no-correction``)
    correct: bool = True

    @property
    def common(self) -> bool:
        """True when some benchmark is in every file (compared or not)."""
        return bool(self.entries or self.incompatible)

    def ignored(self, index: int) -> list[str]:
        """The names of file *index* that some other file lacks, in the
        order of first appearance."""
        return [missing.name for missing in self.missing if index not in missing.absent]


def incompatibility(benchmarks: Sequence[Benchmark]) -> str | None:
    """Why the benchmarks of one name in each file cannot be compared
    (NO_VALUES, DIFFERENT_COUNTERS, DIFFERENT_UNITS or DIFFERENT_CLOCKS),
    or None."""
    if any(not benchmark.get_nvalue() for benchmark in benchmarks):
        return NO_VALUES
    if len({benchmark.get_counter_source() for benchmark in benchmarks}) > 1:
        return DIFFERENT_COUNTERS
    if len({benchmark.get_unit() for benchmark in benchmarks}) > 1:
        return DIFFERENT_UNITS
    if len({benchmark.get_clock() for benchmark in benchmarks}) > 1:
        return DIFFERENT_CLOCKS
    return None


def _missing(tables: Sequence[dict[str, Benchmark]]) -> list[Missing]:
    names: dict[str, None] = {}
    for table in tables:
        names.update(dict.fromkeys(table))
    found = []
    for name in names:
        absent = tuple(index for index, table in enumerate(tables) if name not in table)
        if absent:
            found.append(Missing(name, absent))
    return found


def compare_suites(
    files: Sequence[Iterable[Benchmark]], margin: float = DEFAULT_MARGIN, robust: bool = False, correct: bool = True
) -> SuiteComparison:
    """Compare the benchmarks of each file after the first to the first
    file's (see the module documentation for the rule); *robust* asks for
    the rank tests; *correct* False leaves out the corrections for a busy
    machine (:func:`perf.analysis.benchmarks.compare_benchmarks`)."""
    if len(files) < 2:
        raise ValueError(f"a comparison needs a reference and at least one changed file, got {len(files)} file(s)")
    tables = [{benchmark.get_name(): benchmark for benchmark in benchmarks} for benchmarks in files]
    entries: list[BenchmarkComparison] = []
    incompatible: list[Incompatible] = []
    for name, reference in tables[0].items():
        if any(name not in table for table in tables[1:]):
            continue
        benchmarks = [table[name] for table in tables]
        reason = incompatibility(benchmarks)
        if reason is not None:
            incompatible.append(Incompatible(name, reason, tuple(benchmarks)))
            continue
        changed = tuple(benchmarks[1:])
        comparisons = tuple(compare_benchmarks(reference, other, margin, robust, correct) for other in changed)
        figures = tuple(value_figures(benchmark) for benchmark in benchmarks)
        entries.append(BenchmarkComparison(name, reference, changed, comparisons, figures))
    return SuiteComparison(
        tuple(entries), tuple(incompatible), tuple(_missing(tables)), geometric_means(entries, margin), margin, correct
    )


def geometric_means(entries: Sequence[BenchmarkComparison], margin: float) -> tuple[Comparison, ...] | None:
    """The geometric mean of *entries* for each changed file (None for
    fewer than 2 benchmarks)."""
    if len(entries) < 2:
        return None
    return tuple(
        combine_comparisons([entry.comparisons[index] for entry in entries], margin)
        for index in range(len(entries[0].comparisons))
    )


# --- the statistics of a suite -----------------------------------------------------


def combine_comparisons(
    comparisons: Sequence[Comparison], margin: float = DEFAULT_MARGIN, confidence: float = 0.95
) -> Comparison:
    """The geometric mean of the ratios of *comparisons* (one per
    benchmark) with its interval and verdict.

    The log of the geometric mean is the mean of the log ratios; the
    benchmarks were measured by different processes, so the variances of
    their log ratios add: SE = sqrt(sum SE_i^2) / N, with
    Welch-Satterthwaite degrees of freedom (a normal quantile for rank
    comparisons, which have none).  This is the interval of this set of
    benchmarks, not of "all programs".  Process counts are summed.
    """
    check_levels(margin, confidence)
    if not comparisons:
        raise ValueError("no comparison to combine")
    count = len(comparisons)
    difference = mean([math.log(comparison.ratio) for comparison in comparisons])
    shares = [comparison.standard_error**2 for comparison in comparisons]
    total = sum(shares)
    standard_error = math.sqrt(total) / count
    reference_processes = sum(comparison.reference_processes for comparison in comparisons)
    changed_processes = sum(comparison.changed_processes for comparison in comparisons)
    if math.isinf(standard_error):
        return Comparison(
            math.exp(difference), 0.0, math.inf, confidence, INCONCLUSIVE,
            reference_processes, changed_processes, math.nan, None, math.inf, 1.0, SUITE,
        )  # fmt: skip
    df = _combined_df(shares, comparisons, total, standard_error)
    half_width = student_t_ppf(1 - (1 - confidence) / 2, df) * standard_error if standard_error else 0.0
    low, high = difference - half_width, difference + half_width
    return Comparison(
        math.exp(difference),
        math.exp(low),
        math.exp(high),
        confidence,
        verdict_of(low, high, math.log1p(margin)),
        reference_processes,
        changed_processes,
        df,
        None,
        standard_error,
        t_p_value(difference, standard_error, df),
        SUITE,
    )


def _combined_df(shares: Sequence[float], comparisons: Sequence[Comparison], total: float, error: float) -> float:
    """Welch-Satterthwaite degrees of freedom of a sum of variances."""
    if error == 0:
        return math.inf
    denominator = sum(
        share**2 / comparison.df
        for share, comparison in zip(shares, comparisons)
        if share and math.isfinite(comparison.df)
    )
    return total**2 / denominator if denominator else math.inf


def expected_by_chance(count: int, alpha: float = 0.05) -> float:
    """How many of *count* comparisons of identical code a test at level
    *alpha* calls different on average."""
    return count * alpha


def benjamini_hochberg(p_values: Sequence[float], rate: float = 0.05) -> list[bool]:
    """Which hypotheses are rejected by the Benjamini-Hochberg procedure
    at false discovery rate *rate* (same order as *p_values*)."""
    count = len(p_values)
    order = sorted(range(count), key=lambda index: p_values[index])
    largest = 0
    for rank, index in enumerate(order, 1):
        if p_values[index] <= rate * rank / count:
            largest = rank
    rejected = [False] * count
    for index in order[:largest]:
        rejected[index] = True
    return rejected


class Differences(NamedTuple):
    """How many of a suite's comparisons differ from 1x, next to chance."""

    #: comparisons, and those whose p-value is below alpha
    total: int
    significant: int
    #: what chance alone would give among identical code
    expected: float
    #: those that remain at a false discovery rate of alpha
    discoveries: int
    alpha: float


def count_differences(comparisons: Sequence[Comparison], alpha: float = 0.05) -> Differences:
    """How many of *comparisons* differ from 1x at level *alpha*, how many
    chance alone would give, how many survive Benjamini-Hochberg."""
    p_values = [comparison.p_value for comparison in comparisons]
    return Differences(
        len(comparisons),
        sum(1 for p_value in p_values if p_value < alpha),
        expected_by_chance(len(comparisons), alpha),
        sum(benjamini_hochberg(p_values, alpha)),
        alpha,
    )
