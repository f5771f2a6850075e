"""The sides of a run: what each runs, and the files it writes.

A run has one side, or two with ``--compare-to`` (the reference and the
changed side, interleaved in pairs).  A :class:`Side` is an explicit kind:

* ``interpreter``: workers of its Python run the bench script (or
  ``-m perf timeit``), so two sides differ by interpreter, working folder
  or environment (two source trees on ``PYTHONPATH``, two git worktrees);
* ``program``: workers run ``python -m perf command`` on its program, so
  two sides differ by the program they time.

Here too: the labels that tell the sides apart (they name the files of
``-o``/``--append``), and the absolute path of an interpreter.

Must not: spawn processes, print, or exit.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Literal, NamedTuple, Sequence

from perf.errors import UsageError

if TYPE_CHECKING:
    import argparse

    from perf.measure.options import RunOptions

#: what a side runs: an interpreter's workers on the script, or a program
SideKind = Literal["interpreter", "program"]


class Side(NamedTuple):
    """One side of a run: who runs the workers, where, with what."""

    kind: SideKind
    #: the interpreter of the workers (absolute path)
    python: str
    #: its options: this side's budget (a JIT gets fewer, longer processes)
    options: RunOptions
    #: what the workers run after the interpreter: the bench script and its
    #: arguments, or ``("-m", "perf", "timeit")``
    script: tuple[str, ...]
    #: kind ``program``: the command line the workers time
    program: tuple[str, ...] = ()
    #: the working folder of the workers (None: this process's)
    cwd: str | None = None
    #: variables set in the workers' environment, whatever the
    #: ``--inherit-environ`` filter (``PYTHONPATH`` of a source tree...)
    env: tuple[tuple[str, str], ...] = ()
    #: its name in the output (and in file names); None for a single side
    label: str | None = None


#: --compare-to: the suffixes of the two files -o/--append name when the
#: labels of the two sides cannot name them
SIDE_SUFFIXES = ("ref", "changed")
#: the longest label used in a file name
MAX_FILE_LABEL = 40


def python_labels(reference: str, changed: str) -> tuple[str, str]:
    """Short labels telling two interpreters apart: their file names when
    they differ (pyperf's labels: ``python3.11``, ``python3.12``), else the
    nearest folder that differs (``/a/venv/bin/python`` and
    ``/b/venv/bin/python`` -> ``a``, ``b``; pyenv's ``3.11.7``,
    ``3.12.1``), else ``ref`` and ``changed``."""
    parts = [path.split(os.sep) for path in (reference, changed)]
    while parts[0] and parts[1] and parts[0][-1] == parts[1][-1]:
        for side in parts:
            side.pop()
    labels = (parts[0][-1] if parts[0] else "", parts[1][-1] if parts[1] else "")
    if not all(labels) or labels[0] == labels[1]:
        return SIDE_SUFFIXES
    return labels


def side_labels(options: RunOptions | argparse.Namespace, program: Sequence[str] | None = None) -> tuple[str, str]:
    """--compare-to: the labels of the reference and of the changed side:
    ``--python-names`` when given, else the two interpreters, or with
    *program* (``python -m perf command``) the two command lines."""
    if options.python_names:
        reference, changed = options.python_names
        return reference, changed
    assert options.compare_to is not None
    if program is not None:
        import shlex

        return shlex.join(shlex.split(options.compare_to)), shlex.join(program)
    return python_labels(options.compare_to, options.python)


def _file_label(label: str) -> str:
    """*label* as a part of a file name: letters, digits, ``.``, ``_``,
    ``+`` and ``-`` (anything else becomes ``-``)."""
    import re

    return re.sub(r"[^A-Za-z0-9._+]+", "-", label).strip(".-")


def split_extension(path: str) -> tuple[str, str]:
    """``result.json.gz`` -> ``('result', '.json.gz')``."""
    for extension in (".json.gz", ".json", ".gz"):
        if path.endswith(extension):
            return path[: -len(extension)], extension
    return path, ""


def side_paths(path: str, labels: tuple[str, str] = SIDE_SUFFIXES) -> tuple[str, str]:
    """--compare-to with ``-o`` or ``--append PATH``: the files of the
    reference and of the changed side, named after their *labels*
    (``result.json`` -> ``result-3.11.json``, ``result-3.12.json``;
    ``.json.gz`` kept).  Labels that would not make two distinct, short
    file names give ``result-ref.json`` and ``result-changed.json``."""
    stem, extension = split_extension(path)
    suffixes = tuple(_file_label(label) for label in labels)
    if not all(suffixes) or suffixes[0] == suffixes[1] or max(map(len, suffixes)) > MAX_FILE_LABEL:
        suffixes = SIDE_SUFFIXES
    return f"{stem}-{suffixes[0]}{extension}", f"{stem}-{suffixes[1]}{extension}"


def output_paths(path: str, labels: tuple[str, str] | None) -> tuple[str, ...]:
    """The files a run writes for -o/--append *path* (*labels*: the sides
    of a --compare-to run)."""
    return side_paths(path, labels) if labels else (path,)


def absolute_executable(executable: str, option: str) -> str:
    """An absolute path that keeps symlinks (a venv's python is one)."""
    import shutil

    found = shutil.which(executable) if os.sep not in executable else executable
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise UsageError(f"--{option.replace('_', '-')}: {executable}: no such executable")
    return os.path.normpath(os.path.abspath(found))
