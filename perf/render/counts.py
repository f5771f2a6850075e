"""The text of instruction counts (``--metric instructions``): what
``compare_to --explain`` adds under the comparison, and the counts of one
benchmark (``stats``, the HTML report).

:func:`format_explained` lays out an
:class:`~perf.analysis.counts.Explained`: a table of the ratios (changed /
reference, of the means per loop) of the instructions, I1, D1 and LL
misses and estimated cycles, then one reading per benchmark::

    - sorted: 1.0 % more instructions
    - sum_list: same instructions (+0.0 %), D1 misses 2.6x, LL misses 2.2x: memory layout, not more work
    - call_chain: same instructions (+0.0 %), I1 misses 70x: code placement, not more work

What counts as the same, and as changed misses, is decided by
:mod:`perf.analysis.counts` (its thresholds are documented there and in
doc/analyze.rst).

Must not: compute statistics, read files, or print.
"""

from __future__ import annotations

from typing import Any, Sequence

from perf.analysis.counts import CountChange, CountRatio, Counts, Explained, Reading
from perf.model.metadata import COUNT_KEYS
from perf.render.tables import format_table
from perf.render.units import format_count

__all__ = [
    "COLUMNS",
    "NO_COUNTS",
    "counts_document",
    "format_counts",
    "format_explained",
    "format_ratio",
    "format_reading",
]

#: the counts of perf.model.metadata.COUNT_KEYS, as the table names them
COLUMNS = ("Instructions", "I1 misses", "D1 misses", "LL misses", "Estimated cycles")
#: the misses (COUNT_KEYS 1 to 3) in a reading
_MISSES = {"i1_misses": "I1 misses", "d1_misses": "D1 misses", "ll_misses": "LL misses"}
#: --explain without a count benchmark
NO_COUNTS = "--explain needs instruction counts: record the benchmarks with --metric instructions"


def format_ratio(found: CountRatio | None) -> str:
    """A cell of the table: ``1.010x``, ``70.0x``; ``0 -> 12`` from none;
    ``n/a`` when a side lacks the count."""
    if found is None:
        return "n/a"
    if found.ratio is None or found.reference == found.changed == 0:
        return f"{format_count(found.reference)} -> {format_count(found.changed)}"
    return f"{found.ratio:.1f}x" if found.ratio >= 10 else f"{found.ratio:.3f}x"


def _miss_ratio(key: str, ratio: float | None) -> str:
    """``D1 misses 2.6x``, ``I1 misses 70x``, ``LL misses 0.38x``, ``I1
    misses from none``."""
    if ratio is None:
        return f"{_MISSES[key]} from none"
    text = f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x" if ratio >= 1 else f"{ratio:.2f}x"
    return f"{_MISSES[key]} {text}"


def format_reading(reading: Reading | None) -> str:
    """What the counts say, in a line: ``1.0 % more instructions``, ``same
    instructions (+0.0 %), D1 misses 2.6x: memory layout, not more work``."""
    if reading is None:
        return "no instruction count on a side"
    if reading.identical:
        return "same instructions and misses"
    misses = ", ".join(_miss_ratio(key, ratio) for key, ratio in reading.misses)
    causes = " and ".join(reading.causes)
    if not reading.work:
        same = f"same instructions ({reading.instructions * 100:+.1f} %)"
        return f"{same}, {misses}: {causes}, not more work" if misses else f"{same} and misses"
    more = "more" if reading.instructions > 0 else "fewer"
    text = f"{abs(reading.instructions) * 100:.1f} % {more} instructions"
    if reading.uncertain:
        text += ", within the spread of the processes (hash seeds)"
    return f"{text}; {misses}: {causes} too" if misses else text


def _label(change: CountChange, titles: Sequence[str]) -> str:
    """The benchmark, and its changed file when there are several."""
    return f"{change.name} ({titles[change.changed + 1]})" if len(titles) > 2 else change.name


def format_explained(explained: Explained, titles: Sequence[str], table_format: str = "rest") -> list[str]:
    """The lines of ``compare_to --explain`` (*titles*: of the files, the
    reference first): the table of ratios and a reading per benchmark, a
    line naming the compared benchmarks without counts; only that line
    (:data:`NO_COUNTS`) when none has counts."""
    if not explained.changes:
        return [NO_COUNTS]
    lines = ["Instruction counts, changed / reference (means per loop):", ""]
    rows = [[_label(change, titles), *map(format_ratio, change.ratios)] for change in explained.changes]
    lines.extend(format_table(["Benchmark", *COLUMNS], rows, table_format))
    lines.append("")
    lines.extend(f"- {_label(change, titles)}: {format_reading(change.reading)}" for change in explained.changes)
    if explained.without_counts:
        names = ", ".join(explained.without_counts)
        lines.extend(["", f"No instruction counts (record them with --metric instructions): {names}"])
    return lines


def format_counts(counts: Counts) -> str:
    """``183,002 instructions, 3 I1 misses, 1,929 D1 misses, 0 LL misses,
    202,322 estimated cycles`` (the counts the runs lack are left out)."""
    names = ("instructions", *_MISSES.values(), "estimated cycles")
    return ", ".join(f"{format_count(value)} {name}" for value, name in zip(counts[:5], names) if value is not None)


def counts_document(change: CountChange) -> dict[str, Any]:
    """The counts of a comparison in ``compare_to --explain --json``: per
    count, its means and ratio; the reading, as the text says it."""
    document: dict[str, Any] = {
        key: None if found is None else found._asdict() for key, found in zip(COUNT_KEYS, change.ratios)
    }
    document["reading"] = format_reading(change.reading)
    return document
