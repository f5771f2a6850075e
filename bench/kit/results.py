"""What an output says about itself: its header line, its ``--output``
copy, its tables.

Every script parses its command line with :class:`Parser`, which prints
the header line first, so that a results file made from its output
(``> bench/results/NAME.txt``, or ``--output``) names the command that
wrote it, the commit of perf it measured (``dirty``: tracked files
differed from that commit), when, with which interpreter and beside which
load (one line)::

    # bench/busy/busy_compare.py analyze /tmp/busy | perf 6f77647... | 2026-11-30 04:12 UTC
      | CPython 3.11.7 | load: none injected; load average 0.61 (2 CPUs)
"""

from __future__ import annotations

import argparse
import atexit
import os
import platform
import shlex
import subprocess
import sys
import time
from typing import Callable, Sequence, TextIO

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
        f"load: {load or 'none injected'}; load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)",
    ]
    return "# " + " | ".join(fields)


def seeded_load(args: argparse.Namespace) -> str | None:
    """``mixed, seed 1``: the ``--load`` and ``--seed`` of a script (None:
    it has no ``--load``, or ``none``)."""
    load = getattr(args, "load", None)
    if not isinstance(load, str) or load == "none":
        return None
    return f"{load}, seed {args.seed}" if getattr(args, "seed", None) is not None else load


class Parser(argparse.ArgumentParser):
    """The command line of a script (described by the first paragraph of
    its docstring *doc*); ``parse_args()`` prints the header line.

    *load* describes the load the script injects (by default its ``--load``
    and ``--seed``); *trees* name options that give another source tree of
    perf (their commits go into the header too).  With *output*, the
    parser has ``--output FILE``: everything printed from the header on
    also goes to FILE."""

    def __init__(
        self,
        doc: str | None = None,
        *,
        load: Callable[[argparse.Namespace], str | None] = seeded_load,
        trees: Sequence[str] = (),
        output: bool = False,
        **kwargs: object,  # a subcommand's parser: argparse's own arguments
    ) -> None:
        if doc:
            kwargs["description"] = doc.strip().split("\n\n")[0]
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.describe_load, self.trees = load, trees
        if output:
            self.add_argument("--output", metavar="FILE", help="write the printed report there too")

    def parse_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def,override]
        parsed = super().parse_args(args, namespace)
        if getattr(parsed, "output", None):
            tee(parsed.output)
        more = {f"{name} tree": commit(getattr(parsed, name)) for name in self.trees if getattr(parsed, name, None)}
        python = getattr(parsed, "python", None)
        if isinstance(python, str) and os.path.realpath(python) != os.path.realpath(sys.executable):
            more["measuring"] = python
        print(header_line(self.describe_load(parsed), **more), flush=True)
        return parsed


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


def tee(path: str) -> None:
    """From now on, what is printed also goes to *path*, until exit."""
    file = open(path, "w")  # noqa: SIM115 -- closed at exit

    def close() -> None:
        sys.stdout = sys.__stdout__
        file.close()

    sys.stdout = Tee(sys.__stdout__, file)  # type: ignore[assignment]
    atexit.register(close)


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
