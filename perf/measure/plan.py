"""The plan of a run: its checked options and its sides, before anything runs.

:func:`prepare_run` checks parsed runner options (with the budget of the
interpreter that runs the workers: another one is probed once, as its
workers will start) and describes the sides of the run
(:class:`perf.measure.sides.Side`): one, or two with ``--compare-to``.
A worker process plans too (it checks its options), and imports nothing
more: :mod:`perf.measure.session` runs a plan.

Must not: print, exit, or start a worker.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Callable, Mapping, NamedTuple, Sequence

from perf.errors import UsageError
from perf.measure.options import (
    GivenBudget,
    RunMode,
    RunOptions,
    check_machine_args,
    check_runner_args,
    side_options,
)
from perf.measure.sides import Side, SideKind, absolute_executable, command_program, side_labels

if TYPE_CHECKING:
    from perf.measure.probe import PythonProbe

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
    args: argparse.Namespace,
    mode: RunMode,
    defaults: GivenBudget,
    script: Sequence[str],
    *,
    jit: bool,
    hook_names: Sequence[str] | None = None,
    probe: Probe | None = None,
) -> RunPlan:
    """Check the parsed runner options *args* (completed in place) and plan
    the sides of the run.

    *defaults*: a bench script's ``Runner(...)`` budget; *script*: what the
    workers run after the interpreter; *jit*: whether this interpreter has
    a JIT.  Another interpreter (``--python``, ``--compare-to``) runs once
    first, through *probe* (default:
    :func:`perf.measure.probe.probe_python`), as its workers will start:
    one that cannot import perf is a UsageError now, and a JIT gets fewer,
    longer processes.  Raises :class:`~perf.errors.UsageError`."""
    given = GivenBudget(args.processes, args.values, args.warmups)
    probes = {} if args.worker else _probe_interpreters(args, mode, probe)
    worker_jit = jit if args.worker else _has_jit(args.python, probes, jit)
    check_runner_args(args, *defaults.budget_for(worker_jit), mode, hook_names)
    check_machine_args(args)
    if not args.worker and script[:1] in (("-c",), ("",), ("-",)):
        raise UsageError("workers re-run the bench script: save it to a file instead of using python -c or stdin")
    options = RunOptions.from_namespace(args)
    if args.worker:
        return RunPlan(options, (), probes)
    program = tuple(command_program(args)) if mode == "command" else ()
    kind: SideKind = "program" if mode == "command" else "interpreter"
    if not options.compare_to:
        return RunPlan(options, (Side(kind, options.python, options, tuple(script), program),), probes)
    labels = side_labels(options, program if mode == "command" else None)
    if mode == "command":
        import shlex

        pythons, programs = (options.python, options.python), (tuple(shlex.split(options.compare_to)), program)
    else:
        pythons, programs = (options.compare_to, options.python), ((), ())
    sides = tuple(
        Side(
            kind,
            python,
            side_options(options, given, *defaults.budget_for(_has_jit(python, probes, jit))),
            tuple(script),
            side_program,
            label=label,
        )
        for python, side_program, label in zip(pythons, programs, labels)
    )
    return RunPlan(options, sides, probes)


def _has_jit(python: str | None, probes: Mapping[str, PythonProbe], jit: bool) -> bool:
    """Whether the workers of *python* run on a JIT (*jit*: this one's)."""
    if not python or os.path.realpath(python) == os.path.realpath(sys.executable):
        return jit
    probe = probes.get(python)
    return probe is not None and probe.implementation in JIT_IMPLEMENTATIONS


def _probe_interpreters(args: argparse.Namespace, mode: RunMode, probe: Probe | None) -> dict[str, PythonProbe]:
    """--python and --compare-to: their absolute paths (set in *args*), and
    what each interpreter other than this one says when probed."""
    from perf.measure import probe as probe_module
    from perf.measure.environment import runner_environment

    probes: dict[str, PythonProbe] = {}
    for option in ("python",) if mode == "command" else ("python", "compare_to"):
        value = getattr(args, option)
        if not value or not value.strip():
            continue
        python = absolute_executable(value, option)
        setattr(args, option, python)
        if python == sys.executable or python in probes:
            continue
        try:
            probes[python] = (probe or probe_module.probe_python)(python, runner_environment(args))
        except UsageError as exc:
            raise UsageError(f"--{option.replace('_', '-')}: {exc}") from None
    return probes
