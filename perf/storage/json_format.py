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

Two decoders share these rules:

* :func:`decode_suite`, the reference, checks a parsed document (any
  version) item by item and names the JSON path of the first problem;
* :func:`decode_text` reads the text of a format "1.0" document benchmark by
  benchmark (from a string, or a reader for big files: only one benchmark's
  JSON objects are alive at a time), checks whole columns of values at once,
  and stores each run's own metadata beside the metadata its benchmark's
  runs share.  It accepts only what the reference accepts unchanged, and
  raises :class:`SlowPathNeeded` for anything else (an error, another
  version, a string that the reference would strip...): the caller then runs
  the reference, so results and error messages are the reference's.

Must not: open files or know about the file system.
"""

from __future__ import annotations

import itertools
import json
import math
import operator
import re
from typing import Any, Callable, NamedTuple, Optional

from perf.errors import FileFormatError, IncompatibleRunError, ResultError
from perf.model.benchmark import Benchmark
from perf.model.metadata import CHECKED_KEYS, Metadata, exclude_keys, is_valid_column, parse_metadata
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


# --- the fast decoder of format "1.0" text -----------------------------------


class SlowPathNeeded(Exception):
    """:func:`decode_text` leaves this document to the reference decoder."""


def reject_constant(name: str) -> Any:
    """``parse_constant`` of the JSON parsers: NaN and infinities are errors."""
    raise ValueError(f"{name} is not a valid value")


_DECODER = json.JSONDecoder(parse_constant=reject_constant)
#: the scanner of json.loads(text, parse_constant=reject_constant):
#: ``_scan(text, index) -> (value, end)``
_scan: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_WHITESPACE = re.compile(r"[ \t\n\r]*")
#: read at least this many characters at a time
_CHUNK = 1024 * 1024
_LAYOUT = LAYOUTS[FORMAT_VERSION]
_CHECKED_KEYS = frozenset(CHECKED_KEYS)
_DICT_TYPES = frozenset({dict})
_LIST_OR_DEFAULT = frozenset({list, tuple})  # tuple: the default of a missing key
_NUMBER_TYPES = frozenset({float, int})
_INT_TYPES = frozenset({int})
_PAIR = frozenset({2})
_NO_METADATA: Metadata = {}
#: runs whose own metadata is checked at once (bounds the memory it takes)
_ROWS_PER_CHECK = 4096

Reader = Optional[Callable[[int], str]]


class _Text:
    """JSON text read on demand: ``text[pos:]`` is what is left to parse.

    Only the text of the value being parsed (and a chunk) is kept: a big
    file is never in memory as a whole.
    """

    def __init__(self, read: Reader, text: str) -> None:
        self.read = read
        self.text = text
        self.pos = 0
        #: length of the text of the last value parsed
        self.size = 0

    def more(self, size: int = 0) -> bool:
        """Read at least *size* more characters, or up to the end of the
        input; false when there was nothing more to read."""
        chunk = self.read(max(_CHUNK, size)) if self.read is not None else ""
        if not chunk:
            return False
        self.text = self.text[self.pos :] + chunk
        self.pos = 0
        return True

    def next_char(self) -> str:
        """Skip whitespace; the next character ("" at the end)."""
        while True:
            self.pos = _WHITESPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return ""

    def expect(self, chars: str) -> str:
        """Consume the next character, one of *chars*."""
        char = self.next_char()
        if not char or char not in chars:
            raise SlowPathNeeded(f"expected one of {chars!r}")
        self.pos += 1
        return char

    def value(self, expected_size: int = 0) -> Any:
        """Parse the JSON value at the current position, reading first up
        to *expected_size* characters ahead: a value cut by the end of the
        text read so far fails, and is parsed again with more text."""
        self.next_char()
        if len(self.text) - self.pos < expected_size:
            self.more(expected_size)
        while True:
            try:
                value, end = _scan(self.text, self.pos)
            except (StopIteration, ValueError, RecursionError):
                # incomplete or invalid: parsed again with twice the text
                if not self.more(len(self.text) - self.pos):
                    raise SlowPathNeeded("not a valid JSON document") from None
                continue
            if end < len(self.text) or not self.more():  # a number may go on
                self.size = end - self.pos
                self.pos = end
                return value


def decode_text(text: str, filename: str | None, read: Reader = None) -> BenchmarkSuite:
    """Decode a format "1.0" document: *text*, then what *read(size)* returns
    (``''`` at the end).

    Raises :class:`SlowPathNeeded` unless the document is valid and
    :func:`decode_suite` would build the same suite from it.
    """
    source = _Text(read, text)
    decoder = _FastDecoder()
    root: dict[str, Any] = {}
    source.expect("{")
    while True:
        if source.next_char() != '"':
            raise SlowPathNeeded("expected a key")
        key = source.value()
        if key in root or key not in _LAYOUT.root_keys:
            raise SlowPathNeeded(f"key {key!r}")
        source.expect(":")
        if key == "benchmarks":
            source.expect("[")
            largest = 0
            while True:
                decoder.add_benchmark(source.value(2 * largest))
                largest = max(largest, source.size)
                if source.expect(",]") == "]":
                    break
            root[key] = True
        else:
            root[key] = source.value()
        if source.expect(",}") == "}":
            break
    if source.next_char():
        raise SlowPathNeeded("extra data")
    if root.get("version") != FORMAT_VERSION or "benchmarks" not in root:
        raise SlowPathNeeded("another format version")
    suite_metadata = _NO_METADATA
    if "metadata" in root:
        suite_metadata = _parse_metadata_fast(root["metadata"])
    return BenchmarkSuite._from_checked(decoder.finish(suite_metadata), filename)


def _parse_metadata_fast(data: Any) -> Metadata:
    if type(data) is not dict:
        raise SlowPathNeeded("metadata is not an object")
    try:
        return parse_metadata(data)
    except ResultError:
        raise SlowPathNeeded("invalid metadata") from None


class _FastDecoder:
    """Benchmarks decoded one after the other; the checks of the runs' own
    metadata, a column of values at once, wait for the end of the document."""

    def __init__(self) -> None:
        #: (inherited metadata, runs) of each benchmark; the suite's
        #: metadata is added to the inherited dicts at the end
        self.benchmarks: list[tuple[Metadata, list[Run]]] = []
        #: own metadata keys of runs -> their positions in Run._metadata
        #: (one dict shared by the runs that have the same keys)
        self.positions: dict[tuple[str, ...], dict[str, int]] = {}
        #: own metadata keys of runs -> the runs' metadata tuples
        #: ``(inherited, positions, *own values)``, to check
        self.metadata: dict[tuple[str, ...], list[tuple[Any, ...]]] = {}

    def add_benchmark(self, data: Any) -> None:
        if type(data) is not dict or not _LAYOUT.benchmark_keys.issuperset(data) or "runs" not in data:
            raise SlowPathNeeded("benchmark object")
        inherited = _parse_metadata_fast(data["metadata"]) if "metadata" in data else {}
        raw_runs = data["runs"]
        if type(raw_runs) is not list or not raw_runs or set(map(type, raw_runs)) != _DICT_TYPES:
            raise SlowPathNeeded("runs")
        if not all(map(_LAYOUT.run_keys.issuperset, raw_runs)):
            raise SlowPathNeeded("run keys")
        values = [run.get("values", ()) for run in raw_runs]
        warmups = [run.get("warmups", ()) for run in raw_runs]
        metadatas = [run.get("metadata", _NO_METADATA) for run in raw_runs]
        if not set(map(type, values)).union(map(type, warmups)) <= _LIST_OR_DEFAULT:
            raise SlowPathNeeded("values or warmups are not arrays")
        if 0 in map(operator.add, map(len, values), map(len, warmups)) or set(map(type, metadatas)) != _DICT_TYPES:
            raise SlowPathNeeded("empty run, or metadata that is not an object")
        _check_values(values)
        _check_warmups(warmups)
        runs = list(
            map(
                Run._from_checked,
                map(tuple, values),
                [tuple(map(tuple, pairs)) for pairs in warmups],
                self._run_metadata(inherited, metadatas),
            )
        )
        self.benchmarks.append((inherited, runs))

    def _run_metadata(self, inherited: Metadata, metadatas: list[dict[str, Any]]) -> list[Any]:
        """``Run._metadata`` of each run: *inherited* alone, or a tuple
        ``(inherited, positions, *own values)``, filed to be checked."""
        result: list[Any] = []
        start = 0
        all_keys = list(map(tuple, metadatas))
        for keys, group in itertools.groupby(all_keys):  # runs with the same keys follow each other
            count = len(list(group))
            if not keys:
                result.extend(itertools.repeat(inherited, count))
            else:
                positions = self.positions.get(keys)
                if positions is None:
                    if not _CHECKED_KEYS.isdisjoint(keys):
                        # runs must agree on these: the reference checks them
                        raise SlowPathNeeded("checked metadata in a run")
                    positions = self.positions[keys] = {key: index for index, key in enumerate(keys, 2)}
                    self.metadata[keys] = []
                stored = [(inherited, positions, *metadata.values()) for metadata in metadatas[start : start + count]]
                self.metadata[keys].extend(stored)
                result.extend(stored)
            start += count
        return result

    def finish(self, suite_metadata: Metadata) -> list[Benchmark]:
        """Check the runs' own metadata, add the suite's metadata under each
        benchmark's, check the names, and build the benchmarks."""
        for keys, rows in self.metadata.items():
            for start in range(0, len(rows), _ROWS_PER_CHECK):
                columns = zip(*rows[start : start + _ROWS_PER_CHECK])
                next(columns)  # inherited
                next(columns)  # positions
                for name, column in zip(keys, columns):
                    if not is_valid_column(name, column):
                        raise SlowPathNeeded(f"metadata {name!r}")
        benchmarks = []
        names = set()
        for inherited, runs in self.benchmarks:
            if suite_metadata:
                # the runs share this dict: change it in place
                merged = {**suite_metadata, **inherited}
                inherited.clear()
                inherited.update(merged)
            benchmark_name = inherited.get("name")
            if benchmark_name is None or benchmark_name in names:
                raise SlowPathNeeded("no name, or a duplicate name")
            names.add(benchmark_name)
            benchmarks.append(Benchmark._from_checked(runs))
        return benchmarks


def _check_values(runs_values: list[list[Any]]) -> None:
    values = list(itertools.chain.from_iterable(runs_values))
    if values and not (set(map(type, values)) <= _NUMBER_TYPES and min(values) > 0 and max(values) < math.inf):
        raise SlowPathNeeded("values")


def _check_warmups(runs_warmups: list[list[Any]]) -> None:
    warmups = list(itertools.chain.from_iterable(runs_warmups))
    if not warmups:
        return
    # a pair of anything else than an array fails below: zip() of a
    # string or an object gives strings, of a number raises TypeError
    try:
        if set(map(len, warmups)) != _PAIR:
            raise SlowPathNeeded("warmups")
        loops, values = zip(*warmups)
    except TypeError:
        raise SlowPathNeeded("warmups") from None
    if set(map(type, loops)) != _INT_TYPES or min(loops) < 1:
        raise SlowPathNeeded("warmup loops")
    if not (set(map(type, values)) <= _NUMBER_TYPES and min(values) >= 0 and max(values) < math.inf):
        raise SlowPathNeeded("warmup values")
