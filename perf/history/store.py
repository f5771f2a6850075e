"""A history store: result files per commit, kept as written, plus an index.

Layout of a store folder (git-friendly: every add only creates new files,
so machines adding to clones of one repository never conflict)::

    perf-history.json                  the marker: {"format": "perf-history", "version": 1}
    .gitignore, .gitattributes         the index and temporary files are not committed;
                                       result files are kept byte for byte
    results/<machine>/<commit>-<sha12>.json[.gz]    a result file, as it was written
    results/<machine>/<commit>-<sha12>.history.json its sidecar (perf.history.sidecar)
    index.sqlite                       derived data (perf.history.index)

The index is brought in sync with the sidecars whenever a store is opened
(a fresh clone has none; a ``git pull`` brings other machines' files), and
``reindex`` rebuilds it from scratch.  An add checks every file first
(it loads, it has a commit, it is not in the store yet), then writes the
files atomically and indexes them in one transaction, holding an exclusive
lock on the store throughout; on any failure it removes what it wrote.

Must not: print, exit, or compute statistics beyond process means.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sqlite3
from typing import Any, Iterator, NamedTuple, Sequence

from perf.errors import FileFormatError, HistoryStoreError, ResultError, ResultFileError, UsageError
from perf.history import index, sidecar
from perf.history.index import IndexEntry, Recording, StoredPoint
from perf.model.suite import BenchmarkSuite
from perf.storage import files

__all__ = ["HistoryStore", "Recording", "StoredPoint"]

MARKER = "perf-history.json"
FORMAT = "perf-history"
VERSION = 1
INDEX = "index.sqlite"
RESULTS = "results"
GITIGNORE = "# derived data: python -m perf history reindex rebuilds it\n/index.sqlite\n/index.sqlite-*\n*.tmp\n"
GITATTRIBUTES = "# result files are kept byte for byte\nresults/** -text\n"


class _Options(NamedTuple):
    commit: str | None
    date: str | None
    timestamp: float | None
    branch: str | None
    machine: str | None
    #: the time of the add
    added: str


class _Pending(NamedTuple):
    """A file an add has checked: its bytes and its index entry."""

    filename: str
    data: bytes
    entry: IndexEntry


def _read_bytes(path: str, name: str) -> bytes:
    try:
        with open(path, "rb") as fp:
            return fp.read()
    except OSError as exc:
        raise ResultFileError(name, f"cannot read: {exc.strerror or exc}", exc.errno) from None


def _decode(data: bytes, name: str) -> BenchmarkSuite:
    """The suite in *data*; errors name the file."""
    try:
        return files.loads(data)
    except ResultError as exc:
        reason = exc.reason if isinstance(exc, FileFormatError) else str(exc)
        if reason.startswith("<string>: "):
            reason = reason[len("<string>: ") :]
        raise FileFormatError(name, reason) from None


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _check_marker(root: str) -> None:
    if not os.path.exists(root):
        raise HistoryStoreError(f"{root}: no such history store (history add creates one)")
    marker = os.path.join(root, MARKER)
    if not os.path.isdir(root) or not os.path.isfile(marker):
        raise HistoryStoreError(f"{root} is not a perf history store (it has no {MARKER})")
    try:
        with open(marker, encoding="utf-8") as fp:
            document: Any = json.load(fp)
    except (OSError, ValueError) as exc:
        raise HistoryStoreError(f"{marker}: cannot read the store marker: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise HistoryStoreError(f"{root} is not a perf history store ({MARKER} is not its marker)")
    if document.get("version") != VERSION:
        raise HistoryStoreError(
            f"{root}: a history store of version {document.get('version')!r} (this perf reads {VERSION})"
        )


def _create(root: str) -> None:
    """The layout of an empty store in *root* (missing or empty)."""
    if os.path.exists(root) and not os.path.isdir(root):
        raise HistoryStoreError(f"{root} is not a perf history store (not a folder)")
    marker = os.path.join(root, MARKER)
    try:
        os.makedirs(root, exist_ok=True)
        with files.folder_lock(marker):
            if os.path.exists(marker):
                return  # another add created it meanwhile
            if os.listdir(root):
                raise HistoryStoreError(f"{root} is not a perf history store (it has no {MARKER} and is not empty)")
            os.mkdir(os.path.join(root, RESULTS))
            files.write_atomic(os.path.join(root, ".gitignore"), GITIGNORE.encode())
            files.write_atomic(os.path.join(root, ".gitattributes"), GITATTRIBUTES.encode())
            document = json.dumps({"format": FORMAT, "version": VERSION}, sort_keys=True) + "\n"
            files.write_atomic(marker, document.encode())
    except OSError as exc:
        raise HistoryStoreError(f"{root}: cannot create the history store: {exc.strerror or exc}") from None


def discard_if_empty(root: str, remove_folder: bool) -> None:
    """Undo :func:`_create` (and the folder with *remove_folder*) when the
    store holds no result file: a failed add that created it leaves nothing."""
    marker = os.path.join(root, MARKER)
    with contextlib.suppress(OSError), files.folder_lock(marker):
        results = os.path.join(root, RESULTS)
        if any(names for _, _, names in os.walk(results)):
            return
        for name in (MARKER, ".gitignore", ".gitattributes", INDEX, INDEX + "-journal", INDEX + "-wal", INDEX + "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(root, name))
        for folder, _, _ in sorted(os.walk(results), reverse=True):
            os.rmdir(folder)
        if remove_folder and not os.listdir(root):
            os.rmdir(root)


class HistoryStore:
    """A store folder: result files per commit and machine, and their index.

    Opening a store checks its marker and brings its index in sync with its
    files.  Queries read the index only; :meth:`load` reads a result file.
    """

    def __init__(self, root: str, *, sync: bool = True) -> None:
        self.root = os.fsdecode(root)
        _check_marker(self.root)
        self._locked_now = False
        self._connection = index.connect(os.path.join(self.root, INDEX))
        if sync:
            try:
                self.sync()
            except BaseException:
                self.close()
                raise

    @classmethod
    def open_or_create(cls, root: str) -> HistoryStore:
        """The store in *root*, created when *root* is missing or empty."""
        root = os.fsdecode(root)
        if not os.path.exists(os.path.join(root, MARKER)):
            _create(root)
        return cls(root)

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<HistoryStore {self.root!r}>"

    # --- locking and the index ----------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """An exclusive lock on the store folder (re-entrant)."""
        if self._locked_now:
            yield
            return
        with files.folder_lock(os.path.join(self.root, MARKER)):
            self._locked_now = True
            try:
                yield
            finally:
                self._locked_now = False

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One index transaction; SQLite errors become HistoryStoreError."""
        try:
            with index.transaction(self._connection):
                yield self._connection
        except sqlite3.Error as exc:
            raise HistoryStoreError(f"{os.path.join(self.root, INDEX)}: {exc}") from None

    def _sidecars_on_disk(self) -> set[str]:
        found: set[str] = set()
        try:
            machines = os.scandir(os.path.join(self.root, RESULTS))
        except FileNotFoundError:
            return found
        with machines:
            for folder in machines:
                if folder.name.startswith(".") or not folder.is_dir():
                    continue
                with os.scandir(folder.path) as entries:
                    found.update(
                        f"{RESULTS}/{folder.name}/{entry.name}"
                        for entry in entries
                        if entry.name.endswith(sidecar.SUFFIX) and not entry.name.startswith(".")
                    )
        return found

    def sync(self) -> int:
        """Bring the index in sync with the sidecars on disk: index the
        files pulled from elsewhere, forget the deleted ones.  Returns the
        number of recordings indexed or forgotten."""
        if self._sidecars_on_disk() == index.sidecars(self._connection):
            return 0
        with self._locked(), self._writing() as connection:
            return self._apply(self._sidecars_on_disk(), index.sidecars(connection))

    def _apply(self, on_disk: set[str], indexed: set[str]) -> int:
        gone = sorted(indexed - on_disk)
        index.delete(self._connection, gone)
        new = sorted(on_disk - indexed)
        for path in new:
            entry = self._read_entry(path)
            other = index.path_of_sha256(self._connection, entry.recording.sha256)
            if other is not None:
                raise HistoryStoreError(f"{entry.recording.path} is the same file as {other}: remove one of them")
            index.insert(self._connection, entry)
        return len(gone) + len(new)

    def _read_entry(self, sidecar_path: str) -> IndexEntry:
        """The index entry of a sidecar and its result file."""
        recording = sidecar.decode(_read_bytes(os.path.join(self.root, sidecar_path), sidecar_path), sidecar_path)
        full = os.path.join(self.root, recording.path)
        if not os.path.exists(full):
            raise HistoryStoreError(f"{recording.path} is missing (its sidecar {sidecar_path} is there)")
        data = _read_bytes(full, recording.path)
        if hashlib.sha256(data).hexdigest() != recording.sha256:
            raise HistoryStoreError(f"{recording.path} changed: its sha256 is not the one in {sidecar_path}")
        return sidecar.entry(recording, sidecar_path, _decode(data, recording.path))

    def reindex(self) -> int:
        """Rebuild the index from the files; returns the number of
        recordings.  On error the previous index stays."""
        with self._locked(), self._writing() as connection:
            index.reset(connection)
            return self._apply(self._sidecars_on_disk(), set())

    # --- add ------------------------------------------------------------

    def add(
        self,
        filenames: Sequence[str],
        *,
        commit: str | None = None,
        date: str | None = None,
        branch: str | None = None,
        machine: str | None = None,
    ) -> list[Recording]:
        """Add result files: all of them, or (on any error) none."""
        options = _check_options(commit, date, branch, machine)
        if not filenames:
            raise UsageError("no result file to add")
        with self._locked():
            self.sync()
            pending = self._check(filenames, options)
            self._write(pending)
        return [item.entry.recording for item in pending]

    def _check(self, filenames: Sequence[str], options: _Options) -> list[_Pending]:
        seen: dict[str, str] = {}
        pending = []
        for filename in filenames:
            data = _read_bytes(filename, filename)
            suite = _decode(data, filename)
            sha256 = hashlib.sha256(data).hexdigest()
            where = index.path_of_sha256(self._connection, sha256)
            if where is not None:
                raise HistoryStoreError(f"{filename} is already in the store (as {where})")
            if sha256 in seen:
                raise HistoryStoreError(f"{filename} is the same file as {seen[sha256]} (given twice)")
            seen[sha256] = filename
            recording = _recording(filename, data, sha256, suite, options)
            folder = recording.path.rsplit("/", 1)[0]
            sidecar_path = f"{folder}/{sidecar.sidecar_name(recording.path.rsplit('/', 1)[1])}"
            pending.append(_Pending(filename, data, sidecar.entry(recording, sidecar_path, suite)))
        return pending

    def _write(self, pending: Sequence[_Pending]) -> None:
        """Write the files, then index them; on failure remove them."""
        written: list[str] = []
        folders: list[str] = []
        try:
            for item in pending:
                recording = item.entry.recording
                folder = os.path.join(self.root, os.path.dirname(recording.path))
                if not os.path.isdir(folder):
                    os.makedirs(folder)
                    folders.append(folder)
                # a result file without a sidecar is the leftover of a crashed add
                files.write_atomic(os.path.join(self.root, recording.path), item.data, replace=True)
                written.append(os.path.join(self.root, recording.path))
                document = sidecar.encode(recording, os.path.basename(item.filename))
                files.write_atomic(os.path.join(self.root, item.entry.sidecar), document)
                written.append(os.path.join(self.root, item.entry.sidecar))
            with self._writing() as connection:
                for item in pending:
                    index.insert(connection, item.entry)
        except BaseException:
            for path in reversed(written):
                _remove_quietly(path)
            for folder in reversed(folders):
                with contextlib.suppress(OSError):
                    os.rmdir(folder)
            raise

    # --- queries --------------------------------------------------------

    def recordings(self, machine: str | None = None) -> list[Recording]:
        """The recordings (of *machine*) in timeline order: commit date,
        else the time of the add; then the time of the add."""
        return index.recordings(self._connection, machine)

    def points(self, benchmarks: Sequence[str] | None = None, machine: str | None = None) -> list[StoredPoint]:
        """The points (of *benchmarks*, of *machine*) in the order of
        :meth:`recordings`, then by benchmark name."""
        return index.points(self._connection, benchmarks, machine)

    def benchmark_names(self) -> list[str]:
        return index.benchmark_names(self._connection)

    def machines(self) -> list[str]:
        return index.machines(self._connection)

    def benchmark_count(self, recording: Recording) -> int:
        """The number of benchmarks of *recording* that have values."""
        return index.benchmark_count(self._connection, recording.path)

    def load(self, recording: Recording) -> BenchmarkSuite:
        """The result file of *recording*."""
        return files.load(os.path.join(self.root, recording.path))


def _check_options(commit: str | None, date: str | None, branch: str | None, machine: str | None) -> _Options:
    for option, value in (("--commit", commit), ("--date", date), ("--branch", branch), ("--machine", machine)):
        if value is not None and (not value.strip() or "\n" in value):
            raise UsageError(f"{option} must be a non-empty line, got {value!r}")
    timestamp = None
    if date is not None:
        try:
            timestamp = sidecar.parse_date(date)
        except ValueError:
            raise UsageError(f"--date must be an ISO-8601 date (2026-10-19T12:30:00+02:00), got {date!r}") from None
    return _Options(commit, date, timestamp, branch, machine, sidecar.now())


def _commit_date(suite: BenchmarkSuite, filename: str) -> tuple[str | None, float | None]:
    date = sidecar.metadata_value(suite, "commit_date", filename)
    if date is None:
        return None, None
    try:
        return date, sidecar.parse_date(date)
    except ValueError:
        raise HistoryStoreError(f"{filename}: its commit_date metadata is not an ISO-8601 date: {date!r}") from None


def _recording(filename: str, data: bytes, sha256: str, suite: BenchmarkSuite, options: _Options) -> Recording:
    """The recording of one file: the options, else its metadata."""
    file_commit = sidecar.metadata_value(suite, "commit_id", filename)
    commit = options.commit or file_commit
    if commit is None:
        raise HistoryStoreError(f"{filename} has no commit: no commit_id metadata (give --commit)")
    date, timestamp = options.date, options.timestamp
    if date is None and commit == file_commit:
        # the file's date is its own commit's, not that of another --commit
        date, timestamp = _commit_date(suite, filename)
    branch = options.branch or sidecar.metadata_value(suite, "commit_branch", filename)
    machine = options.machine or sidecar.metadata_value(suite, "hostname", filename) or socket.gethostname()
    path = f"{RESULTS}/{sidecar.safe_name(machine)}/{sidecar.result_name(commit, sha256, data)}"
    return Recording(path, sha256, commit, date, timestamp, branch, machine, options.added)
