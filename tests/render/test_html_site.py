"""perf.render.html.site and perf.render.html.timeline_svg: the files of
``history publish``, from constructed timelines."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from perf.history.timelines import Change, CommitPoint, Spike, Timeline
from perf.render.html import site, timeline_svg


def commit_id(number):
    return f"{number:08x}" + "ef" * 16


def timeline(name, means, machine="m1", *, steps=(), unit="second", spikes=()):
    """*steps*: (index of the first commit after, ratio, direction)."""
    commits = tuple(
        CommitPoint(commit_id(i), f"2026-10-{1 + i:02d}T10:00:00+00:00", mean, mean * 0.99, mean * 1.01, 10, 1)
        for i, mean in enumerate(means)
    )
    changes = tuple(
        Change(name, machine, commit_id(index - 1), commit_id(index), index, ratio, ratio * 0.99, ratio * 1.01, way)
        for index, ratio, way in steps
    )
    spike_list = tuple(Spike(name, machine, commit_id(index), index, 1.5) for index in spikes)
    return Timeline(name, machine, unit, commits, changes, spike_list)


TIMELINES = [
    timeline("call_method", [0.017] * 4 + [0.029] * 3, steps=[(4, 1.706, "slower")], spikes=[1]),
    timeline("call_method", [0.018] * 7, machine="m2"),
    timeline("call_method", [1000.0] * 3, unit="instructions"),
    timeline("nbody <fast>", [0.2] * 3 + [0.1] * 3, machine="m2", steps=[(3, 0.5, "faster")]),
]
BRANCHES = {commit_id(i): ["main"] for i in range(7)} | {commit_id(6): ["main", "feature"]}


COMPARISONS = [
    site.SiteComparison("m1", commit_id(3), commit_id(4), "call_method 1.706x slower", "| call_method | 17.0 ms |"),
    site.SiteComparison("m2", commit_id(0), commit_id(6), "the first and the latest commit", "| a < b |"),
]


def files():
    return site.site_files(TIMELINES, BRANCHES, "Fleet", COMPARISONS)


def test_the_site_has_an_overview_the_changes_a_feed_and_a_page_per_benchmark():
    found = files()
    assert set(found) == {
        "index.html",
        "changes.html",
        "changes.atom",
        "compare.html",
        "site.css",
        "site.js",
        site.page_name("call_method"),
        site.page_name("nbody <fast>"),
    }


def test_a_page_address_is_readable_and_stable():
    assert re.fullmatch(r"b/call_method-[0-9a-f]{8}\.html", site.page_name("call_method"))
    assert site.page_name("nbody <fast>").startswith("b/nbody_fast-")
    assert site.page_name("a/b") != site.page_name("a?b")  # the hash tells them apart


def test_every_page_is_well_formed_and_refers_to_no_network():
    for name, text in files().items():
        if name.endswith(".html"):
            ET.fromstring(text.split("\n", 1)[1])  # after the doctype: XML
        if name == "changes.atom":
            ET.fromstring(text.encode("utf-8"))
        rest = text.replace('xmlns="http://www.w3.org/2005/Atom"', "")  # Atom's name, never fetched
        assert "http" not in rest, name
        if not name.endswith(".js"):  # a comment there starts with //
            assert "//" not in rest, name  # no address without a scheme either


def test_the_overview_has_a_row_per_timeline_with_its_last_change():
    page = files()["index.html"]
    rows = re.findall(r'<tr data-name="([^"]*)" data-machine="([^"]*)" data-branches="([^"]*)">(.*?)</tr>', page)
    assert [(name, machine) for name, machine, _, _ in rows] == [
        ("call_method", "m1"),
        ("call_method", "m2"),
        ("call_method", "m1"),
        ("nbody &lt;fast&gt;", "m2"),
    ]
    assert "1.706x slower at 00000004" in rows[0][3]
    assert "instructions" in rows[2][3]  # counts in a row of their own, never in the time row
    assert rows[0][2] == "feature main"
    assert '<option value="m2">m2</option>' in page and '<option value="feature">feature</option>' in page
    assert "2 benchmarks on 2 machines" in page


def test_a_benchmark_page_draws_each_machine_with_its_points_and_changes():
    page = files()[site.page_name("call_method")]
    assert page.count("<svg") == 3  # m1 time, m2 time, m1 instructions
    assert page.count('class="point"') + page.count('class="point spike"') == 7 + 7 + 3
    assert 'class="point spike"' in page
    assert 'class="change slower"' in page and "1.706x" in page
    assert "Spikes" in page
    assert '<a href="../index.html">' in page and 'href="../site.css"' in page


def test_a_point_says_its_commit_date_value_interval_and_processes():
    title = timeline_svg.point_title(TIMELINES[0], 4)
    assert title == "00000004efef 2026-10-05 10:00:00\n29.0 ms [28.7 ms .. 29.3 ms]\n10 processes"


def test_the_changes_page_lists_every_change_newest_first_with_a_hide_button():
    page = files()["changes.html"]
    keys = re.findall(r'<tr data-change="([^"]*)">', page)
    assert keys == [f"m1|call_method|{commit_id(4)}", f"m2|nbody &lt;fast&gt;|{commit_id(3)}"]
    assert page.count("<button") == 2
    assert '<script src="site.js">' in page


def test_the_feed_has_an_entry_per_change():
    feed = ET.fromstring(files()["changes.atom"].encode("utf-8"))
    namespace = "{http://www.w3.org/2005/Atom}"
    entries = feed.findall(f"{namespace}entry")
    assert [entry.find(f"{namespace}title").text for entry in entries] == [
        "call_method on m1: 1.706x slower at 00000004",
        "nbody <fast> on m2: 0.500x faster at 00000003",
    ]
    assert entries[0].find(f"{namespace}updated").text == "2026-10-05T10:00:00+00:00"


def test_without_changes():
    found = site.site_files([timeline("flat", [1.0] * 3)], {})
    assert "No change detected." in found["changes.html"]
    assert "<entry>" not in found["changes.atom"]


def test_a_single_commit_is_drawn_in_the_middle():
    svg = timeline_svg.timeline_svg(timeline("one", [1.0]))
    assert svg.count("<circle") == 1
    assert 'cx="480.0"' in svg  # the middle of the plot area
    assert svg.count("00000000<") == 1  # its commit, once


def test_the_compare_page_offers_each_pair_and_shows_the_first():
    page = files()["compare.html"]
    assert re.findall(r'<option value="(\d)">([^<]*)</option>', page) == [
        ("0", "m1: 00000003efef -&gt; 00000004efef (call_method 1.706x slower)"),
        ("1", "m2: 00000000efef -&gt; 00000006efef (the first and the latest commit)"),
    ]
    assert '<section class="comparison" id="pair-0">' in page
    assert '<section class="comparison" id="pair-1" hidden="hidden">' in page
    assert "<pre>| a &lt; b |</pre>" in page
    assert "No pair of commits" in site.site_files(TIMELINES, BRANCHES)["compare.html"]


def test_a_commit_of_one_process_has_no_interval_and_does_not_break_the_figure():
    one = CommitPoint(commit_id(0), None, 1e-3, float("-inf"), float("inf"), 1, 1)
    line = timeline("two", [2e-3])._replace(commits=(one, *timeline("two", [2e-3]).commits))
    svg = timeline_svg.timeline_svg(line)
    assert "nan" not in svg and "inf" not in svg
    assert svg.count('class="interval"') == 1  # the commit with processes enough
    assert timeline_svg.point_title(line, 0).splitlines()[1] == "1.00 ms [-]"
    assert "1.00 ms [-]" not in site.site_files([line], {})["index.html"]  # the latest commit has its interval
