"""The measured command of bisect (ARGS after --): parsed with the
runner's parser, one round's budget, what reaches the workers."""

from __future__ import annotations

import sys
from typing import ClassVar

import pytest

from perf.errors import UsageError
from perf.history.worktrees import DEFAULT_PROCESSES, DEFAULT_VALUES, parse_command


def test_a_script_with_its_own_options():
    command = parse_command(["bench.py", "-p", "4", "--my-option", "x", "-n", "2"])
    (side,) = command.plan.sides
    assert side.script == ("bench.py",)
    assert command.extra == ("--my-option", "x")  # passed on to each worker
    assert (command.plan.options.processes, command.plan.options.values) == (4, 2)
    assert side.python == sys.executable
    assert command.python is None


def test_bisect_has_its_own_default_budget():
    options = parse_command(["bench.py"]).plan.options
    assert (options.processes, options.values) == (DEFAULT_PROCESSES, DEFAULT_VALUES)


def test_timeit():
    command = parse_command(["-m", "perf", "timeit", "-p", "3", "-s", "import m", "--name", "f", "m.f()"])
    (side,) = command.plan.sides
    assert side.script == ("-m", "perf", "timeit")
    assert command.extra == ("-s", "import m", "--name", "f", "m.f()")
    assert command.plan.options.processes == 3


def test_python_relative_to_the_worktree_is_kept_for_later():
    command = parse_command(["bench.py"], "./python")
    assert command.python == "./python"
    assert command.plan.sides[0].python == sys.executable  # replaced per worktree


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "missing the command to measure after --"),
        (["-c", "pass"], "not -c"),
        (["-m", "timeit", "1"], "not -m"),
        (["bench.py", "-o", "out.json"], "-o cannot be given after --"),
        (["bench.py", "--append", "out.json"], "--append cannot be given after --"),
        (["bench.py", "--compare-to", sys.executable], "--compare-to cannot be given after --"),
        (["bench.py", "--python", sys.executable], "--python cannot be given after --: the command sets it"),
        (["bench.py", "-p", "zero"], "after --: argument -p/--processes"),
        (["bench.py", "--adaptive-values", "-n", "3"], "--adaptive-values replaces -n"),
    ],
)
def test_refused(args, message):
    with pytest.raises(UsageError, match=message):
        parse_command(args)


def loops_result(*loops):
    """One session's results: a benchmark per loop count, reference side
    first."""
    import perf

    def benchmark(count):
        return perf.Benchmark(
            [perf.Run([1e-3], metadata={"name": f"b{count}", "loops": count}, collect_metadata=False)]
        )

    return [(benchmark(count), benchmark(count * 2)) for count in loops]


def test_the_first_session_pins_the_loops_of_the_reference():
    from perf.history.worktrees import pinned_loops

    options = parse_command(["bench.py"]).plan.options
    assert pinned_loops(options, loops_result(64)).loops == 64
    # benchmarks with different loop counts keep their own calibration
    assert pinned_loops(options, loops_result(64, 128)).loops == 0
    # as do loops given on the command line
    assert pinned_loops(parse_command(["bench.py", "-l", "8"]).plan.options, loops_result(64)).loops == 8


class RecordingSession:
    """perf.measure.parent.session.Session without workers: it logs what each
    session's sides would run with, and answers with one run per side."""

    log: ClassVar[list] = []

    def __init__(self, plan, **_):
        self.plan = plan

    def lock(self):
        pass

    def unlock(self):
        pass

    def list_benchmarks(self):
        return ["first", "second"]

    def run(self, benchmarks, *, shared_loops=False, **_):
        import perf

        self.log.append(([side.options for side in self.plan.sides], list(benchmarks), shared_loops))
        loops = self.plan.sides[0].options.loops or 64  # what the first worker would calibrate
        return [
            [
                perf.Benchmark([perf.Run([1e-3], metadata={"name": name, "loops": loops}, collect_metadata=False)])
                for _ in self.plan.sides
            ]
            for _, name in benchmarks
        ]


def test_rounds_time_every_commit_with_the_loops_of_the_first_session(tmp_path, monkeypatch):
    from helpers import example_repo

    from perf.history.git import Repository
    from perf.history.worktrees import CommitMeasurer

    RecordingSession.log = []
    monkeypatch.setattr("perf.measure.parent.session.Session", RecordingSession)
    repo = example_repo(tmp_path / "repo", commits=3, regression=2)
    with CommitMeasurer(Repository(repo.path), parse_command(["bench.py"])) as measurer:
        assert measurer.benchmarks(repo.commits[0]) == ["first", "second"]
        measurer.rounds(repo.commits, ["second"])
        measurer.rounds(repo.commits[:2], ["second"], rounds=4)
        measurer.rounds(repo.commits[:2])  # "first" has no loops yet: the session calibrates them
        with pytest.raises(UsageError, match=r"unknown benchmark: nope \(the script's benchmarks: first, second\)"):
            measurer.rounds(repo.commits[:2], ["nope"])
    first, second, third = RecordingSession.log
    options, benchmarks, shared = first
    assert [option.loops for option in options] == [0, 0, 0] and benchmarks == [(1, "second")] and shared
    options, benchmarks, shared = second
    # every side's workers get the loops and the rounds (a side's options are what its workers read)
    assert [(option.loops, option.processes) for option in options] == [(64, 4), (64, 4)]
    options, benchmarks, _ = third
    assert [option.loops for option in options] == [0, 0] and benchmarks == [(0, "first"), (1, "second")]
