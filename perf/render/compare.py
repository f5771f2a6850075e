"""Text of comparisons: factors, intervals, verdicts and the tables of
``compare_to``.

The factor keeps pyperf's wording (``1.10x slower``, ``1.25x faster``,
``no change`` for a ratio of exactly 1) because users grep it; perf adds
the confidence interval in brackets, expressed in the same direction as
the factor (``1.25x faster [1.20x .. 1.31x]``: between 1.20 and 1.31
times faster; a bound below 1x means the other direction), and names the
verdicts that the factor alone does not say::

    1.10x slower [1.06x .. 1.14x]
    1.004x slower [1.002x .. 1.006x] (small change)
    1.00x faster [0.992x .. 1.003x] (no change)
    1.02x faster [0.95x .. 1.09x] (inconclusive)

Brackets get three decimals when both bounds are under 1.1x or one of them
would print as 1.00x (``[1.00x .. 1.01x]`` says too little).

Must not: compute statistics, read files, or print.
"""

from __future__ import annotations

import math
from typing import Sequence

from perf.analysis.compare import (
    FASTER,
    INCONCLUSIVE,
    MAX_SUGGESTED_PROCESSES,
    NO_CHANGE,
    SLOWER,
    SMALL_CHANGE,
    Comparison,
    WinRate,
)
from perf.model.benchmark import Benchmark
from perf.render.benchmark import format_result_value

__all__ = [
    "format_bracket",
    "format_change",
    "format_factor",
    "format_mean_line",
    "format_needed",
    "format_table",
    "format_verdict",
    "format_win_rate",
]


def format_factor(ratio: float) -> str:
    """pyperf's factor of a ratio changed / reference."""
    if ratio == 1.0:
        return "no change"
    if ratio < 1.0:
        return f"{1.0 / ratio:.2f}x faster"
    return f"{ratio:.2f}x slower"


def _bound(value: float, decimals: int) -> str:
    if math.isinf(value):
        return "inf"
    return f"{value:.{decimals}f}x"


def format_bracket(comparison: Comparison) -> str:
    """``'[1.06x .. 1.14x]'``: the interval in the factor's direction."""
    if comparison.low == 0.0 and math.isinf(comparison.high):
        return "[no interval: fewer than 2 processes]"
    if comparison.ratio < 1.0:
        low = 1.0 / comparison.high if comparison.high > 0 else math.inf
        high = 1.0 / comparison.low if comparison.low > 0 else math.inf
    else:
        low, high = comparison.low, comparison.high
    decimals = 2
    if max(high, 1.0 / low if low > 0 else math.inf) < 1.1 or "1.00" in (f"{low:.2f}", f"{high:.2f}"):
        decimals = 3
    return f"[{_bound(low, decimals)} .. {_bound(high, decimals)}]"


def format_change(comparison: Comparison) -> str:
    """``'1.10x slower [1.06x .. 1.14x]'`` and the verdict when the
    factor does not say it."""
    text = f"{format_factor(comparison.ratio)} {format_bracket(comparison)}"
    if comparison.verdict in (SMALL_CHANGE, NO_CHANGE, INCONCLUSIVE):
        text += f" ({comparison.verdict})"
    return text


def format_mean_line(
    reference_title: str, reference: Benchmark, changed_title: str, changed: Benchmark, comparison: Comparison
) -> str:
    """pyperf's line, ``Mean +- std dev: [ref] A +- a -> [changed] B +- b:``
    followed by :func:`format_change`."""
    return (
        f"Mean +- std dev: [{reference_title}] {format_result_value(reference)} -> "
        f"[{changed_title}] {format_result_value(changed)}: {format_change(comparison)}"
    )


def format_needed(comparison: Comparison, margin: float) -> str:
    """``'about 60 processes per file would narrow it to +-1%'`` (or ``''``)."""
    if comparison.needed_processes is None:
        if comparison.low == 0.0 and math.isinf(comparison.high):
            return "needs at least 2 processes per file"
        return ""
    count = comparison.needed_processes
    about = f"more than {count}" if count >= MAX_SUGGESTED_PROCESSES else f"about {count}"
    unit = "interleaved pairs" if comparison.paired else "processes per file"
    return f"{about} {unit} would narrow it to +-{margin * 100:g}%"


def format_verdict(comparison: Comparison, margin: float) -> str:
    """One sentence: the verdict, why, and the process counts."""
    band = f"{margin * 100:g}%"
    level = f"{comparison.confidence * 100:g}%"
    if comparison.paired:
        counts = f"{comparison.reference_processes} interleaved pairs"
    else:
        counts = f"{comparison.reference_processes} vs {comparison.changed_processes} processes"
    reasons = {
        SLOWER: f"slower: the whole {level} interval is beyond +{band}",
        FASTER: f"faster: the whole {level} interval is beyond -{band}",
        SMALL_CHANGE: f"small change: the {level} interval excludes 1x but reaches inside +-{band}",
        NO_CHANGE: f"no change: the whole {level} interval is inside +-{band}",
        INCONCLUSIVE: f"inconclusive: the {level} interval contains 1x and reaches beyond +-{band}",
    }
    text = f"{reasons[comparison.verdict]}; {counts}"
    if math.isfinite(comparison.standard_error):
        text += f"; p = {comparison.p_value:.2g}"
    needed = format_needed(comparison, margin)
    if needed:
        text += f"; {needed}"
    return text


def format_win_rate(rate: WinRate, paired: bool = False) -> str:
    """``'faster in 12% of process pairs [5% .. 25%]'`` (``of the
    interleaved pairs`` for an interleaved run)."""
    pairs = "the interleaved pairs" if paired else "process pairs"
    return f"faster in {rate.rate * 100:.0f}% of {pairs} [{rate.low * 100:.0f}% .. {rate.high * 100:.0f}%]"


# --- tables ------------------------------------------------------------------------


def _row(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "|" + "|".join(f" {cell:<{width}} " for cell, width in zip(cells, widths)) + "|"


def _rest_table(headers: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[int]) -> list[str]:
    def rule(char: str) -> str:
        return "+" + "+".join(char * (width + 2) for width in widths) + "+"

    lines = [rule("-"), _row(headers, widths), rule("=")]
    for cells in rows:
        lines.extend([_row(cells, widths), rule("-")])
    return lines


def _markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[int]) -> list[str]:
    rule = "|" + "-" * (widths[0] + 2) + "|" + "|".join(":" + "-" * width + ":" for width in widths[1:]) + "|"
    return [_row(headers, widths), rule, *(_row(cells, widths) for cells in rows)]


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]], table_format: str = "rest") -> list[str]:
    """A reStructuredText grid table (``rest``) or a GitHub Markdown table
    (``md``), as pyperf lays them out."""
    widths = [max(len(cells[column]) for cells in [headers, *rows]) for column in range(len(headers))]
    if table_format == "md":
        return _markdown_table(headers, rows, widths)
    if table_format != "rest":
        raise ValueError(f"unknown table format {table_format!r}")
    return _rest_table(headers, rows, widths)
