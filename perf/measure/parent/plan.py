"""The plan of a run: its checked options and its sides, before anything runs.

:func:`prepare_run` checks runner options
(:func:`perf.measure.options.check_options`: parsed from a command line,
or given as keywords; with the budget of the interpreter that runs the
workers: another one is probed once here, as its workers will start) and
describes the sides of the run
(:class:`perf.measure.parent.sides.Side`): one, or two with ``--compare-to``.
:func:`plan_run` describes the sides of options already checked
(:meth:`perf.measure.options.RunOptions.create`).
A worker measuring plans nothing (it only checks its options), and never
imports this module: :mod:`perf.measure.parent.session` runs a plan.

Must not: print, exit, or start a worker.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Mapping, NamedTuple, Sequence

from perf.errors import UsageError
from perf.measure.options import (
    GivenBudget,
    RunMode,
    RunOptions,
    check_options,
    command_program,
    parsed_namespace,
    side_options,
)
from perf.measure.parent.sides import Side, SideKind, absolute_executable, side_labels

if TYPE_CHECKING:
    from perf.measure.parent.probe import PythonProbe

#: the probe of :func:`prepare_run`: (python, worker environment) -> what it said
Probe = Callable[[str, Mapping[str, str]], "PythonProbe"]

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
    args: argparse.Namespace | Mapping[str, Any],
    mode: RunMode,
    defaults: GivenBudget,
    script: Sequence[str],
    *,
    jit: bool,
    hook_names: Sequence[str] | None = None,
    probe: Probe | None = None,
) -> RunPlan:
    """Check the runner options *args* (:func:`check_options`) and plan the
    sides of the run.

    *script*: what the workers run after the interpreter; the program of
    ``python -m perf command`` is ``args.program``.  Raises
    :class:`~perf.errors.UsageError`."""
    if not isinstance(args, argparse.Namespace):
        args = parsed_namespace(args)
    options, probes = check_options(args, mode, defaults, jit=jit, hook_names=hook_names, probe=probe)
    if not options.worker and script[:1] in (("-c",), ("",), ("-",)):
        raise UsageError("workers re-run the bench script: save it to a file instead of using python -c or stdin")
    if options.worker:
        return RunPlan(options, (), probes)
    program = tuple(command_program(args)) if mode == "command" else ()
    return _planned(options, mode, defaults, script, program, probes, jit)


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
    """The sides of a run of checked *options* (:meth:`RunOptions.create`):
    the plan :func:`prepare_run` makes of a command line.

    *script*: what the workers run after the interpreter (the bench
    script, ``("-m", "perf", "timeit")``...); *program*: the command line
    ``python -m perf command`` times (*mode* ``"command"``); *defaults*
    (default: none) and *jit* (default: this interpreter's) as for :func:`check_options`.
    Another interpreter (``python``, ``compare_to``) is probed once, as
    its workers will start.  Raises :class:`~perf.errors.UsageError`."""
    if options.worker:
        raise UsageError("a worker's options cannot plan a run")
    if script[:1] in (("-c",), ("",), ("-",)):
        raise UsageError("workers re-run the bench script: save it to a file instead of using python -c or stdin")
    if jit is None:
        from perf.collect.python import python_has_jit

        jit = python_has_jit()
    if defaults is None:
        defaults = GivenBudget()
    pythons = [options.python] if mode == "command" else [options.python, options.compare_to]
    probes = _probe_pythons(options, [python for python in pythons if python], probe)
    return _planned(options, mode, defaults, script, tuple(program), probes, jit)


def _planned(  # noqa: PLR0917 (the parts of a plan)
    options: RunOptions,
    mode: RunMode,
    defaults: GivenBudget,
    script: Sequence[str],
    program: tuple[str, ...],
    probes: dict[str, PythonProbe],
    jit: bool,
) -> RunPlan:
    """The plan of checked *options*: one side, or the two sides of
    ``--compare-to``, each with the budget of its interpreter."""
    kind: SideKind = "program" if mode == "command" else "interpreter"
    if not options.compare_to:
        return RunPlan(options, (Side(kind, options.python, options, tuple(script), program),), probes)
    labels = side_labels(options, program if mode == "command" else None, probes)
    if mode == "command":
        import shlex

        pythons, programs = (options.python, options.python), (tuple(shlex.split(options.compare_to)), program)
    else:
        pythons, programs = (options.compare_to, options.python), ((), ())
    sides = tuple(
        Side(
            kind,
            python,
            _side_options(options, defaults, _has_jit(python, probes, jit)),
            tuple(script),
            side_program,
            label=label,
        )
        for python, side_program, label in zip(pythons, programs, labels)
    )
    return RunPlan(options, sides, probes)


def _side_options(options: RunOptions, defaults: GivenBudget, jit: bool) -> RunOptions:
    """The options of a side whose workers run with or without a JIT."""
    if options.given_budget is None:
        return options  # its budget is final
    return side_options(options, options.given_budget, *defaults.budget_for(jit))


def _has_jit(python: str | None, probes: Mapping[str, PythonProbe], jit: bool) -> bool:
    """Whether the workers of *python* run on a JIT (*jit*: this one's)."""
    if not python or os.path.realpath(python) == os.path.realpath(sys.executable):
        return jit
    probe = probes.get(python)
    return probe is not None and probe.implementation in JIT_IMPLEMENTATIONS


def probe_interpreters(
    args: argparse.Namespace, mode: RunMode, probe: Probe | None, jit: bool
) -> tuple[dict[str, PythonProbe], bool]:
    """--python and --compare-to: their absolute paths (set in *args*), what
    each interpreter other than this one says when probed, and whether the
    workers of --python run on a JIT (*jit*: this interpreter's)."""
    pythons = []
    for option in ("python",) if mode == "command" else ("python", "compare_to"):
        value = getattr(args, option)
        if not value or not value.strip():
            continue
        python = absolute_executable(value, option)
        setattr(args, option, python)
        pythons.append(python)
    probes = _probe_pythons(args, pythons, probe)
    return probes, _has_jit(args.python, probes, jit)


def _probe_pythons(
    options: argparse.Namespace | RunOptions, pythons: Sequence[str], probe: Probe | None
) -> dict[str, PythonProbe]:
    """What each interpreter of *pythons* (``--python``, ``--compare-to``)
    other than this one says when probed, in the environment of its
    workers."""
    from perf.measure.environment import runner_environment
    from perf.measure.parent import probe as probe_module

    probes: dict[str, PythonProbe] = {}
    for python in pythons:
        if python == sys.executable or python in probes:
            continue
        option = "--python" if python == options.python else "--compare-to"
        try:
            probes[python] = (probe or probe_module.probe_python)(python, runner_environment(options))
        except UsageError as exc:
            raise UsageError(f"{option}: {exc}") from None
    return probes
