"""The SQLite index of a history store: its recordings and their points.

The index is derived data: :mod:`perf.history.store` rebuilds it from the
store's files (``history reindex``) and brings it in sync when it opens a
store, so a missing, stale or unreadable ``index.sqlite`` is never an
error.  It holds:

* ``recordings``: one row per result file (path, sha256, commit, date and
  its UTC timestamp, branch, machine, the time of the add), plus
  ``sort_key``, the position in a timeline: the commit's timestamp, or the
  time of the add for a commit without a date;
* ``points``: one row per benchmark of a recording: its unit, its
  process means, their speed probes, rounds and CPU shares, packed as
  ``array('d')`` bytes (native byte order: the index never leaves the
  machine), what made the probes
  (:meth:`perf.analysis.interference.ProbeSource.key`: probes of different
  sources are never compared), and the interleaved session the recording
  was made in (``history record``: the seed its runs share).

Every write is one ``BEGIN IMMEDIATE`` transaction (a busy timeout lets
two processes wait for each other instead of failing).

Must not: read or write result files, print or exit.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import struct
from array import array
from typing import Any, Callable, Iterator, NamedTuple, Sequence

SCHEMA_VERSION = "4"

#: seconds a process waits for another's write transaction
BUSY_TIMEOUT = 120.0

#: the most benchmark names passed to one SQL ``IN (...)``; more are
#: filtered in Python (old SQLite versions allow 999 parameters)
_MAX_PARAMETERS = 500

_TABLES = (
    """CREATE TABLE recordings (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        sidecar TEXT NOT NULL UNIQUE,
        sha256 TEXT NOT NULL UNIQUE,
        commit_id TEXT NOT NULL,
        date TEXT,
        timestamp REAL,
        branch TEXT,
        machine TEXT NOT NULL,
        added TEXT NOT NULL,
        sort_key REAL NOT NULL)""",
    "CREATE INDEX recordings_order ON recordings (sort_key, added, path)",
    """CREATE TABLE points (
        recording INTEGER NOT NULL,
        benchmark TEXT NOT NULL,
        unit TEXT NOT NULL,
        means BLOB NOT NULL,
        probes BLOB NOT NULL,
        probe_source TEXT NOT NULL,
        session TEXT NOT NULL,
        rounds BLOB NOT NULL,
        shares BLOB NOT NULL,
        PRIMARY KEY (benchmark, recording)) WITHOUT ROWID""",
    "CREATE INDEX points_recording ON points (recording)",
)

_ORDER = "r.sort_key, r.added, r.path"
_POINT_COLUMNS = "recording, benchmark, unit, means, probes, probe_source, session, rounds, shares"
_RECORDING_COLUMNS = "r.id, r.path, r.sha256, r.commit_id, r.date, r.timestamp, r.branch, r.machine, r.added"


class Recording(NamedTuple):
    """One result file of a store."""

    #: relative to the store root: ``results/<machine>/<commit>-<sha12>.json[.gz]``
    path: str
    #: of the file's bytes
    sha256: str
    #: the full commit id
    commit: str
    #: the commit's ISO-8601 date, as given
    date: str | None
    #: the date as UTC POSIX seconds (the order of a timeline)
    timestamp: float | None
    branch: str | None
    machine: str
    #: ISO-8601 UTC time of the add
    added: str


class StoredPoint(NamedTuple):
    """One benchmark of one recording, read from the index."""

    benchmark: str
    unit: str
    recording: Recording
    #: :func:`perf.analysis.statistics.process_means` of the runs' values
    process_means: tuple[float, ...]
    #: the speed probe of each of those processes (empty: not recorded)
    probes: tuple[float, ...] = ()
    #: what made the probes (empty: no probes)
    probe_source: str = ""
    #: the interleaved session the recording was made in (its seed; empty:
    #: a recording of its own), and the round of each process
    session: str = ""
    rounds: tuple[int, ...] = ()
    #: the share of its values' wall time each process spent on the CPU
    #: (empty: not recorded, or CPU-time values)
    shares: tuple[float, ...] = ()


class PointRow(NamedTuple):
    """What the index keeps of one benchmark of a result file."""

    benchmark: str
    unit: str
    means: tuple[float, ...]
    probes: tuple[float, ...] = ()
    probe_source: str = ""
    session: str = ""
    rounds: tuple[int, ...] = ()
    shares: tuple[float, ...] = ()


class IndexEntry(NamedTuple):
    """What the index holds of one result file: its recording, the path of
    its sidecar, its sort key and its points."""

    recording: Recording
    sidecar: str
    sort_key: float
    points: list[PointRow]


def connect(path: str) -> sqlite3.Connection:
    """The index at *path*, its tables created (or re-created when they
    are of another version); an unreadable file is replaced."""
    try:
        return _connect(path)
    except sqlite3.DatabaseError:
        # not a database, or a damaged one: it is derived data
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path + suffix)
        return _connect(path)


def _connect(path: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None)
    try:
        if _version(connection) != SCHEMA_VERSION:
            with transaction(connection):
                if _version(connection) != SCHEMA_VERSION:
                    reset(connection)
    except BaseException:
        connection.close()
        raise
    return connection


def _version(connection: sqlite3.Connection) -> str | None:
    row = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'info'").fetchone()
    if row is None:
        return None
    found = connection.execute("SELECT value FROM info WHERE key = 'version'").fetchone()
    return str(found[0]) if found else None


@contextlib.contextmanager
def transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """One write transaction: committed at the end, rolled back on error."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def reset(connection: sqlite3.Connection) -> None:
    """Drop every table and create empty ones (inside a transaction)."""
    tables = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    for (name,) in tables:
        connection.execute(f'DROP TABLE "{name}"')
    for statement in _TABLES:
        connection.execute(statement)
    connection.execute("CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    connection.execute("INSERT INTO info VALUES ('version', ?)", (SCHEMA_VERSION,))


def insert(connection: sqlite3.Connection, entry: IndexEntry) -> None:
    """Index one recording and its points (inside a transaction)."""
    recording = entry.recording
    cursor = connection.execute(
        "INSERT INTO recordings (path, sidecar, sha256, commit_id, date, timestamp, branch, machine, added, sort_key)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (recording.path, entry.sidecar, *recording[1:], entry.sort_key),
    )
    identifier = cursor.lastrowid
    connection.executemany(
        f"INSERT INTO points ({_POINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        # the numbers packed as array('d') bytes
        [
            (identifier, *(array("d", v).tobytes() if isinstance(v, tuple) else v for v in point))
            for point in entry.points
        ],
    )


def delete(connection: sqlite3.Connection, sidecars: Sequence[str]) -> None:
    """Forget the recordings of these sidecars (inside a transaction)."""
    for sidecar in sidecars:
        row = connection.execute("SELECT id FROM recordings WHERE sidecar = ?", (sidecar,)).fetchone()
        if row is not None:
            connection.execute("DELETE FROM points WHERE recording = ?", row)
            connection.execute("DELETE FROM recordings WHERE id = ?", row)


def sidecars(connection: sqlite3.Connection) -> set[str]:
    return {row[0] for row in connection.execute("SELECT sidecar FROM recordings")}


def path_of_sha256(connection: sqlite3.Connection, sha256: str) -> str | None:
    row = connection.execute("SELECT path FROM recordings WHERE sha256 = ?", (sha256,)).fetchone()
    return None if row is None else str(row[0])


def _machine_filter(machine: str | None) -> tuple[str, tuple[str, ...]]:
    return ("WHERE r.machine = ?", (machine,)) if machine is not None else ("", ())


def _recordings_by_id(connection: sqlite3.Connection, machine: str | None) -> dict[int, Recording]:
    where, parameters = _machine_filter(machine)
    rows = connection.execute(f"SELECT {_RECORDING_COLUMNS} FROM recordings r {where} ORDER BY {_ORDER}", parameters)
    return {row[0]: Recording._make(row[1:]) for row in rows}


def recordings(connection: sqlite3.Connection, machine: str | None = None) -> list[Recording]:
    """The recordings (of *machine*) in timeline order."""
    return list(_recordings_by_id(connection, machine).values())


def points(
    connection: sqlite3.Connection, benchmarks: Sequence[str] | None = None, machine: str | None = None
) -> list[StoredPoint]:
    """The points (of *benchmarks*, of *machine*) in timeline order, then
    by benchmark name.

    The rows are sorted here rather than by SQLite: a join ordered by the
    recordings' columns costs a temporary B-tree, twice the time of the
    rest for 50 benchmarks x 300 recordings.
    """
    by_id = _recordings_by_id(connection, machine)
    rank = {identifier: position for position, identifier in enumerate(by_id)}
    wanted = None if benchmarks is None else set(benchmarks)
    if wanted is not None and len(wanted) <= _MAX_PARAMETERS:
        rows = connection.execute(
            f"SELECT {_POINT_COLUMNS} FROM points WHERE benchmark IN ({', '.join('?' * len(wanted))})",
            sorted(wanted),
        ).fetchall()
    else:
        rows = connection.execute(f"SELECT {_POINT_COLUMNS} FROM points").fetchall()
    rows = [row for row in rows if row[0] in rank and (wanted is None or row[1] in wanted)]
    rows.sort(key=lambda row: (rank[row[0]], row[1]))
    unpackers: dict[int, Callable[[bytes], tuple[Any, ...]]] = {}
    result = []
    for identifier, name, unit, means, probes, source, session, rounds, shares in rows:
        for packed in (means, probes, rounds, shares):
            if len(packed) not in unpackers:
                unpackers[len(packed)] = struct.Struct(f"={len(packed) // 8}d").unpack
        numbers = tuple(int(number) for number in unpackers[len(rounds)](rounds))
        unpacked = unpackers[len(means)](means), unpackers[len(probes)](probes)
        point = StoredPoint(name, unit, by_id[identifier], *unpacked, source, session, numbers)
        result.append(point._replace(shares=unpackers[len(shares)](shares)))
    return result


def benchmark_count(connection: sqlite3.Connection, path: str) -> int:
    row = connection.execute(
        "SELECT COUNT(*) FROM points p JOIN recordings r ON r.id = p.recording WHERE r.path = ?", (path,)
    ).fetchone()
    return int(row[0])


def benchmark_names(connection: sqlite3.Connection) -> list[str]:
    return [row[0] for row in connection.execute("SELECT DISTINCT benchmark FROM points ORDER BY benchmark")]


def machines(connection: sqlite3.Connection) -> list[str]:
    return [row[0] for row in connection.execute("SELECT DISTINCT machine FROM recordings ORDER BY machine")]
