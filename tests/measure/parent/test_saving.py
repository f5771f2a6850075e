"""ResultWriter: what a stopped run keeps, marked so that nobody takes it
for a complete one, and files that stay whole when Ctrl-C comes twice."""

from __future__ import annotations

import os

import pytest

from perf.measure.options import RunOptions
from perf.measure.parent.saving import Measured, ResultWriter, mark_incomplete
from perf.measure.parent.sides import output_paths
from perf.model.benchmark import Benchmark
from perf.model.metadata import INCOMPLETE_KEY
from perf.model.run import Run
from perf.storage.files import load


def bench(name, processes):
    runs = [
        Run([1.0 + index / 100], metadata={"name": name, "loops": 1}, collect_metadata=False)
        for index in range(processes)
    ]
    return Benchmark(runs)


def writer(output, labels=None):
    options = RunOptions(processes=3, values=1, warmups=0, loops=1, output=output)
    return ResultWriter(options, output_paths(output, labels) if output else ())


def test_a_stopped_run_saves_complete_and_incomplete_benchmarks_and_names_the_rest(tmp_path):
    output = str(tmp_path / "out.json")
    saved = writer(output).save_partial(
        [
            Measured("done", 3, 3, [bench("done", 3)], ""),
            Measured("half", 3, 1, [bench("half", 1)], "interrupted after 1 of 3 processes"),
            Measured("never", 3, 0, [None], "interrupted after 0 of 3 processes"),
        ]
    )
    assert saved == (output, ["done"], [("half", 1, 3)], ["never"], [])
    suite = load(output)
    assert suite.get_benchmark_names() == ["done", "half"]
    assert INCOMPLETE_KEY not in suite.get_benchmark("done").get_metadata()
    half = suite.get_benchmark("half")
    assert half.get_metadata()[INCOMPLETE_KEY] == "interrupted after 1 of 3 processes"
    assert len(half.get_runs()) == 1


def test_without_a_file_nothing_is_written_but_the_report_is_the_same(tmp_path):
    saved = writer(None).save_partial(
        [Measured("half", 4, 2, [bench("half", 2)], "interrupted after 2 of 4 processes")]
    )
    assert saved == ("", [], [("half", 2, 4)], [], [])
    assert os.listdir(tmp_path) == []


def test_two_sides_go_to_their_own_files(tmp_path):
    output = str(tmp_path / "ab.json")
    measured = Measured("x", 6, 2, [bench("x", 2), bench("x", 2)], "interrupted after 2 of 6 processes")
    saved = writer(output, ("ref", "changed")).save_partial([measured])
    paths = [str(tmp_path / "ab-ref.json"), str(tmp_path / "ab-changed.json")]
    assert saved.where == " and ".join(paths)
    for path in paths:
        assert load(path).get_benchmark("x").get_metadata()[INCOMPLETE_KEY] == "interrupted after 2 of 6 processes"


def test_the_mark_is_metadata_pyperf_loads(tmp_path):
    pyperf = pytest.importorskip("pyperf")
    path = tmp_path / "half.json"
    mark_incomplete(bench("half", 2), "interrupted after 2 of 20 processes").dump(str(path))
    loaded = pyperf.Benchmark.load(str(path))
    assert loaded.get_metadata()[INCOMPLETE_KEY] == "interrupted after 2 of 20 processes"
    assert loaded.get_nrun() == 2


def test_mark_incomplete_leaves_the_original_alone():
    original = bench("x", 2)
    marked = mark_incomplete(original, "failed after 2 of 3 processes")
    assert INCOMPLETE_KEY not in original.get_metadata()
    assert marked.get_metadata()[INCOMPLETE_KEY] == "failed after 2 of 3 processes"


def test_a_second_ctrl_c_during_the_save_leaves_the_file_whole(tmp_path, monkeypatch):
    output = str(tmp_path / "out.json")
    results = writer(output)
    results.save(bench("first", 2))
    before = (tmp_path / "out.json").read_bytes()

    def interrupted(fd):
        raise KeyboardInterrupt  # the second Ctrl-C, with the new file written but not in place

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        results.save_partial([Measured("second", 3, 1, [bench("second", 1)], "interrupted after 1 of 3 processes")])
    assert (tmp_path / "out.json").read_bytes() == before
    assert os.listdir(tmp_path) == ["out.json"]  # no temporary file left
    assert load(output).get_benchmark_names() == ["first"]
