"""Tables of text: a reStructuredText grid table or a GitHub Markdown
table, laid out as pyperf lays out ``compare_to --table``, each cell on one
line (``compare_to --table`` and ``--explain``).

Must not: compute statistics, read files, or print.
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["format_table"]


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


def _cell_text(text: str, table_format: str) -> str:
    """A cell on one line: a line break (in a benchmark name, a tag, a file
    title) would end the row, so line breaks become spaces; in Markdown a
    ``|`` would end the cell, so it is escaped as ``\\|`` (in a reST grid
    table only the border columns count, a ``|`` inside a cell is text)."""
    text = " ".join(text.splitlines())
    if table_format == "md":
        text = text.replace("|", "\\|")
    return text


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]], table_format: str = "rest") -> list[str]:
    """A reStructuredText grid table (``rest``) or a GitHub Markdown table
    (``md``), as pyperf lays them out, each cell on one line (see
    :func:`_cell_text`)."""
    if table_format not in ("rest", "md"):
        raise ValueError(f"unknown table format {table_format!r}")
    headers = [_cell_text(cell, table_format) for cell in headers]
    rows = [[_cell_text(cell, table_format) for cell in cells] for cells in rows]
    widths = [max(len(cells[column]) for cells in [headers, *rows]) for column in range(len(headers))]
    if table_format == "md":
        return _markdown_table(headers, rows, widths)
    return _rest_table(headers, rows, widths)
