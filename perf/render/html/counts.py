"""The instruction counts section of the HTML report (``--metric
instructions``): :func:`counts_section`.

For each file, its count benchmarks with their counts per loop (the means
of the instructions, the I1, D1 and LL misses and the estimated cycles,
from the runs' metadata), the processes and hash seeds they were counted
under, and the counters; with two files or more, what changed: the ratios
of ``compare_to --explain`` and its reading of each benchmark.  Nothing
when no file has counts.

The counts are the caller's (:attr:`perf.analysis.summaries.BenchmarkFindings.counts`,
:class:`perf.analysis.counts.Explained`).

Must not: compute statistics, read files, or print.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from perf.analysis.counts import Explained
from perf.render.counts import COLUMNS, format_ratio, format_reading
from perf.render.html.markup import NONE, bullet_list, cell, element, escape, row, table
from perf.render.html.sections import Files, Findings
from perf.render.units import format_count

if TYPE_CHECKING:
    from perf.analysis.counts import Counts

__all__ = ["counts_section"]


def _count_cells(counts: Counts | None) -> list[str]:
    values = (None,) * 5 if counts is None else counts[:5]
    found = [cell(NONE if value is None else format_count(value), class_="num") for value in values]
    seeds = NONE if counts is None else f"{counts.processes} ({counts.hash_seeds})"
    return [*found, cell(seeds, class_="num")]


def _file_table(files: Files, findings: Findings, index: int) -> tuple[str, list[str]]:
    """The table of the count benchmarks of file *index*, and its counters."""
    _title, suite = files[index]
    rows, sources = [], []
    for benchmark in suite:
        source = benchmark.get_counter_source()
        if source is None:
            continue
        sources.append(source)
        counts = findings[index][benchmark.get_name()].counts
        rows.append(row([cell(benchmark.get_name(), class_="name"), *_count_cells(counts)]))
    headers = ["Benchmark", *COLUMNS, "Processes (hash seeds)"]
    return (table(headers, rows, class_="counts") if rows else ""), sources


def _explained(explained: Explained, titles: Sequence[str]) -> list[str]:
    """What changed: the ratios and the reading of each benchmark."""
    if not explained.changes:
        return []
    several = len(titles) > 2
    headers = ["Benchmark", *(["File"] if several else []), *COLUMNS, "Reading"]
    rows = []
    for change in explained.changes:
        cells = [cell(change.name, class_="name")]
        if several:
            cells.append(cell(titles[change.changed + 1]))
        cells.extend(cell(format_ratio(found), class_="num") for found in change.ratios)
        cells.append(cell(format_reading(change.reading)))
        rows.append(row(cells))
    note = (
        f"Changed / reference ({titles[0]}), of the means per loop; the reading is compare_to --explain's "
        "(doc/analyze.rst, 'Why did the counts change?')."
    )
    return [
        element("h3", "What changed"),
        table(headers, rows, class_="counts-changes"),
        bullet_list([note], class_="notes"),
    ]


def counts_section(files: Files, findings: Findings, explained: Explained | None = None) -> str:
    """The section of the count benchmarks of *files* (their *findings*),
    with *explained* (two files or more) what changed; ``""`` when no file
    has counts."""
    parts = [element("h2", "Instruction counts")]
    sources: list[str] = []
    for index, (title, _suite) in enumerate(files):
        found, counters = _file_table(files, findings, index)
        if not found:
            continue
        sources.extend(counters)
        if len(files) > 1:
            parts.append(element("h3", escape(title)))
        parts.append(found)
    if not sources:
        return ""
    notes = ["Means per loop over the processes with values; each process counts under its own hash seed."]
    notes.extend(f"Counter: {source}" for source in dict.fromkeys(sources))
    parts.append(bullet_list(notes, class_="notes"))
    if explained is not None:
        parts.extend(_explained(explained, [title for title, _suite in files]))
    return element("section", "\n".join(parts), id="counts")
