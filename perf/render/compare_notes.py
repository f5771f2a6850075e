"""What is said around a suite comparison: the notes, warnings and errors
that ``compare_to`` prints and ``report`` lists under its table.

* :func:`comparison_error`: the error of a command that compares every
  benchmark the files share (``compare_to``, ``report``): no benchmark in
  common, or the first incompatible one (no values, different counters,
  units or clocks: the rule of :func:`perf.analysis.suites.compare_suites`);
* :func:`chance_lines`: how many comparisons differ from 1x next to what
  chance alone gives (counted by :mod:`perf.analysis.finished`);
* :func:`ignored_lines`: the benchmarks of each file that another file
  lacks;
* :func:`build_lines`: which Python builds the files come from, when
  they differ (a note: comparing builds is usually the point);
* :func:`incomplete_warnings`: the compared benchmarks saved from a run
  that stopped early;
* :func:`environment_warnings`: separate recordings from other hosts or
  CPUs, or far apart in time;
* :func:`adjustment_lines`: what each comparison corrected for a busy
  machine, or :func:`adjustment_count_lines`: one line that counts them.

The notes are the comparison's (:mod:`perf.analysis.notes` decides them);
this module only words them.

Must not: compute statistics, decide notes, read files, print, or raise
(an error is returned to the command, which decides).
"""

from __future__ import annotations

from typing import Sequence, Union

from perf.analysis.finished import Section
from perf.analysis.notes import Builds, FarApart, Incomplete, Machines
from perf.analysis.suites import BenchmarkComparison, Differences, Incompatible, Reason, SuiteComparison
from perf.errors import ResultError
from perf.render.compare import format_adjustment

__all__ = [
    "adjustment_count_lines",
    "adjustment_lines",
    "build_lines",
    "chance_lines",
    "comparison_error",
    "environment_warnings",
    "ignored_lines",
    "incompatible_message",
    "incomplete_warnings",
]

#: a note of perf.analysis.notes (its Note: render imports classes only)
Note = Union[Builds, FarApart, Incomplete, Machines]


def incompatible_message(skipped: Incompatible, filenames: Sequence[str]) -> str:
    """Why *skipped* was not compared, naming the file (or each file's unit
    or clock)."""
    name = skipped.name
    if skipped.reason == Reason.NO_VALUES:
        index = next(index for index, benchmark in enumerate(skipped.benchmarks) if not benchmark.get_nvalue())
        return f"{filenames[index]}: benchmark {name!r} has no values (only calibration runs)"
    if skipped.reason == Reason.DIFFERENT_COUNTERS:
        listed = ", ".join(
            f"instructions counted by {b.get_counter_source()!r} in {filename}"
            if b.get_counter_source() is not None
            else f"no counter ({b.get_unit()}) in {filename}"
            for b, filename in zip(skipped.benchmarks, filenames)
        )
        return (
            f"benchmark {name!r} was measured by different counters: {listed}; "
            "counts compare only with counts of the same counter_source"
        )
    if skipped.reason == Reason.DIFFERENT_UNITS:
        listed = ", ".join(f"{b.get_unit()} in {filename}" for b, filename in zip(skipped.benchmarks, filenames))
        return f"benchmark {name!r} has different units: {listed}"
    # CPU time leaves out what wall time includes: their ratio is no speed-up
    listed = ", ".join(f"{b.get_clock()} in {filename}" for b, filename in zip(skipped.benchmarks, filenames))
    return f"benchmark {name!r} was timed with different clocks (--clock): {listed}"


def comparison_error(comparison: SuiteComparison, filenames: Sequence[str]) -> ResultError | None:
    """The error of a command that compares every benchmark in common: no
    benchmark in common, or the first one that cannot be compared; None
    when every benchmark in common was compared."""
    if not comparison.common:
        return ResultError("the files have no benchmark in common: " + ", ".join(filenames))
    if comparison.incompatible:
        return ResultError(incompatible_message(comparison.incompatible[0], filenames))
    return None


def ignored_lines(comparison: SuiteComparison, filenames: Sequence[str]) -> list[str]:
    """``Ignored benchmarks (2) of a.json: x, y``: for each file, its
    benchmarks that another file lacks."""
    lines = []
    for index, filename in enumerate(filenames):
        ignored = sorted(comparison.ignored(index))
        if ignored:
            lines.append(f"Ignored benchmarks ({len(ignored)}) of {filename}: {', '.join(ignored)}")
    return lines


def adjustment_lines(entries: Sequence[BenchmarkComparison], titles: Sequence[str]) -> list[str]:
    """What each comparison of separate recordings corrected for a busy
    machine, named after its benchmark (the HTML report lists them)."""
    lines: list[str] = []
    for entry in entries:
        for title, comparison in zip(titles[1:], entry.comparisons):
            lines.extend(f"{entry.name}: {line}" for line in format_adjustment(comparison, titles[0], title))
    return lines


def adjustment_count_lines(section: Section) -> list[str]:
    """In place of :func:`adjustment_lines`: a blank line and one line that
    counts the comparisons of *section* corrected for a busy machine and,
    when more benchmarks have notes (a correction too small to move the
    ratio, a machine speed left uncorrected), those; nothing when none has
    a note."""
    noted, corrected, compared = section.noted, section.corrected, section.compared
    if not noted:
        return []
    line = f"{corrected} of {compared} comparisons {'was' if corrected == 1 else 'were'} corrected for a busy machine"
    if noted == corrected:
        return ["", f"{line} (-v shows how)"]
    return ["", f"{line}, {noted} {'has a note' if noted == 1 else 'have notes'} on it (-v shows them)"]


def chance_lines(found: Differences | None) -> list[str]:
    """How many comparisons differ from 1x at their level, next to how
    many would by chance alone, and how many survive a false discovery
    rate (nothing for fewer than 2 comparisons: *found* is None)."""
    if found is None:
        return []
    alpha, significant, kept = found.alpha, found.significant, found.discoveries
    return [
        f"{found.total} comparisons, {significant} {'differs' if significant == 1 else 'differ'} from 1x "
        f"at {1 - alpha:.0%} confidence; chance alone would give about {found.expected:.2g} ({alpha:.0%} each); "
        f"{kept} {'remains' if kept == 1 else 'remain'} at a {alpha:.0%} false discovery rate (Benjamini-Hochberg)"
    ]


# --- the notes on the files --------------------------------------------------------


#: the word for each machine key of a warning
_MACHINES = {"hostname": "hosts", "cpu_model_name": "CPUs"}


def _format_gap(seconds: float) -> str:
    hours = seconds / 3600
    if hours < 48:
        return f"{hours:.0f} hours" if hours >= 2 else f"{hours * 60:.0f} minutes"
    return f"{hours / 24:.0f} days"


def incomplete_warnings(notes: Sequence[Note], titles: Sequence[str]) -> list[str]:
    """The compared benchmarks saved from a run that stopped early (Ctrl-C,
    a failed worker): fewer processes than planned."""
    return [
        f"WARNING: {note.name} ({titles[note.file]}) is incomplete: {'; '.join(note.reasons)}"
        for note in notes
        if isinstance(note, Incomplete)
    ]


def _environment_warning(note: Machines | FarApart, titles: Sequence[str]) -> str:
    pair = f"{titles[0]} and {titles[note.changed]}"
    if isinstance(note, FarApart):
        return f"WARNING: {pair} were recorded {_format_gap(note.seconds)} apart"
    machines = f"{' / '.join(note.reference)} vs {' / '.join(note.other)}"
    return f"WARNING: {pair} come from different {_MACHINES.get(note.key, note.key)}: {machines}"


def environment_warnings(notes: Sequence[Note], titles: Sequence[str]) -> list[str]:
    """Differences between the reference file and each changed file that a
    comparison of separate recordings cannot cancel, and a line that says
    so."""
    lines = [_environment_warning(note, titles) for note in notes if isinstance(note, (Machines, FarApart))]
    if lines:
        lines.append(
            "The machine drifts between separate recordings and the comparison cannot cancel it; "
            "an interleaved run (--compare-to) measures both sides in alternation."
        )
    return lines


def _build(note: Builds, side: int) -> str:
    """One build of *note*: its version and what tells it apart."""
    version = " / ".join(note.versions[side])
    details = note.details[side]
    if note.key == "python_version":
        return version
    if note.key == "python_implementation":
        text = " / ".join(details) + " " + version
    elif note.key == "python_compiler":
        text = f"{version} built with {' / '.join(details)}"
    elif details:
        text = f"{version} with CFLAGS {' '.join(details)}"
    else:
        text = f"{version} without CFLAGS {' '.join(note.details[1 - side])}"
    return text.strip()


def build_lines(notes: Sequence[Note], titles: Sequence[str]) -> list[str]:
    """``Python builds: py311 3.11.7 (64-bit), py312 3.12.1 (64-bit)``:
    for each changed file whose Python build differs from the reference's,
    the two builds, named by the first thing that differs.  A note, not a
    warning: comparing two builds is usually the point."""
    return [
        f"Python builds: {titles[0]} {_build(note, 0)}, {titles[note.changed]} {_build(note, 1)}"
        for note in notes
        if isinstance(note, Builds)
    ]
