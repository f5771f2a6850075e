"""perf: run benchmarks you can trust, and tell whether code got faster.

Public API only (compatible with pyperf's).  Names are imported lazily on
first use so that ``import perf`` stays cheap: worker processes import it
before they measure anything.
"""

from __future__ import annotations

import importlib
from time import perf_counter

# Not "from typing import TYPE_CHECKING": typing costs milliseconds to
# import, and every worker process imports perf.  Type checkers treat a
# module-level TYPE_CHECKING as true.
TYPE_CHECKING = False

VERSION = (3, 0, 0)
__version__ = ".".join(map(str, VERSION))

__all__ = [
    "Runner",
    "perf_counter",
    "python_implementation",
    "python_has_jit",
    "format_metadata",
    "Run",
    "Benchmark",
    "BenchmarkSuite",
    "add_runs",
]

#: public name -> module that defines it
_LAZY = {
    "Runner": "perf.cli.runner",
    "Run": "perf.model.run",
    "Benchmark": "perf.model.benchmark",
    "BenchmarkSuite": "perf.model.suite",
    "add_runs": "perf.storage.files",
    "format_metadata": "perf.render.metadata",
    "python_implementation": "perf.collect.python",
    "python_has_jit": "perf.collect.python",
}

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from perf.cli.runner import Runner
    from perf.collect.python import python_has_jit, python_implementation
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run
    from perf.model.suite import BenchmarkSuite
    from perf.render.metadata import format_metadata
    from perf.storage.files import add_runs


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'perf' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
