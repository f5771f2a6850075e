"""The ``pytest11`` entry point ``perf``: the hook of the package, again.

A module of its own, so that ``-p perf.pytest_plugin`` (or
``pytest_plugins = ["perf.pytest_plugin"]`` in a conftest.py) can load the
package while the entry point loads this module: pytest refuses one module
registered under two names.  Either way, :mod:`perf.pytest_plugin` decides
once whether the plugin is on.

Must not: define anything.
"""

from perf.pytest_plugin import pytest_addoption

__all__ = ["pytest_addoption"]
