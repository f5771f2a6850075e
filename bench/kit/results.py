"""What an output says about itself: its header line, its ``--output``
copy, its tables.

Every script prints :func:`header` first, so that a results file made
from its output (``> bench/results/NAME.txt``, or ``--output``) names the
command that wrote it, the commit of perf it measured (``dirty``: tracked
files differed from that commit), when, with which interpreter and beside
which load (one line)::

    # bench/busy/busy_compare.py analyze /tmp/busy | perf 6f77647... | 2026-11-30 04:12 UTC
      | CPython 3.11.7 | load: none injected, load average 0.61 (2 CPUs)
"""

from __future__ import annotations

import contextlib
import os
import platform
import shlex
import subprocess
import sys
import time
from typing import Iterator, Sequence, TextIO

from kit import ROOT


def commit(tree: str = ROOT) -> str:
    """``git rev-parse HEAD`` of *tree*, ``(dirty)`` when a tracked file
    differs from it."""

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "-C", tree, *args], capture_output=True, text=True, check=False)

    head = git("rev-parse", "HEAD")
    if head.returncode:
        return "(not a git checkout)"
    dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
    return head.stdout.strip() + (" (dirty)" if dirty else "")


def header_line(load: str | None = None, **more: str) -> str:
    """The header (see the module docstring); *load*: the load the script
    injects (None: none), *more*: other ``name value`` fields (another
    tree's commit, the interpreter measured...)."""
    script = os.path.relpath(os.path.abspath(sys.argv[0]), ROOT)
    fields = [
        shlex.join([script, *sys.argv[1:]]),
        f"perf {commit()}",
        time.strftime("%Y-%m-%d %H:%M %Z"),
        f"{platform.python_implementation()} {platform.python_version()}",
        *(f"{name.replace('_', ' ')} {value}" for name, value in more.items()),
        f"load: {load or 'none injected'}, load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)",
    ]
    return "# " + " | ".join(fields)


def header(load: str | None = None, **more: str) -> None:
    """Print the header line (through :func:`tee` when it is on)."""
    print(header_line(load, **more), flush=True)


class Tee:
    """Writes to several streams (the terminal and ``--output``)."""

    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


@contextlib.contextmanager
def tee(path: str | None) -> Iterator[None]:
    """What is printed inside also goes to *path* (``--output FILE``;
    None: nowhere else)."""
    if path is None:
        yield
        return
    with open(path, "w") as file:
        sys.stdout = Tee(sys.__stdout__, file)  # type: ignore[assignment]
        try:
            yield
        finally:
            sys.stdout = sys.__stdout__


def print_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> None:
    """Columns as wide as their widest cell, the first *left* ones
    left-aligned, the others right-aligned; a dashed line under the
    header.  Cells of a row beyond the header's are printed as they are."""
    widths = [max(len(str(row[i])) for row in [header, *rows] if i < len(row)) for i in range(len(header))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(
            (f"{cell:<{widths[i]}}" if i < left else f"{cell:>{widths[i]}}") if i < len(widths) else cell
            for i, cell in enumerate(row)
        )

    title = line(header)
    print(title)
    print("-" * len(title))
    for row in rows:
        print(line(row))
