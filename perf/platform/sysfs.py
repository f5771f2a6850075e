"""Reads and writes of /sys, /proc and /dev under an injectable root.

Every access perf makes to kernel files goes through a :class:`SysFS`, so
tests point it at a temporary fake tree (``SysFS(tmp_path)``) and the real
system is never touched.

Must not: interpret the values it reads.
"""

from __future__ import annotations

import os
from typing import Iterator, Union

StrPath = Union[str, "os.PathLike[str]"]


class SysFS:
    """Kernel files below *root* (``/`` by default)."""

    def __init__(self, root: StrPath = "/") -> None:
        self.root = os.fspath(root)

    def __repr__(self) -> str:
        return f"SysFS({self.root!r})"

    def path(self, path: str) -> str:
        """The real path of an absolute kernel path such as ``/proc/stat``."""
        return os.path.join(self.root, path.lstrip("/"))

    def read_text(self, path: str) -> str | None:
        """The whole file, or None when it cannot be read."""
        try:
            with open(self.path(path), encoding="utf-8", errors="replace") as fp:
                return fp.read()
        except OSError:
            return None

    def read_first_line(self, path: str) -> str | None:
        """The first line without its end of line, or None when unreadable."""
        try:
            with open(self.path(path), encoding="utf-8", errors="replace") as fp:
                return fp.readline().rstrip("\n")
        except OSError:
            return None

    def read_lines(self, path: str) -> Iterator[str]:
        """The lines of the file (none when it cannot be read)."""
        text = self.read_text(path)
        if text is not None:
            yield from text.splitlines()

    def list_dir(self, path: str) -> list[str]:
        try:
            return sorted(os.listdir(self.path(path)))
        except OSError:
            return []

    def exists(self, path: str) -> bool:
        return os.path.exists(self.path(path))

    def write_text(self, path: str, text: str) -> None:
        """Write *text*; raises OSError (callers report it per operation)."""
        with open(self.path(path), "w", encoding="utf-8") as fp:
            fp.write(text)

    def read_msr(self, cpu: int, register: int) -> int:
        """The 64-bit model-specific register *register* of *cpu*, from
        ``/dev/cpu/CPU/msr`` (needs root and the msr module); raises
        OSError."""
        fd = os.open(self.path(f"/dev/cpu/{cpu}/msr"), os.O_RDONLY)
        try:
            data = os.pread(fd, 8, register)
        finally:
            os.close(fd)
        if len(data) != 8:
            raise OSError(f"short read of MSR {register:#x} of CPU {cpu}")
        return int.from_bytes(data, "little")

    def write_msr(self, cpu: int, register: int, value: int) -> None:
        """Write a model-specific register; raises OSError."""
        fd = os.open(self.path(f"/dev/cpu/{cpu}/msr"), os.O_WRONLY)
        try:
            os.pwrite(fd, value.to_bytes(8, "little"), register)
        finally:
            os.close(fd)


#: the real system
DEFAULT = SysFS("/")
