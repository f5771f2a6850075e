"""perf.pytest_plugin.session: what is checked before any test runs.

pytester parses real command lines in this process (no worker runs)."""

from __future__ import annotations

import pytest

from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.pytest_plugin.plugin import SESSION
from perf.pytest_plugin.session import RESULTS_ENV
from perf.pytest_plugin.workers import Outcomes

pytest_plugins = ["pytester"]


def configure(pytester, *args):
    config = pytester.parseconfigure(*args)
    return config.stash[SESSION]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--perf-fail-on-slowdown", "5"], "--perf-fail-on-slowdown needs --perf-compare FILE"),
        (["--perf-compare", "missing.json"], "--perf-compare: "),
        (["--perf-output", "no/such/folder/out.json"], "--perf-output: the folder"),
        (["--benchmark-json", "no/such/folder/out.json"], "--benchmark-json: the folder"),
        (["--benchmark-only", "--benchmark-disable"], "none is measured with --benchmark-disable"),
        (["--benchmark-compare-fail", "mean:5%"], "--benchmark-compare-fail requires valid --benchmark-compare."),
        (["--benchmark-compare-fail", "ops:5%"], "Could not parse value: 'ops:5%'."),
        (["--benchmark-save", "a/b"], "--benchmark-save"),
        (["--benchmark-autosave", "--benchmark-storage", "elasticsearch+http://host:9200/index"], "only file storage"),
    ],
)
def test_usage_errors_before_any_test(pytester, args, message):
    with pytest.raises(pytest.UsageError, match=message.replace("(", r"\(")):
        configure(pytester, *args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--perf-budget", "slow"], "invalid choice: 'slow'"),
        (["--benchmark-min-time", "bogus"], "Invalid decimal value 'bogus'"),
        (["--perf-fail-on-slowdown", "x"], "'x' is not a percentage"),
    ],
)
# pytest 7 with pluggy >= 1.4 warns on every usage error (its own hookwrapper)
@pytest.mark.filterwarnings("ignore:A plugin raised an exception during an old-style hookwrapper teardown")
def test_bad_values_are_argument_errors(pytester, args, message):
    with pytest.raises(pytest.UsageError) as error:
        configure(pytester, *args)
    assert message in str(error.value)


def test_perf_compare_loads_the_file_first(pytester, tmp_path):
    path = tmp_path / "old.json"
    run = Run((1.0, 2.0), metadata={"name": "t.py::test", "loops": 1}, collect_metadata=False)
    BenchmarkSuite([Benchmark([run])]).dump(str(path))
    session = configure(pytester, "--perf-compare", str(path), "--perf-fail-on-slowdown", "5%")
    assert [benchmark.get_name() for benchmark in session.reference] == ["t.py::test"]
    assert session.option.perf_fail_on_slowdown == 5.0


def test_header_says_the_budget(pytester):
    session = configure(pytester, "--perf-budget", "fast")
    assert session.header() == [
        "perf: 3 worker processes x 3 values per benchmark (--perf-budget fast); pedantic benchmarks run in "
        "pytest's process"
    ]


def test_header_lists_ignored_pytest_benchmark_options(pytester):
    session = configure(pytester, "--benchmark-sort", "mean", "--benchmark-histogram")
    assert session.header()[-1] == "perf: ignored pytest-benchmark options: --benchmark-sort, --benchmark-histogram"


def test_under_xdist_the_controller_measures(pytester):
    # xdist sets --dist from -n in its pytest_cmdline_main, which parseconfigure does not run
    session = configure(pytester, "-n", "2", "--dist", "load", "--benchmark-only")
    assert session.xdist
    assert not session.disabled
    assert session.header()[0].endswith(
        ", measured before xdist runs the tests in parallel; benchmark.pedantic runs once, unmeasured"
    )
    assert session.worker_command()[-1] == "-n0"  # the workers run alone


def test_an_xdist_worker_reads_the_controller_outcomes(pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.delenv(RESULTS_ENV, raising=False)
    assert configure(pytester).disabled  # nothing measured for it: each function runs once
    outcomes = Outcomes()
    run = Run((1.0, 2.0), metadata={"name": "t.py::test", "loops": 3}, collect_metadata=False)
    outcomes.add("t.py::test", Benchmark([run]))
    outcomes.errors["t.py::other"] = "tail"
    outcomes.pedantic.add("t.py::third")
    outcomes.save(str(tmp_path / "outcomes.json"))
    monkeypatch.setenv(RESULTS_ENV, str(tmp_path / "outcomes.json"))
    session = configure(pytester)
    assert not session.disabled
    assert session.measured("t.py::test").get_values() == (1.0, 2.0)
    assert session.measured("t.py::other") == "tail"
    assert session.outcomes.pedantic == {"t.py::third"}
    assert session.outcomes.loops == {"t.py::test": 3}


def test_benchmark_enable_cancels_disable(pytester):
    assert configure(pytester, "--benchmark-disable").disabled
    assert not configure(pytester, "--benchmark-disable", "--benchmark-enable").disabled


def test_compare_without_saved_files_is_a_note(pytester, tmp_path):
    session = configure(pytester, "--benchmark-compare", "--benchmark-storage", str(tmp_path / "none"))
    assert session.summary == [f"perf: can't compare: no benchmark files in {str(tmp_path / 'none')!r}"]


def test_an_unused_fixture_warns_unless_the_test_skipped(pytester):
    pytester.makepyfile(
        "import pytest\n\n"
        "def test_unused(benchmark):\n    pass\n\n"
        "def test_skipped(benchmark):\n    pytest.skip('not here')\n"
    )
    result = pytester.runpytest("--benchmark-disable", "-p", "no:cacheprovider", "-W", "error::pytest.PytestWarning")
    # the warning, made an error at the teardown of test_unused only
    result.assert_outcomes(passed=1, skipped=1, errors=1)
    result.stdout.fnmatch_lines(["*PerfBenchmarkWarning: Benchmark fixture was not used at all in this test!"])
    result.stdout.fnmatch_lines(["ERROR *::test_unused - *"])
