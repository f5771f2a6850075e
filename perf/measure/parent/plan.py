"""The plan of a run: its options checked against this machine and the other interpreters, and its sides.

:func:`plan_run` takes options whose combinations are checked
(:func:`perf.measure.options.check_options`: from a command line, or
:meth:`~perf.measure.options.RunOptions.create`) and does the rest
before anything runs: the absolute paths of ``--python`` and
``--compare-to``, a probe of each other interpreter (as its workers will
start: one that cannot import perf is a UsageError now, and a JIT gets
fewer, longer processes), the files of ``-o``/``--append`` (named after
the sides' labels), what this machine supports
(:func:`perf.measure.child.checks.check_here`), and the sides
(:class:`perf.measure.parent.sides.Side`): one, or two with
``--compare-to``.  :mod:`perf.measure.parent.session` runs a plan.

Must not: print, exit, or start a worker (but the probes).
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Mapping, NamedTuple, Sequence

from perf.errors import OutputExistsError, UsageError
from perf.measure.options import (
    GivenBudget,
    RunMode,
    RunOptions,
    check_options,
    check_writable_folder,
    with_budget,
)
from perf.measure.parent.sides import PythonProbe, Side, SideKind, absolute_executable, output_paths, side_labels

#: the probe of :func:`plan_run`: (python, worker environment) -> what it said
Probe = Callable[[str, Mapping[str, str]], PythonProbe]

#: what an interpreter with a JIT calls itself (``sys.implementation.name``)
JIT_IMPLEMENTATIONS = ("pypy", "graalpy")


class RunPlan(NamedTuple):
    """A run's checked options and sides, before anything runs."""

    options: RunOptions
    sides: tuple[Side, ...]
    #: what each interpreter other than this one said when probed
    probes: Mapping[str, PythonProbe]

    @property
    def labels(self) -> tuple[str, str] | None:
        """The labels of the two sides of a comparison (None: one side)."""
        if len(self.sides) != 2:
            return None
        reference, changed = (side.label or "" for side in self.sides)
        return reference, changed


def prepare_run(
    given: RunOptions,
    mode: RunMode,
    defaults: GivenBudget,
    script: Sequence[str],
    *,
    program: Sequence[str] = (),
    jit: bool,
    hook_names: Sequence[str] | None = None,
    probe: Probe | None = None,
) -> RunPlan:
    """Check the options *given* on a command line
    (:meth:`RunOptions.parsed`) with :func:`check_options`, then
    :func:`plan_run` them."""
    options = check_options(given, mode, defaults, jit=jit, hook_names=hook_names)
    return plan_run(options, mode, script, program=program, defaults=defaults, jit=jit, probe=probe)


def plan_run(
    options: RunOptions,
    mode: RunMode,
    script: Sequence[str],
    *,
    program: Sequence[str] = (),
    defaults: GivenBudget | None = None,
    jit: bool | None = None,
    probe: Probe | None = None,
) -> RunPlan:
    """The plan of *options*, whose combinations are checked.

    *script*: what the workers run after the interpreter (the bench
    script, ``("-m", "perf", "timeit")``...); *program*: the command line
    ``python -m perf command`` times (*mode* ``"command"``); *defaults*: a
    bench script's ``Runner(...)`` budget (default: none); *jit*: whether
    this interpreter has one (default: asked); *probe*: runs another
    interpreter once (default:
    :func:`perf.measure.parent.probe.probe_python`).  A worker run in
    place (``--worker`` without ``--pipe``) gets no side.  Raises
    :class:`~perf.errors.UsageError`."""
    from perf.measure.child.checks import check_here

    if not options.worker and script[:1] in (("-c",), ("",), ("-",)):
        raise UsageError("workers re-run the bench script: save it to a file instead of using python -c or stdin")
    if jit is None:
        from perf.collect.python import python_has_jit

        jit = python_has_jit()
    defaults = defaults or GivenBudget()
    options, probes = _interpreters(options, mode, probe)
    options = with_budget(options, defaults, _has_jit(options.python, probes, jit))
    program = tuple(program)
    labels = None
    if options.compare_to and not options.worker:
        labels = side_labels(options, program if mode == "command" else None, probes)
    _check_outputs(options, labels)
    options = check_here(options)
    if options.worker:
        return RunPlan(options, (), probes)
    kind: SideKind = "program" if mode == "command" else "interpreter"
    if not options.compare_to or labels is None:
        return RunPlan(options, (Side(kind, options.python, options, tuple(script), program),), probes)
    if mode == "command":
        import shlex

        pythons, programs = (options.python, options.python), (tuple(shlex.split(options.compare_to)), program)
    else:
        pythons, programs = (options.compare_to, options.python), ((), ())
    sides = tuple(
        Side(
            kind,
            python,
            with_budget(options, defaults, _has_jit(python, probes, jit)),
            tuple(script),
            side,
            label=label,
        )
        for python, side, label in zip(pythons, programs, labels)
    )
    return RunPlan(options, sides, probes)


def _has_jit(python: str | None, probes: Mapping[str, PythonProbe], jit: bool) -> bool:
    """Whether the workers of *python* run on a JIT (*jit*: this one's)."""
    if not python or os.path.realpath(python) == os.path.realpath(sys.executable):
        return jit
    probe = probes.get(python)
    return probe is not None and probe.implementation in JIT_IMPLEMENTATIONS


def _interpreters(options: RunOptions, mode: RunMode, probe: Probe | None) -> tuple[RunOptions, dict[str, PythonProbe]]:
    """--python and --compare-to as absolute paths (a reference command
    line for ``python -m perf command``), and what each interpreter other
    than this one says when probed, in the environment of its workers."""
    from perf.measure.environment import runner_environment

    if options.worker:
        return options, {}
    python = absolute_executable(options.python, "python") if options.python else sys.executable
    options = options._replace(python=python)
    pythons = [python]
    if options.compare_to and mode == "command":
        _check_reference_command(options.compare_to)
    elif options.compare_to:
        reference = absolute_executable(options.compare_to, "compare_to")
        options = options._replace(compare_to=reference)
        pythons.append(reference)
    probes: dict[str, PythonProbe] = {}
    for interpreter in pythons:
        if interpreter == sys.executable or interpreter in probes:
            continue
        option = "--python" if interpreter == options.python else "--compare-to"
        try:
            probes[interpreter] = (probe or _probe_python)(interpreter, runner_environment(options))
        except UsageError as exc:
            raise UsageError(f"{option}: {exc}") from None
    return options, probes


def _probe_python(python: str, env: Mapping[str, str]) -> PythonProbe:
    from perf.measure.parent import probe

    return probe.probe_python(python, dict(env))


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


def _check_outputs(options: RunOptions, labels: tuple[str, str] | None) -> None:
    """Refuse now what would fail after the benchmark ran (a worker run in
    place, without --pipe, writes -o/--append too); with --compare-to, the
    files are named after the *labels* of the sides."""
    if options.worker and options.pipe is not None:
        return
    for path in output_paths(options.output, labels) if options.output else ():
        if os.path.lexists(path):
            raise OutputExistsError(path, " (use --append to add runs to it)")
        check_writable_folder(path)
    for path in output_paths(options.append, labels) if options.append else ():
        check_writable_folder(path)
        if os.path.exists(path) and not os.access(path, os.R_OK | os.W_OK):
            raise UsageError(f"{path}: cannot read and write this file")
    if options.profile:
        check_writable_folder(options.profile)
