"""The comparison section of the HTML report: ``compare_to``'s results as a
table.

:class:`Summary` is what the caller found (a
:class:`~perf.analysis.finished.FinishedComparison`: the entries, geometric
means, corrections; and the notes and warnings of
:mod:`perf.render.compare_notes`); :func:`comparison_section` lays it out:
one row per benchmark and changed file (benchmark, reference mean,
changed mean, ratio with its confidence interval, verdict with what it
means; a ratio corrected for a busy machine with the ratio as recorded
under it), the suite's geometric mean below, the margin, which ratio the
table shows, the tests used, the notes and the warnings under the table.

Must not: compare benchmarks or compute statistics (the comparisons are
the caller's), read files, or print.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from perf.analysis.compare import Comparison, Method
from perf.analysis.counts import Explained
from perf.analysis.finished import FinishedComparison
from perf.analysis.suites import BenchmarkComparison
from perf.render.benchmark import format_result_value
from perf.render.compare import format_bracket, format_factor, format_ratio_source, format_verdict
from perf.render.html.markup import bullet_list, cell, element, escape, row, table
from perf.render.html.sections import Files

__all__ = ["Summary", "comparison_section"]

#: how each test is described in the notes of the comparison
_METHODS = {
    Method.WELCH: "Welch's t test on the logs of the process means",
    Method.PAIRED: "paired t test on the interleaved pairs",
    Method.RANKS: "Mann-Whitney test on the process means, Hodges-Lehmann ratio",
    Method.SIGNED_RANKS: "Wilcoxon signed-rank test on the interleaved pairs",
}


class Summary(NamedTuple):
    """What ``compare_to`` found, for the comparison table."""

    #: the comparison of each changed file to the reference
    comparison: FinishedComparison
    #: lines under the table (how many differ by chance, ignored
    #: benchmarks, the Python builds of the files)
    notes: Sequence[str] = ()
    #: warnings on the files (other hosts or CPUs, far apart in time)
    warnings: Sequence[str] = ()
    #: the instruction counts of the compared benchmarks (their section)
    explained: Explained | None = None


def _verdict_cell(comparison: Comparison, margin: float) -> str:
    verdict = comparison.verdict
    why = format_verdict(comparison, margin)
    why = why.removeprefix(f"{verdict}: ")
    css = verdict.replace(" ", "-")
    content = element("span", escape(verdict), class_=f"verdict {css}") + element("div", escape(why), class_="why")
    return element("td", content)


def _change_cell(comparison: Comparison, margin: float) -> str:
    bracket = format_bracket(comparison, margin)
    content = escape(format_factor(comparison.ratio)) + " " + element("span", escape(bracket), class_="ci")
    if comparison.corrected and comparison.adjustment is not None:
        raw = comparison.adjustment.raw
        recorded = f"corrected; as recorded: {format_factor(raw.ratio)} {format_bracket(raw, margin)}"
        content += element("div", escape(recorded), class_="why")
    return element("td", content, class_="num")


def _summary_rows(entry: BenchmarkComparison, titles: Sequence[str], margin: float) -> list[str]:
    several = len(titles) > 1
    rows = []
    for index, (title, changed, comparison) in enumerate(zip(titles, entry.changed, entry.comparisons)):
        cells = []
        if index == 0:
            span = {"rowspan": str(len(titles))} if several else {}
            cells.append(cell(entry.name, class_="name", **span))
            cells.append(cell(format_result_value(entry.reference, entry.figures[0]), class_="num", **span))
        if several:
            cells.append(cell(title))
        cells.append(cell(format_result_value(changed, entry.figures[index + 1]), class_="num"))
        cells.append(_change_cell(comparison, margin))
        cells.append(_verdict_cell(comparison, margin))
        rows.append(row(cells))
    return rows


def _footer_rows(comparison: FinishedComparison, titles: Sequence[str]) -> list[str]:
    """The suite's geometric mean for each changed file."""
    several = len(titles) > 1
    footer = []
    for index, (title, mean) in enumerate(zip(titles, comparison.geometric_means or ())):
        cells = []
        if index == 0:
            span = {"rowspan": str(len(titles))} if several else {}
            cells.extend([cell("Geometric mean", **span), cell("", **span)])
        if several:
            cells.append(cell(title))
        cells.extend([cell(""), _change_cell(mean, comparison.margin), _verdict_cell(mean, comparison.margin)])
        footer.append(row(cells))
    return footer


def comparison_section(files: Files, summary: Summary, robust: bool) -> str:
    """The table of the comparison of each file to the first one, the
    geometric means below, the notes and warnings under it."""
    reference = files[0][0]
    titles = [title for title, _ in files[1:]]
    several = len(titles) > 1
    finished = summary.comparison
    comparisons = [comparison for entry in finished.entries for comparison in entry.comparisons]
    level = f"{comparisons[0].confidence * 100:g}%" if comparisons else "95%"
    headers = ["Benchmark", f"{reference} (reference)"]
    headers.extend(["File", "Mean +- std dev"] if several else [f"{titles[0]}"])
    headers.extend([f"Change [{level} CI]", "Verdict"])
    rows = [line for entry in finished.entries for line in _summary_rows(entry, titles, finished.margin)]
    footer = _footer_rows(finished, titles)
    notes = [
        f"Equivalence margin: +-{finished.margin * 100:g}%: a change inside it does not matter (--min-speed).",
        f"Mean +- std dev of all values; the change is the ratio of the geometric means of the process means, "
        f"changed / reference, with its {level} confidence interval.",
        format_ratio_source(finished.everything, finished.correct),
    ]
    methods = sorted({_METHODS.get(c.method, c.method) for c in comparisons if c.method in _METHODS})
    if methods:
        notes.append("Test: " + "; ".join(methods) + (" (--robust)" if robust else "") + ".")
    notes.extend(summary.notes)
    parts = [
        element("h2", "Comparison to " + escape(reference)),
        table(headers, rows, footer, class_="summary"),
        bullet_list(notes, class_="notes"),
    ]
    if summary.warnings:
        parts.append(bullet_list(summary.warnings, class_="notes warning"))
    return element("section", "\n".join(parts), id="comparison")
