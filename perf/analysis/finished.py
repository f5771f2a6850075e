"""A finished comparison: everything that is said about a suite comparison,
computed once, for the modules that lay it out.

:func:`finish_comparison` compares the files
(:func:`perf.analysis.suites.compare_suites`: which benchmarks, and each
one's comparison with its corrections for a busy machine) and adds what the
text, the HTML report and the figure say about them:

* the sections: one per tag of the reference's benchmarks (in the order of
  the tags' names), then every benchmark; each :class:`Section` with its
  geometric mean for each changed file, the count of its comparisons that
  differ next to what chance alone gives
  (:func:`perf.analysis.suites.count_differences`), and how many of its
  ratios a correction for a busy machine changed, and how many of its
  benchmarks have a note on a busy machine;
* the win rate of each comparison (:func:`perf.analysis.benchmarks.benchmark_wins`),
  only when asked for: it costs a pass over every pair of process means;
* for each changed file, whether all its comparisons are paired (the two
  sides of an interleaved run: the drift of the machine cancels);
* given the files themselves, their notes and warnings
  (:func:`perf.analysis.notes.file_notes`: other Python builds, other
  machines, far apart in time, benchmarks saved from a run that stopped
  early).

:func:`find_slowdowns` is the gate of ``compare_to --fail-on-slowdown``.

``compare_to``, ``report``, ``plot --kind compare`` and the runner's
``--compare-to`` each build a :class:`FinishedComparison` once, in
perf.cli, and hand it to perf.render, which only lays it out.  A new
statistic of a comparison is computed here and laid out there.

Must not: read files, select benchmarks by name, format text, or print.
"""

from __future__ import annotations

from typing import Iterable, Mapping, NamedTuple, Sequence

from perf.analysis.benchmarks import benchmark_wins
from perf.analysis.compare import DEFAULT_MARGIN, SLOWER, Comparison
from perf.analysis.notes import Note, file_notes
from perf.analysis.suites import (
    BenchmarkComparison,
    Differences,
    Incompatible,
    Missing,
    SuiteComparison,
    compare_suites,
    count_differences,
    geometric_means,
)
from perf.analysis.win_rate import WinRate
from perf.model.benchmark import Benchmark
from perf.model.suite import BenchmarkSuite

__all__ = [
    "ALPHA",
    "FinishedComparison",
    "Section",
    "Slowdown",
    "Wins",
    "find_slowdowns",
    "finish",
    "finish_comparison",
]

#: the level of each test of the chance counts
ALPHA = 0.05


class Wins(NamedTuple):
    """How often a changed process beats a reference process."""

    rate: WinRate
    #: counted over the pairs of an interleaved run (else over every pair
    #: of process means)
    paired: bool


class Section(NamedTuple):
    """A set of compared benchmarks and what is said about the set."""

    #: the tag that its benchmarks share; None for every benchmark
    tag: str | None
    #: its benchmarks, in the order of the reference file
    entries: Sequence[BenchmarkComparison]
    #: the geometric mean for each changed file (None: fewer than 2 benchmarks)
    geometric_means: Sequence[Comparison] | None
    #: how many comparisons differ from 1x next to chance (None: fewer
    #: than 2 comparisons)
    differences: Differences | None
    #: its comparisons (benchmarks x changed files), and those whose ratio
    #: a correction for a busy machine changed (Comparison.corrected)
    compared: int
    corrected: int
    #: its benchmarks with a note on a busy machine: a correction, processes
    #: that lost the CPU, the machine's speed taken out or left uncorrected
    noted: int


class Slowdown(NamedTuple):
    """A comparison slower than the gate of ``--fail-on-slowdown``."""

    #: the benchmark; None for the suite's geometric mean
    name: str | None
    #: the changed file (its index among the changed files: 0 is the first)
    changed: int
    comparison: Comparison


class FinishedComparison(NamedTuple):
    """A suite comparison and everything said about it (see the module
    documentation)."""

    #: compare_suites's: the benchmarks compared, left out and missing
    suite: SuiteComparison
    #: one section per tag, in the order of the tags' names, then every
    #: benchmark (its tag is None)
    sections: Sequence[Section]
    #: the level of each test of the chance counts
    alpha: float
    #: for each changed file: every comparison to it is paired (the two
    #: sides of an interleaved run); empty when no benchmark was compared
    paired: Sequence[bool]
    #: benchmark name -> for each changed file its win rate (None: fewer
    #: than 2 processes on a side); None when not asked for
    wins: Mapping[str, Sequence[Wins | None]] | None = None
    #: the notes and warnings of the files (perf.analysis.notes); empty when
    #: the files were not given
    notes: Sequence[Note] = ()

    @property
    def entries(self) -> Sequence[BenchmarkComparison]:
        """The compared benchmarks, in the order of the reference file."""
        return self.suite.entries

    @property
    def incompatible(self) -> Sequence[Incompatible]:
        return self.suite.incompatible

    @property
    def missing(self) -> Sequence[Missing]:
        return self.suite.missing

    @property
    def margin(self) -> float:
        """The equivalence margin of the comparisons."""
        return self.suite.margin

    @property
    def correct(self) -> bool:
        """Separate recordings were corrected for a busy machine (False:
        ``--no-correction``)."""
        return self.suite.correct

    @property
    def everything(self) -> Section:
        """The section of every benchmark (the last one)."""
        return self.sections[-1]

    @property
    def geometric_means(self) -> Sequence[Comparison] | None:
        """The suite's geometric mean for each changed file."""
        return self.everything.geometric_means


def _tags(benchmark: Benchmark) -> list[str]:
    # the shared common value, not a copy of get_metadata(): read only
    tags = benchmark._get_common_value("tags") or []
    return list(tags) if isinstance(tags, (list, tuple)) else []


def _noted(comparison: Comparison) -> bool:
    """True when the text says something of *comparison* on a busy machine."""
    adjustment = comparison.adjustment
    if adjustment is None:
        return False
    machine = (adjustment.machine_corrected or adjustment.untracked) and adjustment.machine is not None
    lost = adjustment.cpu_time and any(adjustment.marked)
    skipped = adjustment.interpreter_probes or adjustment.different_probes
    return comparison.corrected or lost or machine or skipped


def _section(
    tag: str | None, entries: Sequence[BenchmarkComparison], means: Sequence[Comparison] | None, alpha: float
) -> Section:
    """The section of *entries*, whose geometric means are *means*."""
    comparisons = [comparison for entry in entries for comparison in entry.comparisons]
    return Section(
        tag,
        tuple(entries),
        means,
        count_differences(comparisons, alpha) if len(comparisons) >= 2 else None,
        len(comparisons),
        sum(comparison.corrected for comparison in comparisons),
        sum(1 for entry in entries if any(_noted(comparison) for comparison in entry.comparisons)),
    )


def _sections(suite: SuiteComparison, alpha: float) -> list[Section]:
    """A section per tag of the reference's benchmarks, then all of them."""
    entries = suite.entries
    entry_tags = [_tags(entry.reference) for entry in entries]
    tags = sorted({tag for tags_of_entry in entry_tags for tag in tags_of_entry})
    sections = []
    for tag in tags:
        tagged = [entry for entry, tags_of_entry in zip(entries, entry_tags) if tag in tags_of_entry]
        sections.append(_section(tag, tagged, geometric_means(tagged, suite.margin), alpha))
    # every benchmark: compare_suites has combined them already
    sections.append(_section(None, entries, suite.geometric_means, alpha))
    return sections


def _wins(entries: Sequence[BenchmarkComparison]) -> dict[str, tuple[Wins | None, ...]]:
    found: dict[str, tuple[Wins | None, ...]] = {}
    for entry in entries:
        rates = [benchmark_wins(entry.reference, changed) for changed in entry.changed]
        found[entry.name] = tuple(None if rate is None else Wins(*rate) for rate in rates)
    return found


def finish(
    suite: SuiteComparison,
    *,
    win_rates: bool = False,
    alpha: float = ALPHA,
    suites: Sequence[BenchmarkSuite] | None = None,
) -> FinishedComparison:
    """Everything said about *suite* (see the module documentation); the
    win rates only with *win_rates*; *alpha*: the level of each test of the
    chance counts; *suites*: the files compared (every benchmark of each,
    the reference first), for their notes."""
    changed_files = len(suite.entries[0].comparisons) if suite.entries else 0
    paired = tuple(all(entry.comparisons[index].paired for entry in suite.entries) for index in range(changed_files))
    finished = FinishedComparison(
        suite, tuple(_sections(suite, alpha)), alpha, paired, _wins(suite.entries) if win_rates else None
    )
    return (
        finished if suites is None else finished._replace(notes=file_notes(suites, finished.entries, finished.paired))
    )


def finish_comparison(
    files: Sequence[Iterable[Benchmark]],
    margin: float = DEFAULT_MARGIN,
    robust: bool = False,
    correct: bool = True,
    *,
    win_rates: bool = False,
    alpha: float = ALPHA,
    suites: Sequence[BenchmarkSuite] | None = None,
) -> FinishedComparison:
    """Compare the benchmarks of each file after the first to the first
    file's (:func:`perf.analysis.suites.compare_suites`: *margin*, *robust*,
    *correct*) and finish the comparison (:func:`finish`: *win_rates*,
    *alpha*, *suites*: the whole files that *files* were selected from)."""
    comparison = compare_suites(files, margin, robust, correct)
    return finish(comparison, win_rates=win_rates, alpha=alpha, suites=suites)


def find_slowdowns(comparison: FinishedComparison, percent: float) -> list[Slowdown]:
    """The slower comparisons (and geometric means) whose whole interval
    is beyond 1 + *percent* %: the benchmarks in order, each changed file
    in order, then the geometric mean of each changed file."""
    threshold = 1 + percent / 100
    found = [
        Slowdown(entry.name, index, result)
        for entry in comparison.entries
        for index, result in enumerate(entry.comparisons)
        if result.verdict == SLOWER
    ]
    found.extend(
        Slowdown(None, index, mean)
        for index, mean in enumerate(comparison.geometric_means or ())
        if mean.verdict == SLOWER
    )
    return [slowdown for slowdown in found if slowdown.comparison.low > threshold]
