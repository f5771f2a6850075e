"""perf.pytest_plugin.session: what is checked before any test runs.

pytester parses real command lines in this process (no worker runs)."""

from __future__ import annotations

import json

import pytest
from helpers import busy_recording
from test_plugin_fixture import WORKERS, fixture

from perf.measure.parent.batches import Outcomes
from perf.measure.protocol import DONE, PARENT, Event
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.pytest_plugin.plugin import SESSION
from perf.pytest_plugin.session import RESULTS_ENV
from perf.storage.files import dumps, load_benchmark

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


def compared(pytester, reference, changed, *args):
    """The --perf-compare lines of a session that compares with *reference*
    and measured *changed* (busy_recording files)."""
    session = configure(pytester, "--perf-compare", reference, *args)
    benchmark, _results = fixture({"tests/test_a.py::test_x": load_benchmark(changed)})
    benchmark(len, "a")
    session.add(benchmark.stats)
    return session.compare()


@pytest.fixture
def busy(tmp_path):
    """a: a process that kept 70 % of the CPU; c: the machine 6 % slower and
    the code 20 % slower (both corrected)."""
    return busy_recording(tmp_path / "a.json", 1.0, hit=(2,)), busy_recording(tmp_path / "c.json", 1.06, speed=1.2)


def test_perf_compare_shows_the_busy_machine_notes_under_v(pytester, busy):
    lines = compared(pytester, *busy, "-v")
    notes = [line.removeprefix("loop: busy machine: ") for line in lines if line.startswith("loop: busy machine: ")]
    assert [note[:40] for note in notes] == [
        "the verdict uses the corrected ratio, 1.",
        f"1 of 10 processes of {busy[0]} and 0 of 10 of this session lost"[:40],
        "the machine ran 6.0% slower while this s",
    ]
    assert not any("(-v shows" in line for line in lines)


def test_perf_compare_counts_the_busy_machine_notes_without_v(pytester, busy):
    lines = compared(pytester, *busy)
    assert lines[0] == f"perf: compared with {busy[0]}"
    assert lines[-2:] == ["", "1 of 1 comparisons was corrected for a busy machine (-v shows how)"]
    table = lines[1:-2]
    assert table[0].startswith("+---")
    assert table[-1].startswith("+---")
    assert all(line[0] in "+|" for line in table)  # no note, no blank line left where they were
    assert configure(pytester, "--benchmark-verbose").verbose  # pytest-benchmark's option, as -v


def test_notes_without_a_correction_are_counted_apart(pytester, tmp_path):
    reference = busy_recording(tmp_path / "s311.json", 1.0, python_version="3.11.7 (64-bit)")
    changed = busy_recording(tmp_path / "s312.json", 1.06, python_version="3.12.1 (64-bit)")
    assert "loop: busy machine: the machine's speed is not corrected for: " in "\n".join(
        compared(pytester, reference, changed, "-v")
    )
    lines = compared(pytester, reference, changed)
    assert lines[-1] == "0 of 1 comparisons were corrected for a busy machine, 1 has a note on it (-v shows them)"


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
    assert "-n0" in session.worker_command()("/tmp/worker")  # the workers run alone


def test_an_xdist_worker_reads_the_controller_outcomes(pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.delenv(RESULTS_ENV, raising=False)
    assert configure(pytester).disabled  # nothing measured for it: each function runs once
    outcomes = Outcomes()
    run = Run((1.0, 2.0), metadata={"name": "t.py::test", "loops": 3}, collect_metadata=False)
    outcomes.apply([Event(DONE, "t.py::test", dumps(Benchmark([run]))), Event(PARENT, "t.py::third")])
    outcomes.fail(["t.py::other"], "tail")
    outcomes.save(str(tmp_path / "outcomes.json"))
    monkeypatch.setenv(RESULTS_ENV, str(tmp_path / "outcomes.json"))
    session = configure(pytester)
    assert not session.disabled
    assert session.measured("t.py::test").get_values() == (1.0, 2.0)
    assert session.measured("t.py::other") == "tail"
    assert session.outcomes.in_parent == {"t.py::third"}
    assert session.outcomes.loops == {"t.py::test": 3}


def test_benchmark_enable_cancels_disable(pytester):
    assert configure(pytester, "--benchmark-disable").disabled
    assert not configure(pytester, "--benchmark-disable", "--benchmark-enable").disabled


def test_compare_without_saved_files_is_a_note(pytester, tmp_path):
    session = configure(pytester, "--benchmark-compare", "--benchmark-storage", str(tmp_path / "none"))
    assert session.summary == [f"perf: can't compare: no benchmark files in {str(tmp_path / 'none')!r}"]


def saved_run(storage, version, **perf_fields):
    """A run saved in *storage* by pytest-benchmark (*version* "5.3.1", no
    perf object) or by perf's plugin (*perf_fields*)."""
    entry = {"group": None, "name": "test_x", "fullname": "tests/test_a.py::test_x", "stats": {"mean": 5e-6}}
    if perf_fields:
        entry["perf"] = perf_fields
    storage.mkdir()
    (storage / "0001_base.json").write_text(json.dumps({"benchmarks": [entry], "version": version}))


def compared_with_saved(pytester, storage):
    session = configure(pytester, "--benchmark-compare", "--benchmark-storage", str(storage))
    benchmark, _results = fixture(WORKERS)
    benchmark(len, "a")
    session.add(benchmark.stats)
    return session.compare()


def test_a_run_saved_by_pytest_benchmark_is_said(pytester, tmp_path):
    saved_run(tmp_path / "saved", "5.3.1")
    lines = compared_with_saved(pytester, tmp_path / "saved")
    assert [line.split() for line in lines[1:3]] == [
        ["test_x", "(NOW)", "4.0000"],
        ["test_x", "(0001_base)", "5.0000", "-20.0%"],
    ]
    assert lines[3:] == [
        "perf: 0001_base was measured by pytest-benchmark, whose timings differ from perf's by the tool alone "
        "(on the same tests, perf's means were 0.91x of pytest-benchmark's, 0.73x to 1.20x by test): a Change "
        "between -27% and +20% may be the tool's; save the baseline again with perf's plugin "
        "(--benchmark-save or --benchmark-autosave)"
    ]


def test_a_run_saved_by_perf_is_compared_without_that_line(pytester, tmp_path):
    saved_run(tmp_path / "saved", "perf 3.0.0", measured_in="worker processes", processes=3)
    lines = compared_with_saved(pytester, tmp_path / "saved")
    assert lines[2].split() == ["test_x", "(0001_base)", "5.0000", "-20.0%"]
    assert len(lines) == 3


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
