"""perf.api with real workers: what doc/api.rst's examples do not show."""

from __future__ import annotations

import re
import sys

import pytest

import perf
from perf import api
from perf.errors import IncompatibleRunError

FAST = {"processes": 3, "values": 2, "min_time": 0.005}


def test_an_append_file_that_cannot_take_the_runs_is_refused_before_any_worker(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    options = api.RunOptions.create(**FAST, append="app.json")
    api.run(api.Timeit("x = 1"), options)
    before = (tmp_path / "app.json").read_bytes()
    with pytest.raises(IncompatibleRunError, match=r"metadata 'inner_loops' is 10 .*\(nothing was run\)$"):
        api.run(api.Timeit("x = 1", inner_loops=10), options)
    assert (tmp_path / "app.json").read_bytes() == before


def test_two_programs_in_interleaved_pairs(tmp_path):
    options = api.RunOptions.create(mode="command", **FAST, compare_to=f"{sys.executable} -S -c pass")
    pair = api.run_pair(api.Command([sys.executable, "-S", "-c", "import os"], name="start"), options)
    assert [benchmark.get_name() for benchmark in pair] == ["start", "start"]
    assert pair.reference.get_metadata()["command"].endswith("-S -c pass")
    assert pair.changed.get_metadata()["command"].endswith("-S -c 'import os'")
    compared = api.compare(*pair)
    (result,) = compared.entries[0].comparisons
    assert result.paired
    assert result.changed_processes == 3
    # one line: the verdict first, the run's 3 pairs last (issue 29)
    assert compared.summary.startswith(f"{result.verdict}: ") and "\n" not in compared.summary
    assert re.search(r"\((3 pairs|this run: 3)\)$|this run's 3 are needed to settle it at \+-1%$", compared.summary), (
        compared.summary
    )


def test_a_function_of_a_package_is_imported_by_the_workers(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "shapes.py").write_text(
        "class Box:\n    @staticmethod\n    def volume():\n        return 2 * 3 * 4\n"
    )
    monkeypatch.chdir(tmp_path)
    options = api.RunOptions.create(**FAST, output="box.json")
    bench = api.run(api.Function("pkg.shapes:Box.volume"), options)
    assert bench.get_name() == "pkg.shapes:Box.volume"
    assert perf.Benchmark.load("box.json").get_nrun() == bench.get_nrun() == 4
