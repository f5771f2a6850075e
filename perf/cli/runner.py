"""``perf.Runner``: the entry point of bench scripts, ``timeit`` and ``command``.

A bench script is a command-line program: the Runner parses its options,
decides whether this process is the parent (spawn workers, print, save) or
a worker (measure one benchmark, send it through the pipe, or run in place
with ``--worker`` alone: print it and save it to ``-o``/``--append``), and
owns what the user sees.  Exit status: 2 for a usage error (a bad option),
1 for any other error, 124 for ``--timeout``.  That is why it lives in :mod:`perf.cli`, the only layer
that prints and exits; the measuring itself is :mod:`perf.measure`.

Keyword-compatible with ``pyperf.Runner`` (compat spec section 2.5): a
script written for pyperf runs unchanged with ``import perf as pyperf``.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import sys
from typing import Any, Awaitable, Callable, ClassVar, NoReturn, Sequence

from perf.cli.main import ERROR_EXIT_STATUS, USAGE_EXIT_STATUS, ArgumentParser, exit_status
from perf.errors import (
    CpuBusyError,
    IncompatibleRunError,
    PerfError,
    ResultFileError,
    UsageError,
    WorkerError,
    WorkerTimeoutError,
    ZeroValueError,
)
from perf.measure import options as runner_options
from perf.measure.options import AUTO, DEFAULT_BUDGET, JIT_BUDGET, Budget, command_program
from perf.measure.tasks import Task
from perf.model.benchmark import Benchmark
from perf.model.metadata import DEFAULT_CLOCK

__all__ = ["ArgumentParser", "Runner", "command_program"]

#: exit status of a run stopped by --timeout (pyperformance relies on it)
TIMEOUT_EXIT_STATUS = 124

_DEFAULT_WARMUPS: Any = object()


def _fail(message: str, status: int = ERROR_EXIT_STATUS) -> NoReturn:
    sys.stdout.flush()
    print(f"ERROR: {message}", file=sys.stderr)
    sys.exit(status)


def _fail_on(error: PerfError) -> NoReturn:
    _fail(str(error), exit_status(error))


class Runner:
    """Run benchmarks in worker processes and collect every value."""

    _created: ClassVar[set[type]] = set()

    def __init__(  # noqa: PLR0917 (pyperf's positional order)
        self,
        values: int | None = None,
        processes: int | None = None,
        loops: int = 0,
        min_time: float = 0.1,
        metadata: dict[str, Any] | None = None,
        show_name: bool = True,
        program_args: Sequence[str] | None = None,
        add_cmdline_args: Callable[[list[str], argparse.Namespace], None] | None = None,
        _argparser: argparse.ArgumentParser | None = None,
        warmups: int | None = _DEFAULT_WARMUPS,
        hooks: Sequence[Any] | None = None,
    ) -> None:
        key = type(self)
        if key in Runner._created:
            raise RuntimeError(
                f"only one {type(self).__name__} instance must be created per process: "
                "use the same instance to run all benchmarks"
            )
        Runner._created.add(key)
        from perf.collect.python import python_has_jit

        self._jit = python_has_jit()
        #: the constructor's choices (None: the interpreter's default)
        self._given = (processes or None, values or None)
        self._given_warmups: int | str | None = None
        if warmups is not _DEFAULT_WARMUPS:
            self._given_warmups = AUTO if warmups is None else warmups
        self._budget, self._warmups = self._budget_for(self._jit)
        self._explicit: dict[str, Any] = {}
        self.metadata: dict[str, Any] = metadata if metadata is not None else {}
        self._show_name = show_name
        self._program_args = tuple(program_args) if program_args else (sys.argv[0],)
        self._add_cmdline_args = add_cmdline_args
        self._hooks = self._check_hooks(hooks)
        self._command: str | None = None
        self._task_index = 0
        self._names: set[str] = set()
        self._written: set[str] = set()
        #: a shuffled suite: its benchmarks' names and results (per side)
        self._suite: list[str] = []
        self._results: list[list[Benchmark]] = []
        self._managers: tuple[list[Any], tuple[str, str] | None] | None = None
        self._lock: Any = None
        #: --compare-to: the labels of the two sides (they name the files)
        self._labels: tuple[str, str] | None = None
        #: what each interpreter other than this one said when probed
        self._probes: dict[str, Any] = {}
        #: the existing --append files (per side), loaded by the option checks
        self._append_suites: dict[str, Any] = {}
        #: the task of each benchmark declared so far (built on demand: the
        #: parent reads its inner loops and metadata, and never runs it)
        self._declared: dict[str, Callable[[], Task]] = {}
        self._local_metadata: dict[str, Any] | None = None
        self.args: argparse.Namespace | None = None
        self.argparser = _argparser if _argparser is not None else ArgumentParser(description="Benchmark")
        runner_options.add_runner_arguments(self.argparser, self._budget, self._warmups, loops, min_time)

    def _budget_for(self, jit: bool) -> tuple[Budget, int | str]:
        """Processes, values and warmups for workers with or without a JIT."""
        base = JIT_BUDGET if jit else DEFAULT_BUDGET
        budget = Budget(self._given[0] or base.processes, self._given[1] or base.values)
        default_warmups: int | str = AUTO if jit else 1
        return budget, default_warmups if self._given_warmups is None else self._given_warmups

    @staticmethod
    def _check_hooks(hooks: Sequence[Any] | None) -> tuple[Any, ...]:
        if hooks is None:
            return ()
        if not isinstance(hooks, (list, tuple)):
            raise RuntimeError("hooks must be a list or a tuple of hook descriptors")
        for hook in hooks:
            if not hasattr(hook, "name") or not callable(getattr(hook, "load", None)):
                raise RuntimeError(f"invalid hook descriptor {hook!r}: it needs a 'name' and a 'load()'")
        return tuple(hooks)

    # -- options ---------------------------------------------------------------

    def parse_args(self, args: Sequence[str] | None = None) -> argparse.Namespace:
        """Parse and check the command line (``sys.argv[1:]`` by default)."""
        if self.args is not None:
            if args is None:
                return self.args
            raise RuntimeError("arguments already parsed")
        try:
            namespace = self.argparser.parse_args(args)
            self._check_args(namespace)
        except PerfError as exc:
            _fail_on(exc)
        self.args = namespace
        return namespace

    def _check_args(self, args: argparse.Namespace) -> None:
        self._explicit = {name: getattr(args, name) for name in ("processes", "values", "warmups")}
        if not args.worker:
            self._probe_interpreters(args)
        # the defaults of the interpreter that runs the workers
        budget, warmups = self._budget_for(self._worker_jit(args.python, args.worker))
        runner_options.check_runner_args(args, budget, warmups, self._command)
        if not args.worker and self._program_args[0] in ("-c", "", "-"):
            raise UsageError("workers re-run the bench script: save it to a file instead of using python -c or stdin")
        if args.compare_to and not args.worker:
            self._labels = runner_options.side_labels(args, self._command)
        _check_hooks_names(args.hook, self._hooks)
        if args.tracemalloc:
            try:
                import tracemalloc  # noqa: F401
            except ImportError as exc:
                raise UsageError(f"--tracemalloc is not available on this Python: {exc}") from None
        if args.track_memory and not args.worker:
            from perf.measure.memory import peak_rss_supported

            if not peak_rss_supported():
                raise UsageError("--track-memory is not supported on this platform")
        if args.append and (not args.worker or args.pipe is None):
            self._load_appends(args.append)
        if args.affinity and not args.worker:
            _check_affinity(args.affinity)
        elif not args.worker and not args.affinity:
            from perf.platform.cpus import format_cpu_list, get_isolated_cpus

            isolated = get_isolated_cpus()
            if isolated:
                args.affinity = format_cpu_list(isolated)

    def _load_appends(self, path: str) -> None:
        """The existing --append files (one per side with --compare-to):
        a broken file is reported now, not after the run; their benchmarks
        are checked against this run's before its first worker."""
        from perf.storage.files import load

        for side_path in runner_options.output_paths(path, self._labels):
            if os.path.exists(side_path):
                self._append_suites[side_path] = load(side_path)

    # -- benchmark methods -------------------------------------------------------

    def bench_time_func(
        self,
        name: str,
        time_func: Callable[..., float],
        *args: Any,
        inner_loops: int | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Benchmark | None:
        """Benchmark ``time_func(loops, *args)``, which returns the seconds
        taken by all the loops."""
        from perf.measure.tasks import time_func_time_function

        return self._main(
            name,
            lambda: Task(name, time_func_time_function(time_func, args), inner_loops, metadata),
            cpu_clock_refusal=f"bench_time_func() ({name!r}): the function times itself, so perf cannot choose "
            "its clock",
        )

    def bench_func(
        self,
        name: str,
        func: Callable[..., Any],
        *args: Any,
        inner_loops: int | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Benchmark | None:
        """Benchmark ``func(*args)``."""
        from perf.measure.tasks import empty_loop_time_function, func_time_function

        return self._main(
            name,
            lambda: Task(
                name,
                func_time_function(func, args, self._clock()),
                inner_loops,
                metadata,
                overhead_function=empty_loop_time_function(self._clock()),
            ),
        )

    def bench_async_func(
        self,
        name: str,
        func: Callable[..., Awaitable[Any]],
        *args: Any,
        inner_loops: int | None = None,
        metadata: dict[str, Any] | None = None,
        loop_factory: Callable[[], Any] | None = None,
    ) -> Benchmark | None:
        """Benchmark ``await func(*args)``, in a new event loop per value."""
        from perf.measure.tasks import async_time_function

        return self._main(
            name,
            lambda: Task(name, async_time_function(func, args, loop_factory, self._clock()), inner_loops, metadata),
        )

    def timeit(  # noqa: PLR0917 (pyperf's positional order)
        self,
        name: str,
        stmt: str | Sequence[str] | None = None,
        setup: str | Sequence[str] = "pass",
        teardown: str | Sequence[str] = "pass",
        inner_loops: int | None = None,
        duplicate: int | None = None,
        metadata: dict[str, Any] | None = None,
        globals: dict[str, Any] | None = None,
    ) -> Benchmark | None:
        """Benchmark Python statements, like the :mod:`timeit` module."""
        from perf.measure.tasks import TimeitCode

        if stmt is None:
            stmt = name
        try:
            code = TimeitCode(stmt, setup, teardown, duplicate, globals)
        except UsageError as exc:
            _fail(str(exc), self._code_error_status())
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())

        if duplicate and duplicate > 1:
            # each loop iteration runs the statement *duplicate* times
            inner_loops = (inner_loops or 1) * duplicate

        def task() -> Task:
            task_metadata = code.metadata()
            task_metadata.update(metadata or {})
            clock = self._clock()
            return Task(
                name,
                code.time_function(clock),
                inner_loops,
                task_metadata,
                overhead_function=code.overhead_function(clock),
            )

        return self._main(name, task)

    def bench_command(self, name: str, command: Sequence[str]) -> Benchmark | None:
        """Benchmark the wall time of running a program."""
        from perf.measure.tasks import CommandTimer, check_program

        try:
            found = check_program(command)
        except UsageError as exc:
            _fail(str(exc), self._code_error_status())

        def task() -> Task:
            timer = CommandTimer(found, given=command)
            return Task(name, timer, collect=timer.collect, memory_function=timer.peak_memory)

        return self._main(
            name,
            task,
            cpu_clock_refusal=f"bench_command() ({name!r}): the command runs in another process, whose CPU "
            "time the worker's thread clock does not count",
        )

    def _code_error_status(self) -> int:
        """A statement that does not compile, a program not found: a usage
        error of ``python -m perf timeit/command`` (their arguments), a
        failure of a bench script (its code)."""
        return USAGE_EXIT_STATUS if self._command else ERROR_EXIT_STATUS

    def _clock(self) -> Callable[[], float]:
        """The clock of ``--clock``, which the time functions read."""
        from perf.measure.clock import get_clock

        assert self.args is not None
        return get_clock(self.args.clock)

    # -- parent or worker ------------------------------------------------------------

    def _main(self, name: str, make_task: Callable[[], Task], cpu_clock_refusal: str | None = None) -> Benchmark | None:
        """Declare benchmark *name*, then measure it (a worker whose task it
        is), run its workers (the parent), or skip it.  *cpu_clock_refusal*:
        why ``--clock cpu`` cannot time it (a usage error, before anything
        runs: in the parent, in the worker that lists the benchmarks, and in
        its own worker)."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"a benchmark name must be a non-empty string, got {name!r}")
        if name in self._names:
            raise ValueError(f"duplicated benchmark name: {name!r}")
        self._names.add(name)
        self._declared[name] = make_task
        args = self.parse_args()
        index = self._task_index
        self._task_index += 1
        measures_it = not args.worker or args.worker_list or args.worker_task in (None, index)
        if cpu_clock_refusal and args.clock != DEFAULT_CLOCK and measures_it:
            _fail(f"--clock {args.clock} cannot be used with {cpu_clock_refusal}", USAGE_EXIT_STATUS)
        if args.worker:
            if args.worker_list:
                _announce(name, args.pipe)
                return None
            if args.worker_task is not None and args.worker_task != index:
                return None
            return self._worker(make_task(), args)
        try:
            return self._run(index, name)
        except KeyboardInterrupt:
            print("\nBenchmark interrupted: exit", file=sys.stderr)
            sys.exit(1)
        except WorkerTimeoutError as exc:
            _fail(str(exc), TIMEOUT_EXIT_STATUS)
        except PerfError as exc:
            _fail_on(exc)

    def _worker(self, task: Task, args: argparse.Namespace) -> Benchmark:
        """Measure *task* in this process: send it to the parent, or (run
        in place, without --pipe: under a profiler or a debugger) print it
        and save it to -o/--append."""
        from perf.cli import display
        from perf.measure.worker import run_task, send

        in_place = args.pipe is None
        memory = bool(args.track_memory or args.tracemalloc)
        on_sample = display.sample_printer(task, "byte" if memory else "second") if args.verbose else None
        try:
            if in_place:
                self._check_append([task.name], sys.executable)
            benchmark = run_task(
                task, args, self.metadata, clock=self._clock(), on_sample=on_sample, hook_descriptors=self._hooks
            )
        except KeyboardInterrupt:
            sys.exit(1)
        except ZeroValueError as exc:
            if in_place:
                # pyperf's exception, which the script can catch
                raise ValueError("benchmark function returned zero") from exc
            _fail_on(exc)
        except PerfError as exc:
            _fail_on(exc)
        except Exception as exc:
            # the benchmarked code failed: its traceback, without perf's frames
            _print_user_traceback(exc)
            sys.exit(1)
        if not in_place:
            send(benchmark, args.pipe)
            return benchmark
        display.print_result(benchmark, args, self._show_name, checks=False)
        try:
            self._save(benchmark)
        except PerfError as exc:
            _fail_on(exc)
        return benchmark

    def _manager(self, python: str, args: argparse.Namespace | None = None) -> Any:
        from perf.measure.manager import Manager

        assert self.args is not None
        return Manager(args or self.args, python, self._program_args, self._add_cmdline_args)

    def _worker_jit(self, python: str | None, worker: bool) -> bool:
        if worker or not python or os.path.realpath(python) == os.path.realpath(sys.executable):
            return self._jit
        probe = self._probes.get(python)
        return probe is not None and probe.implementation in ("pypy", "graalpy")

    def _probe_interpreters(self, args: argparse.Namespace) -> None:
        """--python and --compare-to: their absolute paths, then each other
        interpreter runs once as its workers will start (the worker
        environment, ``python -c "import perf"``), before the CPU lock and
        any worker: one that cannot import perf is reported now, in one
        line.  What it says (JIT, the metadata of its runs) is kept."""
        from perf.measure.environment import runner_environment

        options = ("python",) if self._command == "command" else ("python", "compare_to")
        for option in options:
            value = getattr(args, option)
            if not value or not value.strip():
                continue
            python = runner_options.absolute_executable(value, option)
            setattr(args, option, python)
            if python == sys.executable or python in self._probes:
                continue
            environment = tuple(sorted(runner_environment(args).items()))
            try:
                self._probes[python] = _probe_python(python, environment)
            except UsageError as exc:
                raise UsageError(f"--{option.replace('_', '-')}: {exc}") from None

    def _side_args(self, python: str) -> argparse.Namespace:
        """--compare-to: the options of one side, with the defaults of its
        interpreter (a JIT gets fewer, longer processes) unless given."""
        assert self.args is not None
        side = argparse.Namespace(**vars(self.args))
        for option, value in self._explicit.items():
            setattr(side, option, value)
        runner_options.apply_budget(side, *self._budget_for(self._worker_jit(python, False)))
        return side

    def _run(self, index: int, name: str) -> Benchmark | None:
        """The parent: run (or, in a shuffled suite, look up) the results
        of benchmark number *index*, save and print them.  A comparison
        returns None, as in pyperf."""
        from perf.cli import display

        args = self.args
        assert args is not None
        if index == 0:
            self._check_appends([name])  # before waiting for the lock
            self._lock_cpus()
            display.print_layout_warnings(args)
            names = self._suite_names(name)
            if len(names) > 1:
                # a suite: every benchmark runs now, in shuffled rounds
                self._check_appends(names[1:])
                self._suite = names
                self._results = self._run_benchmarks(list(enumerate(names)), shuffle=True)
        if self._results:
            if index >= len(self._suite) or self._suite[index] != name:
                listed = self._suite[index] if index < len(self._suite) else "nothing"
                raise WorkerError(
                    f"benchmark {index + 1} of the script is {name!r}, but the worker that listed the "
                    f"benchmarks found {listed!r} there: does the script declare the same benchmarks in "
                    "every process (custom options must reach workers through add_cmdline_args)?"
                )
            results = self._results[index]
        else:
            if index:
                self._check_appends([name])
            results = self._run_benchmarks([(index, name)])[0]
        self._show(name, results)
        return results[0] if len(results) == 1 else None

    def _lock_cpus(self) -> None:
        """Hold the lock of the CPUs the workers use (all of them without
        --affinity) until this process exits, so that two perf runs, or a
        run and ``system tune``, never overlap; --lock chooses what to do
        when another run holds it."""
        from perf.platform.cpus import format_cpu_list, get_cpu_affinity, parse_cpu_list
        from perf.platform.lock import CpuLock

        args = self.args
        assert args is not None
        if args.lock == "none":
            return
        cpus = (
            parse_cpu_list(args.affinity) if args.affinity else sorted(get_cpu_affinity() or range(os.cpu_count() or 1))
        )
        argv = list(sys.argv)
        if self._program_args[:2] == ("-m", "perf"):  # python -m perf timeit: not .../perf/__main__.py timeit
            argv[:1] = ["-m", "perf"]
        import shlex

        lock = CpuLock(cpus, command=[shlex.quote(word) for word in (os.path.basename(sys.executable), *argv)])

        def waiting(holders: list[Any]) -> None:
            sys.stdout.flush()
            cpu_text = format_cpu_list(holder.cpu for holder in holders)
            print(
                f"Waiting for the benchmark running on CPU {cpu_text} ({holders[0].describe()}) to finish "
                "(--lock fail: stop instead)",
                file=sys.stderr,
                flush=True,
            )

        holders = lock.acquire(wait=args.lock == "wait", on_wait=waiting)
        if holders:
            cpu_text = format_cpu_list(holder.cpu for holder in holders)
            raise CpuBusyError(
                f"another benchmark is running on CPU {cpu_text} ({holders[0].describe()}): wait for it to "
                "finish, or use --lock wait"
            )
        self._lock = lock  # held until exit

    def _suite_names(self, name: str) -> list[str]:
        """The benchmarks of a bench script, listed by a worker before the
        first runs so that they can be shuffled; ``[name]`` when nothing is
        to shuffle (``timeit``, ``command``, ``--no-shuffle``)."""
        args = self.args
        assert args is not None
        if self._command is not None or args.no_shuffle:
            return [name]
        names: list[str] = self._sides()[0][-1].list_benchmarks()
        if names[0] != name or len(set(names)) != len(names):
            raise WorkerError(
                f"the worker that listed the script's benchmarks found {', '.join(map(repr, names))}, "
                f"but the script starts with {name!r}: does it declare the same benchmarks in every process "
                "(custom options must reach workers through add_cmdline_args)?"
            )
        return names

    def _sides(self) -> tuple[list[Any], tuple[str, str] | None]:
        """The managers of the run (one; with --compare-to: reference and
        changed, each with its interpreter's defaults) and the labels of a
        comparison."""
        if self._managers is not None:
            return self._managers
        args = self.args
        assert args is not None
        if not args.compare_to:
            self._managers = [self._manager(args.python)], None
            return self._managers
        pythons = self._pythons()
        sides = [self._side_args(python) for python in pythons]
        if self._command == "command":
            # two programs, run by workers of the same interpreter
            import shlex

            sides[0].program = ["--", *shlex.split(args.compare_to)]
        self._managers = [self._manager(python, side) for python, side in zip(pythons, sides)], self._labels
        return self._managers

    def _pythons(self) -> tuple[str, ...]:
        """The interpreter of each side: (reference, changed) with
        --compare-to, else the one of --python."""
        args = self.args
        assert args is not None
        if not args.compare_to:
            return (args.python,)
        if self._command == "command":
            return args.python, args.python
        return args.compare_to, args.python

    def _check_appends(self, names: Sequence[str]) -> None:
        """Refuse now, before the lock and the workers, the benchmarks
        *names* whose --append file (of each side) could not take the runs
        this run will record."""
        for side, python in enumerate(self._pythons()):
            self._check_append(names, python, side)

    def _check_append(self, names: Sequence[str], python: str, side: int = 0) -> None:
        """The runs that workers of *python* will record, given to the
        compatibility check of :meth:`perf.Benchmark.check_run` (unit,
        inner loops, interpreter, host...) of each benchmark of the same
        name in the --append file of *side*."""
        from perf.measure.clock import record_clock
        from perf.model.metadata import CHECKED_KEYS, DEFAULT_UNIT
        from perf.model.run import Run

        args = self.args
        assert args is not None
        if not args.append:
            return
        path = runner_options.output_paths(args.append, self._labels)[side]
        suite = self._append_suites.get(path)
        collected = self._worker_metadata(python)
        if suite is None or collected is None:
            return
        for name in names:
            existing = {benchmark.get_name(): benchmark for benchmark in suite}.get(name)
            if existing is None:
                continue  # a new benchmark of the file
            metadata = {key: value for key, value in collected.items() if key in CHECKED_KEYS}
            metadata.update(self.metadata)
            make_task = self._declared.get(name)
            if make_task is not None:
                task = make_task()  # cheap: nothing runs
                metadata.update(task.metadata)
                inner_loops = task.inner_loops
            else:
                # listed by the worker: its options are known to the worker only
                inner_loops = existing.get_metadata().get("inner_loops")
            metadata["name"] = name
            metadata.pop("inner_loops", None)
            if inner_loops:
                metadata["inner_loops"] = inner_loops
            if args.track_memory or args.tracemalloc:
                metadata["unit"] = "byte"
            metadata.setdefault("unit", DEFAULT_UNIT)
            record_clock(metadata, args.clock)  # as the worker records it
            try:
                existing.check_run(Run((1,), metadata=metadata, collect_metadata=False))
            except IncompatibleRunError as exc:
                raise IncompatibleRunError(f"{path}: {exc} (nothing was run)") from None

    def _worker_metadata(self, python: str) -> dict[str, Any] | None:
        """The metadata the workers of *python* collect (None: unknown)."""
        if python != sys.executable:
            probe = self._probes.get(python)
            return None if probe is None else probe.metadata
        if self._local_metadata is None:
            from perf.collect import collect_metadata

            self._local_metadata = collect_metadata()
        return self._local_metadata

    def _run_benchmarks(self, benchmarks: list[tuple[int, str]], shuffle: bool = False) -> list[list[Benchmark]]:
        """Run *benchmarks* (task number, name) with a fresh seed, then save
        every result (all of them, even when one file fails)."""
        from perf.cli import display
        from perf.measure.manager import plan_benchmarks, run_schedule

        args = self.args
        assert args is not None
        managers, labels = self._sides()
        seed = random.SystemRandom().randrange(2**31)
        units = plan_benchmarks(managers, benchmarks, seed)
        rule = runner_options.stopping_rule(args)
        progress = display.ProgressLine(args.quiet, verbose=args.verbose)
        try:
            run_schedule(units, seed, shuffle=shuffle, rule=rule, on_progress=lambda _side, done: progress.update(done))
        except BaseException:
            progress.close()
            if shuffle:
                self._save_measured(units, labels is not None)
            raise
        progress.close()
        results = [unit.results() for unit in units]
        errors = []
        for sides in results:
            for side, benchmark in enumerate(sides):
                try:
                    self._save(benchmark, None if labels is None else side)
                except PerfError as exc:
                    errors.append(str(exc))
        if errors:
            raise ResultFileError(None, "; ".join(errors))
        return results

    def _save_measured(self, units: list[Any], compare: bool) -> None:
        """A shuffled suite failed or was interrupted: its benchmarks all
        ran some workers, so save those runs rather than lose them, and
        say which and how many (they are fewer than asked for)."""
        args = self.args
        assert args is not None
        if not (args.output or args.append):
            return
        saved = []
        for unit in units:
            measured = unit.measured()
            for side, benchmark in enumerate(measured):
                if benchmark is None:
                    continue
                try:
                    self._save(benchmark, side if compare else None)
                except PerfError as exc:
                    print(f"ERROR: {exc}", file=sys.stderr)
            counts = [len(benchmark.get_process_means()) if benchmark else 0 for benchmark in measured]
            if any(counts):
                saved.append(f"{unit.name} ({' and '.join(map(str, counts))} of {unit.total} processes)")
        if saved:
            sys.stdout.flush()
            where = " and ".join(runner_options.output_paths(args.output or args.append, self._labels))
            print(f"Saved to {where} before stopping, incomplete: {', '.join(saved)}", file=sys.stderr)

    def _show(self, name: str, results: list[Benchmark]) -> None:
        """The result (or the comparison), and with --target-precision a
        note when the most processes were not enough."""
        from perf.cli import display

        args = self.args
        assert args is not None
        rule = runner_options.stopping_rule(args)
        if len(results) == 1:
            display.print_result(results[0], args, self._show_name, checks=not args.quiet)
            if rule is not None:
                means = results[0].get_process_means()
                display.print_precision_note(args, rule.precision(means), len(means))
            return
        labels = self._sides()[1]
        assert labels is not None
        display.print_comparison(name if self._show_name else None, labels, results, args)
        if rule is not None:
            pairs = [benchmark.get_process_means() for benchmark in results]
            display.print_precision_note(args, rule.paired_precision(*pairs), len(pairs[0]))

    def _save(self, benchmark: Benchmark, side: int | None = None) -> None:
        """Write the results (with --compare-to, *side* 0 or 1 names the
        file of that side); if the file cannot take them, keep them in
        another file rather than lose a long run."""
        from perf.storage import files

        args = self.args
        assert args is not None
        path = args.append or args.output
        if not path:
            return
        if side is not None:
            path = runner_options.output_paths(path, self._labels)[side]
        try:
            if args.append or path in self._written:
                files.add_runs(path, benchmark)
            else:
                files.dump(benchmark, path)
                self._written.add(path)
        except PerfError as exc:
            root, ext = os.path.splitext(path[:-3] if path.endswith(".gz") else path)
            other = f"{root}-{os.getpid()}{ext}"
            files.add_runs(other, benchmark)  # several benchmarks of a suite may land there
            message = f"{exc}; the results of {benchmark.get_name()!r} were saved to {other}"
            raise ResultFileError(None, message) from None


def _announce(name: str, pipe: int | None) -> None:
    """``--worker-list``: send the name of a declared benchmark."""
    import json

    line = (json.dumps(name) + "\n").encode("utf-8")
    if pipe is None:
        sys.stdout.write(line.decode("utf-8"))
        return
    while line:
        line = line[os.write(pipe, line) :]


def _print_user_traceback(exc: BaseException) -> None:
    import traceback

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    error = traceback.TracebackException.from_exception(exc)
    frames = [frame for frame in error.stack if not os.path.abspath(frame.filename).startswith(package + os.sep)]
    error.stack = traceback.StackSummary.from_list(frames)
    sys.stdout.flush()
    print("".join(error.format()), end="", file=sys.stderr)


@functools.cache
def _probe_python(python: str, environment: tuple[tuple[str, str], ...]) -> Any:
    """:func:`perf.measure.manager.probe_python`, once per interpreter and
    environment."""
    from perf.measure.manager import probe_python

    return probe_python(python, dict(environment))


def _check_hooks_names(names: Sequence[str], descriptors: Sequence[Any]) -> None:
    if not names:
        return
    from perf.measure.hooks import get_hook_names

    known = get_hook_names(descriptors)
    for name in names:
        if name not in known:
            raise UsageError(f"--hook: unknown hook {name!r} (known: {', '.join(known) or 'none'})")


def _check_affinity(cpu_list: str) -> None:
    from perf.platform.cpus import format_cpu_list, get_cpu_affinity, parse_cpu_list

    allowed = get_cpu_affinity()
    if allowed is None:
        return
    unknown = set(parse_cpu_list(cpu_list)) - allowed
    if unknown:
        raise UsageError(
            f"--affinity: CPU {format_cpu_list(unknown)} not available "
            f"(this process may use {format_cpu_list(allowed)})"
        )
