"""The sides of a run: what each runs, and the files it writes.

A run has one side, or two with ``--compare-to`` (the reference and the
changed side, interleaved in pairs).  A :class:`Side` is an explicit kind:

* ``interpreter``: workers of its Python run the bench script (or
  ``-m perf timeit``), so two sides differ by interpreter, working folder
  or environment (two source trees on ``PYTHONPATH``, two git worktrees);
* ``program``: workers run ``python -m perf command`` on its program, so
  two sides differ by the program they time.

Here too: the labels that tell the sides apart (they name the files of
``-o``/``--append``): from the interpreters' paths, or their versions
when the paths do not say which is which; and the absolute path of an
interpreter.

Must not: spawn processes, print, or exit.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, NamedTuple, Sequence

from perf.errors import OutputExistsError, UsageError

if TYPE_CHECKING:
    from perf.measure.options import RunOptions
    from perf.measure.values import RunMode


class PythonProbe(NamedTuple):
    """What another interpreter said when it was run once as a worker
    starts (:func:`perf.measure.parent.probe.probe_python`)."""

    #: ``sys.implementation.name`` (``cpython``, ``pypy``...)
    implementation: str
    #: the metadata its runs will carry that decides whether they can join
    #: earlier runs (:data:`perf.model.metadata.CHECKED_KEYS`); None when
    #: its perf could not say
    metadata: dict[str, Any] | None


#: runs another interpreter once: (python, worker environment) -> what it said
Probe = Callable[[str, Mapping[str, str]], PythonProbe]


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


def python_labels(
    reference: str, changed: str, versions: tuple[str | None, str | None] = (None, None)
) -> tuple[str, str]:
    """Short labels telling two interpreters apart.

    From their paths: their file names when they differ (pyperf's labels:
    ``python3.11``, ``python3.12``), else the nearest folder that differs
    (``/a/venv/bin/python`` and ``/b/venv/bin/python`` -> ``a``, ``b``;
    pyenv's ``3.11.7``, ``3.12.1``).  When those do not say which
    interpreter is which (one is a file name without a version, ``python``
    or ``pypy3``, or the folder of a virtual environment, ``.venv``; or
    the paths give no two distinct labels), the versions of the
    interpreters (*versions*: their ``python_version`` metadata; None:
    unknown) are the labels when they differ (``3.11.7``, ``3.12.1``).
    Two interpreters of the same version keep their path labels when
    these differ (``.venv`` and ``vperf``), else are ``ref`` and
    ``changed``."""
    found = _nearest_difference(reference, changed)
    if found is not None and not any(map(_uninformative, found, (reference, changed))):
        return _label_of(found[0]), _label_of(found[1])
    short = [version_label(version) if version else "" for version in versions]
    if all(short) and short[0] != short[1]:
        return short[0], short[1]
    if found is not None:
        return _label_of(found[0]), _label_of(found[1])
    return SIDE_SUFFIXES


#: interpreter file names that say nothing of the version (a virtual
#: environment's ``python``, ``python3``, ``pypy3``)
_UNVERSIONED_NAME = r"(python|pypy|graalpy)[0-9]?(\.exe)?"


def _nearest_difference(reference: str, changed: str) -> tuple[str, str] | None:
    """The two paths cut after the nearest part (from their ends) that
    differs: each side's label is the last part of its cut path; None when
    they give no two distinct labels (the same path, or one path ends the
    other)."""
    parts = [path.split(os.sep) for path in (reference, changed)]
    while parts[0] and parts[1] and parts[0][-1] == parts[1][-1]:
        for side in parts:
            side.pop()
    if not (parts[0] and parts[0][-1] and parts[1] and parts[1][-1]):
        return None
    return os.sep.join(parts[0]), os.sep.join(parts[1])


def _label_of(cut: str) -> str:
    return cut.rpartition(os.sep)[2]


def _uninformative(cut: str, path: str) -> bool:
    """Whether the label of *path* (the last part of *cut*) does not say
    which interpreter it is: a file name without a version, or the folder
    of a virtual environment (it holds ``pyvenv.cfg``)."""
    import re

    if cut == path:
        return re.fullmatch(_UNVERSIONED_NAME, _label_of(cut)) is not None
    return os.path.isfile(os.path.join(cut, "pyvenv.cfg"))


def version_label(python_version: str) -> str:
    """The version part of ``python_version`` metadata: ``3.11.7`` of
    ``3.11.7 (64-bit) revision fa7a6f2303``, ``PyPy 7.3.13`` of ``PyPy
    7.3.13 (Python 3.10.13) (64-bit)``."""
    return python_version.partition(" (")[0].strip()


def interpreter_versions(probes: Mapping[str, PythonProbe]) -> dict[str, str]:
    """The ``python_version`` metadata of this interpreter and of each
    probed one that said it, by path."""
    from perf.collect.python import python_version_text

    versions = {sys.executable: python_version_text()}
    for python, probe in probes.items():
        version = (probe.metadata or {}).get("python_version")
        if isinstance(version, str):
            versions[python] = version
    return versions


def side_labels(
    options: RunOptions,
    program: Sequence[str] | None = None,
    probes: Mapping[str, PythonProbe] | None = None,
) -> tuple[str, str]:
    """--compare-to: the labels of the reference and of the changed side:
    ``--python-names`` when given, else the two interpreters
    (:func:`python_labels`, with the versions this interpreter and the
    *probes* of the others give), or with *program* (``python -m perf
    command``) the two command lines."""
    if options.python_names:
        reference, changed = options.python_names
        return reference, changed
    assert options.compare_to is not None
    if program is not None:
        import shlex

        return shlex.join(shlex.split(options.compare_to)), shlex.join(program)
    versions = interpreter_versions(probes or {})
    return python_labels(
        options.compare_to, options.python, (versions.get(options.compare_to), versions.get(options.python))
    )


def _file_label(label: str) -> str:
    """*label* as a part of a file name: letters, digits, ``.``, ``_``,
    ``+`` and ``-`` (anything else becomes ``-``), without a ``-`` at
    either end or a ``.`` at the end (a label's leading ``.`` stays:
    ``.venv`` -> ``ab-.venv.json``)."""
    import re

    return re.sub(r"[.-]+$", "", re.sub(r"[^A-Za-z0-9._+]+", "-", label).lstrip("-"))


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


def plan_sides(  # noqa: PLR0917 (the parts of a plan)
    options: RunOptions,
    mode: RunMode,
    script: tuple[str, ...],
    program: tuple[str, ...],
    probes: Mapping[str, PythonProbe],
    jit: bool,
) -> tuple[RunOptions, tuple[Side, ...], tuple[str, ...]]:
    """The sides of a run of checked *options* (none for a worker run in
    place), each with the budget of its interpreter (*jit*: whether this
    one has a JIT; the others said it when probed), and the files of
    ``-o``/``--append``, named after the sides' labels: checked now, as
    what would fail after the benchmark ran."""
    labels = None
    if options.compare_to and not options.worker:
        labels = side_labels(options, program if mode == "command" else None, probes)
    paths = _check_files(options, labels)
    options = _with_budget(options, _has_jit(options.python, probes, jit))
    kind: SideKind = "program" if mode == "command" else "interpreter"
    if options.worker:
        return options, (), paths
    if labels is None:
        return options, (Side(kind, options.python, options, script, program),), paths
    assert options.compare_to is not None
    if mode == "command":
        import shlex

        pythons, programs = (options.python, options.python), (tuple(shlex.split(options.compare_to)), program)
    else:
        pythons, programs = (options.compare_to, options.python), ((), ())
    sides = tuple(
        Side(kind, python, _with_budget(options, _has_jit(python, probes, jit)), script, side, label=label)
        for python, side, label in zip(pythons, programs, labels)
    )
    return options, sides, paths


#: what an interpreter with a JIT calls itself (``sys.implementation.name``)
JIT_IMPLEMENTATIONS = ("pypy", "graalpy")


def _has_jit(python: str, probes: Mapping[str, PythonProbe], jit: bool) -> bool:
    """Whether the workers of *python* run on a JIT (*jit*: this one's)."""
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        return jit
    probe = probes.get(python)
    return probe is not None and probe.implementation in JIT_IMPLEMENTATIONS


def _with_budget(options: RunOptions, jit: bool) -> RunOptions:
    """*options* with the budget of workers with or without a JIT."""
    if options.budgets is None:
        return options  # its budget is final
    processes, values, warmups = options.budgets[jit]
    return options._replace(processes=processes, values=values, warmups=warmups)


def _check_files(options: RunOptions, labels: tuple[str, str] | None) -> tuple[str, ...]:
    """The files of -o/--append (*labels*: the sides'), refused now if
    they could not be written after the run (a worker run in place, without
    --pipe, writes them too)."""
    for path in output_paths(options.output, labels) if options.output else ():
        if os.path.lexists(path):
            raise OutputExistsError(path, " (use --append to add runs to it)")
        check_writable_folder(path)
    for path in output_paths(options.append, labels) if options.append else ():
        check_writable_folder(path)
        if os.path.exists(path) and not os.access(path, os.R_OK | os.W_OK):
            raise UsageError(f"{path}: cannot read and write this file")
    if options.profile:
        check_writable_folder(options.profile)
    written = options.append or options.output
    return output_paths(written, labels) if written else ()


def check_writable_folder(path: str, label: str | None = None) -> None:
    """Refuse a file to be written (*path*) whose folder does not exist or
    is not writable; the message starts with *label* (the path by
    default)."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{label or path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{label or path}: cannot write into the folder {folder}")
