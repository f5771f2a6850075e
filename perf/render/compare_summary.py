"""One-line summaries of comparisons: the ``summary`` of what
:func:`perf.api.compare` returns.

Each line says the verdict, the ratio changed / reference (above 1x:
slower) with its interval in the same direction, and then what the verdict
means, or, for an inconclusive one, how many pairs (processes per side for
separate recordings) would likely narrow the interval to +-margin, from
:attr:`~perf.analysis.compare.Comparison.needed_processes`::

    slower: 1.10x [1.06x .. 1.14x]; by more than 1% (20 pairs)
    no change: 1.002x [0.996x .. 1.008x]; less than 1% either way (20 vs 20 processes)
    inconclusive: 1.03x [0.85x .. 1.24x]; about 140 pairs would likely narrow the interval to +-20% (this run: 10)

An inconclusive line never says "no change": its interval reaches beyond
the margin, so it does not tell "no change" from a change.  When
``needed_processes`` is no more than the run had (the interval is already
narrower than the band, but the ratio lies near the margin's edge), the
line says that more than this run's count are needed, not a smaller count.

Must not: compute statistics (the comparisons and the processes they would
need come from :mod:`perf.analysis`), read files, or print.
"""

from __future__ import annotations

from typing import Sequence

from perf.analysis.compare import Comparison, Method, Verdict
from perf.analysis.finished import FinishedComparison
from perf.render.compare import format_ratio_interval, verdict_meaning

__all__ = ["format_summary", "format_summary_lines"]


def _counts(comparison: Comparison) -> str:
    if comparison.paired:
        return f"{comparison.reference_processes} pairs"
    return f"{comparison.reference_processes} vs {comparison.changed_processes} processes"


def _inconclusive(comparison: Comparison, band: str) -> str:
    """What would settle an inconclusive comparison (never "no change")."""
    needed = comparison.needed_processes
    if comparison.paired:
        unit, this_run = "pairs", f"{comparison.reference_processes}"
        done = comparison.reference_processes
    else:
        unit = "processes per side"
        this_run = f"{comparison.reference_processes} and {comparison.changed_processes}"
        done = min(comparison.reference_processes, comparison.changed_processes)
    if needed is None:
        if comparison.method == Method.SUITE:
            return f"the interval contains 1x and reaches beyond +-{band}"
        return f"needs at least 2 processes per side (this run: {this_run})"
    if needed <= done:
        # the estimate is no more than the run had (a ratio between 1x and
        # the margin's edge): no smaller count
        return f"more {unit} than this run's {this_run} are needed to settle it at +-{band}"
    if comparison.needed_capped:
        return f"more than {needed} {unit} would be needed to narrow the interval to +-{band} (this run: {this_run})"
    return f"about {needed} {unit} would likely narrow the interval to +-{band} (this run: {this_run})"


def format_summary(comparison: Comparison, margin: float = Verdict.DEFAULT_MARGIN) -> str:
    """One line for *comparison*, read against +-*margin* (see the module
    documentation)."""
    text = f"{comparison.verdict}: {format_ratio_interval(comparison, margin)}"
    if comparison.verdict == Verdict.INCONCLUSIVE:
        return f"{text}; {_inconclusive(comparison, f'{margin * 100:g}%')}"
    text += f"; {verdict_meaning(comparison.verdict, margin)}"
    if comparison.method != Method.SUITE:
        text += f" ({_counts(comparison)})"
    return text


def _label(name: str, index: int, changed_results: int) -> str:
    return f"{name}, changed result {index + 1}" if changed_results > 1 else name


def format_summary_lines(comparison: FinishedComparison) -> list[str]:
    """The summary of a finished comparison: for one benchmark and one
    changed result, its :func:`format_summary` line; else one line per
    benchmark and changed result, each after its name (and the changed
    result's number, when there are several), then the geometric mean of
    each changed result."""
    entries = comparison.entries
    if not entries:
        return ["nothing compared: no benchmark with values is in every result"]
    margin = comparison.margin
    changed_results = len(entries[0].comparisons)
    if len(entries) == 1 and changed_results == 1:
        return [format_summary(entries[0].comparisons[0], margin)]
    lines = [
        f"{_label(entry.name, index, changed_results)}: {format_summary(result, margin)}"
        for entry in entries
        for index, result in enumerate(entry.comparisons)
    ]
    means: Sequence[Comparison] = comparison.geometric_means or ()
    lines.extend(
        f"{_label('geometric mean', index, changed_results)}: {format_summary(mean, margin)}"
        for index, mean in enumerate(means)
    )
    return lines
