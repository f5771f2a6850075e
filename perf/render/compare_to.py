"""The text of ``python -m perf compare_to``, from a suite comparison.

:func:`format_compare_to` lays out a :class:`~perf.analysis.suites.SuiteComparison`
as pyperf does (per-tag sections, ``Mean +- std dev: [ref] ... ->
[changed] ...`` lines, ``--table`` in reST or Markdown, ``-G`` groups, the
"hidden because not significant" lines), with what pyperf lacks: the
intervals and verdicts, the inconclusive benchmarks with the processes
that would decide them, the suite's geometric mean with its interval, and
the notes and warnings of :mod:`perf.render.compare_notes`.
:func:`format_slowdowns` gives the lines of ``--fail-on-slowdown``.

Must not: compute statistics (the comparisons, geometric means, win rates,
chance counts and slowdowns come from :mod:`perf.analysis.finished`), read
files, or print.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from perf.analysis.compare import Comparison, Verdict
from perf.analysis.finished import FinishedComparison, Section, Slowdown
from perf.analysis.suites import BenchmarkComparison
from perf.analysis.summaries import ValueFigures
from perf.model.benchmark import Benchmark
from perf.model.suite import BenchmarkSuite
from perf.render import compare as text
from perf.render.benchmark import format_result_value
from perf.render.compare_notes import (
    adjustment_count_lines,
    adjustment_lines,
    build_lines,
    chance_lines,
    environment_warnings,
    ignored_lines,
    incomplete_warnings,
)
from perf.render.tables import format_table
from perf.render.units import join_blocks

__all__ = ["Layout", "format_compare_to", "format_slowdowns"]


class Layout(NamedTuple):
    """The options of ``compare_to`` that shape its text."""

    #: the title of each file, the reference first
    titles: Sequence[str]
    #: every benchmark with its verdict
    verbose: bool = False
    #: no hidden/ignored lists, notes or warnings
    quiet: bool = False
    #: how often a changed process beats a reference process
    win_rate: bool = False
    table: bool = False
    #: "rest" or "md"
    table_format: str = "rest"
    #: slower and faster benchmarks grouped (2 files)
    group_by_speed: bool = False
    #: each comparison's busy-machine notes; False: one line counts them
    #: (the pytest plugin without -v)
    busy_notes: bool = True


class _Context(NamedTuple):
    layout: Layout
    comparison: FinishedComparison
    #: several benchmarks are compared: lines start with their names
    names: bool

    @property
    def margin(self) -> float:
        return self.comparison.margin

    @property
    def reference_title(self) -> str:
        return self.layout.titles[0]

    @property
    def changed_titles(self) -> Sequence[str]:
        return self.layout.titles[1:]


def _title(title: str) -> list[str]:
    return [title, "=" * len(title)]


# --- the blocks of a section -------------------------------------------------------


def _win_rate(entry: BenchmarkComparison, index: int, context: _Context) -> str | None:
    wins = context.comparison.wins
    found = wins[entry.name][index] if wins is not None else None
    if found is None:
        return None
    return text.format_win_rate(*found)


def _mean_lines(entry: BenchmarkComparison, context: _Context) -> list[str]:
    lines = []
    verbose = context.layout.verbose
    for index, (title, comparison) in enumerate(zip(context.changed_titles, entry.comparisons)):
        # verbose: the verdict line that follows says what the verdict means
        line = text.format_mean_line(
            (context.reference_title, title), entry, index, margin=context.margin, meaning=not verbose
        )
        rate = _win_rate(entry, index, context) if verbose or context.layout.win_rate else None
        if verbose:
            prefix = "Significant" if comparison.different else "Not significant!"
            lines.append(line)
            lines.append(f"{prefix} ({text.format_verdict(comparison, context.margin)})")
            if rate is not None:
                lines.append(f"Win rate: {rate}")
        else:
            lines.append(line if rate is None else f"{line}; {rate}")
        lines.extend(text.format_adjustment(comparison, context.reference_title, title))
    return lines


def _labelled(entries: Sequence[BenchmarkComparison], context: _Context, verdict: str) -> list[tuple[str, Comparison]]:
    """(label, comparison) of the comparisons of *entries* with *verdict*:
    the label names the changed file when there are several."""
    several = len(context.changed_titles) > 1
    return [
        (f"{entry.name} ({title})" if several else entry.name, comparison)
        for entry in entries
        for title, comparison in zip(context.changed_titles, entry.comparisons)
        if comparison.verdict == verdict
    ]


def _hidden_lines(hidden: Sequence[BenchmarkComparison], context: _Context) -> list[str]:
    """pyperf's "hidden because not significant" line, then what perf knows
    about them: which are equivalent, which need more processes."""
    if not hidden or context.layout.quiet:
        return []
    lines = _hidden_line(hidden)
    no_change = _labelled(hidden, context, Verdict.NO_CHANGE)
    # exactly the same values on both sides (instruction counts): "same"
    same = [label for label, comparison in no_change if text.identical(comparison)]
    if same:
        lines.append(f"- {text.SAME} ({text.SAME_MEANING}): " + ", ".join(same))
    within = [label for label, _comparison in no_change if label not in same]
    if within:
        lines.append(f"- no change (within +-{context.margin * 100:g}%): " + ", ".join(within))
    for label, comparison in _labelled(hidden, context, Verdict.INCONCLUSIVE):
        bracket = text.format_bracket(comparison, context.margin)
        details = ", ".join(filter(None, [bracket, text.format_needed(comparison, context.margin)]))
        # never "no change" beside "inconclusive", even for equal means
        factor = text.format_factor(comparison.ratio) if comparison.ratio != 1.0 else "1.00x"
        lines.append(f"- inconclusive: {label}: {factor} {details}")
    # the verdicts that rest on corrected data say so, hidden or not
    lines.extend(f"- {line}" for line in _adjustment_lines(hidden, context))
    return lines


def _geometric_mean_lines(means: Sequence[Comparison] | None, context: _Context) -> list[str]:
    if means is None:
        return []
    if len(means) == 1:
        return [f"Geometric mean: {text.format_change(means[0], context.margin)}"]
    lines = _title("Geometric mean")
    lines.append("")
    lines.extend(
        f"{title}: {text.format_change(mean, context.margin)}" for title, mean in zip(context.changed_titles, means)
    )
    return lines


# --- the sections ----------------------------------------------------------------------


def _list_section(section: Section, context: _Context) -> list[str]:
    entries = section.entries
    verbose = context.layout.verbose
    shown = [entry for entry in entries if entry.different or verbose]
    hidden = [entry for entry in entries if not (entry.different or verbose)]
    blocks: list[list[str]] = []
    single = False  # one-line entries follow each other without blank lines, as in pyperf
    for entry in shown:
        lines = _mean_lines(entry, context)
        if len(lines) == 1:
            line = f"{entry.name}: {lines[0]}" if context.names else lines[0]
            if single:
                blocks[-1].append(line)
            else:
                blocks.append([line])
            single = True
        else:
            blocks.append([*_title(entry.name), "", *lines] if context.names else lines)
            single = False
    return join_blocks(
        *blocks,
        _hidden_lines(hidden, context),
        _geometric_mean_lines(section.geometric_means, context),
    ) or _hidden_line(hidden)


#: the groups of -G, in order
_GROUPS = ((Verdict.SLOWER, "Slower"), (Verdict.FASTER, "Faster"), (Verdict.SMALL_CHANGE, "Small change"))


def _group_section(section: Section, context: _Context) -> list[str]:
    entries = section.entries
    groups: dict[str, list[BenchmarkComparison]] = {verdict: [] for verdict, _title in _GROUPS}
    hidden = []
    for entry in entries:
        verdict = entry.comparisons[0].verdict
        if verdict in groups:
            groups[verdict].append(entry)
        else:
            hidden.append(entry)
    blocks = []
    shown = []
    for verdict, title in _GROUPS:
        # the largest change first: faster ones by their smallest ratio
        members = sorted(groups[verdict], key=lambda e: e.comparisons[0].ratio, reverse=verdict != Verdict.FASTER)
        if members:
            lines = [f"{title} ({len(members)}):"]
            for entry in members:
                reference, changed = entry.reference, entry.changed[0]
                values = f"{format_result_value(reference, entry.figures[0])} -> "
                values += format_result_value(changed, entry.figures[1])
                lines.append(f"- {entry.name}: {values}: {text.format_change(entry.comparisons[0], context.margin)}")
            blocks.append(lines)
            shown.extend(members)
    return join_blocks(
        *blocks,
        _adjustment_lines(shown, context),
        _hidden_lines(hidden, context),
        _geometric_mean_lines(section.geometric_means, context),
    ) or _hidden_line(hidden)


def _mean(benchmark: Benchmark, figures: ValueFigures | None) -> str:
    return benchmark.format_value(figures.mean) if figures is not None else ""


def _table_row(entry: BenchmarkComparison, context: _Context) -> list[str]:
    row = [entry.name, _mean(entry.reference, entry.figures[0])]
    for changed, figures, comparison in zip(entry.changed, entry.figures[1:], entry.comparisons):
        if not comparison.different:
            row.append("not significant")
            continue
        cell = text.format_change(comparison, context.margin, meaning=False)
        if not context.layout.quiet:
            cell = f"{_mean(changed, figures)}: {cell}"
        row.append(cell)
    return row


def _table_section(section: Section, context: _Context) -> list[str]:
    ordered = list(section.entries)
    if context.layout.group_by_speed:
        ordered.sort(key=lambda entry: entry.comparisons[0].ratio)
    headers = ["Benchmark", context.reference_title, *context.changed_titles]
    # -v: every benchmark has its row, as in the list
    shown = [entry for entry in ordered if entry.different or context.layout.verbose]
    rows = [_table_row(entry, context) for entry in shown]
    hidden = [entry for entry in ordered if entry not in shown]
    means = section.geometric_means
    if means is not None:
        rows.append(
            ["Geometric mean", "(ref)", *(text.format_change(mean, context.margin, meaning=False) for mean in means)]
        )
    table = format_table(headers, rows, context.layout.table_format) if rows else []
    # the corrected verdicts in the table say so, as the list's lines do;
    # pyperf's table names the hidden benchmarks even with -q
    hidden_lines = _hidden_lines(hidden, context) or _hidden_line(hidden)
    return join_blocks(table, _adjustment_lines(shown, context), hidden_lines)


def _adjustment_lines(entries: Sequence[BenchmarkComparison], context: _Context) -> list[str]:
    return adjustment_lines(entries, context.layout.titles) if context.layout.busy_notes else []


def _hidden_line(hidden: Sequence[BenchmarkComparison]) -> list[str]:
    """pyperf's line naming the benchmarks not shown (none: no line); also
    the line of a section that would otherwise print nothing (``-q`` and
    nothing significant: pyperf prints nothing there)."""
    if not hidden:
        return []
    return [f"Benchmark hidden because not significant ({len(hidden)}): " + ", ".join(e.name for e in hidden)]


def _section(section: Section, context: _Context) -> list[str]:
    if context.layout.table:
        return _table_section(section, context)
    if context.layout.group_by_speed:
        return _group_section(section, context)
    return _list_section(section, context)


# --- the whole text --------------------------------------------------------------------


def _sections(comparison: FinishedComparison, context: _Context) -> list[str]:
    """A section per tag, then all benchmarks (under a title when there
    are tags)."""
    output: list[str] = []
    for section in comparison.sections:
        if section.tag is not None:
            output.extend(_title(f"Benchmarks with tag '{section.tag}':"))
            output.append("")
            output.extend(_section(section, context))
            output.append("")
        else:
            if len(comparison.sections) > 1:
                output.extend(_title("All benchmarks:"))
                output.append("")
            output.extend(_section(section, context))
    return output


def format_compare_to(suites: Sequence[BenchmarkSuite], comparison: FinishedComparison, layout: Layout) -> list[str]:
    """The lines of ``compare_to``: the sections, then (unless quiet) the
    notes and the warnings on the files.  The win rates of ``verbose`` and
    ``win_rate`` and the notes on the files are the comparison's: it must
    have the win rates, and was finished with the files (``suites=``) to
    have the notes."""
    if (layout.verbose or layout.win_rate) and comparison.wins is None:
        raise ValueError("the layout shows win rates: finish the comparison with win_rates=True")
    entries = comparison.entries
    context = _Context(layout, comparison, len(entries) > 1)
    output = _sections(comparison, context)
    if not layout.quiet:
        filenames = [str(suite.filename) for suite in suites]
        file_notes = comparison.notes
        notes = join_blocks(
            chance_lines(comparison.everything.differences),
            ignored_lines(comparison.suite, filenames),
            build_lines(file_notes, layout.titles),
        )
        warnings = incomplete_warnings(file_notes, layout.titles) + environment_warnings(file_notes, layout.titles)
        for block in (notes, warnings):
            if block:
                output.append("")
                output.extend(block)
    if not layout.busy_notes:
        output.extend(adjustment_count_lines(comparison.everything))
    return output


def format_slowdowns(slowdowns: Sequence[Slowdown], layout: Layout, margin: float, percent: float) -> list[str]:
    """``--fail-on-slowdown``: a ``SLOWDOWN:`` line for each of *slowdowns*
    (perf.analysis.finished.find_slowdowns: slower than 1 + *percent* %
    with its whole interval); *margin*: the comparison's."""
    changed_titles = layout.titles[1:]
    several = len(changed_titles) > 1
    lines = []
    for found in slowdowns:
        label = "geometric mean" if found.name is None else found.name
        if several:
            label += f" ({changed_titles[found.changed]})"
        lines.append(f"SLOWDOWN: {label}: {text.format_change(found.comparison, margin)}, beyond +{percent:g}%")
    return lines
