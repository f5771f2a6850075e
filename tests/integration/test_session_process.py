"""A session started from code, with real workers: two sides that differ
by working folder and environment only (two source trees of the same
module), as history recording and bisection start them."""

from __future__ import annotations

import os
import sys

import pytest

from perf.cli.main import ArgumentParser
from perf.measure.arguments import add_runner_arguments
from perf.measure.parent.session import Session, SessionEvents
from perf.measure.parent.sides import output_paths
from perf.measure.plan import plan_run
from perf.measure.values import DEFAULT_BUDGET, GivenBudget
from perf.storage.files import load

pytestmark = pytest.mark.integration

BENCH = """\
import perf
import target

runner = perf.Runner(metadata={"target": target.VERSION})
runner.bench_func("f", target.f)
"""


def source_tree(folder, version):
    folder.mkdir()
    (folder / "target.py").write_text(f"VERSION = {version!r}\n\ndef f():\n    return sum(range(10))\n")
    (folder / "bench.py").write_text(BENCH)
    return str(folder)


class Progress(SessionEvents):
    def __init__(self):
        self.sides = []

    def progress(self, side, progress):
        self.sides.append(side)


def test_two_sides_differ_by_folder_and_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PERF_LOCK_DIR", str(tmp_path / "locks"))
    tree_a = source_tree(tmp_path / "a", "a")
    tree_b = source_tree(tmp_path / "b", "b")
    parser = ArgumentParser(prog="bench")
    add_runner_arguments(parser, DEFAULT_BUDGET, 1, 0, 0.1)
    output = tmp_path / "out.json"
    args = parser.parse_args(["-p", "2", "-n", "1", "-w", "0", "-l", "1", "-q", "-o", str(output)])
    plan = plan_run(vars(args), "script", ("-m", "bench"), defaults=GivenBudget(), jit=False)
    (side,) = plan.sides
    sides = (
        side._replace(cwd=tree_a, label="a"),  # python -m bench finds the module of its folder
        side._replace(cwd=str(tmp_path), env=(("PYTHONPATH", tree_b),), label="b"),  # ... or of its path
    )
    events = Progress()
    session = Session(plan._replace(sides=sides, paths=output_paths(str(output), ("a", "b"))), events=events)
    session.lock()
    (results,) = session.run([(0, "f")])
    assert [benchmark.get_metadata()["target"] for benchmark in results] == ["a", "b"]
    assert [len(benchmark.get_runs()) for benchmark in results] == [2, 2]
    assert sorted(events.sides) == [0, 0, 1, 1]
    # one file per side, named after its label
    for label in "ab":
        (saved,) = load(str(tmp_path / f"out-{label}.json"))
        assert saved.get_metadata()["target"] == label
    assert not os.path.exists(output)
    assert sys.executable == side.python


def test_two_sides_from_typed_options(tmp_path, monkeypatch):
    """The same run from keywords: RunOptions.create and plan_run, no command line."""
    from perf.measure.options import RunOptions
    from perf.measure.plan import plan_run

    monkeypatch.setenv("PERF_LOCK_DIR", str(tmp_path / "locks"))
    tree_a = source_tree(tmp_path / "a", "a")
    tree_b = source_tree(tmp_path / "b", "b")
    output = tmp_path / "out.json"
    options = RunOptions.create(processes=2, values=1, warmups=0, loops=1, quiet=True, output=str(output))
    plan = plan_run(options, "script", ("-m", "bench"), jit=False)
    (side,) = plan.sides
    sides = (
        side._replace(cwd=tree_a, label="a"),
        side._replace(cwd=str(tmp_path), env=(("PYTHONPATH", tree_b),), label="b"),
    )
    session = Session(plan._replace(sides=sides, paths=output_paths(str(output), ("a", "b"))))
    session.lock()
    (results,) = session.run([(0, "f")])
    assert [benchmark.get_metadata()["target"] for benchmark in results] == ["a", "b"]
    assert [len(benchmark.get_runs()) for benchmark in results] == [2, 2]
    for label in "ab":
        (saved,) = load(str(tmp_path / f"out-{label}.json"))
        assert saved.get_metadata()["target"] == label
