"""perf.collect.python: the interpreter's implementation, JIT, version
text and build metadata."""

from __future__ import annotations

import gc
import platform
import re
import sys
import types
from typing import Any

import pytest

import perf
import perf.collect.python as python_module
from perf.collect.python import (
    collect_memory_metadata,
    collect_python_metadata,
    python_has_jit,
    python_implementation,
    python_version_text,
)


def test_python_implementation() -> None:
    assert python_implementation() == sys.implementation.name.lower()
    assert python_implementation() == platform.python_implementation().lower()


def test_exported_at_top_level() -> None:
    assert perf.python_implementation is python_implementation
    assert perf.python_has_jit is python_has_jit


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython only")
def test_python_has_jit_on_this_cpython() -> None:
    jit = getattr(sys, "_jit", None)
    expected = bool(jit.is_enabled()) if jit is not None and hasattr(jit, "is_enabled") else False
    if hasattr(sys, "pyston_version_info") or "pyston_lite" in sys.modules:
        expected = True
    assert python_has_jit() is expected


def test_python_has_jit_returns_a_bool() -> None:
    assert isinstance(python_has_jit(), bool)


@pytest.mark.parametrize(("enabled", "expected"), [(True, True), (False, False)])
def test_cpython_jit(monkeypatch: pytest.MonkeyPatch, enabled: bool, expected: bool) -> None:
    monkeypatch.setattr(python_module, "python_implementation", lambda: "cpython")
    monkeypatch.delattr(sys, "pyston_version_info", raising=False)
    monkeypatch.delitem(sys.modules, "pyston_lite", raising=False)
    monkeypatch.setattr(sys, "_jit", types.SimpleNamespace(is_enabled=lambda: enabled), raising=False)
    assert python_has_jit() is expected


def test_cpython_without_jit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(python_module, "python_implementation", lambda: "cpython")
    monkeypatch.delattr(sys, "pyston_version_info", raising=False)
    monkeypatch.delitem(sys.modules, "pyston_lite", raising=False)
    monkeypatch.delattr(sys, "_jit", raising=False)
    assert python_has_jit() is False


@pytest.mark.parametrize(
    ("translation_info", "expected"),
    [({"translation.jit": True}, True), ({"translation.jit": False}, False), ({}, False)],
)
def test_pypy_jit(monkeypatch: pytest.MonkeyPatch, translation_info: dict[str, bool], expected: bool) -> None:
    monkeypatch.setattr(python_module, "python_implementation", lambda: "pypy")
    monkeypatch.setattr(sys, "pypy_translation_info", translation_info, raising=False)
    assert python_has_jit() is expected


@pytest.mark.parametrize("name", ["graalpython", "graalpy"])
def test_graalpy_jit(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setattr(python_module, "python_implementation", lambda: name)
    assert python_has_jit() is True


def test_pyston_is_a_jit(monkeypatch: pytest.MonkeyPatch) -> None:
    # Pyston reports "cpython" (doc/compatibility.rst, known pyperf bugs: pyperf misses it)
    monkeypatch.setattr(python_module, "python_implementation", lambda: "cpython")
    monkeypatch.setattr(sys, "pyston_version_info", (2, 3, 5), raising=False)
    monkeypatch.delattr(sys, "_jit", raising=False)
    assert python_has_jit() is True


def test_pyston_lite_is_a_jit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(python_module, "python_implementation", lambda: "cpython")
    monkeypatch.delattr(sys, "pyston_version_info", raising=False)
    monkeypatch.setitem(sys.modules, "pyston_lite", types.ModuleType("pyston_lite"))
    monkeypatch.delattr(sys, "_jit", raising=False)
    assert python_has_jit() is True


# --- version text ----------------------------------------------------------------


def test_python_version_text_on_this_interpreter() -> None:
    text = python_version_text()
    if sys.implementation.name == "pypy":
        assert text.startswith(f"PyPy {platform.python_version()}") or f"(Python {platform.python_version()})" in text
    else:
        assert text.startswith(platform.python_version())
    bits = platform.architecture()[0]
    if bits in ("64bit", "32bit"):
        assert f"({bits[:2]}-bit)" in text


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("3.11.7 (main, Dec  8 2023, 18:56:58) [GCC 12.2.0]", None),
        ("3.11.7 (tags/v3.11.7:fa7a6f2303, Dec  4 2023, 19:24:49) [MSC v.1937 64 bit (AMD64)]", "fa7a6f2303"),
        ("3.13.0a1+ (heads/main:0123abcdef+, Oct 13 2023, 10:00:00) [GCC 13.2.1]", "0123abcdef+"),
    ],
)
def test_python_version_text_revision(monkeypatch: pytest.MonkeyPatch, version: str, expected: str | None) -> None:
    monkeypatch.setattr(sys, "version", version)
    text = python_version_text()
    if expected is None:
        assert "revision" not in text
    else:
        assert text.endswith(f" revision {expected}")


def test_python_version_text_pypy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "version", "3.10.13 (f1607341da97, Jan 01 2024, 00:00:00)\n[PyPy 7.3.15 with GCC 10.2.1]")
    monkeypatch.setattr(platform, "python_version", lambda: "3.10.13")
    text = python_version_text()
    assert text.startswith("PyPy 7.3.15 (Python 3.10.13)")
    assert text.endswith(" revision f1607341da97")


# --- collected metadata ----------------------------------------------------------------


def collect() -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    collect_python_metadata(metadata)
    return metadata


def test_collect_python_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    metadata = collect()
    assert metadata["python_implementation"] == python_implementation()
    assert metadata["python_version"] == python_version_text()
    assert metadata["python_executable"] == sys.executable
    assert re.fullmatch(r".+, resolution: [0-9.]+ (sec|ms|us|ns)", metadata["timer"])
    assert "python_hash_seed" not in metadata
    assert "python_gc" not in metadata
    for key in ("python_compiler", "python_cflags", "python_config_args"):
        if key in metadata:
            assert "\n" not in metadata[key]
            assert "  " not in metadata[key]


@pytest.mark.parametrize(("seed", "expected"), [("123", 123), ("0", 0), ("random", "random")])
def test_python_hash_seed(monkeypatch: pytest.MonkeyPatch, seed: str, expected: Any) -> None:
    monkeypatch.setenv("PYTHONHASHSEED", seed)
    assert collect()["python_hash_seed"] == expected


@pytest.mark.parametrize("seed", ["", "abc", "-1"])
def test_python_hash_seed_invalid(monkeypatch: pytest.MonkeyPatch, seed: str) -> None:
    monkeypatch.setenv("PYTHONHASHSEED", seed)
    assert "python_hash_seed" not in collect()


def test_python_gc_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc, "isenabled", lambda: False)
    assert collect()["python_gc"] == "disabled"


def test_collect_memory_metadata() -> None:
    metadata: dict[str, Any] = {}
    collect_memory_metadata(metadata)
    try:
        import resource  # noqa: F401
    except ImportError:
        assert metadata == {}
    else:
        assert isinstance(metadata["mem_max_rss"], int)
        assert metadata["mem_max_rss"] >= 1


def test_collected_values_are_valid_metadata() -> None:
    from perf.model.metadata import parse_metadata

    metadata = collect()
    collect_memory_metadata(metadata)
    assert parse_metadata(metadata) == metadata
