"""perf.render.compare_to: it lays out a finished comparison and computes
nothing (the whole text is checked against golden files in tests/cli)."""

from __future__ import annotations

import pytest
from golden import DATA

from perf.analysis.finished import find_slowdowns, finish_comparison
from perf.render.compare import format_change
from perf.render.compare_to import Layout, format_compare_to, format_slowdowns
from perf.storage import files

COMPARE = DATA / "compare"


def load(*names):
    return [files.load(str(COMPARE / f"{name}.json")) for name in names]


@pytest.mark.parametrize("layout", [Layout(["ref", "new"], verbose=True), Layout(["ref", "new"], win_rate=True)])
def test_a_layout_with_win_rates_needs_a_comparison_with_them(layout):
    suites = load("ref", "same_host")
    with pytest.raises(ValueError, match="win_rates=True"):
        format_compare_to(suites, finish_comparison(suites), layout)
    lines = format_compare_to(suites, finish_comparison(suites, win_rates=True), layout)
    assert any("faster in " in line and "% of process pairs" in line for line in lines)


def test_slowdown_lines_name_the_changed_file_when_there_are_several():
    suites = load("ref", "same_host", "changed")
    finished = finish_comparison(suites)
    found = find_slowdowns(finished, 5)
    assert found, "the fixtures have a slower benchmark"
    several = format_slowdowns(found, Layout(["ref", "same_host", "changed"]), finished.margin, 5)
    titles = ["same_host", "changed"]
    assert several == [
        f"SLOWDOWN: {'geometric mean' if slowdown.name is None else slowdown.name} ({titles[slowdown.changed]}): "
        f"{format_change(slowdown.comparison, finished.margin)}, beyond +5%"
        for slowdown in found
    ]
    first = format_slowdowns(found[:1], Layout(["ref", "same_host"]), finished.margin, 5)[0]
    assert first.startswith(f"SLOWDOWN: {found[0].name}: ")
