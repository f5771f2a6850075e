"""perf.analysis.notes: the notes and warnings of the files of a suite
comparison are decided here, as data (perf.render.compare_notes words
them: tests/render/test_render_compare_notes.py)."""

from __future__ import annotations

import datetime

from counts import count_benchmark

from perf.analysis.finished import finish_comparison
from perf.analysis.notes import Builds, FarApart, Incomplete, Machines
from perf.model.benchmark import Benchmark
from perf.model.metadata import INCOMPLETE_KEY
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite

START = datetime.datetime(2026, 1, 5, 10, 0, 0)


def suite(filename, start=START, incomplete=None, **metadata):
    runs = []
    for index, value in enumerate((1.0, 1.01, 0.99, 1.0)):
        run_metadata = {"name": "bench", "date": (start + datetime.timedelta(seconds=index)).isoformat(" ")}
        run_metadata.update(metadata)
        if incomplete is not None and index == 3:
            run_metadata[INCOMPLETE_KEY] = incomplete
        runs.append(Run([value, value * 1.001], metadata=run_metadata, collect_metadata=False))
    return BenchmarkSuite([Benchmark(runs)], filename=filename)


def notes(*suites):
    return finish_comparison(suites, suites=suites).notes


def test_without_the_files_there_are_no_notes():
    files = suite("a.json", hostname="one"), suite("b.json", hostname="two")
    assert finish_comparison(files).notes == ()
    assert notes(*files) == (Machines(1, "hostname", ("one",), ("two",)),)


def test_each_kind_is_data_in_the_order_of_the_module():
    later = START + datetime.timedelta(days=3)
    files = (
        suite("a.json", python_version="3.11", python_cflags="-O3 -g"),
        suite("b.json", start=later, incomplete="stopped", python_version="3.11", python_cflags="-O0 -g"),
    )
    found = notes(*files)
    gap = (files[1].get_dates()[0] - files[0].get_dates()[1]).total_seconds()
    assert found == (
        Builds(1, "python_cflags", (("3.11",), ("3.11",)), (("-O3",), ("-O0",))),
        Incomplete("bench", 1, ("stopped",)),
        FarApart(1, gap),
    )
    assert [note.kind for note in found] == ["builds", "incomplete", "far apart"]


def test_files_recorded_together_or_close_get_no_warning():
    assert notes(suite("a.json", hostname="vm"), suite("b.json", hostname="vm")) == ()


def test_counts_recorded_far_apart_get_no_drift_warning():
    # the drift of the machine moves no instruction count; another host still says so
    later = START + datetime.timedelta(days=3)
    reference = count_benchmark(date=START.isoformat(" "), hostname="one")
    changed = count_benchmark(date=later.isoformat(" "), hostname="two")
    files = [BenchmarkSuite([reference], filename="a.json"), BenchmarkSuite([changed], filename="b.json")]
    assert [note.kind for note in notes(*files)] == ["machines"]
    # a time benchmark among them: the warning stays
    timed = [suite("a.json", hostname="one").get_benchmark("bench"), suite("b.json", later, hostname="two")]
    files = [
        BenchmarkSuite([reference, timed[0]], filename="a.json"),
        BenchmarkSuite([changed, *timed[1]], filename="b.json"),
    ]
    assert [note.kind for note in notes(*files)] == ["machines", "far apart"]
