"""The streaming decoder of format "1.0" text: fast, and never wrong.

:func:`decode_text` reads the text of a format "1.0" document benchmark by
benchmark (from a string, or a reader for big files: only one benchmark's
JSON objects are alive at a time), checks whole columns of values at once,
and stores each run's own metadata beside the metadata its benchmark's
runs share.  It accepts only what the reference decoder
(:func:`perf.storage.json_format.decode_suite`) accepts unchanged, and
raises :class:`SlowPathNeeded` for anything else (an error, another
version, a string that the reference would strip...): the caller then runs
the reference, so results and error messages are the reference's.

Must not: open files or know about the file system, or raise an error of
its own for a bad document (that is the reference's to name).
"""

from __future__ import annotations

import itertools
import json
import math
import operator
import re
from typing import Any, Callable, Optional

from perf.errors import ResultError
from perf.model.benchmark import Benchmark
from perf.model.metadata import CHECKED_KEYS, Metadata, is_valid_column, parse_metadata
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.storage.json_format import FORMAT_VERSION, LAYOUTS, reject_constant


class SlowPathNeeded(Exception):
    """:func:`decode_text` leaves this document to the reference decoder."""


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
            _read_benchmarks(source, decoder)
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


def _read_benchmarks(source: _Text, decoder: _FastDecoder) -> None:
    """Decode the array of benchmarks at the current position."""
    source.expect("[")
    largest = 0
    while True:
        # a benchmark is often as big as the largest one before it: read
        # that much ahead rather than parse a cut value again and again
        decoder.add_benchmark(source.value(2 * largest))
        largest = max(largest, source.size)
        if source.expect(",]") == "]":
            return


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
