"""perf.render.html: a well-formed, self-contained page with the tables,
verdicts, warnings and metadata of the compare fixtures (tests/data/compare).

The figures come from a fake source (a tiny SVG with the namespace and
DOCTYPE URLs of a real one); one test draws the real figures of
perf.render.plots, when matplotlib and the plots are there.
"""

from __future__ import annotations

import base64
import html.parser
import re
import xml.etree.ElementTree as ET

import pytest
from golden import DATA
from helpers import render_page

from perf.analysis.benchmarks import compare_benchmarks
from perf.analysis.finished import finish
from perf.analysis.intervals import benchmark_log_interval
from perf.analysis.suites import BenchmarkComparison, SuiteComparison, combine_comparisons
from perf.analysis.summaries import value_figures
from perf.errors import MissingDependencyError
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.render.benchmark import format_result_value
from perf.render.html import page as report
from perf.render.html.comparison import Summary
from perf.render.html.markup import svg_data_uri
from perf.storage import files

COMPARE = DATA / "compare"

#: the verdict each benchmark of ref.json / changed.json was built for
VERDICTS = {
    "call_slower": "slower",
    "call_faster": "faster",
    "dict_no_change": "no change",
    "list_small_change": "small change",
    "noisy_inconclusive": "inconclusive",
    "unequal_counts": "slower",
}

#: elements without an end tag
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def fake_svg(request):
    """A tiny SVG naming the figure, with the URLs every real SVG has."""
    titles = ", ".join(title for title, _ in request.files)
    return (
        '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'width="320" height="80" viewBox="0 0 320 80">'
        '<rect width="320" height="80" fill="#d8e4f0"/>'
        f'<text x="10" y="45">{request.kind}: {titles}</text></svg>\n'
    )


class Recorder:
    """A figure source that remembers what it was asked."""

    def __init__(self):
        self.requests = []

    def __call__(self, request):
        self.requests.append(request)
        return fake_svg(request)


class BalanceChecker(html.parser.HTMLParser):
    """Every element closed, in order; void elements never closed."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.tags = []
        self.attributes = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes.extend(attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes.extend(attrs)
        if tag not in VOID:
            self.errors.append(f"<{tag} /> is not a void element")

    def handle_endtag(self, tag):
        if tag in VOID:
            self.errors.append(f"</{tag}>: a void element has no end tag")
        elif not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def check_well_formed(page):
    """Parse *page* as HTML (tag balance) and as XML; return the XML tree."""
    checker = BalanceChecker()
    checker.feed(page)
    checker.close()
    assert checker.errors == []
    assert checker.stack == []
    assert page.startswith("<!DOCTYPE html>\n")
    return ET.fromstring(page.split("\n", 1)[1])


def check_self_contained(page):
    lowered = page.lower()
    assert "http" not in lowered
    assert "<script" not in lowered
    assert "<link" not in lowered
    assert "url(" not in lowered
    assert "@import" not in lowered
    assert "<iframe" not in lowered and "<object" not in lowered and "<embed" not in lowered
    sources = re.findall(r'\b(?:src|href)="([^"]*)"', page)
    assert sources, "the figures are images"
    assert all(source.startswith("data:image/svg+xml;base64,") for source in sources)


def text_of(element):
    return " ".join(" ".join(element.itertext()).split())


def table_rows(tree, css_class, part="tbody"):
    table = tree.find(f".//table[@class='{css_class}']")
    assert table is not None, css_class
    return [[text_of(cell) for cell in row] for row in table.find(part)]


def image_svgs(tree):
    """The SVG text of each figure of the page."""
    svgs = []
    for image in tree.iter("img"):
        data = image.get("src").removeprefix("data:image/svg+xml;base64,")
        svgs.append(base64.b64decode("".join(data.split())).decode("utf-8"))
    return svgs


def load_compare(*names):
    return [(name, files.load(str(COMPARE / f"{name}.json"))) for name in names]


def summary_of(loaded, margin=0.01, robust=False, notes=(), warnings=()):
    """What perf.cli.report passes: compare_to's comparisons."""
    reference = loaded[0][1]
    entries = []
    for benchmark in reference:
        name = benchmark.get_name()
        changed = [suite.get_benchmark(name) for _, suite in loaded[1:]]
        comparisons = [compare_benchmarks(benchmark, other, margin, robust) for other in changed]
        figures = [value_figures(each) for each in [benchmark, *changed]]
        entries.append(BenchmarkComparison(name, benchmark, changed, comparisons, figures))
    means = [
        combine_comparisons([entry.comparisons[index] for entry in entries], margin) for index in range(len(loaded) - 1)
    ]
    return Summary(finish(SuiteComparison(entries, (), (), means, margin)), notes, warnings)


@pytest.fixture
def two_files():
    loaded = load_compare("ref", "changed")
    warnings = ["WARNING: ref and changed come from different hosts: bench1 vs bench2"]
    page = render_page(loaded, summary_of(loaded, warnings=warnings), Recorder())
    return loaded, page


# --- well-formed and self-contained --------------------------------------------------


def test_two_files_page_is_well_formed_and_self_contained(two_files):
    _loaded, page = two_files
    tree = check_well_formed(page)
    check_self_contained(page)
    assert tree.tag == "html"
    assert [section.get("id") for section in tree.iter("section")] == ["comparison", "figures", "stability", "metadata"]
    assert text_of(tree.find("head/title")) == "perf report: ref vs changed"
    # inline style only
    assert tree.find("head/style") is not None


def test_one_file_page_is_well_formed_and_self_contained():
    page = render_page(load_compare("ref"), figures=fake_svg)
    tree = check_well_formed(page)
    check_self_contained(page)
    assert [section.get("id") for section in tree.iter("section")] == ["results", "figures", "stability", "metadata"]


def test_the_svg_urls_stay_out_of_the_page(two_files):
    _loaded, page = two_files
    tree = check_well_formed(page)
    svgs = image_svgs(tree)
    assert len(svgs) == 3
    # the figures are intact, URLs included, but only inside the base64 text
    assert all("http://www.w3.org/2000/svg" in svg for svg in svgs)
    assert svgs[0] == fake_svg(report.FigureRequest("compare", load_compare("ref", "changed")))


def test_data_uri_breaks_every_http_of_the_base64_text():
    svg = "<svg><!-- t\u04e4 --></svg>"  # its base64 text holds "HTTp"
    assert "http" in base64.b64encode(svg.encode()).decode().lower()
    uri = svg_data_uri(svg)
    assert "http" not in uri.lower()
    data = uri.removeprefix("data:image/svg+xml;base64,")
    assert base64.b64decode("".join(data.split())).decode() == svg
    long = svg_data_uri("<svg>" + "x" * 1000 + "</svg>")
    assert all(len(line) <= 76 for line in long.removeprefix("data:image/svg+xml;base64,").split("\n"))


def test_every_text_is_escaped():
    name = '<script>alert("x")</script> & co'
    run = Run(
        [1.0, 1.1, 1.2],
        metadata={"name": name, "hostname": "<b>host</b>", "note": "a & b < c"},
        collect_metadata=False,
    )
    other = Run([1.05, 1.0, 1.1], metadata={"name": name, "hostname": "<b>host</b>"}, collect_metadata=False)
    suite = BenchmarkSuite([Benchmark([run, other])], filename="<weird>&.json")
    page = render_page([("<title>", suite)], figures=fake_svg)
    tree = check_well_formed(page)
    check_self_contained(page)
    assert "<script" not in page and "<b>" not in page and "<title>&" not in page
    assert table_rows(tree, "results")[0][0] == name
    assert table_rows(tree, "files")[0][:2] == ["<title>", "<weird>&.json"]
    assert table_rows(tree, "files")[0][5] == "<b>host</b>"


def test_pipe_in_a_name_stays_in_its_cell():
    def suite(name, values):
        runs = [
            Run([value * (1 + i / 100) for value in values], metadata={"name": name}, collect_metadata=False)
            for i in range(3)
        ]
        return BenchmarkSuite([Benchmark(runs)], filename=f"{name}.json")

    loaded = [("a|ref", suite("a|b", [1.0, 1.1])), ("new|", suite("a|b", [1.2, 1.3]))]
    tree = check_well_formed(render_page(loaded, summary_of(loaded), figures=fake_svg))
    (row,) = table_rows(tree, "summary")
    assert row[0] == "a|b" and len(row) == 5
    assert table_rows(tree, "files")[1][0] == "new|"


# --- the comparison ------------------------------------------------------------------


def test_summary_rows_have_means_ratios_and_verdicts(two_files):
    loaded, page = two_files
    tree = check_well_formed(page)
    headers = [text_of(cell) for cell in tree.find(".//table[@class='summary']/thead/tr")]
    assert headers == ["Benchmark", "ref (reference)", "changed", "Change [95% CI]", "Verdict"]
    rows = table_rows(tree, "summary")
    assert [row[0] for row in rows] == list(VERDICTS)
    reference, changed = loaded[0][1], loaded[1][1]
    for row in rows:
        name = row[0]
        assert row[1] == format_result_value(
            reference.get_benchmark(name), value_figures(reference.get_benchmark(name))
        )
        assert row[2] == format_result_value(changed.get_benchmark(name), value_figures(changed.get_benchmark(name)))
        assert row[4].split(" ")[0] == VERDICTS[name].split(" ")[0]
        assert row[4].startswith(VERDICTS[name])
    by_name = {row[0]: row for row in rows}
    # the factor and the interval of compare_to's text
    assert by_name["call_slower"][3] == "1.11x slower [1.10x .. 1.12x]"
    assert by_name["call_faster"][3] == "1.25x faster [1.24x .. 1.26x]"
    assert "about 171 processes per file would narrow it to +-1%" in by_name["noisy_inconclusive"][4]
    # the verdict is a class too (coloured), its explanation below
    spans = tree.findall(".//table[@class='summary']/tbody//span[@class]")
    assert "verdict small-change" in {span.get("class") for span in spans}


def test_geometric_mean_and_notes(two_files):
    _loaded, page = two_files
    tree = check_well_formed(page)
    footer = table_rows(tree, "summary", "tfoot")
    assert footer[0][0] == "Geometric mean"
    assert footer[0][3] == "1.01x faster [1.002x .. 1.013x]"
    assert footer[0][4].startswith("small change")
    notes = [text_of(item) for item in tree.iter("li")]
    assert "Equivalence margin: +-1%: a change inside it does not matter (--min-speed)." in notes
    assert "Test: Welch's t test on the logs of the process means." in notes
    assert "WARNING: ref and changed come from different hosts: bench1 vs bench2" in notes


def test_three_files_have_a_row_per_changed_file():
    loaded = load_compare("ref", "same_host", "changed")
    recorder = Recorder()
    page = render_page(loaded, summary_of(loaded), recorder)
    tree = check_well_formed(page)
    headers = [text_of(cell) for cell in tree.find(".//table[@class='summary']/thead/tr")]
    assert headers == ["Benchmark", "ref (reference)", "File", "Mean +- std dev", "Change [95% CI]", "Verdict"]
    rows = table_rows(tree, "summary")
    assert len(rows) == 2 * len(VERDICTS)
    # the benchmark and its reference span both rows
    assert rows[0][0] == "call_slower" and rows[0][2] == "same_host"
    assert rows[1][0] == "changed" and rows[1][2].startswith("1.11x slower")
    assert len(table_rows(tree, "summary", "tfoot")) == 2
    assert [title for title, _ in recorder.requests[0].files] == ["ref", "same_host", "changed"]


def test_robust_is_named_in_the_notes():
    loaded = load_compare("ref", "same_host")
    page = render_page(loaded, summary_of(loaded, robust=True), fake_svg, robust=True)
    assert "Mann-Whitney test on the process means, Hodges-Lehmann ratio (--robust)." in page


# --- one file ------------------------------------------------------------------------


def test_one_file_results_table():
    loaded = load_compare("ref")
    tree = check_well_formed(render_page(loaded, figures=fake_svg))
    rows = table_rows(tree, "results")
    suite = loaded[0][1]
    assert [row[0] for row in rows] == suite.get_benchmark_names()
    for row, benchmark in zip(rows, suite):
        interval = benchmark_log_interval(benchmark)
        low, high = benchmark.format_values((interval.low, interval.high))
        assert row[1:] == [format_result_value(benchmark, value_figures(benchmark)), f"{low} .. {high}", "20", "60"]


def test_calibration_only_file_has_no_interval():
    suite = files.load(str(DATA / "calibration_only.json"))
    tree = check_well_formed(render_page([("calibration_only", suite)], figures=fake_svg))
    (row,) = table_rows(tree, "results")
    assert row[2:] == ["\u2014", "0", "0"]
    assert row[1].startswith("Calibration: ")


# --- figures -------------------------------------------------------------------------


def test_figures_asked_for(two_files):
    recorder = Recorder()
    loaded = load_compare("ref", "changed")
    render_page(loaded, summary_of(loaded, margin=0.05), recorder, robust=True)
    assert [request.kind for request in recorder.requests] == ["compare", "distribution", "timeline"]
    assert all(request.files == loaded for request in recorder.requests)
    assert (recorder.requests[0].margin, recorder.requests[0].robust) == (0.05, True)
    single = Recorder()
    render_page(loaded[:1], figures=single)
    assert [request.kind for request in single.requests] == ["distribution", "timeline"]


def test_figures_have_captions_and_alt_texts(two_files):
    _loaded, page = two_files
    tree = check_well_formed(page)
    figures = list(tree.iter("figure"))
    assert [figure.get("id") for figure in figures] == ["figure-compare", "figure-distribution", "figure-timeline"]
    for figure in figures:
        assert figure.find("img").get("alt") == text_of(figure.find("figcaption"))
    assert "+-1% equivalence margin" in text_of(figures[0])


# --- warnings and metadata -----------------------------------------------------------


def test_stability_warnings(two_files):
    _loaded, page = two_files
    tree = check_well_formed(page)
    section = tree.find(".//section[@id='stability']")
    headings = [text_of(heading) for heading in section.iter("h3")]
    assert "call_slower (ref)" in headings and "dict_no_change (changed)" in headings
    assert "call_faster (ref)" not in headings  # stable
    warnings = [text_of(item) for item in section.iter("li")]
    assert "Not enough samples to get a stable result (95% certainty of less than 1% variation)" in warnings
    assert "the shortest raw value is only 994 us" in warnings
    assert text_of(section.find("p")).startswith("WARNING: 8 benchmark results may be unstable.")


def test_stable_benchmarks_say_so():
    runs = [Run([1.0 + i * 1e-4, 1.0], metadata={"name": "flat"}, collect_metadata=False) for i in range(5)]
    page = render_page([("flat", BenchmarkSuite([Benchmark(runs)]))], figures=fake_svg)
    tree = check_well_formed(page)
    assert text_of(tree.find(".//section[@id='stability']/p")) == "No stability warning: every benchmark seems stable."


def test_metadata_common_once_and_differences(two_files):
    _loaded, page = two_files
    tree = check_well_formed(page)
    common = dict(table_rows(tree, "metadata"))
    assert common == {
        "cpu_model_name": "Fake CPU @ 2.00GHz",
        "duration": "500 ms",
        "loops": "1000",
        "python_version": "3.12.1 (64-bit)",
    }
    assert table_rows(tree, "metadata-differences") == [["hostname", "bench1", "bench2"]]
    # the header lists each file's hosts, dates and Python
    assert table_rows(tree, "files") == [
        [
            "ref (reference)",
            str(COMPARE / "ref.json"),
            "6",
            "2026-11-18 10:00:00",
            "2026-11-18 10:00:20",
            "bench1",
            "Fake CPU @ 2.00GHz",
            "3.12.1 (64-bit)",
        ],
        [
            "changed",
            str(COMPARE / "changed.json"),
            "6",
            "2026-11-21 10:00:00",
            "2026-11-21 10:00:20",
            "bench2",
            "Fake CPU @ 2.00GHz",
            "3.12.1 (64-bit)",
        ],
    ]


def test_metadata_missing_in_a_file_is_a_difference():
    loaded = load_compare("ref", "same_host")
    suite = files.load(str(COMPARE / "same_host.json"))
    for benchmark in suite:
        benchmark.update_metadata({"python_implementation": "cpython"})
    loaded[1] = ("same_host", suite)
    tree = check_well_formed(render_page(loaded, summary_of(loaded), fake_svg))
    assert ["python_implementation", "\u2014", "cpython"] in table_rows(tree, "metadata-differences")


def test_no_file_is_an_error():
    with pytest.raises(ValueError, match="at least one file"):
        render_page([], figures=fake_svg)


# --- the real figures ----------------------------------------------------------------


def test_real_figures_are_embedded():
    from perf.render.plots import canvas

    try:
        canvas.require_matplotlib()
        loaded = load_compare("ref", "changed")
        page = render_page(loaded, summary_of(loaded), report.matplotlib_svg)
    except NotImplementedError:
        pytest.skip("perf.render.plots is not implemented yet")
    except MissingDependencyError:
        pytest.skip("matplotlib is not installed")
    tree = check_well_formed(page)
    check_self_contained(page)
    svgs = image_svgs(tree)
    assert len(svgs) == 3
    for svg in svgs:
        assert "<svg" in svg and "</svg>" in svg
        ET.fromstring(svg.encode("utf-8"))  # a whole SVG document
    # drawn reproducibly: the same page twice
    assert render_page(loaded, summary_of(loaded), report.matplotlib_svg) == page
