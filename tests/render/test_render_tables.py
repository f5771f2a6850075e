"""perf.render.tables: grid and Markdown tables, each cell on one line."""

from __future__ import annotations

import pytest

from perf.render.tables import format_table


def test_markdown_cells_escape_pipes_and_stay_on_one_line():
    assert format_table(["Benchmark", "ref"], [["a|b", "1 us"], ["a\nb", "2 us"], ["x\r\ny|", "3 us"]], "md") == [
        "| Benchmark | ref  |",
        "|-----------|:----:|",
        "| a\\|b      | 1 us |",
        "| a b       | 2 us |",
        "| x y\\|     | 3 us |",
    ]


def test_rest_cells_stay_on_one_line():
    assert format_table(["Benchmark", "a|ref"], [["a|b", "1 us"], ["a\nb", "2 us"]]) == [
        "+-----------+-------+",
        "| Benchmark | a|ref |",
        "+===========+=======+",
        "| a|b       | 1 us  |",
        "+-----------+-------+",
        "| a b       | 2 us  |",
        "+-----------+-------+",
    ]


def test_unknown_table_format():
    with pytest.raises(ValueError, match="unknown table format 'csv'"):
        format_table(["a"], [["b"]], "csv")
