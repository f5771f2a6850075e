"""Result files on disk: load, dump and add_runs, safely.

* Reading accepts a path (plain or gzip, detected by content), ``'-'`` for
  standard input, or a file object; every problem becomes a
  :class:`~perf.errors.FileFormatError` or :class:`~perf.errors.ResultFileError`
  naming the file.
* Every write to a path is atomic: the document goes to a temporary file in
  the same folder, is flushed and fsynced, then renamed over the target.  A
  crash, Ctrl-C or a full disk leaves the previous file as it was.
* ``replace=False`` refuses an existing file without a check-then-write race
  (the temporary file is hard-linked to the target name).
* :func:`add_runs` holds an exclusive lock on the folder while it reads,
  merges and rewrites, so two perf processes appending to one file never
  lose each other's runs.

Must not: know statistics or text formatting.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import io
import json
import os
import sys
from typing import IO, Any, Iterator, Union, cast

from perf.errors import FileFormatError, IncompatibleRunError, ResultFileError, ResultFileExistsError
from perf.model.benchmark import Benchmark
from perf.model.suite import BenchmarkSuite
from perf.storage.json_format import decode_suite, encode_suite, reject_constant
from perf.storage.json_stream import SlowPathNeeded, decode_text

PathLike = Union[str, bytes, "os.PathLike[str]"]
FileArgument = Union[PathLike, IO[Any]]
Result = Union[Benchmark, BenchmarkSuite]

_GZIP_MAGIC = b"\x1f\x8b"
STDIN_NAME = "<stdin>"


def _is_path(file: Any) -> bool:
    return isinstance(file, (str, bytes, os.PathLike))


# --- reading ---------------------------------------------------------------


def _read_path(path: str) -> bytes:
    try:
        with open(path, "rb") as fp:
            return fp.read()
    except OSError as exc:
        raise ResultFileError(path, f"cannot read: {exc.strerror or exc}", exc.errno) from None


def _read(file: FileArgument) -> tuple[bytes, str]:
    """The raw content and display name of *file*."""
    if _is_path(file):
        path = os.fsdecode(file)  # type: ignore[arg-type]
        if path == "-":
            return sys.stdin.buffer.read(), STDIN_NAME
        return _read_path(path), path
    name = getattr(file, "name", None)
    name = name if isinstance(name, str) else "<file>"
    try:
        content = file.read()  # type: ignore[union-attr]
    except (OSError, ValueError) as exc:
        raise ResultFileError(name, f"cannot read: {exc}", getattr(exc, "errno", None)) from None
    return (content.encode("utf-8") if isinstance(content, str) else content), name


def _text(content: bytes, name: str) -> str:
    """Decompress (if gzip) and decode; errors name the file."""
    if content[:2] == _GZIP_MAGIC:
        import gzip
        import zlib

        try:
            content = gzip.decompress(content)
        except (EOFError, OSError, zlib.error) as exc:
            raise FileFormatError(name, f"truncated or corrupt gzip file: {exc}") from None
    if not content.strip():
        raise FileFormatError(name, "the file is empty")
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileFormatError(name, f"not a UTF-8 text file: {exc}") from None


def _decode(content: bytes, name: str) -> BenchmarkSuite:
    """The suite in *content*: the fast decoder, else the reference one."""
    text = _text(content, name)
    try:
        return decode_text(text, name)
    except SlowPathNeeded:
        pass
    try:
        data = json.loads(text, parse_constant=reject_constant)
    except (ValueError, RecursionError) as exc:
        raise FileFormatError(name, f"not a valid JSON document: {exc}") from None
    return decode_suite(data, name)


def _load_path_fast(path: str) -> BenchmarkSuite | None:
    """Stream a result file through the fast decoder, a megabyte at a time:
    its text is never in memory as a whole.  ``None`` when the reference
    decoder must have its say (errors, older formats, unreadable files)."""
    errors: tuple[type[BaseException], ...] = (SlowPathNeeded, OSError, ValueError, EOFError)
    try:
        with open(path, "rb") as raw:
            binary: IO[bytes] = raw
            if raw.peek(2)[:2] == _GZIP_MAGIC:
                import gzip
                import zlib

                errors += (zlib.error,)
                binary = cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))
            with io.TextIOWrapper(binary, encoding="utf-8-sig", newline="") as text:
                return decode_text("", path, text.read)
    except errors:
        return None


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a document is decoded.

    Decoding creates a few hundred thousand containers (JSON lists and
    dicts, tuples, runs) and no reference cycle, so the collections their
    allocations trigger free nothing: they only walk the young objects
    again and again (5 to 10 % of the load of a 1.35 MB file).  The
    collector runs again afterwards (when it was enabled), and then
    collects whatever garbage was made meanwhile.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def load(file: FileArgument) -> BenchmarkSuite:
    """Load a suite from a path, ``'-'`` (stdin) or a file object."""
    with _collector_paused():
        if _is_path(file):
            path = os.fsdecode(file)  # type: ignore[arg-type]
            suite = _load_path_fast(path) if path != "-" else None
            if suite is not None:
                return suite
        content, name = _read(file)
        return _decode(content, name)


def loads(string: Union[str, bytes]) -> BenchmarkSuite:
    """Load a suite from a JSON string."""
    content = string.encode("utf-8") if isinstance(string, str) else string
    with _collector_paused():
        suite = _decode(content, "<string>")
    suite.filename = None
    return suite


def _single(suite: BenchmarkSuite, name: str) -> Benchmark:
    if len(suite) != 1:
        raise FileFormatError(name, f"expected 1 benchmark, got {len(suite)}")
    return suite.get_benchmarks()[0]


def load_benchmark(file: FileArgument) -> Benchmark:
    """Load a file that must hold exactly one benchmark."""
    suite = load(file)
    return _single(suite, suite.filename or "<file>")


def loads_benchmark(string: Union[str, bytes]) -> Benchmark:
    return _single(loads(string), "<string>")


# --- writing ---------------------------------------------------------------


def _as_suite(result: Result) -> BenchmarkSuite:
    if isinstance(result, BenchmarkSuite):
        return result
    if isinstance(result, Benchmark):
        return BenchmarkSuite([result])
    raise TypeError(f"Benchmark or BenchmarkSuite expected, got {type(result).__name__}")


def dumps(result: Result, compact: bool = True) -> str:
    """The JSON text of *result*: sorted keys, compact or indented by 4."""
    document = encode_suite(_as_suite(result))
    if compact:
        return json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n"
    return json.dumps(document, sort_keys=True, indent=4) + "\n"


def _encode_for(path: str, text: str) -> bytes:
    data = text.encode("utf-8")
    if path.endswith(".gz"):
        import gzip

        data = gzip.compress(data, mtime=0)
    return data


def dump(result: Result, file: FileArgument, compact: bool = True, replace: bool = False) -> None:
    """Write *result* to a path (atomically) or to a text file object.

    An existing path is refused unless *replace* is true.
    """
    text = dumps(result, compact=compact)
    if not _is_path(file):
        file.write(text)  # type: ignore[union-attr]
        file.flush()  # type: ignore[union-attr]
        return
    path = os.fsdecode(file)  # type: ignore[arg-type]
    write_atomic(path, _encode_for(path, text), replace=replace)


def _temporary_path(path: str) -> str:
    directory, base = os.path.split(path)
    # base[:200]: the temporary name must stay within NAME_MAX (255)
    return os.path.join(directory, f".{base[:200]}.{os.getpid()}.{os.urandom(4).hex()}.tmp")


def _fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a folder; the rename is done
    finally:
        os.close(fd)


def _install(temporary: str, path: str, replace: bool) -> None:
    """Move *temporary* to *path*; without *replace*, never clobber."""
    if replace:
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temporary, os.stat(path).st_mode & 0o7777)
        os.replace(temporary, path)
        return
    try:
        os.link(temporary, path)
    except OSError as exc:
        # No hard links here (FAT, some network file systems): check, then
        # rename.  add_runs() holds the folder lock around this.
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if os.path.lexists(path):
            raise FileExistsError(errno.EEXIST, "File exists", path) from None
        os.replace(temporary, path)
    else:
        os.unlink(temporary)


def write_atomic(path: PathLike, data: bytes, replace: bool = False) -> None:
    """Write *data* to *path* so that readers see the old or the new file.

    Raises :class:`~perf.errors.ResultFileError` when the file exists and
    *replace* is false, or when writing fails; the previous file is intact.
    """
    path = os.fsdecode(path)
    if not replace and os.path.lexists(path):
        raise ResultFileExistsError(path)
    if os.path.islink(path):
        # replace the file the link points to, and keep the link
        path = os.path.realpath(path)
    temporary = _temporary_path(path)
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with open(fd, "wb") as fp:
            fp.write(data)
            fp.flush()
            os.fsync(fp.fileno())
        _install(temporary, path, replace)
    except FileExistsError:
        _remove_quietly(temporary)
        raise ResultFileExistsError(path) from None
    except OSError as exc:
        _remove_quietly(temporary)
        raise ResultFileError(path, f"cannot write: {exc.strerror or exc}", exc.errno) from None
    except BaseException:
        _remove_quietly(temporary)
        raise
    _fsync_directory(os.path.dirname(path))


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


@contextlib.contextmanager
def folder_lock(path: PathLike) -> Iterator[None]:
    """Hold an exclusive advisory lock on the folder of *path*.

    Serialises read-modify-write cycles of perf processes on one file.  Where
    locking is not possible (no ``fcntl``, a file system without locks) the
    block runs unlocked rather than failing.
    """
    try:
        import fcntl
    except ImportError:  # Windows
        yield
        return
    directory = os.path.dirname(os.path.abspath(os.fsdecode(path)))
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def add_runs(filename: PathLike, result: Result) -> None:
    """Merge *result* into the file *filename*, or create it.

    Runs of benchmarks already in the file are appended; new benchmarks are
    added.  The file is rewritten atomically under a lock: its earlier runs
    are never lost, and a failed merge leaves it untouched.
    """
    _as_suite(result)  # type check before touching anything
    path = os.fsdecode(filename)
    if os.path.islink(path):
        path = os.path.realpath(path)  # lock the folder the data lives in
    with folder_lock(path):
        if not os.path.lexists(path):
            dump(result, path)
            return
        suite = load(path)
        try:
            suite.add_runs(result)
        except IncompatibleRunError as exc:
            raise IncompatibleRunError(f"{path}: {exc}") from None
        dump(suite, path, replace=True)
