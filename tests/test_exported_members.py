"""The public surface, pinned: a change to what ``perf`` and ``perf.api``
export is a visible, reviewed diff of this file."""

from __future__ import annotations

import perf
import perf.api

PERF = [
    "Benchmark",
    "BenchmarkSuite",
    "Run",
    "Runner",
    "add_runs",
    "format_metadata",
    "perf_counter",
    "python_has_jit",
    "python_implementation",
]
API = [
    "Command",
    "ComparisonResult",
    "Function",
    "Pair",
    "RunOptions",
    "SessionEvents",
    "Timeit",
    "compare",
    "run",
    "run_pair",
]


def test_perf_exports():
    assert sorted(perf.__all__) == PERF
    assert all(hasattr(perf, name) for name in PERF)
    assert isinstance(perf.__version__, str)


def test_perf_api_exports():
    assert sorted(perf.api.__all__) == API
    assert all(hasattr(perf.api, name) for name in API)


def test_every_name_of_the_api_is_documented():
    """perf.api exports only what doc/api.rst documents (a class or a
    function directive of its own)."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parent.parent / "doc" / "api.rst").read_text()
    documented = set(re.findall(r"^\.\. (?:class|function):: (\w+)", text, re.MULTILINE))
    assert sorted(set(API) - documented) == []
