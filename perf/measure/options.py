"""The runner's options: declared once, converted, checked, frozen.

:class:`RunOptions` is the one declaration of the runner options
(doc/compatibility.rst): each field's annotation carries its row
(:class:`perf.measure.values.Option`).  Derived from it:
:data:`RUNNER_OPTIONS`, the command line (:mod:`perf.measure.arguments`), keyword options
(:meth:`RunOptions.create`) and a worker's command line
(:func:`perf.measure.protocol.worker_arguments`).
:func:`check_options` completes and checks the options that go
together; what needs this machine (:mod:`perf.measure.child.checks`) or
another interpreter (:mod:`perf.measure.plan`) comes after.

Must not: spawn processes, print, exit, or import the parent or child side.
"""

import sys
from typing import Annotated, Any, Dict, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from perf.errors import UsageError
from perf.measure.values import (
    COUNT_BUDGET,
    COUNT_EXCLUDES,
    DEFAULT_BUDGET,
    MAX_PROCESSES,
    MEASURING,
    METRIC_NAMES,
    MIN_PROCESSES,
    PER_WORKER,
    RECORDING,
    WORKER_ONLY,
    Budget,
    GivenBudget,
    Option,
    RunMode,
    _switch,
    _worker,
    choice,
    cpu_list,
    names,
    not_negative,
    positive,
    precision,
    seconds,
    text,
    warmups_count,
)
from perf.measure.values import python_names as label_pair
from perf.model.metadata import CLOCKS, DEFAULT_CLOCK

_MEMORY = dict(group="memory", worker=MEASURING)

BudgetChoice = Tuple[int, int, Union[int, str]]  # processes, values and warmups


class RunOptions(NamedTuple):
    """The runner options, typed and frozen (``_replace`` gives a side its
    own budget): one field per option, its row in the annotation."""

    # fmt: off
    rigorous: Annotated[bool, _switch(
        "--rigorous", help="spend longer for a more precise result (2 x processes)")] = False
    fast: Annotated[bool, _switch("--fast", help="get a rough answer quickly (fewer processes and values)")] = False
    debug_single_value: Annotated[bool, _switch(
        "--debug-single-value", help="debug mode: 1 process, 1 value, 1 loop, no warmup")] = False
    processes: Annotated[int, Option(
        ("-p", "--processes"), "number of worker processes producing values (default: {processes})", positive, "N",
    )] = DEFAULT_BUDGET.processes
    values: Annotated[int, Option(
        ("-n", "--values"), "number of values per process (default: {values})", positive, "N", worker=PER_WORKER,
    )] = DEFAULT_BUDGET.values
    warmups: Annotated[Union[int, str], Option(
        ("-w", "--warmups"),
        "warmup values per process, or 'auto' to find each process's steady state (default: {warmups})",
        warmups_count, "N", worker=PER_WORKER,
    )] = 1
    loops: Annotated[int, Option(
        ("-l", "--loops"), "loops per value; 0 calibrates them (default: %(default)s)", not_negative, "N",
        worker=PER_WORKER,
    )] = 0
    min_time: Annotated[float, Option(
        ("--min-time",), "shortest duration of one value, in seconds (default: %(default)s)", seconds, "SEC",
        worker=PER_WORKER,
    )] = 0.1
    target_precision: Annotated[Optional[float], Option(
        ("--target-precision",),
        "run processes until the 95%% confidence interval of the mean (with --compare-to: of the ratio) "
        "is within +-PCT%%, between --min-processes and --max-processes (replaces -p)",
        precision, "PCT",
    )] = None
    min_processes: Annotated[Optional[int], Option(
        ("--min-processes",), "with --target-precision: at least N processes or pairs (default: {min_processes})",
        positive, "N",
    )] = None
    max_processes: Annotated[Optional[int], Option(
        ("--max-processes",), "with --target-precision: at most N processes or pairs (default: {max_processes})",
        positive, "N",
    )] = None
    adaptive_values: Annotated[bool, _switch("--adaptive-values", help=(
        "choose the values per process after a pilot of 6 processes, for the most precision per second "
        "(replaces -n)"))] = False
    no_shuffle: Annotated[bool, _switch("--no-shuffle", help=(
        "run a script's benchmarks one after the other, in the order it declares them, instead of one "
        "worker of each per round in a random order (recorded as schedule_seed)"))] = False
    timeout: Annotated[Optional[float], Option(
        ("--timeout",), "stop a worker running longer than SEC (exit status 124)", seconds, "SEC")] = None
    verbose: Annotated[bool, _switch(
        "-v", "--verbose", help="print every value and calibration step", worker=MEASURING)] = False
    quiet: Annotated[bool, _switch("-q", "--quiet", help="print only the result")] = False
    output: Annotated[Optional[str], Option(
        ("-o", "--output"), "write the results to FILE (must not exist)", text, "FILE")] = None
    append: Annotated[Optional[str], Option(
        ("--append",), "add the results to FILE (created if missing)", text, "FILE")] = None
    dump: Annotated[bool, _switch("-d", "--dump", help="show every run's values")] = False
    metadata: Annotated[bool, _switch("-m", "--metadata", help="show metadata")] = False
    hist: Annotated[bool, _switch("-g", "--hist", help="show a histogram of the values")] = False
    stats: Annotated[bool, _switch("-t", "--stats", help="show statistics")] = False
    affinity: Annotated[Optional[str], Option(
        ("--affinity",), "pin workers to these CPUs (default: isolated CPUs)", cpu_list, "CPU_LIST", joined=True,
        worker=MEASURING,
    )] = None
    lock: Annotated[str, Option(
        ("--lock",), "when another perf run uses the same CPUs: wait for it (default), fail, or run anyway (none)",
        choice("wait", "fail", "none"),
    )] = "wait"
    inherit_environ: Annotated[Tuple[str, ...], Option(
        ("--inherit-environ",), "comma-separated environment variables passed on to workers", names, "VARS")] = ()
    copy_env: Annotated[bool, _switch("--copy-env", help="pass the whole environment on to workers")] = False
    no_locale: Annotated[bool, _switch(
        "--no-locale", help="do not pass the locale variables (LANG, LC_*) on to workers")] = False
    python: Annotated[str, Option(
        ("--python",), "Python executable running the workers (default: this one)", text, "PYTHON")] = sys.executable
    compare_to: Annotated[Optional[str], Option(
        ("--compare-to",),
        "compare with REF, workers interleaved in pairs: a Python executable (python -m perf command: "
        "a reference command line, quoted)",
        text, "REF",
    )] = None
    python_names: Annotated[Optional[Tuple[str, str]], Option(
        ("--python-names",), "labels for --compare-to", label_pair, "REF_NAME:CHANGED_NAME")] = None
    profile: Annotated[Optional[str], Option(
        ("--profile",), "collect cProfile statistics into FILE", text, "FILE", worker=RECORDING)] = None
    hook: Annotated[Tuple[str, ...], Option(
        ("--hook",), "enable a hook (repeatable)", text, "NAME", repeated=True, worker=RECORDING)] = ()
    clock: Annotated[str, Option(
        ("--clock",),
        "time with the wall clock (default), or with the CPU time of the worker's thread, which leaves out "
        "the time other processes took the CPU from it (cpu: not for python -m perf command)",
        choice(*CLOCKS), worker=MEASURING,
    )] = DEFAULT_CLOCK
    metric: Annotated[str, Option(
        ("--metric",), "what a value is: time (default), or instructions per loop, counted under valgrind",
        choice(*METRIC_NAMES), worker=MEASURING)] = "time"
    tracemalloc: Annotated[bool, _switch(
        "--tracemalloc", help="measure peak traced memory instead of time", **_MEMORY)] = False
    track_memory: Annotated[bool, _switch(
        "--track-memory", help="measure peak memory usage instead of time", **_MEMORY)] = False
    # internal: the parent writes them on a worker's command line
    worker: Annotated[bool, _worker("--worker")] = False
    worker_task: Annotated[Optional[int], _worker("--worker-task", convert=not_negative, metavar="TASK_ID")] = None
    worker_list: Annotated[bool, _worker("--worker-list")] = False
    pipe: Annotated[Optional[int], _worker("--pipe", convert=not_negative, metavar="FD")] = None
    barrier: Annotated[Optional[int], _worker("--barrier", convert=not_negative, metavar="FD")] = None
    calibrate_loops: Annotated[bool, _worker("--calibrate-loops")] = False
    recalibrate_loops: Annotated[bool, _worker("--recalibrate-loops")] = False
    calibrate_warmups: Annotated[bool, _worker("--calibrate-warmups")] = False
    recalibrate_warmups: Annotated[bool, _worker("--recalibrate-warmups")] = False
    # fmt: on
    #: not a runner option: processes, values and warmups as they were
    #: given, before the presets completed them (None: the budget is final
    #: as it is); each side of a comparison completes them with the budget
    #: of its own interpreter (a JIT gets fewer, longer processes)
    given_budget: Optional[GivenBudget] = None
    #: not a runner option: once checked, the processes, values and warmups
    #: of workers without a JIT and with one (None: the budget is final)
    budgets: Optional[Tuple[BudgetChoice, ...]] = None
    #: not a runner option: no processes were given: the run stops on precision
    precision_default: bool = False

    @classmethod
    def parsed(cls, values: Mapping[str, Any]) -> "RunOptions":
        """The options of converted *values* (a parsed command line, or
        keywords), not checked yet: None (or False, or an empty list)
        leaves an option out; other keys are ignored."""
        given: Dict[str, Any] = {}
        for option in RUNNER_OPTIONS:
            value = values.get(option.name)
            if value is not None and value is not False and value != []:
                given[option.name] = tuple(value) if option.repeated else value
        budget = GivenBudget(given.get("processes"), given.get("values"), given.get("warmups"))
        return cls(**given, given_budget=budget)

    @classmethod
    def create(cls, *, mode: RunMode = "script", **options: Any) -> "RunOptions":
        """The runner options given as keywords, without a command line:
        ``RunOptions.create(processes=6, values=3, min_time=0.01)``.

        One keyword per runner option, named as its field (``--min-time``
        is ``min_time``, ``--target-precision 1%`` is
        ``target_precision=0.01``, ``--hook a`` is ``hook=["a"]``); None
        leaves an option out.  The defaults, presets and checks of the
        command line of a bench script (*mode*: ``timeit``, ``command``);
        what needs another interpreter or this machine is checked when the
        run is planned (:func:`perf.measure.plan.plan_run`).  Raises
        :class:`~perf.errors.UsageError` with a one-line message."""
        from perf.collect.python import python_has_jit

        return check_options(cls.parsed(given_options(options)), mode, GivenBudget(), jit=python_has_jit())


#: every runner option, in the order of ``--help``: the row of each annotated field
RUNNER_OPTIONS: Tuple[Option, ...] = tuple(
    row._replace(name=name, default=RunOptions._field_defaults[name])
    for name, hint in RunOptions.__annotations__.items()
    for row in getattr(hint, "__metadata__", ())
)
#: the rows by name
OPTIONS_BY_NAME: Mapping[str, Option] = {option.name: option for option in RUNNER_OPTIONS}


def given_options(keywords: Mapping[str, Any]) -> Dict[str, Any]:
    """Runner options given as keywords (``processes=6``, ``fast=True``...),
    converted one by one.  The internal options of a worker cannot be
    given.  Raises :class:`~perf.errors.UsageError` (one line) for an
    unknown keyword, a value of the wrong type or out of range."""
    given = {}
    for name, value in keywords.items():
        option = OPTIONS_BY_NAME.get(name)
        if option is None or option.worker == WORKER_ONLY:
            import difflib

            public = [row.name for row in RUNNER_OPTIONS if row.worker != WORKER_ONLY]
            close = difflib.get_close_matches(name, public, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UsageError(f"unknown runner option {name!r}{hint}")
        if value is None:
            continue  # not given
        try:
            given[name] = names(value) if option.repeated else option.convert(value)
        except ValueError as exc:
            raise UsageError(f"runner option {name}: {exc}") from None
    return given


# -- checks of the options that go together -----------------------------------------------


def budget_values(options: RunOptions, given: GivenBudget, budget: Budget, warmups: Union[int, str]) -> Dict[str, Any]:
    """Processes, values, warmups (and loops with --debug-single-value)
    from the presets; what was *given* wins."""
    processes, values = budget
    if options.metric != "time":
        (processes, values), warmups = COUNT_BUDGET, 0
    completed: Dict[str, Any] = {}
    if options.rigorous:
        processes *= 2
    elif options.fast:
        processes, values = max(processes // 2, 3), max(values * 2 // 3, min(values, 2))
    if options.debug_single_value:
        processes, values, warmups = 1, 1, 0
        completed.update(loops=1, min_time=1e-9)
    if options.target_precision is not None and options.max_processes is not None:
        processes = options.max_processes  # the most a run may take: the stopping rule decides
    completed.update(processes=processes, values=values, warmups=warmups)
    completed.update((name, value) for name, value in given._asdict().items() if value is not None)
    return completed


def with_budget(options: RunOptions, defaults: GivenBudget, jit: bool) -> RunOptions:
    """*options* completed with the budget of workers with or without a
    JIT (*jit*: this interpreter's; *defaults*: a bench script's
    ``Runner(...)`` budget), and the budgets of both kinds of workers (the
    sides of a run pick theirs when it is planned).  No processes given
    anywhere: the run stops on precision (perf.measure.parent.stopping),
    with one value per process unless given (doc/design.rst, R4)."""
    given = options.given_budget
    if given is None:
        return options  # its budget is final
    plain, with_jit = (budget_values(options, given, *defaults.budget_for(kind)) for kind in (False, True))
    fixed = given.processes or defaults.processes or options.target_precision
    default = not (fixed or options.metric != "time" or jit or options.worker or options.debug_single_value)
    plain["values"] = (default and not given.values and defaults.precision_values(jit)) or plain["values"]
    budgets = tuple((budget["processes"], budget["values"], budget["warmups"]) for budget in (plain, with_jit))
    return options._replace(**(with_jit if jit else plain), budgets=budgets, precision_default=default)


def check_options(
    options: Union[RunOptions, Mapping[str, Any]],
    mode: RunMode,
    defaults: GivenBudget,
    *,
    jit: bool,
    hooks: Sequence[Any] = (),
) -> RunOptions:
    """Complete and check *options* (:meth:`RunOptions.parsed`, or the
    values of a parsed command line): the one place where the options that
    go together are checked.

    *defaults*: a bench script's ``Runner(...)`` budget; *jit*: whether
    this interpreter has a JIT (another interpreter's budget is completed
    when the run is planned).  *mode* ``"command"`` cannot use
    ``--tracemalloc`` nor ``--clock cpu``.  ``--hook`` may name the
    installed hooks and the descriptors *hooks* (``Runner(hooks=...)``).  Raises
    :class:`~perf.errors.UsageError`."""
    if not isinstance(options, RunOptions):
        options = RunOptions.parsed(options)
    if options.pipe is not None:
        options = options._replace(quiet=True)  # a worker's verbose lines still go to stdout
    elif options.quiet:
        options = options._replace(verbose=False)
    options = _check_target_precision(options)
    if options.adaptive_values and "values" in _given(options):
        raise UsageError("--adaptive-values replaces -n/--values")
    options = with_budget(options, defaults, jit)
    _check_calibration_flags(options)
    check_mode(options, mode)
    _check_interpreters(options)
    if options.output and options.append:
        raise UsageError("--output and --append are mutually exclusive")
    if options.clock != DEFAULT_CLOCK and (options.track_memory or options.tracemalloc):
        option = "--track-memory" if options.track_memory else "--tracemalloc"
        raise UsageError(
            f"--clock {options.clock} cannot be used with {option}: the values are memory peaks, not times"
        )
    _check_metric(options)
    if options.hook:  # the hooks' module (and entry points) only when a hook is asked for
        from perf.measure.hooks import get_hook_names

        known = get_hook_names(hooks)
        if unknown := [name for name in options.hook if name not in known]:
            raise UsageError(f"--hook: unknown hook {unknown[0]!r} (known: {', '.join(known) or 'none'})")
    return options


def _given(options: RunOptions) -> Tuple[str, ...]:
    return tuple(name for name, value in (options.given_budget or GivenBudget())._asdict().items() if value is not None)


_WORKER_ONLY = ("worker_task", "pipe", "barrier", "worker_list")


def _check_calibration_flags(options: RunOptions) -> None:
    for name in ("calibrate_loops", "recalibrate_loops", "calibrate_warmups", "recalibrate_warmups", *_WORKER_ONLY):
        if getattr(options, name) not in (None, False) and not options.worker:
            raise UsageError(f"--{name.replace('_', '-')} requires --worker")
    if options.calibrate_loops and options.loops:
        raise UsageError("--loops=N is incompatible with --calibrate-loops")
    if options.recalibrate_loops and options.loops < 1:
        raise UsageError("--recalibrate-loops requires --loops=N")


def _check_metric(options: RunOptions) -> None:
    """--metric instructions: the options it leaves no meaning to."""
    if options.metric == "time" or options.worker:
        return
    given: list[str] = [name for name in ("values", "warmups") if name in _given(options)]
    given += [name for name in ("tracemalloc", "track_memory", "profile", "adaptive_values") if getattr(options, name)]
    if given or options.clock != DEFAULT_CLOCK:
        option = OPTIONS_BY_NAME[(given or ["clock"])[0]].flags[-1]
        raise UsageError(f"--metric {options.metric} cannot be used with {option}: {COUNT_EXCLUDES}")


def check_mode(options: RunOptions, mode: RunMode) -> None:
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


def _check_interpreters(options: RunOptions) -> None:
    if options.python_names and not options.compare_to:
        raise UsageError("--python-names requires --compare-to")
    if options.compare_to is not None and not options.compare_to.strip():
        raise UsageError("--compare-to: the reference is empty")


def _check_target_precision(options: RunOptions) -> RunOptions:
    """--target-precision replaces -p with bounds."""
    if options.target_precision is None:
        for name in ("min_processes", "max_processes"):
            if getattr(options, name) is not None:
                raise UsageError(f"--{name.replace('_', '-')} requires --target-precision")
        return options
    if "processes" in _given(options):
        raise UsageError("--target-precision replaces -p/--processes: use --min-processes and --max-processes")
    least = MIN_PROCESSES if options.min_processes is None else options.min_processes
    most = max(MAX_PROCESSES, least) if options.max_processes is None else options.max_processes
    if least < 2:
        raise UsageError("--min-processes must be at least 2 (an interval needs two processes)")
    if most < least:
        raise UsageError(f"--max-processes ({most}) must be at least --min-processes ({least})")
    return options._replace(min_processes=least, max_processes=most)
