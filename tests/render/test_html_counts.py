"""perf.render.html.counts: the instruction counts section of the report
(the files of tests/data/counts)."""

from __future__ import annotations

import re

from counts import COUNTS
from helpers import render_page

from perf.analysis.counts import explain_comparison
from perf.analysis.finished import finish_comparison
from perf.analysis.summaries import summarize_files
from perf.render.html.comparison import Summary
from perf.render.html.counts import counts_section
from perf.storage import files


def fake_svg(request):
    return '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>'


def load(*names):
    return [(name.removesuffix(".json"), files.load(str(COUNTS / name))) for name in names]


def text_of(markup):
    return " ".join(re.sub(r"<[^>]+>", " ", markup).split())


def section(page, name):
    start = page.index(f'<section id="{name}">')
    return page[start : page.index("</section>", start)]


def test_one_file_lists_its_counts_per_loop():
    page = render_page(load("main.json"), None, fake_svg)
    found = text_of(section(page, "counts"))
    assert "Instruction counts" in found
    assert "sum_list 53,001,118 0 627,051 627,049 121,976,528 10 (10)" in found
    assert "Counter: cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 8388608,16,64" in found
    assert "What changed" not in found
    # the results table shows the counts with their unit
    assert "53,001,118 instructions +- 0 instructions" in text_of(section(page, "results"))


def test_two_files_say_what_changed():
    loaded = load("main.json", "branch.json")
    suites = [suite for _title, suite in loaded]
    finished = finish_comparison(suites, suites=suites)
    summary = Summary(finished, explained=explain_comparison(finished.entries))
    page = render_page(loaded, summary, fake_svg)
    found = text_of(section(page, "counts"))
    assert found.index("main Benchmark") < found.index("sorted 183,002 3 1,929 0 202,322 10 (10)")
    assert found.index("branch Benchmark") < found.index("sorted 184,850 3 1,929 0 204,170 10 (10)")
    assert "What changed" in found
    assert (
        "sum_list 1.000x 0 -&gt; 0 2.590x 2.192x 1.695x same instructions (+0.0 %), D1 misses 2.6x, LL misses 2.2x: "
        "memory layout, not more work" in found
    )
    assert "call_chain 1.000x 70.0x" in found
    comparison = text_of(section(page, "comparison"))
    assert "184,850 instructions" in comparison and "1.01x slower [exactly +1.01%]" in comparison
    assert "instruction counts, which a busy machine does not move" in comparison


def test_time_files_have_no_counts_section():
    loaded = [("timed", files.load(str(COUNTS / "timed.json")))]
    summaries = summarize_files([suite for _title, suite in loaded], [])
    assert counts_section(loaded, summaries.findings) == ""
    assert 'id="counts"' not in render_page(loaded, None, fake_svg)
