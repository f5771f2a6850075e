"""perf's pytest plugin: the hooks, the options and the ``benchmark`` fixture.

Registered by :mod:`perf.pytest_plugin` (the ``pytest11`` entry point
``perf``) when pytest-benchmark is not active.  The hooks are thin: the
work is in :class:`perf.pytest_plugin.session.PerfSession` (options, worker
processes, files, comparisons) and :mod:`perf.pytest_plugin.fixture`.

In pytest's process the worker processes run once, before the first test,
for every collected test that uses the fixture (``--perf-metric
instructions``: they count each test in pairs under valgrind);
``--perf-worker SPEC`` makes this process one of those workers instead.

Must not: print (lines go to pytest's terminal reporter), call sys.exit.
"""

from __future__ import annotations

import argparse
import os
from typing import Any, Callable, Generator

import pytest

from perf.errors import PerfError
from perf.measure.protocol import LISTED, SPEC_OPTION
from perf.measure.values import METRIC_NAMES
from perf.pytest_plugin import options as opts
from perf.pytest_plugin.fixture import BenchmarkFixture, BenchmarkStats
from perf.pytest_plugin.report import outcome_lines, progress_line, results_table
from perf.pytest_plugin.session import PerfSession
from perf.pytest_plugin.workers import WorkerFixture

SESSION = pytest.StashKey[PerfSession]()
#: the name of a report's user property that carries a benchmark
PAYLOAD = "perf_benchmark"
FIXTURE = pytest.StashKey[BenchmarkFixture]()


class PerfBenchmarkWarning(pytest.PytestWarning):
    """A warning of perf's benchmark fixture."""


#: pytest-benchmark's options that perf accepts and ignores: (name, nargs) with a value
_IGNORED = (*((name, None) for name in ("sort", "group-by", "columns", "name", "time-unit", "netrc", "cprofile",
             "cprofile-loops", "cprofile-top")), ("histogram", "?"), ("cprofile-dump", "?"))  # fmt: skip


def pytest_addoption(parser: pytest.Parser) -> None:
    add = parser.getgroup("benchmark", "benchmark (perf: pytest-benchmark's options)").addoption
    flag = "store_true"
    # fmt: off
    add("--benchmark-min-time", type=opts.parse_seconds, default=0.000005, metavar="SECONDS",
        help="shortest value (seconds); perf's budget usually asks for more. Default: 0.000005")
    add("--benchmark-max-time", type=opts.parse_seconds, default=opts.DEFAULT_MAX_TIME, metavar="SECONDS",
        help="most seconds of values per test, over all its worker processes. Default: 1.0")
    add("--benchmark-min-rounds", type=opts.parse_positive_int, default=opts.DEFAULT_MIN_ROUNDS, metavar="NUM",
        help="fewest values per test, over all its worker processes. Default: 5")
    add("--benchmark-timer", type=opts.parse_timer, default=opts.DEFAULT_TIMER, metavar="FUNC",
        help="timer as module.function. Default: time.perf_counter")
    add("--benchmark-calibration-precision", type=int, default=None, metavar="NUM", help="accepted, ignored")
    add("--benchmark-warmup", type=opts.parse_warmup, default=None, nargs="?", const=True, metavar="KIND",
        help="accepted: perf always warms up (more on a JIT)")
    add("--benchmark-warmup-iterations", type=int, default=100000, metavar="NUM", help="accepted, ignored")
    add("--benchmark-disable-gc", action=flag, default=False, help="disable the GC while timing")
    add("--benchmark-skip", action=flag, default=False, help="skip the tests that use the benchmark fixture")
    add("--benchmark-disable", action=flag, default=False,
        help="run each benchmark function once, unmeasured (for a quick test run)")
    add("--benchmark-enable", action=flag, default=False, help="cancel --benchmark-disable")
    add("--benchmark-only", action=flag, default=False, help="skip the tests that do not benchmark")
    add("--benchmark-save", metavar="NAME", default=None, help="save pytest-benchmark's JSON in the storage")
    add("--benchmark-autosave", action=flag, default=False, help="save with a name made of the commit and the time")
    add("--benchmark-save-data", action=flag, default=False, help="saved files keep every value")
    add("--benchmark-json", metavar="PATH", default=None, help="write pytest-benchmark's JSON document to PATH")
    add("--benchmark-compare", metavar="NUM|_ID", nargs="?", default=None, const="",
        help="compare with the last saved run, or with the saved runs whose name starts with NUM|_ID")
    add("--benchmark-compare-fail", metavar="EXPR", nargs="+", default=None,
        help="fail when a field got worse than EXPR against the compared run: min:5%% or mean:0.001 (seconds)")
    add("--benchmark-storage", metavar="URI", default="file://./.benchmarks",
        help="folder of saved runs. Default: file://./.benchmarks")
    add("--benchmark-verbose", action=flag, default=False, help="the notes of --perf-compare too (as -v)")
    add("--benchmark-quiet", action=flag, default=False, help="no results table")
    for name, nargs in _IGNORED:
        const = True if nargs else None
        add(f"--benchmark-{name}", default=None, nargs=nargs, const=const, metavar="PREFIX" if nargs else "VALUE",
            help="accepted, ignored")

    add = parser.getgroup("perf", "perf (benchmarks measured in worker processes)").addoption
    add("--perf-budget", default="default", choices=sorted(opts.BUDGETS), dest="perf_budget_name",
        help="time against precision: fast, default or rigorous")
    add("--perf-metric", default="time", choices=METRIC_NAMES,
        help="what a value is: time (default), or instructions per call, counted under valgrind's cachegrind")
    add("--perf-output", metavar="FILE", default=None,
        help="write the results as a perf/pyperf JSON file (one benchmark per test)")
    add("--perf-compare", metavar="FILE", default=None,
        help="compare with an earlier --perf-output file, with compare_to's verdicts")
    add("--perf-fail-on-slowdown", metavar="PCT", type=opts.parse_percent, default=None,
        help="with --perf-compare: fail when a benchmark is slower than PCT %% with its whole interval")
    add(SPEC_OPTION, metavar="SPEC", default=None, help=argparse.SUPPRESS)
    # fmt: on


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from perf.pytest_plugin import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "benchmark(**options): pytest-benchmark's settings of a benchmark test")
    option = config.option
    option.perf_budget = opts.BUDGETS[option.perf_budget_name]
    params = config.invocation_params
    try:
        distributed = getattr(option, "dist", "no") != "no"
        session = PerfSession(
            option, params.args, str(params.dir), distributed, xdist_worker="PYTEST_XDIST_WORKER" in os.environ
        )
    except PerfError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[SESSION] = session
    if session.xdist:
        config.pluginmanager.register(_XdistReports(session), "perf-xdist-reports")


def _session(config: pytest.Config) -> PerfSession:
    return config.stash[SESSION]


def pytest_report_header(config: pytest.Config) -> list[str]:
    session = _session(config)
    return [] if session.worker else session.header()


def pytest_ignore_collect(collection_path: Any, config: pytest.Config) -> bool | None:
    """A worker collects only the files of the tests it measures."""
    session = config.stash.get(SESSION, None)
    if session is None or session.worker is None or session.worker.spec.list_only or collection_path.is_dir():
        return None
    if collection_path.name in ("conftest.py", "__init__.py"):
        return None
    return True if str(collection_path) not in session.worker.spec.files else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    session = _session(config)
    if session.worker is not None and session.worker.spec.list_only:
        # the benchmark tests, for xdist's controller, which collects nothing
        # a worker adds no --benchmark-skip marks (below): that option is read here
        for item in [] if config.option.benchmark_skip else session.benchmark_items(items):
            session.worker.pipe.send(LISTED, item.nodeid, str(item.path))
        config.hook.pytest_deselected(items=list(items))
        items[:] = []
        return
    if session.worker is not None:
        wanted = session.worker.wanted
        kept = [item for item in items if item.nodeid in wanted]
        deselected = [item for item in items if item.nodeid not in wanted]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
        items[:] = kept
        return
    option = config.option
    for item in items:
        uses = "benchmark" in getattr(item, "fixturenames", ())
        if option.benchmark_only and not uses:
            item.add_marker(pytest.mark.skip(reason="Skipping non-benchmark (--benchmark-only active)."))
        elif option.benchmark_skip and uses and not option.benchmark_only:
            item.add_marker(pytest.mark.skip(reason="Skipping benchmark (--benchmark-skip active)."))


def _writer(config: pytest.Config) -> Callable[[str], None]:
    """A line to pytest's terminal (nothing without a terminal reporter)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")

    def write(line: str) -> None:
        if reporter is not None:
            reporter.write_line(line)

    return write


def _tests_run(config: pytest.Config) -> bool:
    option = config.option
    return not (option.collectonly or getattr(option, "setuponly", False) or getattr(option, "setupplan", False))


def _measure(config: pytest.Config, perf_session: PerfSession, files: dict[str, str]) -> None:
    """Run the worker processes on the tests of *files* (node id -> file),
    with lines saying how far they are (and when they wait for the CPU lock)."""
    write = _writer(config)
    count = len(files)
    if perf_session.counting:
        write(f"perf: counting the instructions of {count} benchmark tests under valgrind ...")
    else:
        write(f"perf: measuring {count} benchmark tests in {perf_session.budget.processes} worker processes ...")

    def waiting(holders: Any) -> None:
        write(f"perf: waiting for another benchmark to finish ({holders[0].describe()})")

    cache = config.pluginmanager.get_plugin("cacheprovider") is not None
    perf_session.measure(files, lambda progress: write(progress_line(progress, count)), waiting, cache)
    assert perf_session.outcomes is not None
    for line in outcome_lines(perf_session.outcomes, count, xdist=perf_session.xdist, counting=perf_session.counting):
        write(line)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, None, None]:
    """Run the worker processes before the first test."""
    config = session.config
    perf_session = _session(config)
    alone = perf_session.worker is None and not perf_session.xdist and not perf_session.xdist_worker
    if alone and _tests_run(config) and session.items:
        chosen = perf_session.benchmark_items(session.items)
        if chosen:
            _measure(config, perf_session, {item.nodeid: str(item.path) for item in chosen})
    yield


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: Any) -> None:
    """Under xdist, measure before xdist starts its workers (serialised:
    the workers would run the tests in parallel)."""
    perf_session = _session(config)
    if not perf_session.xdist or not _tests_run(config):
        return
    try:
        files = perf_session.list_for_xdist(config.pluginmanager.get_plugin("cacheprovider") is not None)
    except PerfError as exc:
        _writer(config)(f"perf: ERROR: {exc}")
        _writer(config)("perf: the benchmarks are not measured; each benchmark function runs once")
        return
    if files:
        _measure(config, perf_session, files)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """pytest-benchmark's checks of the mark, on every test that has it."""
    marker = item.get_closest_marker("benchmark")
    if marker is not None:
        opts.check_mark(marker.args, dict(marker.kwargs))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    fixture = item.stash.get(FIXTURE, None)
    if fixture is None or report.when != "call":
        return
    if report.skipped:
        fixture.skipped = True
    if _session(item.config).xdist_worker and fixture.stats is not None and not fixture.has_error:
        # xdist's controller writes the files and the table: the report carries the benchmark there
        report.user_properties.append((PAYLOAD, fixture.stats.payload()))


class _XdistReports:
    """Registered in xdist's controller: takes the benchmarks that its
    workers' reports carry."""

    def __init__(self, perf_session: PerfSession) -> None:
        self.perf_session = perf_session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == PAYLOAD:
                self.perf_session.add(BenchmarkStats.from_payload(str(value)))


@pytest.fixture
def benchmark(request: pytest.FixtureRequest) -> Generator[BenchmarkFixture, None, None]:
    """pytest-benchmark's ``benchmark`` fixture, measured by perf."""
    session = _session(request.config)
    node = request.node
    if request.config.option.benchmark_skip and not request.config.option.benchmark_only:
        pytest.skip("Skipping benchmark (--benchmark-skip active).")
    settings = session.settings
    marker = node.get_closest_marker("benchmark")
    if marker is not None:
        settings = settings.with_mark(marker.kwargs)
    fixture: BenchmarkFixture
    if session.worker is not None:
        fixture = WorkerFixture(node, settings, session, disabled=False)
        fixture.recorder = session.worker
        fixture.budget = session.budget
    else:
        fixture = BenchmarkFixture(node, settings, session, disabled=session.disabled)
        fixture.pedantic_disabled = session.disabled or session.xdist_worker
        fixture.pedantic_kept = not session.counting
    node.stash[FIXTURE] = fixture
    yield fixture
    if not fixture.used and not fixture.skipped and session.worker is None:
        node.warn(PerfBenchmarkWarning("Benchmark fixture was not used at all in this test!"))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    perf_session = config.stash.get(SESSION, None)
    if perf_session is None or perf_session.worker is not None or perf_session.xdist_worker:
        return
    perf_session.forget_results_file()
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        return
    lines = perf_session.summary
    try:
        lines.extend(perf_session.write_files(config.hook, config))
        lines[:0] = perf_session.compare()
    except PerfError as exc:
        lines.append(f"perf: ERROR: {exc}")
        perf_session.slower = True
    if perf_session.slower and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    perf_session = config.stash.get(SESSION, None)
    if perf_session is None or perf_session.worker is not None or perf_session.xdist_worker:
        return
    lines = []
    if not config.option.benchmark_quiet:
        lines.extend(results_table(perf_session.results()))
    lines.extend(perf_session.summary)
    if not lines:
        return
    terminalreporter.write_sep("-", "perf: benchmarks")
    for line in lines:
        terminalreporter.write_line(line)
