"""pytest-benchmark's hook specifications, with its names and arguments.

A suite's conftest.py often implements ``pytest_benchmark_update_json`` or
``pytest_benchmark_update_machine_info``; pytest rejects a hook that no
plugin declares, so perf declares them all.  perf calls the
``generate_*`` and ``update_*`` hooks of the machine and commit info and of
the JSON document; the others (table units, grouping, machine comparison)
are declared and never called (doc/pytest.rst).

Must not: implement anything.
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_benchmark_scale_unit(  # noqa: PLR0917  (pytest-benchmark's arguments)
    config: Any, unit: Any, benchmarks: Any, best: Any, worst: Any, sort: Any
) -> Any:
    """Declared for compatibility; perf's table chooses its own unit."""


@pytest.hookspec(firstresult=True)
def pytest_benchmark_generate_machine_info(config: Any) -> Any:
    """The ``machine_info`` of the JSON document (perf's by default)."""


def pytest_benchmark_update_machine_info(config: Any, machine_info: Any) -> None:
    """Change the ``machine_info`` dict in place."""


@pytest.hookspec(firstresult=True)
def pytest_benchmark_generate_commit_info(config: Any) -> Any:
    """The ``commit_info`` of the JSON document (perf's by default)."""


def pytest_benchmark_update_commit_info(config: Any, commit_info: Any) -> None:
    """Change the ``commit_info`` dict in place."""


@pytest.hookspec(firstresult=True)
def pytest_benchmark_group_stats(config: Any, benchmarks: Any, group_by: Any) -> Any:
    """Declared for compatibility; perf groups its table by ``group``."""


@pytest.hookspec(firstresult=True)
def pytest_benchmark_generate_json(
    config: Any, benchmarks: Any, include_data: Any, machine_info: Any, commit_info: Any
) -> Any:
    """The whole JSON document (perf's by default)."""


def pytest_benchmark_update_json(config: Any, benchmarks: Any, output_json: Any) -> None:
    """Change the JSON document in place before it is written."""


def pytest_benchmark_compare_machine_info(
    config: Any, benchmarksession: Any, machine_info: Any, compared_benchmark: Any
) -> None:
    """Declared for compatibility; never called."""
