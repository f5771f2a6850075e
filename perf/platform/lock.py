"""A system-wide advisory lock per CPU, held while a benchmark runs.

Two perf runs on the same CPUs measure each other; ``system tune`` or
``reset`` in the middle of a run changes the machine under it.  The parent
of a run locks one file per CPU it uses (``/run/lock/perf/cpuN.lock``,
``flock``), in CPU order so that two runs cannot deadlock, and writes its
pid and command line into them for the message of whoever waits.  The
lock goes away with the process, even when it is killed.

A perf run started *by* a benchmark that holds the lock (``perf command``
timing a program that runs perf) would wait for its own ancestor forever:
a holder that is an ancestor of this process does not count.

Must not: print (callers get holders and decide what to say).
"""

from __future__ import annotations

import contextlib
import errno
import os
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

try:
    import fcntl
except ImportError:  # Windows: no advisory locks, runs are not serialised
    fcntl = None  # type: ignore[assignment]

#: where the lock files live (``PERF_LOCK_DIR`` overrides it: a CI job can
#: keep its runs apart from another job's on the same machine, or share
#: one folder between containers); the temporary folder when it cannot be
#: created
LOCK_FOLDER = "/run/lock/perf"
LOCK_FOLDER_VARIABLE = "PERF_LOCK_DIR"


@dataclass(frozen=True)
class Holder:
    """Who holds the lock of a CPU."""

    cpu: int
    pid: int | None
    command: str

    def describe(self) -> str:
        who = f"pid {self.pid}" if self.pid else "another process"
        return f"{who}: {self.command}" if self.command else who


def lock_folder(folder: str | None = None) -> str | None:
    """The folder of the lock files (created world-writable and sticky,
    like ``/tmp``, so that every user's runs share it), or None when no
    folder can be used."""
    import tempfile

    default = os.environ.get(LOCK_FOLDER_VARIABLE) or LOCK_FOLDER
    candidates = [folder] if folder else [default, os.path.join(tempfile.gettempdir(), "perf-lock")]
    for candidate in candidates:
        try:
            os.makedirs(candidate, exist_ok=True)
            if os.stat(candidate).st_uid == os.geteuid():
                os.chmod(candidate, 0o1777)
        except OSError:
            continue
        if os.access(candidate, os.W_OK | os.X_OK):
            return candidate
    return None


def _ancestors() -> set[int]:
    """This process's ancestors' pids (from /proc; empty elsewhere)."""
    pids: set[int] = set()
    pid = os.getppid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as file:
                pid = int(file.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


def _read_holder(fd: int, cpu: int) -> Holder:
    try:
        text = os.pread(fd, 4096, 0).decode("utf-8", "replace")
    except OSError:
        text = ""
    first, _, command = text.partition(" ")
    return Holder(cpu, int(first) if first.isdigit() else None, command.strip())


class CpuLock:
    """The locks of *cpus* (``acquire`` then ``release``, or ``with``)."""

    def __init__(self, cpus: Iterable[int], folder: str | None = None, command: Sequence[str] = ()) -> None:
        self.cpus = sorted(set(cpus))
        self.folder = lock_folder(folder)
        self.command = " ".join(command)
        self._fds: list[int] = []

    def _open(self, cpu: int) -> int:
        assert self.folder is not None
        fd = os.open(os.path.join(self.folder, f"cpu{cpu}.lock"), os.O_RDWR | os.O_CREAT, 0o666)
        try:
            if os.fstat(fd).st_uid == os.geteuid():
                os.fchmod(fd, 0o666)  # whatever the umask: other users lock it too
        except OSError:
            pass
        return fd

    def busy(self) -> list[Holder]:
        """The CPUs of *cpus* whose lock another run holds (checked without
        taking them for long)."""
        if fcntl is None or self.folder is None:
            return []
        holders = []
        ancestors = _ancestors()
        for cpu in self.cpus:
            fd = self._open(cpu)
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                    raise
                holder = _read_holder(fd, cpu)
                if holder.pid not in ancestors:
                    holders.append(holder)
            finally:
                os.close(fd)
        return holders

    def acquire(self, wait: bool = True, on_wait: Callable[[list[Holder]], None] | None = None) -> list[Holder]:
        """Take every CPU's lock.  Busy CPUs: with *wait*, call *on_wait*
        with their holders once, then wait; without, take nothing and
        return the holders (an empty list: the locks are taken)."""
        if fcntl is None or self.folder is None:
            return []
        if not wait:
            holders = self.busy()
            if holders:
                return holders
        ancestors = _ancestors()
        told = False
        for cpu in self.cpus:
            fd = self._open(cpu)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                    os.close(fd)
                    raise
                holder = _read_holder(fd, cpu)
                if holder.pid in ancestors:
                    os.close(fd)  # our own benchmark runs us: never wait for it
                    continue
                if not wait:  # taken between busy() and now
                    os.close(fd)
                    self.release()
                    return [holder]
                if on_wait is not None and not told:
                    on_wait(self.busy() or [holder])
                    told = True
                fcntl.flock(fd, fcntl.LOCK_EX)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {self.command}\n".encode("utf-8", "replace"), 0)
            self._fds.append(fd)
        return []

    def release(self) -> None:
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing drops the flock
        self._fds = []

    def __enter__(self) -> CpuLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()
