"""perf.render.plots: the three figures render for every kind of input,
in PNG and SVG, reproducibly; without matplotlib, one MissingDependencyError."""

from __future__ import annotations

import importlib.util
import pathlib
import re
import xml.etree.ElementTree as ET

import pytest

from perf.analysis.benchmarks import compare_benchmarks
from perf.analysis.compare import SLOWER
from perf.analysis.finished import finish_comparison
from perf.analysis.suites import combine_comparisons
from perf.errors import MissingDependencyError
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.render.compare import format_change
from perf.render.plots import canvas, comparison, distribution, timeline
from perf.storage import files

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

requires_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed (the plot extra)"
)


def distribution_figure(files_, names=None):
    """The distribution figure with its panels computed first, as plot does."""
    from perf.analysis.summaries import distribution_panels

    panels = distribution_panels([suite_ for _title, suite_ in files_], distribution.panel_names(files_, names))
    return distribution.distribution_figure(files_, names, panels)


def load(name, title=None):
    return (title or name.split("/")[-1].split(".")[0], files.load(str(DATA / name)))


def benchmark(name, runs_values, unit=None, pair_seed=None, warmup=True):
    """A benchmark of one run per list of *runs_values* (an empty list: a
    calibration run); *pair_seed*: the runs of one side of an interleaved run."""
    runs = []
    for number, values in enumerate(runs_values, 1):
        metadata = {"name": name, "loops": 1}
        if unit:
            metadata["unit"] = unit
        if pair_seed is not None:
            metadata["ab_pair"] = number
            metadata["ab_seed"] = pair_seed
        if not values:
            metadata["calibrate_loops"] = 1
        warmups = [(1, (values[0] if values else 1.0) * 1.5)] if warmup or not values else None
        runs.append(Run(values, warmups=warmups, metadata=metadata, collect_metadata=False))
    return Benchmark(runs)


def suite(*benchmarks):
    return BenchmarkSuite(list(benchmarks))


def compare_figure(reference, changed, margin, robust=False, correct=True):
    """The comparison figure of *changed* (title, suite) files against
    *reference*, compared as perf.cli.plot compares them."""
    compared = finish_comparison([reference[1], *(found for _title, found in changed)], margin, robust, correct)
    return comparison.comparison_figure([reference[0], *(title for title, _found in changed)], compared)


def svg_of(figure):
    data = canvas.figure_bytes(figure, "svg")
    ET.fromstring(data)  # well-formed XML
    return data.decode("utf-8")


def texts(figure):
    """The texts of *figure* once drawn (tick labels too), each on one
    line; also checks that its SVG is well-formed."""
    from matplotlib.text import Text

    svg_of(figure)
    return [" ".join(text.get_text().split()) for text in figure.findobj(Text) if text.get_text()]


def all_text(figure):
    return " | ".join(texts(figure))


# --- without matplotlib -----------------------------------------------------------------


@pytest.fixture
def no_matplotlib(monkeypatch):
    monkeypatch.setattr(canvas, "MATPLOTLIB_MODULE", "perf_tests_no_such_module")


def test_require_matplotlib_says_what_to_install(no_matplotlib):
    with pytest.raises(MissingDependencyError) as info:
        canvas.require_matplotlib()
    assert str(info.value) == canvas.INSTALL_HINT
    assert str(info.value) == (
        'the plot and report commands need matplotlib: pip install matplotlib (or pip install ".[plot]" in a clone of perf)'
    )
    assert info.value.__cause__ is None and info.value.__suppress_context__


@pytest.mark.parametrize(
    "draw",
    [
        distribution_figure,
        timeline.timeline_figure,
        lambda files_: compare_figure(files_[0], files_[1:], 0.01),
    ],
    ids=["distribution", "timeline", "compare"],
)
def test_every_figure_needs_matplotlib(no_matplotlib, draw):
    two = [("a", suite(benchmark("b", [[1.0, 1.1], [1.2, 1.0]]))), ("b", suite(benchmark("b", [[1.0], [1.1]])))]
    with pytest.raises(MissingDependencyError, match=re.escape(canvas.INSTALL_HINT)):
        draw(two)


def test_figure_bytes_needs_matplotlib(no_matplotlib):
    with pytest.raises(MissingDependencyError, match="need matplotlib"):
        canvas.figure_bytes(object(), "png")


@pytest.mark.parametrize(
    ("version", "expected"), [("3.11.2", (3, 11)), ("3.7.0rc1", (3, 7)), ("3.8", (3, 8)), ("4", (4,)), ("dev", ())]
)
def test_version_numbers(version, expected):
    assert canvas._version_tuple(version) == expected


def test_an_old_matplotlib_is_refused(monkeypatch, tmp_path):
    (tmp_path / "perf_tests_old_mpl.py").write_text('__version__ = "3.5.1"\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(canvas, "MATPLOTLIB_MODULE", "perf_tests_old_mpl")
    with pytest.raises(MissingDependencyError, match=r"need matplotlib 3\.7 or newer, not 3\.5\.1"):
        canvas.require_matplotlib()


# --- matplotlib and the output ------------------------------------------------------


@requires_matplotlib
def test_require_matplotlib_gives_pyplot_on_agg():
    pyplot = canvas.require_matplotlib()
    assert pyplot.__name__ == "matplotlib.pyplot"
    assert pyplot.get_backend().lower() == "agg"


@requires_matplotlib
def test_figures_are_not_left_open_in_pyplot():
    pyplot = canvas.require_matplotlib()
    before = pyplot.get_fignums()
    figure = distribution_figure([load("timeit.json")])
    canvas.figure_bytes(figure, "png")
    assert pyplot.get_fignums() == before


@requires_matplotlib
def test_png_and_svg_bytes():
    files_ = [load("timeit.json")]
    png = canvas.figure_bytes(distribution_figure(files_), "png")
    assert png.startswith(PNG_SIGNATURE)
    assert b"tIME" not in png  # no modification time chunk
    svg = canvas.figure_bytes(distribution_figure(files_), "svg")
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert b"<dc:date>" not in svg


@requires_matplotlib
def test_unknown_format_is_a_value_error():
    figure = distribution_figure([load("timeit.json")])
    with pytest.raises(ValueError, match="unknown figure format 'pdf'"):
        canvas.figure_bytes(figure, "pdf")


@requires_matplotlib
@pytest.mark.parametrize("fmt", ["svg", "png"])
@pytest.mark.parametrize("kind", ["distribution", "timeline", "compare"])
def test_same_input_same_bytes(kind, fmt):
    def draw():
        ref, changed = load("compare/ref.json"), load("compare/changed.json")
        if kind == "compare":
            return compare_figure(ref, [changed], 0.01)
        figure = {"distribution": distribution_figure, "timeline": timeline.timeline_figure}[kind]
        return figure([ref, changed], ["unequal_counts"])

    assert canvas.figure_bytes(draw(), fmt) == canvas.figure_bytes(draw(), fmt)


@requires_matplotlib
def test_svg_of_many_panels_is_reproducible_with_numbered_clip_paths():
    # the layout moves by a few ulps between drawings: clip paths, named
    # after a hash of their rectangle by matplotlib, are numbered instead
    files_ = [load("compare/ref.json"), load("compare/changed.json")]
    svgs = [canvas.figure_bytes(distribution_figure(files_), "svg") for _ in range(3)]
    assert svgs[1] == svgs[0] and svgs[2] == svgs[0]
    svg = svgs[0].decode("utf-8")
    assert '<clipPath id="clip1">' in svg and 'clip-path="url(#clip1)"' in svg
    assert not re.search(r"p[0-9a-f]{10}", svg)


# --- distribution ------------------------------------------------------------------


@requires_matplotlib
def test_distribution_of_one_file():
    found = texts(distribution_figure([load("suite_tags.json")]))
    for name in ("sort_list", "build_dict", "join_str", "values", "process means", "n = 6", "n = 2"):
        assert name in found
    # ticks in the unit of the values, at round numbers
    assert any(re.fullmatch(r"\d+ ns", text) for text in found)
    assert any(re.fullmatch(r"\d\.\d+ us", text) for text in found)


@requires_matplotlib
def test_distribution_of_several_files_has_one_colour_per_file():
    figure = distribution_figure([load("compare/ref.json"), load("compare/changed.json")])
    svg = svg_of(figure)
    found = texts(figure)
    assert "ref" in found and "changed" in found  # the legend
    assert "n = 60 / 48" in found  # unequal_counts: 20 x 3 against 8 x 6
    for colour in canvas.PALETTE[:2]:
        assert colour in svg
    assert canvas.PALETTE[2] not in svg


@requires_matplotlib
def test_distribution_of_selected_names_in_their_order():
    found = texts(distribution_figure([load("suite_tags.json")], ["join_str", "sort_list", "nope"]))
    assert "build_dict" not in found
    assert found.index("join_str") < found.index("sort_list")


@requires_matplotlib
def test_distribution_of_a_single_value_and_a_single_process():
    single_value = benchmark("single_value", [[2.0e-6]])
    single_process = benchmark("single_process", [[2.0e-6, 2.1e-6, 2.05e-6]])
    equal = benchmark("equal", [[3.0e-6, 3.0e-6], [3.0e-6, 3.0e-6]])
    found = texts(distribution_figure([("one", suite(single_value, single_process, equal))]))
    assert {"single_value", "single_process", "equal", "n = 1", "n = 3", "n = 4"} <= set(found)


@requires_matplotlib
def test_distribution_of_calibration_runs_only_says_so():
    found = texts(distribution_figure([load("calibration_only.json")]))
    assert "no values (only calibration runs)" in found
    two = [load("calibration_only.json", "calibration"), load("timeit.json")]
    text = all_text(distribution_figure(two))
    assert "calibration: no values (only calibration runs)" in text
    assert "n = 12" in text


@requires_matplotlib
def test_distribution_in_bytes():
    found = texts(distribution_figure([load("track_memory.json")]))
    assert any(re.fullmatch(r"\d+\.\d+ MiB", text) for text in found)
    small = benchmark("alloc", [[40_000, 41_000, 40_500], [40_200, 40_800]], unit="byte")
    found = texts(distribution_figure([("memory", suite(small))]))
    assert any(re.fullmatch(r"\d+(\.\d+)? KiB", text) for text in found)
    assert not any(text.endswith(" us") or text.endswith(" sec") for text in found)


@requires_matplotlib
def test_distribution_caps_the_panels():
    many = suite(*(benchmark(f"bench{i:02d}", [[1.0 + i, 1.1 + i], [1.05 + i]]) for i in range(15)))
    text = all_text(distribution_figure([("many", many)]))
    assert "bench11" in text and "bench12" not in text
    assert "Only the first 12 of 15 benchmarks are shown" in text


@requires_matplotlib
def test_distribution_with_no_benchmark_to_show():
    text = all_text(distribution_figure([load("timeit.json")], ["nope"]))
    assert "no benchmark to show" in text


# --- timeline ------------------------------------------------------------------------


@requires_matplotlib
def test_timeline_of_one_file():
    found = texts(timeline.timeline_figure([load("timeit.json")]))
    assert {"timeit", "value", "warmup", "calibration run"} <= set(found)
    assert any(re.fullmatch(r"\d+ ns", text) for text in found)
    # the warmups of the calibration run at 1 and 2 loops are far above the values
    assert any("beyond the range of the values" in text for text in found)


@requires_matplotlib
def test_timeline_counts_one_warmup_off_the_scale_in_the_singular():
    runs = [Run([1.0, 1.01], warmups=[(1, 9.0)], metadata={"name": "x", "loops": 1}, collect_metadata=False)]
    runs += [Run([1.02, 1.0], warmups=[(1, 1.01)], metadata={"name": "x", "loops": 1}, collect_metadata=False)]
    text = all_text(timeline.timeline_figure([("one", suite(Benchmark(runs)))]))
    assert "1 warmup beyond the range of the values is drawn on the edge of their panel." in text


@requires_matplotlib
def test_timeline_points_in_run_order_with_hollow_warmups():
    bench = benchmark("bench", [[], [1.0, 1.1], [1.2]])
    figure = timeline.timeline_figure([("f", suite(bench))])
    (ax,) = figure.axes
    points = sorted(
        (x, y, line.get_markerfacecolor())
        for line in ax.get_lines()
        if line.get_linestyle() == "None" and line.get_marker() in ("o", "^", "v")
        for x, y in zip(line.get_xdata(), line.get_ydata())
    )
    xs = [x for x, _y, _face in points]
    assert xs == list(range(6))  # calibration warmup, warmup, 2 values, warmup, value
    hollow = [x for x, _y, face in points if face == "none"]
    assert hollow == [0, 1, 4]
    canvas.figure_bytes(figure, "png")


@requires_matplotlib
def test_timeline_of_several_files_shares_the_y_axis_of_a_benchmark():
    figure = timeline.timeline_figure([load("compare/ref.json"), load("compare/changed.json")], ["call_slower"])
    text = all_text(figure)
    assert "call_slower (ref)" in text and "call_slower (changed)" in text
    first, second = figure.axes
    assert first.get_ylim() == second.get_ylim()


@requires_matplotlib
def test_timeline_of_calibration_runs_only_bytes_and_single_values():
    text = all_text(timeline.timeline_figure([load("calibration_only.json")]))
    assert "no values (only calibration runs)" in text
    text = all_text(timeline.timeline_figure([load("track_memory.json")]))
    assert "MiB" in text
    single = benchmark("single", [[5.0e-3]], warmup=False)
    text = all_text(timeline.timeline_figure([("one", suite(single))]))
    assert "single" in text and " ms" in text


@requires_matplotlib
def test_timeline_caps_the_panels():
    small = suite(*(benchmark(f"bench{i:02d}", [[1.0 + i], [1.1 + i]], warmup=False) for i in range(7)))
    text = all_text(timeline.timeline_figure([("a", small), ("b", small), ("c", small)]))
    assert "Only the first 12 of 21 panels" in text
    assert "bench03 (c)" in text and "bench04 (a)" not in text


# --- compare ---------------------------------------------------------------------------


@requires_matplotlib
def test_compare_sorted_by_ratio_with_the_geometric_mean_on_top():
    ref, changed = load("compare/ref.json"), load("compare/changed.json")
    figure = compare_figure(ref, [changed], 0.01)
    svg = svg_of(figure)
    ax, right = figure.axes  # the changes are the labels of a twin axis on the right
    labels = [label.get_text() for label in ax.get_yticklabels()]
    comparisons = {b.get_name(): compare_benchmarks(b, changed[1].get_benchmark(b.get_name()), 0.01) for b in ref[1]}
    expected = sorted(comparisons, key=lambda name: comparisons[name].ratio, reverse=True)
    assert labels == ["geometric mean", *expected]
    changes = [label.get_text() for label in right.get_yticklabels()]
    assert changes[1:] == [format_change(comparisons[name], meaning=False) for name in expected]
    assert ax.get_xscale() == "log"
    text = all_text(figure)
    mean = combine_comparisons(list(comparisons.values()), 0.01)
    assert "1.11x slower [1.10x .. 1.12x]" in text
    assert mean.verdict in text and "within ±1%" in text
    assert comparison.VERDICT_COLOURS[SLOWER] in svg
    assert "Welch's t on the logs of the process means" in text


@requires_matplotlib
def test_compare_says_which_ratios_it_draws(tmp_path):
    from helpers import busy_recording

    from perf.storage.files import load as load_file

    ref = ("a", load_file(busy_recording(tmp_path / "a.json", 1.0, hit=(2,))))
    new = ("c", load_file(busy_recording(tmp_path / "c.json", 1.06, speed=1.2)))
    corrected = compare_figure(ref, [new], 0.01)
    text = all_text(corrected)
    assert "1 of 1 ratios (marked 'corrected') are corrected for a busy machine" in text
    assert "1.20x slower [1.13x .. 1.28x], corrected" in text
    recorded = all_text(compare_figure(ref, [new], 0.01, correct=False))
    assert (
        "The ratios are those of the times as recorded: no correction for a busy machine (--no-correction)." in recorded
    )
    assert "1.23x slower [1.13x .. 1.33x]" in recorded and ", corrected" not in recorded
    # files without the evidence: nothing to correct
    plain = all_text(compare_figure(load("compare/ref.json"), [load("compare/changed.json")], 0.01))
    assert "The ratios are those of the times as recorded: no correction for a busy machine changed them." in plain


@requires_matplotlib
def test_compare_several_changed_files():
    files_ = [load("compare/ref.json"), load("compare/changed.json"), load("compare/same_host.json")]
    figure = compare_figure(files_[0], files_[1:], 0.05, robust=True)
    text = all_text(figure)
    assert "changed, same_host compared to ref" in text
    assert "within ±5%" in text
    assert "Mann-Whitney / Hodges-Lehmann on the process means" in text
    (ax,) = figure.axes
    # one marker per file and per row: the markers of both files
    markers = {line.get_marker() for line in ax.get_lines()}
    assert {"o", "s"} <= markers


@requires_matplotlib
def test_compare_an_interleaved_run_is_paired():
    ref = suite(benchmark("bench", [[1.0, 1.01], [1.1, 1.11], [0.95, 0.96], [1.05, 1.04]], pair_seed=9))
    new = suite(benchmark("bench", [[1.1, 1.11], [1.2, 1.22], [1.05, 1.06], [1.16, 1.15]], pair_seed=9))
    text = all_text(compare_figure(("ref", ref), [("new", new)], 0.01))
    assert "paired t on the interleaved pairs" in text
    assert "geometric mean" not in text.split(" | ")  # a single benchmark: no suite mean


@requires_matplotlib
def test_compare_without_interval_single_values_and_calibration_runs():
    one = suite(benchmark("a", [[1.0]]), benchmark("b", [[], [2.0, 2.1]]), benchmark("c", [[3.0, 3.1], [3.05]]))
    other = suite(benchmark("a", [[1.1]]), benchmark("b", [[2.2], [2.1]]), benchmark("c", [[]]))
    figure = compare_figure(("one", one), [("other", other)], 0.01)
    text = all_text(figure)
    assert "[no interval: fewer than 2 processes]" in text
    assert "Left out: c (no values)" in text
    calibration = [load("calibration_only.json"), load("timeit.json")]
    text = all_text(compare_figure(calibration[0], calibration[1:], 0.01))
    assert "no benchmark with values in every file" in text


@requires_matplotlib
def test_compare_in_bytes_and_different_units():
    ref = suite(benchmark("mem", [[1000, 1010], [1005, 995]], unit="byte"), benchmark("t", [[1.0], [1.1]]))
    new = suite(benchmark("mem", [[1100, 1110], [1105, 1095]], unit="byte"), benchmark("t", [[1.0], [1.1]], "byte"))
    figure = compare_figure(("ref", ref), [("new", new)], 0.0)
    text = all_text(figure)
    assert "Left out: t (different units)" in text
    assert "within" not in text  # no band for a margin of 0


@requires_matplotlib
def test_compare_wide_ratios_use_log_ticks():
    ref = suite(benchmark("x", [[1.0, 1.01], [1.02, 0.99]]), benchmark("y", [[1.0, 1.01], [1.02, 0.99]]))
    new = suite(benchmark("x", [[10.0, 10.1], [10.2, 9.9]]), benchmark("y", [[0.2, 0.21], [0.2, 0.19]]))
    figure = compare_figure(("ref", ref), [("new", new)], 0.01)
    found = texts(figure)
    ticks = [float(text[:-1]) for text in found if re.fullmatch(r"[\d.]+x", text)]
    assert 1.0 in ticks and 10.0 in ticks
    assert ticks == sorted(ticks)


@requires_matplotlib
def test_compare_labels_fit_inside_the_image():
    # the longest change text there is, next to a row whose interval
    # reaches the right edge (an arrow head)
    ref = suite(benchmark("one process", [[1.0, 1.001]]), benchmark("b", [[1.0, 1.01], [1.02, 0.99], [1.0, 1.0]]))
    new = suite(benchmark("one process", [[1.1, 1.101]]), benchmark("b", [[1.2, 1.4], [1.1, 1.3], [1.3, 1.2]]))
    figure = compare_figure(("ref", ref), [("new", new)], 0.01)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()  # the constrained layout places the axes when drawing
    renderer = canvas.get_renderer()
    width = figure.bbox.width
    ax, right = figure.axes
    labels = [label for label in right.get_yticklabels() if label.get_text()]
    assert any("[no interval: fewer than 2 processes] (inconclusive)" in label.get_text() for label in labels)
    for label in labels:
        box = label.get_window_extent(renderer)
        assert ax.get_window_extent(renderer).x1 < box.x0 and box.x1 <= width - 8, label.get_text()


def test_compare_leaves_out_benchmarks_of_different_clocks():
    ref = suite(benchmark("t", [[1.0, 1.1], [1.05, 1.0]]), benchmark("u", [[1.0, 1.1], [1.05, 1.0]]))
    new = suite(benchmark("t", [[1.0, 1.1], [1.05, 1.0]]), benchmark("u", [[1.0, 1.1], [1.05, 1.0]]))
    new.get_benchmark("t").update_metadata({"clock": "cpu"})
    compared = finish_comparison([ref, new], 0.01, robust=False)
    rows, skipped = comparison._rows(compared), comparison._skipped(compared)
    assert [row.label for row in rows] == ["u"]
    assert skipped == ["t (different clocks)"]


# --- instruction counts (--metric instructions) -----------------------------------------


@requires_matplotlib
@pytest.mark.parametrize(
    ("instructions", "tick"),
    [(183002.0, r"\d+(\.\d+)?k"), (53001118.0, r"\d+(\.\d+)?M"), (24.5, r"\d+(\.\d+)?")],
)
def test_counts_are_drawn_on_an_axis_labelled_instructions(instructions, tick):
    from counts import count_benchmark

    main = ("main", suite(count_benchmark("sorted", [instructions, instructions * 1.01, instructions * 0.99])))
    for figure in (distribution_figure([main]), timeline.timeline_figure([main])):
        found = texts(figure)
        assert "instructions" in found
        assert any(re.fullmatch(tick, text) for text in found)
        assert not any(re.search(r"\d ?(sec|ms|us|ns)$", text) for text in found)


@requires_matplotlib
def test_compare_of_counts_says_no_correction_applies():
    from counts import count_benchmark

    main, branch = suite(count_benchmark()), suite(count_benchmark(instructions=184850.0))
    text = all_text(compare_figure(("main", main), [("branch", branch)], 0.01))
    assert "1.01x slower [exactly +1.01%]" in text
    assert "instruction counts, which a busy machine does not move" in text
    assert "times" not in text
