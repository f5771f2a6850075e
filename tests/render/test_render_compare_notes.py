"""The notes and warnings around a suite comparison: which Python builds
the files come from (a note), and what the comparison cannot cancel (a
warning)."""

from __future__ import annotations

import datetime

import pytest

from perf.analysis.finished import finish_comparison
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.render.compare_notes import build_lines, environment_warnings

PY311 = {"python_version": "3.11.7 (64-bit)", "python_compiler": "GCC 12.2.0", "python_cflags": "-g -fwrapv -O3"}
START = datetime.datetime(2026, 1, 5, 10, 0, 0)


def suite(filename, start=START, **metadata):
    """A one-benchmark file of 4 processes recorded from *start*, with the
    metadata of PY311 updated by *metadata* (None: a key left out)."""
    common = {key: value for key, value in {**PY311, **metadata}.items() if value is not None}
    runs = []
    for index, value in enumerate((1.0, 1.01, 0.99, 1.0)):
        date = (start + datetime.timedelta(seconds=index)).isoformat(" ")
        run_metadata = {"name": "bench", "date": date, "hostname": "vm", **common}
        runs.append(Run([value, value * 1.001], metadata=run_metadata, collect_metadata=False))
    return BenchmarkSuite([Benchmark(runs)], filename=filename)


def titles_of(suites):
    return [suite.filename.removesuffix(".json") for suite in suites]


def lines(*suites):
    return build_lines(finish_comparison(suites, 0.01, suites=suites).notes, titles_of(suites))


def test_versions_name_the_builds():
    assert lines(suite("a.json"), suite("b.json", python_version="3.12.1 (64-bit)")) == [
        "Python builds: a 3.11.7 (64-bit), b 3.12.1 (64-bit)"
    ]


def test_one_build_gives_no_line():
    assert lines(suite("a.json"), suite("b.json", python_executable="/other/venv/bin/python")) == []


def test_an_unknown_build_is_not_a_different_one():
    assert lines(suite("a.json"), suite("b.json", python_version=None, python_cflags=None)) == []


def test_the_same_version_is_told_apart_by_its_implementation():
    other = suite("b.json", python_implementation="graalpy", python_compiler="Clang 17")
    assert lines(suite("a.json", python_implementation="cpython"), other) == [
        "Python builds: a cpython 3.11.7 (64-bit), b graalpy 3.11.7 (64-bit)"
    ]


def test_the_same_version_is_told_apart_by_its_compiler():
    assert lines(suite("a.json"), suite("b.json", python_compiler="Clang 17.0.6")) == [
        "Python builds: a 3.11.7 (64-bit) built with GCC 12.2.0, b 3.11.7 (64-bit) built with Clang 17.0.6"
    ]


@pytest.mark.parametrize(
    "cflags, expected",
    [
        ("-g -fwrapv -O0", "a 3.11.7 (64-bit) with CFLAGS -O3, b 3.11.7 (64-bit) with CFLAGS -O0"),
        (
            "-g -fwrapv -O3 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer",
            "a 3.11.7 (64-bit) without CFLAGS -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer, "
            "b 3.11.7 (64-bit) with CFLAGS -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer",
        ),
    ],
)
def test_the_same_version_and_compiler_are_told_apart_by_the_flags_only_one_has(cflags, expected):
    assert lines(suite("a.json"), suite("b.json", python_cflags=cflags)) == [f"Python builds: {expected}"]


def test_the_same_flags_in_another_order_are_the_same_build():
    assert lines(suite("a.json"), suite("b.json", python_cflags="-O3 -g -fwrapv")) == []


def test_each_changed_file_of_another_build_gets_its_line():
    files = suite("a.json"), suite("b.json"), suite("c.json", python_version="3.13.0 (64-bit)")
    assert lines(*files) == ["Python builds: a 3.11.7 (64-bit), c 3.13.0 (64-bit)"]


def warnings(*suites):
    return environment_warnings(finish_comparison(suites, 0.01, suites=suites).notes, titles_of(suites))


def test_another_build_is_no_warning():
    assert warnings(suite("a.json"), suite("b.json", python_version="3.12.1 (64-bit)")) == []


def test_other_differences_still_warn():
    later = START + datetime.timedelta(days=3)
    found = warnings(suite("a.json"), suite("b.json", start=later, python_version="3.12.1 (64-bit)"))
    assert found == [
        "WARNING: a and b were recorded 3 days apart",
        "The machine drifts between separate recordings and the comparison cannot cancel it; "
        "an interleaved run (--compare-to) measures both sides in alternation.",
    ]


def test_the_busy_machine_notes_can_be_counted_in_one_line(tmp_path):
    from helpers import busy_recording

    from perf.render.compare_to import Layout, format_compare_to
    from perf.storage.files import load

    files = [busy_recording(tmp_path / "a.json", 1.0), busy_recording(tmp_path / "b.json", 1.06, speed=1.2)]
    suites = [load(path) for path in files]
    comparison = finish_comparison(suites, suites=suites)
    noted = format_compare_to(suites, comparison, Layout(["a", "b"], table=True))
    counted = format_compare_to(suites, comparison, Layout(["a", "b"], table=True, busy_notes=False))
    assert any(line.startswith("loop: busy machine: ") for line in noted)
    assert not any("busy machine: " in line for line in counted)
    assert counted[-2:] == ["", "1 of 1 comparisons was corrected for a busy machine (-v shows how)"]
