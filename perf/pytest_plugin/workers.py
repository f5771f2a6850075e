"""The plugin's worker processes: their pytest command line, and the worker side.

pytest's own process runs them through :mod:`perf.measure.parent.batches`:
each is ``python -m pytest`` with the user's arguments
(:func:`pytest_command`, without those a worker must not repeat), its own
``--basetemp`` and cache folder, and ``--perf-worker=SPEC``.  In a worker,
:class:`WorkerRecorder` holds the spec and sends each test's events on the
parent's pipe (:mod:`perf.measure.protocol`), and :class:`WorkerFixture`,
the ``benchmark`` fixture there, measures the test's function, then ends
the test.

Must not: print, start processes, decide budgets.
"""

from __future__ import annotations

import sys
import traceback
from typing import TYPE_CHECKING, Any, Callable, Sequence

import pytest

from perf.measure.protocol import DONE, ERROR, PARENT, START, STDERR_LINES, BatchSpec, EventPipe
from perf.pytest_plugin.fixture import BenchmarkFixture
from perf.pytest_plugin.measure import call_once, measure_function
from perf.pytest_plugin.options import PytestBudget

if TYPE_CHECKING:
    from perf.measure.parent.batches import Command

#: options of the user's command line that a worker must not repeat:
#: they stop at the first failure, debug, or filter on a cache
_DROPPED_FLAGS = frozenset(
    {
        "-x",
        "--exitfirst",
        "--pdb",
        "--trace",
        "--sw",
        "--stepwise",
        "--sw-skip",
        "--stepwise-skip",
        "--lf",
        "--last-failed",
        "--ff",
        "--failed-first",
        "--nf",
        "--new-first",
    }
)
#: the same, taking a value (``--maxfail 2`` or ``--maxfail=2``)
_DROPPED_WITH_VALUE = frozenset(
    {"--maxfail", "--pdbcls", "--lfnf", "--last-failed-no-failures", "--junitxml", "--junit-xml", "--basetemp"}
)


def worker_arguments(arguments: Sequence[str]) -> list[str]:
    """The user's pytest arguments without those a worker must not repeat
    (``-x``, ``--pdb``, ``--lf``, ``--maxfail``, ``--junitxml``, ``--basetemp``...)."""
    kept: list[str] = []
    skip_value = False
    for argument in arguments:
        if skip_value:
            skip_value = False
            continue
        name = argument.split("=", 1)[0]
        if argument in _DROPPED_FLAGS:
            continue
        if name in _DROPPED_WITH_VALUE:
            skip_value = "=" not in argument
            continue
        if len(argument) > 2 and argument[0] == "-" and argument[1] != "-" and set(argument[1:]) <= set("vqsxl"):
            flags = argument.replace("x", "")  # -xvs: -vs
            if flags != "-":
                kept.append(flags)
            continue
        kept.append(argument)
    return kept


def pytest_command(arguments: Sequence[str], *, xdist: bool, cache: bool) -> Command:
    """The command line of a worker: ``python -m pytest`` with the user's
    *arguments*, never distributed by xdist (they run one after another,
    alone), its own basetemp and, when pytest's cache plugin is on
    (*cache*), its own cache folder: the user's ``--lf`` and cache are left
    alone."""
    command = [sys.executable, "-m", "pytest", *worker_arguments(arguments), *(["-n0"] if xdist else [])]

    def worker(prefix: str) -> list[str]:
        # one token each: a separate path would move pytest's rootdir
        own = [f"--basetemp={prefix}.tmp", *([f"--override-ini=cache_dir={prefix}.cache"] if cache else [])]
        return [*command, *own]

    return worker


class WorkerRecorder:
    """The worker side: which tests to measure, and their events."""

    def __init__(self, spec: BatchSpec) -> None:
        self.spec = spec
        self.wanted = set(spec.tests)
        self.pipe = EventPipe(spec.pipe)

    def failed(self, nodeid: str, error: BaseException) -> None:
        lines = "".join(traceback.format_exception(type(error), error, error.__traceback__)).splitlines()
        tail = "\n".join(lines[-STDERR_LINES:])
        self.pipe.send(ERROR, nodeid, f"it failed in a worker process:\n{tail}")


class WorkerFixture(BenchmarkFixture):
    """The fixture in a worker process: it measures, then ends the test."""

    recorder: WorkerRecorder
    budget: PytestBudget

    def __call__(self, function_to_benchmark: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self._use("benchmark(...)")
        nodeid = self.fullname
        if nodeid not in self.recorder.wanted:
            return call_once(function_to_benchmark, args, kwargs)
        self.recorder.pipe.send(START, nodeid)
        try:
            measured = measure_function(
                nodeid,
                function_to_benchmark,
                args,
                kwargs,
                settings=self.settings,
                budget=self.budget,
                loops=self.recorder.spec.loops.get(nodeid, 0),
                metric=self.recorder.spec.metric,
            )
        except BaseException as exc:
            self.recorder.failed(nodeid, exc)
            raise
        from perf.storage.files import dumps

        self.recorder.pipe.send(DONE, nodeid, dumps(measured))
        pytest.skip("measured by a perf worker process")

    def pedantic(self, target: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self._use("benchmark.pedantic(...)")
        self.recorder.pipe.send(PARENT, self.fullname)
        pytest.skip("benchmark.pedantic runs in pytest's process")
