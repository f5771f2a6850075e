"""What the files of a suite comparison say about it, as data: the notes
and warnings that ``compare_to`` prints and ``report`` lists, decided
here and worded by :mod:`perf.render.compare_notes`.

:func:`file_notes` looks at every benchmark of each file (not only those
selected with ``-b``) and finds, in this order:

* :class:`Builds`: a changed file from another Python build than the
  reference's, told apart by the first of its version, implementation,
  compiler or CFLAGS that differs (a note: comparing builds is usually the
  point, for the two files of an interleaved run too);
* :class:`Incomplete`: a compared benchmark saved from a run that stopped
  early (Ctrl-C, a failed worker): fewer processes than planned;
* :class:`Machines` and :class:`FarApart`: separate recordings from other
  hosts or CPUs, or recorded more than :data:`FAR_APART` apart, which the
  comparison cannot cancel (none for the two sides of an interleaved run:
  the pairs cancel the drift; no FarApart when every compared benchmark is
  a count benchmark: the drift of the machine moves no instruction count).

Each note is a named tuple whose ``kind`` names it.

Must not: format text, read files, or print.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, NamedTuple, Sequence, Union

from perf.model.metadata import INCOMPLETE_KEY
from perf.model.suite import BenchmarkSuite

if TYPE_CHECKING:
    from perf.analysis.suites import BenchmarkComparison

__all__ = ["FAR_APART", "Builds", "FarApart", "Incomplete", "Machines", "Note", "file_notes"]

#: separate recordings further apart than this get a warning
FAR_APART = datetime.timedelta(hours=1)


class Builds(NamedTuple):
    """A changed file from another Python build than the reference's."""

    #: the changed file (its index among the files: the reference is 0)
    changed: int
    #: the first metadata key that tells the builds apart: python_version,
    #: python_implementation, python_compiler or python_cflags
    key: str
    #: the python_version values of each build (reference, changed)
    versions: tuple[tuple[str, ...], tuple[str, ...]]
    #: of each build: its implementation or compiler values; for
    #: python_cflags, its flags that the other lacks (in the order given);
    #: empty for python_version
    details: tuple[tuple[str, ...], tuple[str, ...]]
    kind: str = "builds"


class Incomplete(NamedTuple):
    """A compared benchmark saved from a run that stopped early."""

    name: str
    #: the file (its index: the reference is 0)
    file: int
    #: what its runs say about it (their ``incomplete`` metadata), each once
    reasons: tuple[str, ...]
    kind: str = "incomplete"


class Machines(NamedTuple):
    """Separate recordings from other hosts or CPUs."""

    changed: int
    #: hostname or cpu_model_name
    key: str
    #: its values in each file (reference, changed), each once
    reference: tuple[str, ...]
    other: tuple[str, ...]
    kind: str = "machines"


class FarApart(NamedTuple):
    """Separate recordings further apart in time than :data:`FAR_APART`."""

    changed: int
    #: the time between the end of one and the start of the other
    seconds: float
    kind: str = "far apart"


Note = Union[Builds, Incomplete, Machines, FarApart]


def _values_of(suite: BenchmarkSuite, key: str) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for benchmark in suite:
        # the shared common value, not a copy of get_metadata(): read only
        value = benchmark._get_common_value(key)
        if value is not None:
            found[str(value)] = None
    return tuple(found)


# --- Python builds -------------------------------------------------------------


#: what tells two Python builds apart, in the order a note names it
_BUILD_KEYS = ("python_version", "python_implementation", "python_compiler", "python_cflags")


def _flags(values: Sequence[str]) -> set[str]:
    return {flag for value in values for flag in value.split()}


def _only(values: Sequence[str], excluded: set[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(flag for value in values for flag in value.split() if flag not in excluded))


def _differs(key: str, first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    if not first or not second:
        return False  # unknown is not different
    if key == "python_cflags":  # the same flags in another order are the same build
        return _flags(first) != _flags(second)
    return first != second


def _builds(reference: dict[str, tuple[str, ...]], build: dict[str, tuple[str, ...]], changed: int) -> Builds | None:
    key = next((key for key in _BUILD_KEYS if _differs(key, reference[key], build[key])), None)
    if key is None:
        return None
    first, second = reference.get(key, ()), build.get(key, ())
    if key == "python_version":
        details: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    elif key == "python_cflags":
        details = (_only(first, _flags(second)), _only(second, _flags(first)))
    else:
        details = (first, second)
    return Builds(changed, key, (reference["python_version"], build["python_version"]), details)


def _build_notes(suites: Sequence[BenchmarkSuite]) -> list[Note]:
    builds = [{key: _values_of(suite, key) for key in _BUILD_KEYS} for suite in suites]
    found = [_builds(builds[0], build, index) for index, build in enumerate(builds[1:], 1)]
    return [note for note in found if note is not None]


# --- the comparison's benchmarks and recordings ------------------------------------


def _incomplete(entries: Sequence[BenchmarkComparison]) -> list[Note]:
    found: list[Note] = []
    for entry in entries:
        for index, benchmark in enumerate([entry.reference, *entry.changed]):
            runs = benchmark.get_runs()
            reasons = dict.fromkeys(str(run._get(INCOMPLETE_KEY)) for run in runs if run._has(INCOMPLETE_KEY))
            if reasons:
                found.append(Incomplete(entry.name, index, tuple(reasons)))
    return found


def _gap(first: BenchmarkSuite, second: BenchmarkSuite) -> datetime.timedelta | None:
    dates = first.get_dates(), second.get_dates()
    if not dates[0] or not dates[1]:
        return None
    (start1, end1), (start2, end2) = dates[0], dates[1]
    if end1 <= start2:
        return start2 - end1
    if end2 <= start1:
        return start1 - end2
    return datetime.timedelta(0)


def _recording_notes(reference: BenchmarkSuite, suite: BenchmarkSuite, changed: int, counts: bool) -> list[Note]:
    found: list[Note] = []
    for key in ("hostname", "cpu_model_name"):
        ref_values, new_values = _values_of(reference, key), _values_of(suite, key)
        if ref_values and new_values and ref_values != new_values:
            found.append(Machines(changed, key, ref_values, new_values))
    gap = _gap(reference, suite)
    if gap is not None and gap > FAR_APART and not counts:
        found.append(FarApart(changed, gap.total_seconds()))
    return found


def file_notes(
    suites: Sequence[BenchmarkSuite], entries: Sequence[BenchmarkComparison], paired_files: Sequence[bool]
) -> tuple[Note, ...]:
    """The notes on the comparison *entries* of the files *suites* (every
    benchmark of each, the reference first; *paired_files*: whether each
    changed file was recorded interleaved with the reference), in the order
    of the module documentation."""
    found = _build_notes(suites) + _incomplete(entries)
    counts = bool(entries) and all(entry.reference.get_counter_source() is not None for entry in entries)
    for index, (paired, suite) in enumerate(zip(paired_files, suites[1:]), 1):
        if not paired:
            found.extend(_recording_notes(suites[0], suite, index, counts))
    return tuple(found)
