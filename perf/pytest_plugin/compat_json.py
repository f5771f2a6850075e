"""pytest-benchmark's JSON document and its storage folder.

perf's pytest plugin writes the files pytest-benchmark (5.2) writes, so a
project keeps its ``.benchmarks`` folder, its ``--benchmark-compare`` runs
and its CI scripts that read ``--benchmark-json`` output:

* the document: :func:`machine_info`, :func:`commit_info` (git only,
  run by :mod:`perf.collect.git`; a Mercurial checkout is "unversioned"),
  :func:`document` and :func:`dumps`;
* the storage folder (``file://`` only): :func:`parse_storage`,
  :func:`machine_id`, :func:`check_save_name`, :func:`autosave_name`,
  :func:`next_save_path`, :func:`save`, :func:`find_compare_files`,
  :func:`load_saved` and :func:`measured_by_perf`.

Bad user input raises :class:`~perf.errors.UsageError` with the meaning of
pytest-benchmark's message (its exact words where compatible tests match
them).  Must not: print, know pytest, or compute statistics (the figures
are :mod:`perf.analysis.round_stats`).
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from perf.errors import PerfError, ResultFileError, UsageError
from perf.platform.sysfs import SysFS
from perf.storage.files import write_atomic

#: --benchmark-storage's default.
DEFAULT_STORAGE = "file://./.benchmarks"

#: How long one git command may take before commit_info gives up on it.
GIT_TIMEOUT = 10.0

#: The characters a --benchmark-save name must not contain, in the order
#: pytest-benchmark lists the ones it found.
_ILLEGAL_SAVE_CHARACTERS = "\\/:*?<>|"

#: Saved files: a 4-digit counter, an underscore, the name.
_SAVED_GLOB = "[0-9][0-9][0-9][0-9]_*.json"

#: platform.machine() -> (py-cpuinfo's "arch", its "bits"), for the usual machines.
_ARCHES = {
    **dict.fromkeys(("x86_64", "amd64", "x64"), ("X86_64", 64)),
    **dict.fromkeys(("i386", "i486", "i586", "i686", "x86"), ("X86_32", 32)),
    **dict.fromkeys(("aarch64", "arm64"), ("ARM_8", 64)),
    **dict.fromkeys(("armv7l", "armv7"), ("ARM_7", 32)),
    **dict.fromkeys(("ppc64", "ppc64le"), ("PPC_64", 64)),
    "s390x": ("S390X", 64),
    "riscv64": ("RISCV_64", 64),
}


# --- the document --------------------------------------------------------------


def _implementation_version() -> str:
    """The implementation's own version: PyPy's (7.3.17, 7.3.18-beta0), or
    the Python version for every other implementation."""
    pypy = getattr(sys, "pypy_version_info", None)
    if platform.python_implementation() != "PyPy" or pypy is None:
        return platform.python_version()
    version = f"{pypy.major}.{pypy.minor}.{pypy.micro}"
    if pypy.releaselevel != "final":
        version += f"-{pypy.releaselevel}{pypy.serial}"
    return version


def _cpu(sysfs: SysFS) -> dict[str, Any]:
    """The ``cpu`` object: py-cpuinfo's keys that perf knows without it."""
    cpu: dict[str, Any] = {}
    machine = platform.machine()
    arch = _ARCHES.get(machine.lower())
    if arch:
        cpu["arch"], cpu["bits"] = arch
    cpu["count"] = os.cpu_count()
    if machine:
        cpu["arch_string_raw"] = machine
    from perf.collect.cpu import cpuinfo_fields

    fields = cpuinfo_fields(sysfs, ("vendor_id", "model name"))
    if "vendor_id" in fields:
        cpu["vendor_id_raw"] = fields["vendor_id"]
    brand = fields.get("model name") or (platform.processor() if not fields else "")
    if brand:
        cpu["brand_raw"] = brand
    return cpu


def machine_info(sysfs: SysFS | None = None) -> dict[str, Any]:
    """The ``machine_info`` object of a document: the platform, the
    interpreter and the CPU.  *sysfs* is where /proc/cpuinfo is read (tests
    give a fake tree)."""
    return {
        "node": platform.node(),
        "processor": platform.processor(),
        "machine": platform.machine(),
        "python_compiler": platform.python_compiler(),
        "python_implementation": platform.python_implementation(),
        "python_implementation_version": _implementation_version(),
        "python_version": platform.python_version(),
        "python_build": list(platform.python_build()),
        "release": platform.release(),
        "system": platform.system(),
        "cpu": _cpu(sysfs or SysFS()),
    }


def _git(cwd: str, *arguments: str) -> str:
    from perf.collect.git import git  # a worker process makes no document

    return git(cwd, *arguments, timeout=GIT_TIMEOUT).strip()


def _in_git_checkout(cwd: str) -> bool:
    """Whether *cwd* or a folder above it has a ``.git`` (a folder, or the
    file of a worktree)."""
    try:
        folder = Path(cwd).resolve()
        return any((parent / ".git").exists() for parent in (folder, *folder.parents))
    except (OSError, RuntimeError):
        # an unreadable parent or a symbolic link loop: not a checkout we can use
        return False


def _project_name(cwd: str, in_git: bool) -> str:
    """The last part of the origin remote's URL without ``.git``, else the
    name of *cwd*."""
    try:
        url = _git(cwd, "config", "--local", "remote.origin.url") if in_git else ""
    except PerfError:
        url = ""
    parts = [part for part in re.split(r"[/:\\\s]+", url) if part]
    return (parts[-1].removesuffix(".git") if parts else "") or Path(cwd).resolve().name


def _error_text(error: PerfError) -> str:
    """What pytest-benchmark writes of a failed git: the exception of :mod:`subprocess`."""
    from perf.collect.git import GitError

    if isinstance(error, GitError):
        return f"CalledProcessError({error.returncode}, {error.output!r})"
    return repr(error.__cause__)


def commit_info(cwd: str) -> dict[str, Any]:
    """The ``commit_info`` object for the checkout around *cwd*.

    ``id`` is the full hash of HEAD (``git describe --dirty --always
    --long --abbrev=40``), ``"unversioned"`` outside a git checkout, and
    ``"unknown"`` when a git command fails (no commit yet, no git, a
    timeout), with ``error`` saying why.  ``dirty`` is true when tracked
    files have uncommitted changes; ``branch`` is ``"(detached head)"``
    or ``"(unknown)"`` when there is none.  Never raises.
    """
    in_git = _in_git_checkout(cwd)
    info: dict[str, Any] = {"id": "unversioned", "time": None, "author_time": None, "dirty": False}
    branch = "(unknown)"
    try:
        if in_git:
            parts = _git(cwd, "describe", "--dirty", "--always", "--long", "--abbrev=40").split("-")
            info["dirty"] = parts[-1] == "dirty"
            # "<tag>-<count>-g<hash>" after a tag, the bare hash otherwise
            info["id"] = parts[-2 if info["dirty"] else -1].removeprefix("g")
            info["time"] = _git(cwd, "show", "-s", "--pretty=format:%cI")
            info["author_time"] = _git(cwd, "show", "-s", "--pretty=format:%aI")
            branch = _git(cwd, "rev-parse", "--abbrev-ref", "HEAD")
            branch = "(detached head)" if branch == "HEAD" else branch
    except PerfError as error:
        info.update(id="unknown", time=None, author_time=None, error=_error_text(error))
    info.update(project=_project_name(cwd, in_git), branch=branch)
    return info


def _utc(moment: datetime | None) -> datetime:
    """*moment* in UTC (a naive one is taken as UTC); now when None."""
    if moment is None:
        return datetime.now(timezone.utc)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def document(
    machine_info: dict[str, Any],
    commit_info: dict[str, Any],
    benchmarks: list[dict[str, Any]],
    version: str,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The top-level object of a JSON report or saved file, keys in
    pytest-benchmark's order; ``datetime`` is *now* (default: the current
    time) in UTC, ISO 8601 with the offset."""
    return {
        "machine_info": machine_info,
        "commit_info": commit_info,
        "benchmarks": benchmarks,
        "datetime": _utc(now).isoformat(),
        "version": version,
    }


def _unserializable(value: object) -> str:
    return f"UNSERIALIZABLE[{value!r}]"


def dumps(document: dict[str, Any]) -> str:
    """*document* as pytest-benchmark writes it: indented by 4, ASCII only;
    a value JSON cannot represent (a user's ``extra_info`` object) becomes
    the text ``UNSERIALIZABLE[<repr>]`` instead of failing the run."""
    return json.dumps(document, indent=4, ensure_ascii=True, default=_unserializable)


# --- the storage folder ------------------------------------------------------------


def parse_storage(value: str, cwd: str | None = None) -> Path:
    """The folder of a ``--benchmark-storage`` value: ``file://PATH`` or
    a bare path, relative to *cwd* (default: the current directory)."""
    if "://" not in value:
        value = "file://" + value
    if value.startswith("elasticsearch+"):
        raise UsageError(f"perf: only file storage is supported (got {value!r})")
    if not value.startswith("file://"):
        raise UsageError(
            "Storage must be in form of file://path or elasticsearch+http[s]://host1,host2/index/doctype"
            f" (got {value!r})"
        )
    return Path(cwd if cwd is not None else os.getcwd(), value[len("file://") :])


def machine_id() -> str:
    """The folder of this interpreter's saved runs: system, implementation,
    major.minor version and pointer size (``Linux-CPython-3.11-64bit``)."""
    from perf.collect.python import pointer_bits

    version = ".".join(platform.python_version_tuple()[:2])
    return f"{platform.system()}-{platform.python_implementation()}-{version}-{pointer_bits()}bit"


def check_save_name(name: str) -> str:
    """*name* when it can be a ``--benchmark-save`` name: not empty, and no
    character a file name cannot hold on some system."""
    if not name:
        raise UsageError("Can't be empty.")
    illegal = "".join(character for character in _ILLEGAL_SAVE_CHARACTERS if character in name)
    if illegal:
        raise UsageError(f"Must not contain any of these characters: /:*?<>|\\ (it has {illegal!r})")
    return name


def autosave_name(commit_info: dict[str, Any], now: datetime) -> str:
    """``--benchmark-autosave``'s name: the commit id, *now* in UTC
    (``20150815_215724``), and ``_uncommitted-changes`` when dirty."""
    name = f"{commit_info['id']}_{_utc(now):%Y%m%d_%H%M%S}"
    if commit_info.get("dirty"):
        name += "_uncommitted-changes"
    return name


def _saved_files(folder: Path, pattern: str = _SAVED_GLOB) -> list[Path]:
    try:
        return [path for path in folder.glob(pattern) if path.is_file()]
    except OSError:
        return []


def next_save_path(storage: Path, name: str) -> Path:
    """Where ``--benchmark-save=NAME`` goes: ``STORAGE/<machine_id>/NNNN_NAME.json``,
    ``NNNN`` one more than the highest counter there (or, when that folder
    holds no saved run, in *storage* itself, where files of old versions
    lie), from ``0001``.  Creates nothing."""
    folder = storage / machine_id()
    saved = _saved_files(folder) or _saved_files(storage)
    highest = max((int(path.name[:4]) for path in saved), default=0)
    return folder / f"{highest + 1:04d}_{name}.json"


def save(path: Path, text: str) -> None:
    """Write *text* to *path*, creating its folders; atomic, and refuses
    an existing file (:class:`~perf.errors.ResultFileError`)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ResultFileError(str(path.parent), f"cannot create the folder: {error.strerror or error}") from None
    write_atomic(path, text.encode("utf-8"))


def _sorted_saved(paths: list[Path]) -> list[Path]:
    # by file name first, so the counter orders runs across the folders
    return sorted(set(paths), key=lambda path: (path.name, path.parent))


def find_compare_files(storage: Path, value: str | None, cwd: str | None = None) -> list[Path]:
    """The saved files ``--benchmark-compare[=VALUE]`` compares against,
    sorted by file name.

    * No value: the last saved run, from ``STORAGE/<machine_id>/`` and
      *storage* itself.
    * A path to an existing file (relative to *cwd*): that file.
    * ``PLATFORM-GLOB/NAME-GLOB``: the matching files in the matching
      machine folders, and the files of *storage* that match NAME-GLOB.
    * Otherwise a prefix: every file of ``STORAGE/<machine_id>/`` and of
      *storage* whose name starts with it (``0001`` matches
      ``0001_*.json``; ``1`` matches nothing).

    An empty value compares nothing (pytest-benchmark ignores
    ``--benchmark-compare=``).  Returns ``[]`` when nothing matches.
    """
    if value is None:
        return _sorted_saved(_saved_files(storage / machine_id()) + _saved_files(storage))[-1:]
    if not value:
        return []
    candidate = Path(cwd if cwd is not None else os.getcwd(), value)
    try:
        if candidate.is_file():
            return [candidate]
    except OSError:
        pass  # a name too long for a path is a glob that matches nothing
    parts = Path(value).parts
    if len(parts) > 2 or Path(value).is_absolute():
        raise UsageError(
            f"{value!r} isn't an existing file or acceptable glob."
            " Expected 'platform-glob/filename-glob' or 'filename-glob'."
        )
    if len(parts) == 2:
        platform_glob, name_glob = parts
    else:
        platform_glob, name_glob = machine_id(), parts[0]
    name_glob = name_glob.rstrip("*") + "*.json"
    try:
        folders = [folder for folder in storage.glob(platform_glob) if folder.is_dir()]
    except (OSError, ValueError):
        folders = []
    found = [path for folder in folders for path in _saved_files(folder, name_glob)]
    return _sorted_saved(found + _saved_files(storage, name_glob))


def _shape_error(path: Path, reason: str) -> UsageError:
    return UsageError(f"{path}: not a pytest-benchmark file ({reason})")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def load_saved(path: Path) -> dict[str, Any]:
    """The document of a saved run or JSON report.  Files written before
    pytest-benchmark 3.1 have no ``ops``: it is added as ``1 / mean`` (0.0
    for a mean of 0, as for a run of zero total time)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise _shape_error(path, f"not UTF-8 text: {error.reason}") from None
    except OSError as error:
        raise UsageError(f"{path}: cannot be read ({error.strerror or error})") from None
    try:
        loaded = json.loads(text)
    except ValueError as error:
        raise _shape_error(path, f"not JSON: {error}") from None
    if not isinstance(loaded, dict):
        raise _shape_error(path, "not a JSON object")
    benchmarks = loaded.get("benchmarks")
    if not isinstance(benchmarks, list):
        raise _shape_error(path, "no 'benchmarks' list")
    for index, benchmark in enumerate(benchmarks):
        if not isinstance(benchmark, dict) or not isinstance(benchmark.get("fullname"), str):
            raise _shape_error(path, f"benchmark {index} has no 'fullname'")
        stats = benchmark.get("stats")
        if not isinstance(stats, dict) or not _is_number(stats.get("mean")):
            raise _shape_error(path, f"benchmark {benchmark['fullname']!r} has no 'stats' with a 'mean'")
        if "ops" not in stats:
            stats["ops"] = 1.0 / stats["mean"] if stats["mean"] else 0.0
    return loaded


def measured_by_perf(document: dict[str, Any]) -> bool:
    """True when perf's plugin measured the saved run *document* (a
    :func:`load_saved` document): its benchmarks carry perf's ``perf``
    object with ``measured_in``, or its ``version`` is perf's (``"perf
    3.0.0"``: a conftest.py hook may have made the entries).  False for a
    run of pytest-benchmark itself, whose timings differ from perf's by the
    tool alone."""
    if str(document.get("version", "")).startswith("perf "):
        return True
    return any(
        isinstance(entry.get("perf"), dict) and "measured_in" in entry["perf"]
        for entry in document.get("benchmarks", ())
    )
