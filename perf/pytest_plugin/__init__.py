"""perf's pytest plugin (the ``pytest11`` entry point named ``perf``, or
``-p perf.pytest_plugin``).

This module only decides whether the plugin is active.  pytest-benchmark
defines the same options and the same ``benchmark`` fixture: with both
active, pytest would stop at start-up on the first repeated option name.
So when pytest-benchmark is installed and not disabled (``-p
no:benchmark``), perf's plugin stays off and says so in one line of the
report header; otherwise this module registers
:mod:`perf.pytest_plugin.plugin`.

Must not: import perf's measuring code (pytest imports this module in
every session of every project where perf is installed).
"""

from __future__ import annotations

import os
from typing import Any

#: the name pytest-benchmark's plugin is registered under
PYTEST_BENCHMARK = "benchmark"

#: the name of the notice plugin
NOTICE = "perf-inactive"

INACTIVE = (
    "perf: pytest-benchmark is installed, so perf's pytest plugin is off "
    "(run pytest with -p no:benchmark to measure with perf)"
)


def benchmark_distribution_installed() -> bool:
    """True when the pytest-benchmark distribution is installed."""
    from importlib import metadata

    try:
        metadata.distribution("pytest-benchmark")
    except metadata.PackageNotFoundError:
        return False
    return True


def other_plugin_active(pluginmanager: Any, installed: bool | None = None) -> bool:
    """True when pytest-benchmark will run in this session: installed and
    not blocked with ``-p no:benchmark`` (when plugins are not loaded
    automatically, only if it is already registered)."""
    if pluginmanager.is_blocked(PYTEST_BENCHMARK):
        return False
    if pluginmanager.has_plugin(PYTEST_BENCHMARK) or pluginmanager.has_plugin("pytest_benchmark.plugin"):
        return True
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    return benchmark_distribution_installed() if installed is None else installed


class _Notice:
    """The one line said when perf's plugin stays off."""

    def pytest_report_header(self) -> str:
        return INACTIVE


def pytest_addoption(parser: Any, pluginmanager: Any) -> None:
    """Register the plugin, or the notice that it is off; once, however
    many times this module and :mod:`perf.pytest_plugin.entry` are loaded."""
    if other_plugin_active(pluginmanager):
        if pluginmanager.get_plugin(NOTICE) is None:
            pluginmanager.register(_Notice(), NOTICE)
        return
    from perf.pytest_plugin import plugin

    if not pluginmanager.is_registered(plugin):
        pluginmanager.register(plugin, "perf-benchmark")
