"""One pytest session's benchmarks: options checked, workers run, files.

:class:`PerfSession` is made in ``pytest_configure``.  It checks every
option and loads every file it will compare with before any test runs, so a
bad option or an unreadable file stops the session at once.  In pytest's
process it runs the worker processes before the first test
(:meth:`PerfSession.measure`), gives each ``benchmark`` fixture its numbers
(the :class:`perf.pytest_plugin.fixture.Results` protocol), and at the end
writes the files (:meth:`PerfSession.write_files`) and compares
(:meth:`PerfSession.compare`).  Under xdist, pytest's process (xdist's
controller) measures before xdist starts its workers; they read the
outcomes from a file named in the environment (:data:`RESULTS_ENV`), and
their reports carry each finished benchmark back to it.  In a worker
process it only knows what to measure.  With ``--perf-metric
instructions`` it also checks valgrind and the options counts refuse,
and counts instead (:func:`perf.measure.parent.batches.count_batches`).

Must not: print (the plugin shows :attr:`PerfSession.summary`), exit.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import tempfile
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from perf.errors import PerfError, UsageError
from perf.measure.protocol import BatchSpec
from perf.model.metadata import COUNT_UNIT
from perf.pytest_plugin import compat_json
from perf.pytest_plugin.fixture import BenchmarkFixture, BenchmarkStats, entry_unit
from perf.pytest_plugin.measure import IN_PYTEST, measure_function
from perf.pytest_plugin.options import (
    COUNT_SAMPLES,
    IGNORED_OPTIONS,
    FailCheck,
    PytestBudget,
    Settings,
    check_count_options,
    count_budget,
    parse_fail_expression,
)
from perf.pytest_plugin.report import header_lines, other_tool_line, other_unit_line, saved_comparison_table
from perf.pytest_plugin.workers import WorkerRecorder, pytest_command

if TYPE_CHECKING:  # a worker process imports this module: results and files are imported when used
    from perf.measure.parent.batches import Command, Outcomes, Progress
    from perf.model.benchmark import Benchmark
    from perf.model.suite import BenchmarkSuite
    from perf.platform.lock import Holder


def _writable_folder(option: str, path: str) -> None:
    from perf.measure.parent.sides import check_writable_folder

    check_writable_folder(path, label=option)
    if os.path.isdir(path):
        raise UsageError(f"{option}: {path} is a folder")


#: the environment variable that gives xdist's workers the outcomes file
RESULTS_ENV = "PERF_PYTEST_RESULTS"


class PerfSession:
    """The benchmarks of one pytest session (see the module documentation)."""

    def __init__(
        self, option: Any, invocation_args: Sequence[str], invocation_dir: str, xdist: bool, xdist_worker: bool = False
    ) -> None:
        self.option = option
        self.invocation_args = list(invocation_args)
        self.invocation_dir = invocation_dir
        self.worker = WorkerRecorder(BatchSpec.load(option.perf_worker)) if option.perf_worker else None
        disabled = bool(option.benchmark_disable and not option.benchmark_enable)
        if option.benchmark_only and disabled:
            raise UsageError(
                "--benchmark-only would run only benchmarks, and none is measured with --benchmark-disable"
            )
        #: xdist distributes the tests: this process (xdist's controller)
        #: measures before xdist starts its workers, which read the outcomes
        self.xdist = xdist and not xdist_worker and not disabled
        #: this is one of xdist's workers
        self.xdist_worker = xdist_worker
        results = os.environ.get(RESULTS_ENV) if xdist_worker and self.worker is None else None
        #: an xdist worker without the controller's outcomes measures nothing
        self.disabled = disabled or (xdist_worker and not results)
        self.results_file: str | None = None
        #: --perf-metric instructions: the values are counts (workers under cachegrind)
        self.counting = option.perf_metric == "instructions"
        #: the budget of the worker processes that time (with counts: the one that calibrates the loops)
        self.budget: PytestBudget = count_budget(option.perf_budget) if self.counting else option.perf_budget
        self.settings = Settings.of_options(option)
        #: pytest's -v: the comparison's notes too
        self.verbose = bool(getattr(option, "verbose", 0) > 0 or option.benchmark_verbose)
        self.finished: list[BenchmarkStats] = []
        self.outcomes: Outcomes | None = None
        if results and not self.disabled:
            from perf.measure.parent.batches import Outcomes

            self.outcomes = Outcomes.load(results)
        #: lines for pytest's terminal summary
        self.summary: list[str] = []
        #: the session's benchmarks got slower than a gate
        self.slower = False
        self.reference: BenchmarkSuite | None = None
        self.compared: list[tuple[str, dict[str, Any]]] = []
        self.fail_checks: list[FailCheck] = []
        if self.worker is None and not xdist_worker:
            if self.counting:
                self._check_counts()
            self._check_outputs()
            self._load_comparisons()

    # -- before any test ------------------------------------------------------

    def _check_counts(self) -> None:
        check_count_options(self.option)
        if not self.disabled:
            from perf.measure.cachegrind import valgrind_version

            valgrind_version("--perf-metric instructions")  # installed, and it runs

    def _check_outputs(self) -> None:
        option = self.option
        for name, path in (("--perf-output", option.perf_output), ("--benchmark-json", option.benchmark_json)):
            if path:
                _writable_folder(name, path)
        if option.benchmark_save:
            try:
                compat_json.check_save_name(option.benchmark_save)
            except UsageError as exc:
                raise UsageError(f"--benchmark-save: {exc}") from None
        if option.benchmark_save or option.benchmark_autosave:
            compat_json.parse_storage(option.benchmark_storage)  # elasticsearch: refused now, not after measuring
        if option.perf_fail_on_slowdown is not None and not option.perf_compare:
            raise UsageError("--perf-fail-on-slowdown needs --perf-compare FILE (the result to compare with)")
        self.fail_checks = [parse_fail_expression(text) for text in option.benchmark_compare_fail or ()]

    def _load_comparisons(self) -> None:
        option = self.option
        if option.perf_compare:
            try:
                from perf.model.suite import BenchmarkSuite

                self.reference = BenchmarkSuite.load(option.perf_compare)
            except (PerfError, OSError, ValueError) as exc:
                raise UsageError(f"--perf-compare: {exc}") from None
        if option.benchmark_compare is not None:
            storage = compat_json.parse_storage(option.benchmark_storage)
            value = option.benchmark_compare or None
            unit, other_unit = COUNT_UNIT if self.counting else "seconds", []
            for path in compat_json.find_compare_files(storage, value):
                document = compat_json.load_saved(path)
                entries = document["benchmarks"]
                document["benchmarks"] = [entry for entry in entries if entry_unit(entry) == unit]  # times or counts
                other_unit += [path.stem] if len(document["benchmarks"]) < len(entries) else []
                self.compared.append((path.stem, document))
            if other_unit:
                self.summary.append(other_unit_line(other_unit, unit))
            if not self.compared:
                where = f" match {value!r}" if value else ""
                self.summary.append(f"perf: can't compare: no benchmark files in {str(storage)!r}{where}")
        if self.fail_checks and not self.compared:
            raise UsageError("--benchmark-compare-fail requires valid --benchmark-compare.")

    def header(self) -> list[str]:
        """The lines of pytest's report header."""
        ignored = [name for name in IGNORED_OPTIONS if _given(self.option, name)]
        return header_lines(self.option.perf_budget, self.option.perf_budget_name, self.xdist, self.counting, ignored)

    # -- the workers ----------------------------------------------------------

    def benchmark_items(self, items: Sequence[Any]) -> list[Any]:
        """The tests of *items* the workers measure: those that use the
        fixture and are not skipped by a mark (none when measuring is off)."""
        if self.disabled:
            return []
        chosen = [item for item in items if "benchmark" in getattr(item, "fixturenames", ())]
        return [item for item in chosen if item.get_closest_marker("skip") is None]

    def worker_command(self, cache: bool = True) -> Command:
        """The pytest command of the worker processes (never distributed by
        xdist); *cache*: pytest's cache plugin is on."""
        return pytest_command(self.invocation_args, xdist=self.xdist, cache=cache)

    def list_for_xdist(self, cache: bool = True) -> dict[str, str]:
        """Under xdist: the node ids of the benchmark tests and their files,
        from a worker (this process collects nothing)."""
        from perf.measure.parent.batches import list_tests

        return list_tests(self.worker_command(cache), self.invocation_dir)

    def measure(
        self,
        files: Mapping[str, str],
        on_progress: Callable[[Progress], None],
        on_lock_wait: Callable[[list[Holder]], None],
        cache: bool = True,
    ) -> None:
        """Run the worker processes for the tests of *files* (node id -> its
        file): under the CPU lock, or counting them.  Under xdist, leave the
        outcomes where xdist's workers, started next, will read them."""
        from perf.measure.parent.batches import count_batches, run_batches

        command, cwd = self.worker_command(cache), self.invocation_dir
        if self.counting:
            self.outcomes = count_batches(files, COUNT_SAMPLES, command=command, cwd=cwd, on_progress=on_progress)
        else:
            paths, processes = sorted(set(files.values())), self.budget.processes
            self.outcomes = run_batches(
                list(files),
                paths,
                processes,
                command=command,
                cwd=cwd,
                on_progress=on_progress,
                on_lock_wait=on_lock_wait,
            )
        if self.xdist:
            descriptor, path = tempfile.mkstemp(prefix="perf-pytest-", suffix=".json")
            os.close(descriptor)
            self.outcomes.save(path)
            self.results_file = path
            os.environ[RESULTS_ENV] = path  # inherited by xdist's workers

    def forget_results_file(self) -> None:
        """Remove the file of :meth:`measure` under xdist."""
        if self.results_file is not None:
            os.environ.pop(RESULTS_ENV, None)
            with contextlib.suppress(OSError):
                os.unlink(self.results_file)
            self.results_file = None

    # -- the Results protocol of the fixture ------------------------------------

    def measured(self, nodeid: str) -> Benchmark | str | None:
        if self.outcomes is None:
            return None
        return self.outcomes.get(nodeid)

    def measure_here(
        self, fixture: BenchmarkFixture, fn: Callable[..., Any], args: Any, kwargs: Any
    ) -> Benchmark | None:
        if self.counting:
            return None  # counts need workers under valgrind
        budget = self.budget
        alone = budget._replace(processes=1, values=budget.processes * budget.values)
        return measure_function(
            fixture.fullname, fn, args, kwargs, settings=fixture.settings, budget=alone, loops=0, measured_in=IN_PYTEST
        )

    def add(self, stats: BenchmarkStats) -> None:
        self.finished.append(stats)

    # -- after the tests --------------------------------------------------------

    def results(self) -> list[BenchmarkStats]:
        """The benchmarks that finished without an error."""
        return [stats for stats in self.finished if not stats.has_error]

    def pytest_benchmark_document(self, hook: Any, config: Any, include_data: bool) -> dict[str, Any]:
        """pytest-benchmark's JSON document, through its hooks."""
        from perf import __version__

        results = self.results()
        machine_info = hook.pytest_benchmark_generate_machine_info(config=config) or compat_json.machine_info()
        hook.pytest_benchmark_update_machine_info(config=config, machine_info=machine_info)
        commit_info = hook.pytest_benchmark_generate_commit_info(config=config) or compat_json.commit_info(
            self.invocation_dir
        )
        hook.pytest_benchmark_update_commit_info(config=config, commit_info=commit_info)
        document = hook.pytest_benchmark_generate_json(
            config=config,
            benchmarks=results,
            include_data=include_data,
            machine_info=machine_info,
            commit_info=commit_info,
        )
        if document is None:
            entries = [stats.as_dict(include_data=include_data) for stats in results]
            document = compat_json.document(machine_info, commit_info, entries, f"perf {__version__}")
        hook.pytest_benchmark_update_json(config=config, benchmarks=results, output_json=document)
        return document  # type: ignore[no-any-return]

    def write_files(self, hook: Any, config: Any) -> list[str]:
        """Write --benchmark-json, --benchmark-save/--benchmark-autosave and
        --perf-output; the lines saying what was written."""
        option = self.option
        results = self.results()
        wanted = option.benchmark_json or option.benchmark_save or option.benchmark_autosave or option.perf_output
        if not wanted or self.disabled:
            return []
        if not results:
            return ["perf: not saving anything, no benchmarks have been run"]
        from perf.storage.files import write_atomic

        lines = []
        if option.benchmark_json:
            text = compat_json.dumps(self.pytest_benchmark_document(hook, config, include_data=True))
            write_atomic(option.benchmark_json, text.encode("utf-8"), replace=True)  # as pytest-benchmark: replaced
            lines.append(f"perf: wrote benchmark data in {option.benchmark_json}")
        name = option.benchmark_save
        if option.benchmark_autosave and not name:
            info = compat_json.commit_info(self.invocation_dir)
            name = compat_json.autosave_name(info, datetime.datetime.now(datetime.timezone.utc))
        if name:
            document = self.pytest_benchmark_document(hook, config, include_data=option.benchmark_save_data)
            path = compat_json.next_save_path(compat_json.parse_storage(option.benchmark_storage), name)
            compat_json.save(path, compat_json.dumps(document))
            lines.append(f"perf: saved benchmark data in {path}")
        if option.perf_output:
            from perf.model.suite import BenchmarkSuite

            BenchmarkSuite([stats.perf for stats in results]).dump(option.perf_output, replace=True)
            lines.append(f"perf: wrote perf's results in {option.perf_output}")
        return lines

    def compare(self) -> list[str]:
        """--perf-compare and --benchmark-compare: the tables, and whether a
        gate failed (:attr:`slower`)."""
        lines: list[str] = []
        results = self.results()
        if self.reference is not None and results:
            lines.extend(self._perf_compare(results))
        if self.compared and results:
            lines.extend(self._pytest_benchmark_compare(results))
        return lines

    def _perf_compare(self, results: list[BenchmarkStats]) -> list[str]:
        from perf.analysis.compare import DEFAULT_MARGIN
        from perf.analysis.finished import find_slowdowns, finish_comparison
        from perf.model.suite import BenchmarkSuite
        from perf.render.compare_notes import comparison_error
        from perf.render.compare_to import Layout, format_compare_to, format_slowdowns

        assert self.reference is not None
        current = BenchmarkSuite([stats.perf for stats in results], filename="this session")
        reference = self.reference
        suites = [reference, current]
        comparison = finish_comparison(
            [list(reference), list(current)], DEFAULT_MARGIN, False, True, win_rates=True, suites=suites
        )
        titles = [str(reference.filename), "this session"]
        error = comparison_error(comparison.suite, titles)
        if error is not None:
            return [f"perf: --perf-compare: {error}"]
        # the notes on a busy machine and on chance need -v: pytest's
        # summary keeps the table and the verdicts, and counts the
        # busy-machine notes in one line
        layout = Layout(titles, verbose=True, table=True, quiet=not self.verbose, busy_notes=self.verbose)
        lines = [f"perf: compared with {reference.filename}"]
        lines.extend(format_compare_to(suites, comparison, layout))
        percent = self.option.perf_fail_on_slowdown
        if percent is not None:
            found = find_slowdowns(comparison, percent)
            if found:
                self.slower = True
                lines.extend(format_slowdowns(found, layout, comparison.margin, percent))
                lines.append(f"perf: FAILED: {len(found)} slower beyond +{percent:g}% with their whole interval")
        return lines

    def _pytest_benchmark_compare(self, results: list[BenchmarkStats]) -> list[str]:
        rows: list[tuple[str, float, float | None]] = []
        failures = []
        matched: set[str] = set()  # the saved runs with a benchmark of this session
        for stats in results:
            current = stats.stats.as_dict()
            rows.append((f"{stats.name} (NOW)", current["mean"], None))
            for source, document in self.compared:
                for entry in document.get("benchmarks", ()):
                    if entry.get("fullname") != stats.fullname:
                        continue
                    old = entry["stats"]
                    matched.add(source)
                    rows.append((f"{stats.name} ({source})", old["mean"], current["mean"]))
                    for check in self.fail_checks:
                        failure = check.failure(current[check.field], old[check.field])
                        if failure:
                            failures.append(f"\t{stats.name} ({source}) - {failure}")
        lines = saved_comparison_table(rows, COUNT_UNIT if self.counting else "seconds")
        other_tool = [
            source
            for source, document in self.compared
            if source in matched and not compat_json.measured_by_perf(document)
        ]
        if other_tool:
            lines.append(other_tool_line(other_tool))
        if failures:
            self.slower = True
            lines.append("Performance has regressed:")
            lines.extend(failures)
        return lines


def _given(option: Any, name: str) -> bool:
    value = getattr(option, name, None)
    return value not in (None, False, "", (), [])
