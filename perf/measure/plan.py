"""The plan of a run: its options checked, its interpreters probed, its sides, before anything runs.

:func:`plan_run` is the one road from options to a run, for a bench
script's command line, ``timeit``, ``command``, :mod:`perf.api`, the
pytest plugin and history: it checks the options that go together
(:func:`perf.measure.options.check_options`), resolves and probes the
other interpreters (:func:`perf.measure.parent.probe.probe_interpreters`),
checks what this machine supports
(:func:`perf.measure.child.checks.check_here`), and plans the sides and
their files (:func:`perf.measure.parent.sides.plan_sides`).  A worker
measuring runs the checks of its own options only, and imports nothing
of the parent side.  :mod:`perf.measure.parent.session` runs a plan.

Must not: print, exit, or start a worker (the probes run interpreters once).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence

from perf.errors import UsageError
from perf.measure.options import RunOptions, check_options
from perf.measure.values import GivenBudget, RunMode

if TYPE_CHECKING:
    from perf.measure.parent.sides import Probe, PythonProbe, Side


class RunPlan(NamedTuple):
    """A run's checked options and sides, before anything runs."""

    options: RunOptions
    sides: tuple[Side, ...]
    #: what each interpreter other than this one said when probed
    probes: Mapping[str, PythonProbe]
    #: the files of -o or --append (one per side)
    paths: tuple[str, ...] = ()

    @property
    def labels(self) -> tuple[str, str] | None:
        """The labels of the two sides of a comparison (None: one side)."""
        if len(self.sides) != 2:
            return None
        reference, changed = (side.label or "" for side in self.sides)
        return reference, changed


def plan_run(
    given: RunOptions | Mapping[str, Any],
    mode: RunMode,
    script: Sequence[str],
    *,
    program: Sequence[str] = (),
    defaults: GivenBudget | None = None,
    jit: bool | None = None,
    hooks: Sequence[Any] = (),
    probe: Probe | None = None,
) -> RunPlan:
    """The plan of the options *given* (:meth:`RunOptions.create`, or the
    values of a parsed command line).

    *script*: what the workers run after the interpreter (the bench
    script, ``("-m", "perf", "timeit")``...); *program*: the command line
    ``python -m perf command`` times (*mode* ``"command"``); *defaults*: a
    bench script's ``Runner(...)`` budget (default: none); *jit*: whether
    this interpreter has one (default: asked); *hooks*: the hook
    descriptors of ``Runner(hooks=...)``; *probe*: runs another
    interpreter once (default:
    :func:`perf.measure.parent.probe.probe_python`).  A worker gets no
    side.  Raises :class:`~perf.errors.UsageError`."""
    from perf.measure.child.checks import check_here

    if jit is None:
        from perf.collect.python import python_has_jit

        jit = python_has_jit()
    options = check_options(given, mode, defaults or GivenBudget(), jit=jit, hooks=hooks)
    if not options.worker and tuple(script[:1]) in (("-c",), ("",), ("-",)):
        raise UsageError("workers re-run the bench script: save it to a file instead of using python -c or stdin")
    probes: dict[str, PythonProbe] = {}
    if not options.worker:
        from perf.measure.parent.probe import probe_interpreters

        options, probes = probe_interpreters(options, mode, probe)
    options = check_here(options)
    if options.worker and options.pipe is not None:
        return RunPlan(options, (), probes)
    from perf.measure.parent.sides import plan_sides

    options, sides, paths = plan_sides(options, mode, tuple(script), tuple(program), probes, jit)
    return RunPlan(options, sides, probes, paths)
