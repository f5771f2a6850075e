"""perf.pytest_plugin (the entry point): off when pytest-benchmark is active."""

from __future__ import annotations

import pytest

from perf.pytest_plugin import other_plugin_active


class FakePluginManager:
    def __init__(self, blocked=(), registered=()):
        self.blocked = set(blocked)
        self.registered = set(registered)

    def is_blocked(self, name):
        return name in self.blocked

    def has_plugin(self, name):
        return name in self.registered


def test_off_when_pytest_benchmark_is_installed(monkeypatch):
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    assert other_plugin_active(FakePluginManager(), installed=True)
    assert not other_plugin_active(FakePluginManager(), installed=False)


def test_on_when_pytest_benchmark_is_blocked(monkeypatch):
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    assert not other_plugin_active(FakePluginManager(blocked={"benchmark"}), installed=True)


@pytest.mark.parametrize("name", ["benchmark", "pytest_benchmark.plugin"])
def test_off_when_pytest_benchmark_is_registered(monkeypatch, name):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    assert other_plugin_active(FakePluginManager(registered={name}), installed=True)


def test_on_without_autoload_unless_registered(monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    assert not other_plugin_active(FakePluginManager(), installed=True)
