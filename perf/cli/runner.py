"""``perf.Runner``: the entry point of bench scripts, ``timeit`` and ``command``.

A bench script is a command-line program: the Runner parses its options,
decides whether this process is the parent (spawn workers, print, save) or
a worker (measure one benchmark, send it through the pipe), and owns what
the user sees.  That is why it lives in :mod:`perf.cli`, the only layer
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

from perf.errors import PerfError, UsageError, WorkerTimeoutError
from perf.measure import options as runner_options
from perf.measure.options import AUTO, DEFAULT_BUDGET, JIT_BUDGET, Budget
from perf.measure.tasks import Task
from perf.model.benchmark import Benchmark

#: exit status of a run stopped by --timeout (pyperformance relies on it)
TIMEOUT_EXIT_STATUS = 124

_DEFAULT_WARMUPS: Any = object()


class ArgumentParser(argparse.ArgumentParser):
    """Usage errors become one ``ERROR:`` line (exit 1), not usage + exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _fail(message: str, status: int = 1) -> NoReturn:
    sys.stdout.flush()
    print(f"ERROR: {message}", file=sys.stderr)
    sys.exit(status)


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
            _fail(str(exc))
        self.args = namespace
        return namespace

    def _check_args(self, args: argparse.Namespace) -> None:
        self._explicit = {name: getattr(args, name) for name in ("processes", "values", "warmups")}
        # the defaults of the interpreter that runs the workers
        budget, warmups = self._budget_for(self._worker_jit(args.python, args.worker))
        runner_options.check_runner_args(args, budget, warmups, self._command)
        if not args.worker and self._program_args[0] in ("-c", "", "-"):
            raise UsageError("workers re-run the bench script: save it to a file instead of using python -c or stdin")
        if args.python is None:
            args.python = sys.executable
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
        if args.append and not args.worker and os.path.exists(args.append):
            from perf.storage.files import load

            load(args.append)  # a broken file is reported now, not after the run
        if args.affinity and not args.worker:
            _check_affinity(args.affinity)
        elif not args.worker and not args.affinity:
            from perf.platform.cpus import format_cpu_list, get_isolated_cpus

            isolated = get_isolated_cpus()
            if isolated:
                args.affinity = format_cpu_list(isolated)

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

        return self._main(name, lambda: Task(name, time_func_time_function(time_func, args), inner_loops, metadata))

    def bench_func(
        self,
        name: str,
        func: Callable[..., Any],
        *args: Any,
        inner_loops: int | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Benchmark | None:
        """Benchmark ``func(*args)``."""
        from perf.measure.tasks import func_time_function

        return self._main(name, lambda: Task(name, func_time_function(func, args), inner_loops, metadata))

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
            name, lambda: Task(name, async_time_function(func, args, loop_factory), inner_loops, metadata)
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
            _fail(str(exc))
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())

        if duplicate and duplicate > 1:
            # each loop iteration runs the statement *duplicate* times
            inner_loops = (inner_loops or 1) * duplicate

        def task() -> Task:
            task_metadata = code.metadata()
            task_metadata.update(metadata or {})
            return Task(name, code.time_function(), inner_loops, task_metadata)

        return self._main(name, task)

    def bench_command(self, name: str, command: Sequence[str]) -> Benchmark | None:
        """Benchmark the wall time of running a program."""
        from perf.measure.tasks import CommandTimer, check_program

        try:
            found = check_program(command)
        except UsageError as exc:
            _fail(str(exc))

        def task() -> Task:
            timer = CommandTimer(found)
            return Task(name, timer, collect=timer.collect, memory_function=timer.peak_memory)

        return self._main(name, task)

    # -- parent or worker ------------------------------------------------------------

    def _main(self, name: str, make_task: Callable[[], Task]) -> Benchmark | None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a benchmark name must be a non-empty string, got {name!r}")
        if name in self._names:
            raise ValueError(f"duplicated benchmark name: {name!r}")
        self._names.add(name)
        args = self.parse_args()
        index = self._task_index
        self._task_index += 1
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
            _fail(str(exc))

    def _worker(self, task: Task, args: argparse.Namespace) -> Benchmark:
        from perf.cli import display
        from perf.measure.worker import run_task, send

        on_sample = display.sample_printer(task) if args.verbose else None
        try:
            benchmark = run_task(task, args, self.metadata, on_sample=on_sample, hook_descriptors=self._hooks)
        except KeyboardInterrupt:
            sys.exit(1)
        except PerfError as exc:
            _fail(str(exc))
        except Exception as exc:
            # the benchmarked code failed: its traceback, without perf's frames
            _print_user_traceback(exc)
            sys.exit(1)
        if args.pipe is not None:
            send(benchmark, args.pipe)
        else:
            display.print_result(benchmark, args, self._show_name, checks=False)
        return benchmark

    def _manager(self, python: str, args: argparse.Namespace | None = None) -> Any:
        from perf.measure.manager import Manager

        assert self.args is not None
        return Manager(args or self.args, python, self._program_args, self._add_cmdline_args)

    def _worker_jit(self, python: str | None, worker: bool) -> bool:
        if worker or not python or os.path.realpath(python) == os.path.realpath(sys.executable):
            return self._jit
        return _is_jit_python(python)

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
            self._lock_cpus()
            display.print_layout_warnings(args)
            names = self._suite_names(name)
            if len(names) > 1:
                # a suite: every benchmark runs now, in shuffled rounds
                self._suite = names
                self._results = self._run_benchmarks(list(enumerate(names)), shuffle=True)
        if self._results:
            if index >= len(self._suite) or self._suite[index] != name:
                listed = self._suite[index] if index < len(self._suite) else "nothing"
                raise UsageError(
                    f"benchmark {index + 1} of the script is {name!r}, but the worker that listed the "
                    f"benchmarks found {listed!r} there: does the script declare the same benchmarks in "
                    "every process (custom options must reach workers through add_cmdline_args)?"
                )
            results = self._results[index]
        else:
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
            raise UsageError(
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
            raise UsageError(
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
        if self._command == "command":
            # two programs, run by workers of the same interpreter
            import shlex

            pythons = (args.python, args.python)
            reference = shlex.split(args.compare_to)
            names = args.python_names or (shlex.join(reference), shlex.join(command_program(args)))
        else:
            pythons = (args.compare_to, args.python)
            names = args.python_names or _python_names(args.compare_to, args.python)
        sides = [self._side_args(python) for python in pythons]
        if self._command == "command":
            sides[0].program = ["--", *reference]
        self._managers = [self._manager(python, side) for python, side in zip(pythons, sides)], names
        return self._managers

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
            raise UsageError("; ".join(errors))
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
            where = " and ".join(runner_options.output_paths(args.output or args.append, compare))
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
        from perf.measure.options import side_paths
        from perf.storage import files

        args = self.args
        assert args is not None
        path = args.append or args.output
        if not path:
            return
        if side is not None:
            path = side_paths(path)[side]
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
            raise UsageError(f"{exc}; the results of {benchmark.get_name()!r} were saved to {other}") from None


def command_program(args: argparse.Namespace) -> list[str]:
    """The program of ``python -m perf command`` (after ``--``)."""
    program: list[str] = args.program
    return program[1:] if program[:1] == ["--"] else program


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


def _python_names(reference: str, changed: str) -> tuple[str, str]:
    names = (os.path.basename(reference), os.path.basename(changed))
    return (reference, changed) if names[0] == names[1] else names


@functools.cache
def _is_jit_python(python: str) -> bool:
    """Whether *python* (another interpreter) runs a JIT, by asking it
    (once: --compare-to asks for each side after the option checks)."""
    import subprocess

    code = "import sys; print(sys.implementation.name)"
    try:
        output = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return output.strip() in ("pypy", "graalpy")


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
