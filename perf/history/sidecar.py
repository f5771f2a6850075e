"""What a history store keeps next to each result file: the sidecar.

A result file does not say which commit, date, branch and machine an add
gave it (``--commit``, ``--date``...), so each one has a small JSON file
next to it, ``<commit>-<sha12>.history.json``, from which the index is
rebuilt.  This module reads and writes those documents, reads commit
dates, and turns one result file into its index entry.

Must not: print, exit, or open the index.
"""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

from perf.analysis.benchmarks import PAIR_KEY, SEED_KEY
from perf.analysis.interference import probe_sources, process_evidence
from perf.analysis.statistics import process_means
from perf.errors import HistoryStoreError
from perf.history.index import IndexEntry, PointRow, Recording
from perf.model.benchmark import Benchmark
from perf.model.suite import BenchmarkSuite

SUFFIX = ".history.json"
FORMAT = "perf-history-recording"
VERSION = 1

_UNSAFE = re.compile(r"[^A-Za-z0-9_.+-]")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def parse_date(text: str) -> float:
    """The UTC POSIX timestamp of an ISO-8601 date or time: ``2026-10-19``,
    ``2026-10-19T12:30:00+02:00``, ``...Z``; without an offset, UTC.
    Raises ValueError."""
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    if " " in value and "T" not in value:
        value = value.replace(" ", "T", 1)
    try:
        parsed = datetime.datetime.fromisoformat(value)
    except ValueError:
        # Python < 3.11: a plain date only through date.fromisoformat()
        parsed = datetime.datetime.combine(datetime.date.fromisoformat(value), datetime.time())
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    return parsed.timestamp()


def now() -> str:
    """The current UTC time, ISO-8601 with microseconds (sorts as text)."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")


def safe_name(text: str, limit: int = 80) -> str:
    """*text* usable as one file name component on every system."""
    name = _UNSAFE.sub("_", text)[:limit].lstrip(".")
    return name or "_"


def points(suite: BenchmarkSuite) -> list[PointRow]:
    """What the index keeps of each benchmark that has values (one without
    any cannot be compared): its process means; their speed probes, when
    every process recorded one of one source (pyperf's files have none;
    files appended to each other may mix kinds); the session and the
    round of each process, when every process has one of one session; the
    CPU share of each process, when every one recorded it."""
    result: list[PointRow] = []
    for benchmark in suite:
        means = process_means(run.values for run in benchmark.get_runs())
        if means:
            probes = [item.probe for item in process_evidence(benchmark)]
            known = tuple(probe for probe in probes if probe is not None)
            sources = probe_sources(benchmark)
            kept = len(known) == len(means) and len(sources) == 1
            source = sources.pop().key() if kept else ""
            session, rounds = _rounds(benchmark)
            result.append(
                PointRow(
                    benchmark.get_name(),
                    benchmark.get_display_unit(),  # counts apart from other integers
                    tuple(means),
                    known if kept else (),
                    source,
                    session,
                    rounds,
                    _shares(benchmark, len(means)),
                )
            )
    return result


def _shares(benchmark: Benchmark, count: int) -> tuple[float, ...]:
    """The CPU share of each process (empty unless every one of the *count*
    processes recorded one, and for values timed with the CPU clock: the
    time off the CPU is not in them)."""
    if benchmark.get_clock() == "cpu":
        return ()
    shares = tuple(item.cpu_share for item in process_evidence(benchmark) if item.cpu_share is not None)
    return shares if len(shares) == count else ()


def _rounds(benchmark: Benchmark) -> tuple[str, tuple[int, ...]]:
    """The interleaved session (its seed, as text) and the round of each
    run with values, or ``("", ())`` unless every such run has both."""
    seeds, rounds = set(), []
    for run in benchmark.get_runs():
        if not run.values:
            continue
        pair, seed = run._get(PAIR_KEY), run._get(SEED_KEY)
        if not isinstance(pair, int) or isinstance(pair, bool) or seed is None:
            return "", ()
        seeds.add(str(seed))
        rounds.append(pair)
    return (seeds.pop(), tuple(rounds)) if len(seeds) == 1 else ("", ())


def sort_key(recording: Recording) -> float:
    """The place of *recording* in a timeline: its commit date, else the
    time of its add."""
    if recording.timestamp is not None:
        return recording.timestamp
    return parse_date(recording.added)


def entry(recording: Recording, sidecar_path: str, suite: BenchmarkSuite) -> IndexEntry:
    return IndexEntry(recording, sidecar_path, sort_key(recording), points(suite))


def encode(recording: Recording, original: str) -> bytes:
    """The sidecar document of *recording* (*original*: the name the file
    had when it was added)."""
    document = {
        "format": FORMAT,
        "version": VERSION,
        "file": recording.path.rsplit("/", 1)[-1],
        "sha256": recording.sha256,
        "commit": recording.commit,
        "date": recording.date,
        "branch": recording.branch,
        "machine": recording.machine,
        "original": original,
        "added": recording.added,
    }
    return (json.dumps(document, indent=2, sort_keys=True) + "\n").encode("utf-8")


def _field(document: dict[str, Any], key: str, optional: bool = False) -> Any:
    value = document.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value or "\n" in value:
        raise ValueError(f"{key!r} must be a non-empty string, got {value!r}")
    return value


def decode(data: bytes, sidecar_path: str) -> Recording:
    """The recording a sidecar describes; *sidecar_path* is relative to
    the store root.  Raises :class:`~perf.errors.HistoryStoreError`."""
    try:
        document = json.loads(data.decode("utf-8"))
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} document")
        if document.get("version") != VERSION:
            raise ValueError(f"version {document.get('version')!r} (this perf reads {VERSION})")
        name = _field(document, "file")
        if "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"bad file name {name!r}")
        sha256 = _field(document, "sha256")
        if not _SHA256.fullmatch(sha256):
            raise ValueError(f"bad sha256 {sha256!r}")
        date = _field(document, "date", optional=True)
        timestamp = parse_date(date) if date is not None else None
        added = _field(document, "added")
        parse_date(added)
        folder = sidecar_path.rsplit("/", 1)[0]
        fields = (_field(document, "commit"), date, timestamp, _field(document, "branch", optional=True))
        return Recording(f"{folder}/{name}", sha256, *fields, _field(document, "machine"), added)
    except (ValueError, UnicodeDecodeError) as exc:
        raise HistoryStoreError(f"{sidecar_path}: not a valid recording sidecar: {exc}") from None


def metadata_value(suite: BenchmarkSuite, key: str, filename: str) -> str | None:
    """The value of metadata *key* in *suite*: common to its benchmarks,
    or held by some of them only; benchmarks that disagree are an error."""
    values = {str(value) for value in (benchmark.get_metadata().get(key) for benchmark in suite) if value is not None}
    if len(values) > 1:
        shown = ", ".join(sorted(values)[:3])
        raise HistoryStoreError(f"{filename}: its benchmarks have different {key} metadata ({shown})")
    return next(iter(values), None)


def result_name(commit: str, sha256: str, data: bytes) -> str:
    """``<commit>-<sha12>.json``, or ``.json.gz`` for a gzip file."""
    extension = ".json.gz" if data[:2] == b"\x1f\x8b" else ".json"
    return f"{safe_name(commit)}-{sha256[:12]}{extension}"


def sidecar_name(result: str) -> str:
    stem = result[: -len(".json.gz")] if result.endswith(".json.gz") else result[: -len(".json")]
    return stem + SUFFIX
