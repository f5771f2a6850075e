"""perf.api: what is checked before any worker starts, and what workers
are given.  Real runs are in tests/integration/test_api_runs.py and in
doc/api.rst's examples."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from perf import api
from perf.errors import UsageError


def test_timeit_worker_arguments_are_the_timeit_command_line():
    task = api.Timeit("x + 1", setup=["x = 1", "y = 2"], teardown="del x", name="add", inner_loops=2, duplicate=3)
    assert task.worker_arguments() == [
        "--name", "add", "--setup", "x = 1", "--setup", "y = 2", "--teardown", "del x",
        "--inner-loops", "2", "--duplicate", "3", "--", "x + 1",
    ]  # fmt: skip
    assert api.Timeit(["a = 1", "b = a"]).worker_arguments() == ["--name", "timeit", "--", "a = 1", "b = a"]


@pytest.mark.parametrize(
    ("task", "message"),
    [
        (api.Timeit("1 +"), r"^invalid stmt '1 \+': SyntaxError: "),
        (api.Timeit("pass", setup="def"), r"^invalid setup 'def': SyntaxError: "),
        (api.Timeit([]), r"^Timeit needs at least one statement$"),
        (api.Timeit("pass", name=""), r"^a benchmark name must be a non-empty string$"),
        (api.Timeit("pass", duplicate=0), r"^duplicate must be an integer >= 1, got 0$"),
        (api.Timeit("pass", inner_loops="2"), r"^inner_loops must be an integer >= 1, got '2'$"),
        (api.Function("json.dumps"), r"^a function to benchmark is given as 'module:function', got 'json.dumps'$"),
        (api.Function("json:"), r"given as 'module:function', got 'json:'$"),
        (api.Function("json:dumps; import os"), r"given as 'module:function'"),
        (api.Command(["perf-no-such-program-x"]), r"^perf-no-such-program-x: program not found$"),
        (api.Command("sleep 1"), r"^the command must be a non-empty list of strings"),
        (api.Command([]), r"^the command must be a non-empty list of strings"),
        (api.Command(["true"], name=""), r"^a benchmark name must be a non-empty string$"),
    ],
)
def test_bad_tasks_are_usage_errors_before_anything_runs(task, message):
    with pytest.raises(UsageError, match=message):
        api.run(task)


def test_something_else_than_a_task_is_refused():
    with pytest.raises(UsageError, match=r"^run\(\) measures a Timeit, a Function or a Command, got str$"):
        api.run("sum(range(10))")  # type: ignore[arg-type]


def test_a_function_is_timed_as_a_call_its_import_being_setup():
    task = api.Function("package.module:Class.method").timeit()
    assert task.name == "package.module:Class.method"
    assert task.stmt == "__perf_target()"
    assert task.setup == "import package.module as __perf_module\n__perf_target = __perf_module.Class.method"
    assert api.Function("m:f", name="mine").timeit().name == "mine"


def test_a_pair_needs_its_reference_and_one_side_has_none():
    with pytest.raises(UsageError, match=r"^run_pair\(\) needs options with compare_to \(the reference side\)$"):
        api.run_pair(api.Timeit("pass"), api.RunOptions.create())
    options = api.RunOptions.create(compare_to=sys.executable)
    with pytest.raises(UsageError, match=r"^these options compare two sides \(compare_to\): use run_pair\(\)$"):
        api.run(api.Timeit("pass"), options)


def test_the_reference_program_of_a_command_must_exist():
    """Checked when the run is planned, before the CPU lock and any worker."""
    options = api.RunOptions.create(mode="command", compare_to="perf-no-such-program-x --flag")
    with pytest.raises(UsageError, match=r"^--compare-to: perf-no-such-program-x: program not found$"):
        api.run_pair(api.Command(["true"]), options)


def test_options_are_built_by_create():
    with pytest.raises(UsageError, match=r"^options are made by RunOptions.create\(...\), got dict$"):
        api.run(api.Timeit("pass"), {"processes": 3})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"tracemalloc": True}, r"^--tracemalloc cannot be used with python -m perf command \(use --track-memory\)$"),
        ({"clock": "cpu"}, r"^--clock cpu cannot be used with python -m perf command: the program runs in another "),
    ],
)
def test_what_a_command_cannot_measure_is_refused(keywords, message):
    if keywords.get("tracemalloc") and importlib.util.find_spec("_tracemalloc") is None:
        pytest.skip("no tracemalloc on this Python (PyPy)")
    options = api.RunOptions.create(**keywords)
    with pytest.raises(UsageError, match=message):
        api.run(api.Command(["true"]), options)


def interleaved_side(means):
    """One side of a constructed interleaved run: a process per pair."""
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run

    metadata = {"name": "bench", "loops": 1, "ab_seed": 7}
    return Benchmark(
        [Run([mean * 0.999, mean * 1.001], metadata={**metadata, "ab_pair": pair}, collect_metadata=False)
         for pair, mean in enumerate(means, 1)]
    )  # fmt: skip


#: 10 noisy pairs: inconclusive at +-1 % and at +-20 %, as in issue 29
REFERENCE = [1.0] * 10
CHANGED = [1.3, 0.75, 1.4, 0.8, 1.25, 0.7, 1.35, 0.9, 1.2, 0.85]


def test_a_comparison_says_its_verdict_in_one_line():
    from perf.analysis.finished import FinishedComparison

    result = api.compare(interleaved_side(REFERENCE), interleaved_side(CHANGED))
    assert isinstance(result, api.ComparisonResult) and isinstance(result, FinishedComparison)
    (comparison,) = result.entries[0].comparisons
    assert comparison.paired and comparison.verdict == "inconclusive"
    assert str(result) == result.summary
    assert result.summary == (
        "inconclusive: 1.02x [0.84x .. 1.23x]; about 2803 pairs would likely narrow the interval to +-1% (this run: 10)"
    )


def test_an_inconclusive_summary_never_claims_fewer_pairs_than_the_run_had():
    # issue 29: 10 pairs left +-20 %; the normal quantile promised 9 pairs,
    # Student's t of the pairs counts more than the run had
    result = api.compare(interleaved_side(REFERENCE), interleaved_side(CHANGED), margin=0.2)
    assert result.entries[0].comparisons[0].needed_processes == 11
    assert result.summary == (
        "inconclusive: 1.02x [0.84x .. 1.23x]; about 11 pairs would likely narrow the interval to +-20% (this run: 10)"
    )
    assert "no change" not in result.summary


def test_a_settled_comparison_says_what_it_means():
    slower = [1.3 * mean * (1.02 if pair % 2 else 0.98) for pair, mean in enumerate(CHANGED)]
    result = api.compare(interleaved_side(CHANGED), interleaved_side(slower))
    assert result.summary == "slower: 1.30x [1.28x .. 1.32x]; by more than 1% (10 pairs)"
