"""perf.render.hist: text histograms as ``pyperf hist`` draws them.

tests/data/X.hist.txt holds pyperf 2.10.0's ``COLUMNS=80 LINES=25 pyperf
hist X`` output: each benchmark of a file is its own histogram (the CLI
groups benchmarks by name), and its bucket lines must be the same.  Other
terminal sizes, bin counts and shared scales are compared with pyperf's own
formatter when pyperf is installed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from golden import DATA, consecutive_groups, fixtures_with

from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.render.hist import NO_VALUES, default_bins, format_histogram
from perf.storage import files

FIXTURES = fixtures_with("hist")
BUCKET_LINE = re.compile(r" *[-0-9.]+ \S+: +\d+ (#+|\|)$")
#: the terminal of make_fixtures.sh
TERMINAL = (80, 25)


def make_run(values: Any = (1.0,), warmups: Any = None, **metadata: Any) -> Run:
    metadata.setdefault("name", "bench")
    return Run(values, warmups=warmups, metadata=metadata, collect_metadata=False)


def bucket_blocks(text: str) -> list[list[str]]:
    """Groups of consecutive bucket lines."""
    return consecutive_groups(text, BUCKET_LINE.match)


def test_every_fixture_is_covered():
    assert {
        "timeit.json",
        "suite_tags.json",
        "track_memory.json",
        "command.json",
        "timeit_inner_loops.json",
        "calibration_only.json",
        "timeit.json.gz",
        "format_v5_synthetic.json",
        "format_v6_inner_loops_synthetic.json",
    } <= set(FIXTURES)


@pytest.mark.parametrize("name", [name for name in FIXTURES if name != "calibration_only.json"])
def test_hist_matches_pyperf(name):
    benchmarks = files.load(str(DATA / name)).get_benchmarks()
    expected = bucket_blocks((DATA / f"{name}.hist.txt").read_text())
    assert len(expected) == len(benchmarks)
    assert [format_histogram([(None, benchmark)], terminal_size=TERMINAL) for benchmark in benchmarks] == expected


def test_calibration_only_does_not_crash():
    """pyperf 2.10.0 crashes (calibration_only.json.hist.stderr.txt)."""
    assert "ValueError" in (DATA / "calibration_only.json.hist.stderr.txt").read_text()
    benchmark = files.load_benchmark(str(DATA / "calibration_only.json"))
    assert format_histogram([(None, benchmark)], terminal_size=TERMINAL) == [NO_VALUES]
    assert format_histogram([("a", benchmark), ("b", benchmark)], terminal_size=TERMINAL) == [
        "[ a ]",
        NO_VALUES,
        "",
        "[ b ]",
        NO_VALUES,
    ]


def test_calibration_only_next_to_values():
    values = files.load_benchmark(str(DATA / "timeit.json"))
    calibration = files.load_benchmark(str(DATA / "calibration_only.json"))
    lines = format_histogram([("values", values), ("calibration", calibration)], terminal_size=TERMINAL)
    assert lines[-3:] == ["", "[ calibration ]", NO_VALUES]
    assert lines[:-3] == format_histogram([("values", values)], terminal_size=TERMINAL)


# --- pyperf's formatter on other sizes and shared scales ----------------------------


@pytest.fixture
def pyperf_hist(monkeypatch):
    """pyperf's format_histogram in a terminal of the given size."""
    pyperf = pytest.importorskip("pyperf")
    from pyperf import _cli

    def histogram(items, terminal_size, **options):
        monkeypatch.setenv("COLUMNS", str(terminal_size[0]))
        monkeypatch.setenv("LINES", str(terminal_size[1]))
        loaded = [(pyperf.Benchmark.loads(files.dumps(benchmark)), title) for title, benchmark in items]
        return _cli.format_histogram(loaded, **options)

    return histogram


SIZES = [(80, 25), (40, 10), (200, 60), (10, 3), (120, 100)]
OPTIONS = [
    {"bins": None},
    {"bins": None, "extend": True},
    {"bins": 1},
    {"bins": 7},
    {"bins": 40},
    {"bins": 40, "extend": True},
]


@pytest.mark.pyperf
@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("name", [name for name in FIXTURES if name != "calibration_only.json"])
def test_sizes_and_bins_match_pyperf(pyperf_hist, name, size, options):
    for benchmark in files.load(str(DATA / name)).get_benchmarks():
        items = [(None, benchmark)]
        assert format_histogram(items, terminal_size=size, **options) == pyperf_hist(items, size, **options)


@pytest.mark.pyperf
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_shared_scale_matches_pyperf(pyperf_hist, size):
    """The same benchmark from several files: one scale, one title each."""
    items = [
        ("timeit", files.load_benchmark(str(DATA / "timeit.json"))),
        ("timeit.json.gz", files.load_benchmark(str(DATA / "timeit.json.gz"))),
        ("command", files.load_benchmark(str(DATA / "command.json"))),
    ]
    for options in OPTIONS:
        assert format_histogram(items, terminal_size=size, **options) == pyperf_hist(items, size, **options)


def test_shared_scale():
    fast = Benchmark([make_run((1.0, 1.0, 2.0))])
    slow = Benchmark([make_run((3.0, 4.0))])
    assert format_histogram([("fast", fast), ("slow", slow)], bins=3, terminal_size=(30, 25)) == [
        # 30 columns - len("1.00 sec: 2 #") = 17 characters for the largest count
        "[ fast ]",
        "1.00 sec: 2 " + "#" * 17,
        "2.00 sec: 1 " + "#" * 8,  # round(8.5) is 8
        "3.00 sec: 0 |",
        "4.00 sec: 0 |",
        "",
        "[ slow ]",
        "1.00 sec: 0 |",
        "2.00 sec: 0 |",
        "3.00 sec: 1 " + "#" * 17,
        "4.00 sec: 1 " + "#" * 17,
    ]


# --- bins and terminal size ---------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "extend", "bins"),
    [(25, False, 22), (10, False, 7), (4, False, 3), (1, False, 3), (100, False, 25), (100, True, 97)],
)
def test_default_bins(lines, extend, bins):
    assert default_bins(lines, extend) == bins


def test_bins_follow_the_terminal_height():
    benchmark = Benchmark([make_run(tuple(1.0 + index / 100 for index in range(101)))])
    # bins + 1 lines: the last bucket starts at the maximum
    assert len(format_histogram([(None, benchmark)], terminal_size=(80, 10))) == 8
    assert len(format_histogram([(None, benchmark)], terminal_size=(80, 100))) == 26
    assert len(format_histogram([(None, benchmark)], extend=True, terminal_size=(80, 100))) == 98
    assert len(format_histogram([(None, benchmark)], bins=4, terminal_size=(80, 100))) == 5


def test_bars_fit_the_terminal_width():
    benchmark = Benchmark([make_run((1.0, 2.0))])
    # 80 columns: 79 characters at most unless extended
    lines = format_histogram([(None, benchmark)], bins=1, terminal_size=(200, 25))
    assert lines == ["1.00 sec: 1 " + "#" * 79, "2.00 sec: 1 " + "#" * 79]
    extended = format_histogram([(None, benchmark)], bins=1, extend=True, terminal_size=(200, 25))
    assert extended[0] == "1.00 sec: 1 " + "#" * (200 - len("1.00 sec: 1 #"))
    # never fewer than 3 characters
    narrow = format_histogram([(None, benchmark)], bins=1, terminal_size=(5, 25))
    assert narrow == ["1.00 sec: 1 ###", "2.00 sec: 1 ###"]


def test_terminal_size_defaults_to_the_environment(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("LINES", "8")
    benchmark = Benchmark([make_run(tuple(1.0 + index / 10 for index in range(11)))])
    assert format_histogram([(None, benchmark)]) == format_histogram([(None, benchmark)], terminal_size=(40, 8))


# --- edge cases ------------------------------------------------------------------


def test_one_value():
    """pyperf puts 842 ns in a bucket labelled "0.00 ns": perf shows the value."""
    benchmark = Benchmark([make_run((842e-9,))])
    assert format_histogram([(None, benchmark)], terminal_size=TERMINAL) == ["842 ns: 1 " + "#" * 69]


def test_equal_values_in_several_benchmarks():
    one = Benchmark([make_run((0.5, 0.5))])
    other = Benchmark([make_run((0.5,))])
    assert format_histogram([("one", one), ("other", other)], terminal_size=TERMINAL) == [
        "[ one ]",
        "500 ms: 2 " + "#" * 69,
        "",
        "[ other ]",
        "500 ms: 1 " + "#" * 69,
    ]


def test_bytes():
    kib = 1024.0
    benchmark = Benchmark([make_run((20 * kib, 20 * kib, 30 * kib, 40 * kib), unit="byte")])
    assert format_histogram([(None, benchmark)], bins=2, terminal_size=(40, 25)) == [
        "20.0 KiB: 2 " + "#" * 27,
        "30.0 KiB: 1 " + "#" * 14,  # round(13.5) is 14
        "40.0 KiB: 1 " + "#" * 14,
    ]


def test_empty_title_is_not_shown():
    benchmark = Benchmark([make_run((1.0,))])
    assert format_histogram([("", benchmark)], terminal_size=(20, 25)) == ["1.00 sec: 1 #######"]


@pytest.mark.pyperf
def test_constructed_benchmarks_match_pyperf(pyperf_hist):
    kib = 1024.0
    cases = [
        ([("fast", Benchmark([make_run((1.0, 1.0, 2.0))])), ("slow", Benchmark([make_run((3.0, 4.0))]))], 3),
        ([(None, Benchmark([make_run((20 * kib, 20 * kib, 30 * kib, 40 * kib), unit="byte")]))], 2),
        ([(None, Benchmark([make_run((1e-9, 1.5e-9, 1.2e-6), inner_loops=10, loops=4)]))], None),
    ]
    for items, bins in cases:
        for size in SIZES:
            assert format_histogram(items, bins=bins, terminal_size=size) == pyperf_hist(items, size, bins=bins)
