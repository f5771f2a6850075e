"""perf.render.html.history: the history section of the report (summary,
figure, table of the changes) and its place in the page; no matplotlib
needed (the figure is a fake SVG text)."""

from __future__ import annotations

import base64
import importlib.util
import re
import xml.etree.ElementTree as ET

import pytest
from helpers import render_page

from perf.history.timelines import Change, CommitPoint, Timeline
from perf.render.html import history

FIGURE = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>history &amp; figure</text></svg>'


def commit_id(number):
    return f"{number:08x}" + "ef" * 16


def timeline(name, means, machine="m1", steps=()):
    """*steps*: (index of the first commit after, ratio, interval, direction)."""
    commits = tuple(
        CommitPoint(commit_id(i), None, mean, mean * 0.99, mean * 1.01, 10, 1) for i, mean in enumerate(means)
    )
    changes = tuple(
        Change(name, machine, commit_id(index - 1), commit_id(index), index, ratio, low, high, direction)
        for index, ratio, (low, high), direction in steps
    )
    return Timeline(name, machine, "second", commits, changes, ())


TIMELINES = [
    timeline(
        "call_method",
        [0.017] * 4 + [0.029] * 3 + [0.017] * 3,
        steps=[(4, 1.70588, (1.6912, 1.7201), "slower"), (7, 0.58621, (0.5801, 0.5923), "faster")],
    ),
    timeline("<flat & co>", [1e-6] * 10, machine="m2"),
]


def parse(markup):
    return ET.fromstring(markup)


def rows(section):
    return [[" ".join("".join(td.itertext()).split()) for td in tr] for tr in section.iterfind(".//tbody/tr")]


def test_the_section_summary_figure_and_changes():
    section = parse(history.history_section("store/", TIMELINES, FIGURE))
    assert section.get("id") == "history"
    assert section.find("h2").text == "History"
    assert section.find("p").text == "store/: 2 timelines (benchmark and machine) on m1, m2, 10 commits, 2 changes."
    (image,) = section.iter("img")
    data = image.get("src").replace("\n", "")
    assert data.startswith("data:image/svg+xml;base64,")
    assert base64.b64decode(data.split(",", 1)[1]).decode("utf-8") == FIGURE
    assert section.find(".//figure").get("id") == "figure-history"
    assert rows(section) == [
        ["call_method", "m1", commit_id(3)[:8], commit_id(4)[:8], "1.706x", "1.691x .. 1.720x", "slower"],
        ["call_method", "m1", commit_id(6)[:8], commit_id(7)[:8], "0.586x", "0.580x .. 0.592x", "faster"],
    ]
    # the full ids in the tooltips, the direction in its colour
    cells = section.findall(".//tbody/tr/td")
    assert cells[2].get("title") == commit_id(3) and cells[3].get("title") == commit_id(4)
    assert cells[6].get("class") == "verdict slower" and cells[13].get("class") == "verdict faster"
    assert [th.text for th in section.iterfind(".//thead/tr/th")] == [
        "Benchmark",
        "Machine",
        "Before",
        "After",
        "Ratio",
        "95% CI",
        "Direction",
    ]


def test_no_change_and_no_figure():
    section = parse(history.history_section("store", TIMELINES[1:], None))
    assert list(section.iter("img")) == [] and list(section.iter("table")) == []
    assert [p.text for p in section.iter("p")] == [
        "store: 1 timeline (benchmark and machine) on m2, 10 commits, 0 changes.",
        "No change detected.",
    ]


def test_no_timeline():
    section = parse(history.history_section("a<b", [], FIGURE))
    assert list(section.iter("img")) == []
    assert section.find("p").text == "a<b: the history store has no results of the benchmarks of this report."


def test_the_section_goes_at_the_end_of_the_main_element():
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run
    from perf.model.suite import BenchmarkSuite

    bench = Benchmark([Run([1.0, 1.1], metadata={"name": "b", "loops": 1}, collect_metadata=False)])
    page = render_page([("f", BenchmarkSuite([bench]))], figures=lambda request: FIGURE)
    page = history.insert_section(page, history.history_section("store", TIMELINES, FIGURE))
    tree = parse(page.split("\n", 1)[1])
    main = tree.find(".//main")
    assert [section.get("id") for section in main.iter("section")][-2:] == ["metadata", "history"]
    assert "http" not in page.lower()  # the figure's namespace is inside its data: URI
    with pytest.raises(ValueError, match="no <main>"):
        history.insert_section("<html></html>", "<section></section>")


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed")
def test_the_real_figure():
    svg = history.matplotlib_history_svg(TIMELINES)
    assert ET.fromstring(svg).tag == "{http://www.w3.org/2000/svg}svg"
    assert "<!--  1.706x -->" in svg and "<!--  0.586x -->" in svg
    assert re.search(r'id="history-change-0-1"', svg)
