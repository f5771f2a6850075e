"""The runner's options: checked in one place, then frozen.

:func:`check_runner_args` completes and validates the parsed namespace of
the runner options (:data:`perf.measure.arguments.RUNNER_OPTIONS` declares
each one, and checks its value alone): budget presets, calibration flags,
output files, memory options, the clock, hooks, CPUs.  :class:`RunOptions`
is the same options, typed and frozen: what :mod:`perf.measure` reads.
:func:`check_options` runs every check of a command line's options, or of
options given as keywords (:meth:`RunOptions.create`); in a worker, it
imports nothing of the parent side.

The namespace stays an :class:`argparse.Namespace` (``Runner.args``):
bench scripts add their own options to ``runner.argparser`` and read them
back from it in their ``add_cmdline_args(cmd, args)`` callback.

Must not: spawn processes, print, or exit.
"""

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Literal, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from perf.errors import OutputExistsError, UsageError
from perf.model.metadata import DEFAULT_CLOCK

if TYPE_CHECKING:
    from perf.measure.parent.plan import Probe
    from perf.measure.parent.probe import PythonProbe
    from perf.measure.parent.stopping import StoppingRule

#: what the Runner runs: a bench script's benchmarks, ``python -m perf
#: timeit`` (one benchmark of statements) or ``python -m perf command``
#: (one benchmark of a program)
RunMode = Literal["script", "timeit", "command"]

#: ``--warmups auto``: find each process's steady state (JIT runtimes)
AUTO = "auto"


class Budget(NamedTuple):
    """Default number of processes and values per process."""

    processes: int
    values: int


#: perf's default budget (doc/design.rst, R4; doc/runner.rst has the
#: measurement that chose it)
DEFAULT_BUDGET = Budget(processes=24, values=2)
#: --target-precision: the default bounds on the number of processes (pairs)
MIN_PROCESSES = 10
MAX_PROCESSES = 100
#: JIT runtimes: fewer, longer processes (each one warms up first)
JIT_BUDGET = Budget(processes=6, values=10)


class GivenBudget(NamedTuple):
    """Processes, values and warmups as a bench script gave them to
    ``Runner(...)``, or as the command line gave them (None: not given)."""

    processes: Optional[int] = None
    values: Optional[int] = None
    warmups: Optional[Union[int, str]] = None

    def budget_for(self, jit: bool) -> Tuple["Budget", Union[int, str]]:
        """Processes, values and warmups for workers with or without a JIT."""
        base = JIT_BUDGET if jit else DEFAULT_BUDGET
        budget = Budget(self.processes or base.processes, self.values or base.values)
        warmups: Union[int, str] = AUTO if jit else 1
        return budget, warmups if self.warmups is None else self.warmups


class RunOptions(NamedTuple):
    """The runner options, checked: typed and frozen (``_replace`` gives a
    side its own budget).  One field per row of
    :data:`perf.measure.arguments.RUNNER_OPTIONS`, with the default of the
    row (tests/measure/test_arguments.py holds the two together)."""

    processes: int
    values: int
    warmups: Union[int, str]
    loops: int
    min_time: float
    rigorous: bool = False
    fast: bool = False
    debug_single_value: bool = False
    target_precision: Optional[float] = None
    min_processes: Optional[int] = None
    max_processes: Optional[int] = None
    adaptive_values: bool = False
    no_shuffle: bool = False
    timeout: Optional[float] = None
    verbose: bool = False
    quiet: bool = False
    output: Optional[str] = None
    append: Optional[str] = None
    dump: bool = False
    metadata: bool = False
    hist: bool = False
    stats: bool = False
    affinity: Optional[str] = None
    lock: str = "wait"
    inherit_environ: Tuple[str, ...] = ()
    copy_env: bool = False
    no_locale: bool = False
    python: str = sys.executable
    compare_to: Optional[str] = None
    python_names: Optional[Tuple[str, str]] = None
    profile: Optional[str] = None
    hook: Tuple[str, ...] = ()
    clock: str = DEFAULT_CLOCK
    tracemalloc: bool = False
    track_memory: bool = False
    worker: bool = False
    worker_task: Optional[int] = None
    worker_list: bool = False
    pipe: Optional[int] = None
    calibrate_loops: bool = False
    recalibrate_loops: bool = False
    calibrate_warmups: bool = False
    recalibrate_warmups: bool = False
    #: not a runner option: processes, values and warmups as they were
    #: given, before the presets completed them (None: the budget is final
    #: as it is); each side of a comparison completes them with the budget
    #: of its own interpreter (a JIT gets fewer, longer processes)
    given_budget: Optional[GivenBudget] = None

    @classmethod
    def create(cls, *, mode: RunMode = "script", **options: Any) -> "RunOptions":
        """The runner options given as keywords, without a command line:
        ``RunOptions.create(processes=6, values=3, min_time=0.01)``.

        One keyword per runner option, named as its :class:`RunOptions`
        field (``--min-time`` is ``min_time``, ``--target-precision 1%`` is
        ``target_precision=0.01``, ``--hook a`` is ``hook=["a"]``); None
        leaves an option out.  The same defaults, presets (``fast``,
        ``rigorous``, ``debug_single_value``), interpreter probes and checks
        as the command line of a bench script run by this interpreter
        (*mode*: or of ``python -m perf timeit`` / ``command``).  Raises
        :class:`~perf.errors.UsageError` with a one-line message: an unknown
        keyword, a value of the wrong type or out of range, options that do
        not go together."""
        from perf.collect.python import python_has_jit
        from perf.measure.arguments import given_options

        given = given_options(options)
        hook_names = None
        if given["hook"]:
            from perf.measure.hooks import get_hook_names

            hook_names = get_hook_names()
        checked, _ = check_options(given, mode, GivenBudget(), jit=python_has_jit(), hook_names=hook_names)
        return checked

    @classmethod
    def from_namespace(cls, args: argparse.Namespace) -> "RunOptions":
        """The runner options of a checked namespace (a script's own
        options stay in the namespace)."""
        values = {name: getattr(args, name) for name in cls._fields if hasattr(args, name)}
        values["inherit_environ"] = tuple(values.get("inherit_environ") or ())
        values["hook"] = tuple(values.get("hook") or ())
        return cls(**values)

    @property
    def memory(self) -> bool:
        """The values are memory peaks (``--track-memory``, ``--tracemalloc``)."""
        return self.track_memory or self.tracemalloc


#: what :func:`budget_values` reads: a parsed namespace, or frozen options
OptionsLike = Union[argparse.Namespace, RunOptions]


def budget_values(args: OptionsLike, budget: Budget, warmups: Union[int, str]) -> Dict[str, Any]:
    """Processes, values, warmups (and loops with --debug-single-value)
    from the presets: explicit options win over them."""
    processes, values = budget
    completed: Dict[str, Any] = {}
    if args.rigorous:
        processes *= 2
    elif args.fast:
        processes, values = max(processes // 2, 3), max(values * 2 // 3, 2)
    if args.debug_single_value:
        processes, values, warmups = 1, 1, 0
        completed.update(loops=1, min_time=1e-9)
    if args.target_precision is not None and args.max_processes is not None:
        processes = args.max_processes  # the most a run may take: the stopping rule decides
    completed.update(processes=processes, values=values, warmups=warmups)
    return completed


def apply_budget(args: argparse.Namespace, budget: Budget, warmups: Union[int, str]) -> None:
    """Complete *args* in place with :func:`budget_values`."""
    for name, value in budget_values(args, budget, warmups).items():
        if name in ("loops", "min_time") or getattr(args, name) is None:
            setattr(args, name, value)


def side_options(options: "RunOptions", given: "GivenBudget", budget: Budget, warmups: Union[int, str]) -> "RunOptions":
    """*options* with the budget of another interpreter's workers: what the
    user gave on the command line (*given*) stays."""
    completed = budget_values(options, budget, warmups)
    for name in ("processes", "values", "warmups"):
        if getattr(given, name) is not None:
            completed[name] = getattr(given, name)
    return options._replace(**completed)


def _check_calibration_flags(args: argparse.Namespace) -> None:
    flags = [name for name in ("calibrate_loops", "recalibrate_loops") if getattr(args, name)]
    for flag in flags + [name for name in ("calibrate_warmups", "recalibrate_warmups") if getattr(args, name)]:
        if not args.worker:
            raise UsageError(f"--{flag.replace('_', '-')} requires --worker")
    if args.calibrate_loops and args.loops:
        raise UsageError("--loops=N is incompatible with --calibrate-loops")
    if args.recalibrate_loops and args.loops < 1:
        raise UsageError("--recalibrate-loops requires --loops=N")
    if args.worker_task is not None and not args.worker:
        raise UsageError("--worker-task requires --worker")
    if args.worker_list and not args.worker:
        raise UsageError("--worker-list requires --worker")
    if args.pipe is not None and not args.worker:
        raise UsageError("--pipe requires --worker")


def _check_outputs(
    args: argparse.Namespace, mode: RunMode, probes: Optional[Mapping[str, "PythonProbe"]] = None
) -> None:
    """Refuse now what would fail after the benchmark ran (a worker run in
    place, without --pipe, writes -o/--append too); with --compare-to, the
    files are named after the labels of the sides (the versions of the
    interpreters, from *probes*, may be the labels)."""
    if args.output and args.append:
        raise UsageError("--output and --append are mutually exclusive")
    if args.worker and args.pipe is not None:
        return
    from perf.measure.parent.sides import output_paths, side_labels

    labels = None
    if args.compare_to and not args.worker:
        labels = side_labels(args, command_program(args) if mode == "command" else None, probes)
    for path in output_paths(args.output, labels) if args.output else ():
        if os.path.lexists(path):
            raise OutputExistsError(path, " (use --append to add runs to it)")
        check_writable_folder(path)
    for path in output_paths(args.append, labels) if args.append else ():
        check_writable_folder(path)
        if os.path.exists(path) and not os.access(path, os.R_OK | os.W_OK):
            raise UsageError(f"{path}: cannot read and write this file")
    if args.profile:
        check_writable_folder(args.profile)


def check_writable_folder(path: str, label: Optional[str] = None) -> None:
    """Refuse a file to be written (*path*) whose folder does not exist or
    is not writable; the message starts with *label* (the path by
    default)."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{label or path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{label or path}: cannot write into the folder {folder}")


def check_runner_args(
    args: argparse.Namespace,
    budget: Budget,
    warmups: Union[int, str],
    mode: RunMode = "script",
    hook_names: Optional[Sequence[str]] = None,
    *,
    probes: Optional[Mapping[str, "PythonProbe"]] = None,
) -> None:
    """Complete and validate parsed runner options, in place: the one
    place where they are checked.

    *budget* and *warmups*: the defaults of the interpreter that runs the
    workers.  *mode* ``"command"`` (``python -m perf command``) cannot use
    ``--tracemalloc`` nor ``--clock cpu``.  *hook_names*: the hooks
    ``--hook`` may name (None: not checked).  *probes*: what the other
    interpreters said (their versions may label the sides of
    ``--compare-to``, and name its files).  Raises
    :class:`~perf.errors.UsageError`.
    """
    if args.pipe is not None:
        args.quiet = True  # a worker's verbose lines still go to stdout
    elif args.quiet:
        args.verbose = False
    _check_target_precision(args)
    if args.adaptive_values and args.values is not None:
        raise UsageError("--adaptive-values replaces -n/--values")
    apply_budget(args, budget, warmups)
    _check_calibration_flags(args)
    check_mode(args, mode)
    _check_interpreters(args, mode)
    _check_outputs(args, mode, probes)  # with --compare-to, the files are named after the labels
    _check_clock(args, mode)
    if hook_names is not None:
        _check_hook_names(args.hook, hook_names)


def check_mode(options: OptionsLike, mode: RunMode) -> None:
    """The options a kind of run cannot use: ``python -m perf command``
    (and :class:`perf.api.Command`) times a program in another process,
    so neither ``--tracemalloc`` nor a CPU clock can see it."""
    if mode != "command":
        return
    if options.tracemalloc:
        raise UsageError("--tracemalloc cannot be used with python -m perf command (use --track-memory)")
    if options.clock != DEFAULT_CLOCK:
        raise UsageError(
            f"--clock {options.clock} cannot be used with python -m perf command: the program runs in another "
            "process, whose CPU time the worker's thread clock does not count"
        )


def check_options(
    args: Union[argparse.Namespace, Mapping[str, Any]],
    mode: RunMode,
    defaults: GivenBudget,
    *,
    jit: bool,
    hook_names: Optional[Sequence[str]] = None,
    probe: Optional["Probe"] = None,
) -> Tuple[RunOptions, Dict[str, "PythonProbe"]]:
    """Check the runner options *args* before any run: the parsed namespace
    (completed in place), or the options given as keywords
    (:func:`perf.measure.arguments.given_options`; those left out have
    their defaults).  Returns them checked
    and frozen, and what each interpreter other than this one said when
    probed.

    *defaults*: a bench script's ``Runner(...)`` budget; *jit*: whether
    this interpreter has a JIT.  Another interpreter (``--python``,
    ``--compare-to``) runs once first, through *probe* (default:
    :func:`perf.measure.parent.probe.probe_python`), as its workers will start:
    one that cannot import perf is a UsageError now, and a JIT gets fewer,
    longer processes.  Raises :class:`~perf.errors.UsageError`."""
    if not isinstance(args, argparse.Namespace):
        args = parsed_namespace(args)
    given = GivenBudget(args.processes, args.values, args.warmups)
    probes: Dict[str, PythonProbe] = {}
    worker_jit = jit
    if not args.worker:  # a worker checks its options, and imports nothing of the parent side
        from perf.measure.parent.plan import probe_interpreters

        probes, worker_jit = probe_interpreters(args, mode, probe, jit)
    check_runner_args(args, *defaults.budget_for(worker_jit), mode, hook_names, probes=probes)
    check_machine_args(args)
    return RunOptions.from_namespace(args)._replace(given_budget=given), probes


def parsed_namespace(given: Mapping[str, Any]) -> argparse.Namespace:
    """The namespace a command line would parse into, from the options
    *given* (the output of :func:`perf.measure.arguments.given_options`;
    the options left out have the parser's defaults)."""
    from perf.measure.arguments import parsed_defaults

    return argparse.Namespace(**{**parsed_defaults(), **given})


def command_program(args: argparse.Namespace) -> List[str]:
    """The program of ``python -m perf command`` (after ``--``)."""
    program: List[str] = getattr(args, "program", None) or []
    return program[1:] if program[:1] == ["--"] else program


def check_machine_args(args: argparse.Namespace) -> None:
    """The options that depend on this machine and this Python, checked
    after :func:`check_runner_args`: memory tracking, CPUs (``--affinity``
    defaults to the isolated CPUs, when the kernel has some)."""
    _check_memory(args)
    if not args.worker:
        _check_affinity(args)


def _check_interpreters(args: argparse.Namespace, mode: RunMode) -> None:
    """--python and --compare-to: absolute paths (a reference command line
    for ``python -m perf command``)."""
    if args.python_names and not args.compare_to:
        raise UsageError("--python-names requires --compare-to")
    if args.compare_to is not None and not args.compare_to.strip():
        raise UsageError("--compare-to: the reference is empty")
    if not args.python and not args.compare_to:
        args.python = sys.executable
        return
    from perf.measure.parent.sides import absolute_executable

    args.python = absolute_executable(args.python, "python") if args.python else sys.executable
    if args.compare_to and mode == "command":
        _check_reference_command(args.compare_to)
    elif args.compare_to:
        args.compare_to = absolute_executable(args.compare_to, "compare_to")


def _check_memory(args: argparse.Namespace) -> None:
    """--tracemalloc and --track-memory, where this Python has them."""
    if args.tracemalloc:
        try:
            import tracemalloc  # noqa: F401
        except ImportError as exc:
            raise UsageError(f"--tracemalloc is not available on this Python: {exc}") from None
    if args.track_memory and not args.worker:
        from perf.measure.child.memory import peak_rss_supported

        if not peak_rss_supported():
            raise UsageError("--track-memory is not supported on this platform")


def _check_hook_names(names: Sequence[str], known: Sequence[str]) -> None:
    for name in names:
        if name not in known:
            raise UsageError(f"--hook: unknown hook {name!r} (known: {', '.join(known) or 'none'})")


def _check_affinity(args: argparse.Namespace) -> None:
    """--affinity: CPUs this process may use; by default, the isolated
    CPUs when the kernel has some."""
    from perf.platform.cpus import format_cpu_list, get_cpu_affinity, get_isolated_cpus, parse_cpu_list

    if not args.affinity:
        isolated = get_isolated_cpus()
        if isolated:
            args.affinity = format_cpu_list(isolated)
        return
    allowed = get_cpu_affinity()
    if allowed is None:
        return
    unknown = set(parse_cpu_list(args.affinity)) - allowed
    if unknown:
        raise UsageError(
            f"--affinity: CPU {format_cpu_list(unknown)} not available "
            f"(this process may use {format_cpu_list(allowed)})"
        )


def _check_clock(args: argparse.Namespace, mode: RunMode) -> None:
    """``--clock cpu``: only for code that runs in the worker's own thread,
    with a thread CPU clock that works here."""
    from perf.measure.child.clock import check_clock

    if args.clock == DEFAULT_CLOCK:
        return
    if args.track_memory or args.tracemalloc:
        option = "--track-memory" if args.track_memory else "--tracemalloc"
        raise UsageError(f"--clock {args.clock} cannot be used with {option}: the values are memory peaks, not times")
    check_clock(args.clock)


def _check_target_precision(args: argparse.Namespace) -> None:
    """--target-precision replaces -p with bounds (checked before -p gets
    its default)."""
    if args.target_precision is None:
        for option in ("min_processes", "max_processes"):
            if getattr(args, option) is not None:
                raise UsageError(f"--{option.replace('_', '-')} requires --target-precision")
        return
    if args.processes is not None:
        raise UsageError("--target-precision replaces -p/--processes: use --min-processes and --max-processes")
    if args.min_processes is None:
        args.min_processes = MIN_PROCESSES
    if args.max_processes is None:
        args.max_processes = max(MAX_PROCESSES, args.min_processes)
    if args.min_processes < 2:
        raise UsageError("--min-processes must be at least 2 (an interval needs two processes)")
    if args.max_processes < args.min_processes:
        raise UsageError(
            f"--max-processes ({args.max_processes}) must be at least --min-processes ({args.min_processes})"
        )


def stopping_rule(options: "RunOptions") -> Optional["StoppingRule"]:
    """The StoppingRule of --target-precision, or None."""
    if options.target_precision is None:
        return None
    from perf.measure.parent.stopping import StoppingRule

    assert options.min_processes is not None and options.max_processes is not None
    return StoppingRule(options.target_precision, options.min_processes, options.max_processes)


def _check_reference_command(text: str) -> None:
    """``command --compare-to "PROGRAM ARGS"``: a command line to split
    like a shell would, whose program exists."""
    import shlex

    from perf.measure.child.tasks import check_program

    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"--compare-to: {text}: {exc}") from None
    try:
        check_program(words)
    except UsageError as exc:
        raise UsageError(f"--compare-to: {exc}") from None


def check_hook_descriptors(hooks: Optional[Sequence[Any]]) -> Tuple[Any, ...]:
    """``Runner(hooks=...)``: a list or tuple of descriptors, each with a
    ``name`` and a ``load()`` (RuntimeError otherwise, as pyperf)."""
    if hooks is None:
        return ()
    if not isinstance(hooks, (list, tuple)):
        raise RuntimeError("hooks must be a list or a tuple of hook descriptors")
    for hook in hooks:
        if not hasattr(hook, "name") or not callable(getattr(hook, "load", None)):
            raise RuntimeError(f"invalid hook descriptor {hook!r}: it needs a 'name' and a 'load()'")
    return tuple(hooks)
