"""perf.platform.optional.load_psutil: psutil is optional at run time."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from perf.platform import optional


@pytest.fixture
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    # the module caches the import: reset it to "not tried yet"
    monkeypatch.setattr(optional, "_psutil", optional._UNSET)


@pytest.mark.usefixtures("fresh_cache")
def test_load_psutil_returns_none_when_import_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psutil", None)  # makes "import psutil" raise ImportError
    assert optional.load_psutil() is None


@pytest.mark.usefixtures("fresh_cache")
def test_load_psutil_returns_none_when_import_crashes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # some PyPy and free-threaded builds ship a psutil that fails with other errors
    (tmp_path / "psutil.py").write_text("raise RuntimeError('broken build')\n")
    monkeypatch.delitem(sys.modules, "psutil", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert optional.load_psutil() is None
    monkeypatch.delitem(sys.modules, "psutil", raising=False)


@pytest.mark.usefixtures("fresh_cache")
def test_load_psutil_returns_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("psutil")
    monkeypatch.setitem(sys.modules, "psutil", fake)
    assert optional.load_psutil() is fake


@pytest.mark.usefixtures("fresh_cache")
def test_load_psutil_is_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psutil", None)
    assert optional.load_psutil() is None
    # the failed import is not retried
    monkeypatch.setitem(sys.modules, "psutil", types.ModuleType("psutil"))
    assert optional.load_psutil() is None
