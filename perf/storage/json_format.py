"""The JSON result format: decode versions 5, 6 and "1.0"; encode "1.0".

Format history (``doc/json_format.rst`` has the details):

* ``"1.0"`` (perf 1.0): warmup values are normalised per loop iteration.
* ``6`` (perf 0.9.6): suite-level ``metadata`` at the root; the benchmark
  key ``common_metadata`` became ``metadata``; run ``samples`` became
  ``values``.
* ``5`` (perf 0.8.3): dates use a space separator.
* 1 to 4 are no longer readable (pyperf cannot read them either).

Decoding is strict: every key, type and value is checked, and the error
names the JSON path of the problem (``benchmarks[0].runs[3].values[1]``).
Metadata is factored on write exactly as pyperf does: keys common to every
run of every benchmark go to the root, keys common to the runs of one
benchmark go to the benchmark, the rest stays in the runs.

This module is the reference: :func:`decode_suite` checks a parsed
document (any version) item by item and names the JSON path of the first
problem.  :mod:`perf.storage.json_stream` decodes the text of format "1.0"
documents faster and leaves every other document, and every error, to it.

Must not: open files or know about the file system.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from perf.errors import FileFormatError, IncompatibleRunError, ResultError
from perf.model.benchmark import Benchmark
from perf.model.metadata import Metadata, exclude_keys, parse_metadata
from perf.model.run import Run, check_values, check_warmups
from perf.model.suite import BenchmarkSuite

#: the version perf writes
FORMAT_VERSION = "1.0"


class _Layout(NamedTuple):
    """Where one format version keeps each part of the document."""

    root_keys: frozenset[str]
    benchmark_metadata_key: str
    benchmark_keys: frozenset[str]
    values_key: str
    values_required: bool
    run_keys: frozenset[str]
    warmups_per_iteration: bool


_LAYOUT_6 = _Layout(
    root_keys=frozenset({"version", "benchmarks", "metadata"}),
    benchmark_metadata_key="metadata",
    benchmark_keys=frozenset({"runs", "metadata"}),
    values_key="values",
    values_required=False,
    run_keys=frozenset({"values", "warmups", "metadata"}),
    warmups_per_iteration=False,
)

#: format version (as stored in the document) -> its layout
LAYOUTS: dict[Any, _Layout] = {
    "1.0": _LAYOUT_6._replace(warmups_per_iteration=True),
    6: _LAYOUT_6,
    5: _Layout(
        root_keys=frozenset({"version", "benchmarks"}),
        benchmark_metadata_key="common_metadata",
        benchmark_keys=frozenset({"runs", "common_metadata"}),
        values_key="samples",
        values_required=True,
        run_keys=frozenset({"samples", "warmups", "metadata"}),
        warmups_per_iteration=False,
    ),
}


class _Problem(Exception):
    """A decoding problem at a JSON path; becomes a FileFormatError."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}" if path else reason)


def _check_object(data: Any, path: str, allowed: frozenset[str], required: tuple[str, ...]) -> None:
    if not isinstance(data, dict):
        raise _Problem(path, f"expected a JSON object, got {_json_type(data)}")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise _Problem(path or "top level", f"unknown key {unknown[0]!r}")
    for key in required:
        if key not in data:
            raise _Problem(path or "top level", f"missing key {key!r}")


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _list_at(data: dict[str, Any], key: str, path: str, allow_empty: bool) -> list[Any]:
    value = data[key]
    if not isinstance(value, list):
        raise _Problem(f"{path}{key}", f"expected an array, got {_json_type(value)}")
    if not value and not allow_empty:
        raise _Problem(f"{path}{key}", "the array is empty")
    return value


def _metadata_at(data: dict[str, Any], key: str, path: str) -> Metadata:
    if key not in data:
        return {}
    value = data[key]
    if not isinstance(value, dict):
        raise _Problem(f"{path}{key}", f"expected an object, got {_json_type(value)}")
    try:
        return parse_metadata(value)
    except ResultError as exc:
        raise _Problem(f"{path}{key}", str(exc)) from None


def _decode_run(data: Any, path: str, layout: _Layout, inherited: Metadata) -> Run:
    required = (layout.values_key,) if layout.values_required else ()
    _check_object(data, path, layout.run_keys, required)
    own = _metadata_at(data, "metadata", path + ".")
    metadata = {**inherited, **own} if own else inherited
    try:
        values = check_values(_list_at(data, layout.values_key, path + ".", True)) if layout.values_key in data else ()
        raw_warmups = _list_at(data, "warmups", path + ".", True) if "warmups" in data else []
        warmups = check_warmups(raw_warmups)
    except ResultError as exc:
        # the message starts with the item: "values[1]: ..."
        raise _Problem("", f"{path}.{exc}") from None
    if not values and not warmups:
        raise _Problem(path, "a run needs values or warmups: both are empty")
    if warmups and not layout.warmups_per_iteration:
        inner_loops = metadata.get("inner_loops", 1)
        warmups = tuple((loops, value / (loops * inner_loops)) for loops, value in warmups)
    return Run._from_checked(values, warmups, metadata)


def _decode_benchmark(data: Any, path: str, layout: _Layout, suite_metadata: Metadata) -> Benchmark:
    _check_object(data, path, layout.benchmark_keys, ("runs",))
    own = _metadata_at(data, layout.benchmark_metadata_key, path + ".")
    inherited = {**suite_metadata, **own}
    raw_runs = _list_at(data, "runs", path + ".", False)
    runs = [_decode_run(item, f"{path}.runs[{index}]", layout, inherited) for index, item in enumerate(raw_runs)]
    try:
        benchmark = Benchmark(runs[:1])
    except ResultError as exc:
        raise _Problem(f"{path}.runs[0]", str(exc)) from None
    for index, run in enumerate(runs[1:], 1):
        try:
            benchmark.add_run(run)
        except IncompatibleRunError as exc:
            raise _Problem(f"{path}.runs[{index}]", str(exc)) from None
    return benchmark


def decode_suite(data: Any, filename: str | None) -> BenchmarkSuite:
    """Build a suite from a parsed JSON document of any readable version.

    Raises :class:`~perf.errors.FileFormatError` naming *filename* and the
    JSON path of the first problem.
    """
    try:
        return _decode_suite(data, filename)
    except _Problem as exc:
        raise FileFormatError(filename, str(exc)) from None


def _decode_suite(data: Any, filename: str | None) -> BenchmarkSuite:
    if not isinstance(data, dict):
        raise _Problem("", f"expected a JSON object at the top level, got {_json_type(data)}")
    if "version" not in data:
        raise _Problem("top level", "missing key 'version': not a perf result file")
    version = data["version"]
    layout = LAYOUTS.get(version) if isinstance(version, (int, str)) and not isinstance(version, bool) else None
    if layout is None:
        raise _Problem("version", f"unsupported format version {version!r} (readable: 5, 6 and '1.0')")
    _check_object(data, "", layout.root_keys, ("benchmarks",))
    suite_metadata = _metadata_at(data, "metadata", "")
    raw_benchmarks = _list_at(data, "benchmarks", "", False)
    benchmarks = []
    names: set[str] = set()
    for index, item in enumerate(raw_benchmarks):
        benchmark = _decode_benchmark(item, f"benchmarks[{index}]", layout, suite_metadata)
        name = benchmark.get_name()
        if name in names:
            raise _Problem(f"benchmarks[{index}]", f"duplicate benchmark name {name!r}")
        names.add(name)
        benchmarks.append(benchmark)
    return BenchmarkSuite._from_checked(benchmarks, filename)


def encode_suite(suite: BenchmarkSuite) -> dict[str, Any]:
    """The JSON document (format "1.0") of *suite*, metadata factored."""
    suite_metadata = suite.get_metadata()
    document: dict[str, Any] = {
        "version": FORMAT_VERSION,
        "benchmarks": [_encode_benchmark(benchmark, suite_metadata) for benchmark in suite],
    }
    if suite_metadata:
        document["metadata"] = suite_metadata
    return document


def _encode_benchmark(benchmark: Benchmark, suite_metadata: Metadata) -> dict[str, Any]:
    own = benchmark._get_common_metadata()
    inherited = {**own, **suite_metadata}
    data: dict[str, Any] = {"runs": [_encode_run(run, inherited) for run in benchmark._runs]}
    own = exclude_keys(own, suite_metadata)
    if own:
        data["metadata"] = own
    return data


def _encode_run(run: Run, inherited: Metadata) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if run._warmups:
        data["warmups"] = run._warmups
    if run._values:
        data["values"] = run._values
    own = exclude_keys(run._get_metadata(), inherited)
    if own:
        data["metadata"] = own
    return data


def reject_constant(name: str) -> Any:
    """``parse_constant`` of the JSON parsers: NaN and infinities are errors."""
    raise ValueError(f"{name} is not a valid value")
