"""``python -m perf compare_to REF CHANGED...``: did the change make code
faster, slower, or nothing at all?

Each benchmark found in every file is compared to the reference file's
(:mod:`perf.analysis.compare`): the ratio of the geometric means of the
process means, its 95 % confidence interval and a verdict with an
equivalence margin (``--min-speed``, 1 % by default).  The layout follows
pyperf's (per-tag sections, ``Mean +- std dev: [ref] ... -> [changed] ...``
lines, ``--table`` in reST or Markdown, ``-G`` groups, the "hidden because
not significant" and "Ignored benchmarks" lines), with the intervals, the
verdicts that pyperf lacks, the suite's geometric mean with its interval,
how many differences chance alone would produce, and warnings when the
files were recorded on different machines or far apart in time.

``--fail-on-slowdown PCT`` turns the comparison into a gate for CI jobs and
``git bisect run``: exit status :data:`EXIT_SLOWDOWN` when a benchmark (or
the suite's geometric mean) is slower by more than PCT % with its whole
interval.
"""

from __future__ import annotations

import argparse
import datetime
from typing import NamedTuple, Sequence

from perf.analysis import compare
from perf.analysis.benchmarks import compare_benchmarks, paired_process_means
from perf.analysis.compare import Comparison
from perf.cli.common import (
    filename_titles,
    format_title,
    load_suites,
    no_values_error,
    print_lines,
    select_benchmarks,
)
from perf.errors import ResultError, UsageError
from perf.model.benchmark import Benchmark
from perf.model.suite import BenchmarkSuite
from perf.render import compare as text
from perf.render.benchmark import format_result_value

HELP = "Compare benchmark results: the ratio with its confidence interval and a verdict."

#: exit status of --fail-on-slowdown when a slowdown is found (1 is an error)
EXIT_SLOWDOWN = 3
#: files recorded further apart than this get a drift warning
FAR_APART = datetime.timedelta(hours=1)
#: the level of each test
ALPHA = 0.05


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "filenames", metavar="FILE", nargs="+", help="the reference result file, then one or more changed ones"
    )
    parser.add_argument(
        "-b", "--benchmark", dest="benchmarks", metavar="NAME", action="append", help="only this benchmark (repeatable)"
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="hide hidden/ignored benchmark lists and warnings")
    parser.add_argument("-v", "--verbose", action="store_true", help="show every benchmark with its verdict")
    parser.add_argument(
        "-G", "--group-by-speed", action="store_true", help="group slower and faster benchmarks (exactly 2 files)"
    )
    parser.add_argument(
        "--min-speed",
        metavar="PCT",
        type=float,
        default=compare.DEFAULT_MARGIN * 100,
        help="equivalence margin in percent: changes smaller than this do not matter (default: %(default)g)",
    )
    parser.add_argument("--table", action="store_true", help="render a table")
    parser.add_argument(
        "--table-format", choices=("rest", "md"), default="rest", help="table format (default: %(default)s)"
    )
    parser.add_argument(
        "--robust",
        action="store_true",
        help="Mann-Whitney test on process means with a Hodges-Lehmann ratio instead of Welch's t",
    )
    parser.add_argument(
        "--win-rate", action="store_true", help="show how often a changed process beats a reference process"
    )
    parser.add_argument(
        "--fail-on-slowdown",
        metavar="PCT",
        type=float,
        help=f"exit with status {EXIT_SLOWDOWN} when a benchmark or the geometric mean is slower "
        "by more than PCT %% with its whole confidence interval",
    )


class Entry(NamedTuple):
    """One benchmark present in every file, and its comparisons."""

    name: str
    reference: Benchmark
    changed: list[Benchmark]
    comparisons: list[Comparison]

    @property
    def different(self) -> bool:
        return any(comparison.different for comparison in self.comparisons)

    def tags(self) -> list[str]:
        # the shared common value, not a copy of get_metadata(): read only
        tags = self.reference._get_common_value("tags") or []
        return list(tags) if isinstance(tags, (list, tuple)) else []


class Context(NamedTuple):
    args: argparse.Namespace
    titles: list[str]
    margin: float
    #: several benchmarks are compared: lines start with their names
    names: bool

    @property
    def reference_title(self) -> str:
        return self.titles[0]

    @property
    def changed_titles(self) -> list[str]:
        return self.titles[1:]


def _check_options(args: argparse.Namespace) -> None:
    if len(args.filenames) < 2:
        raise UsageError("compare_to needs a reference file and at least one changed file")
    if args.group_by_speed and len(args.filenames) != 2:
        raise UsageError("--group-by-speed needs exactly 2 files")
    if not 0 <= args.min_speed < 100:
        raise UsageError(f"--min-speed must be between 0 and 100 (percent), got {args.min_speed:g}")
    if args.fail_on_slowdown is not None and not 0 <= args.fail_on_slowdown < 1000:
        raise UsageError(f"--fail-on-slowdown must be a percentage >= 0, got {args.fail_on_slowdown:g}")


def _common_names(suites: Sequence[BenchmarkSuite], selected: Sequence[list[Benchmark]]) -> list[str]:
    names_per_file = [{benchmark.get_name() for benchmark in benchmarks} for benchmarks in selected]
    common = [
        benchmark.get_name() for benchmark in selected[0] if all(benchmark.get_name() in n for n in names_per_file)
    ]
    if not common:
        raise ResultError("the files have no benchmark in common: " + ", ".join(str(s.filename) for s in suites))
    return common


def _check_comparable(name: str, benchmarks: Sequence[Benchmark], suites: Sequence[BenchmarkSuite]) -> None:
    for benchmark, suite in zip(benchmarks, suites):
        if not benchmark.get_nvalue():
            raise no_values_error(suite.filename, name)
    units = [benchmark.get_unit() for benchmark in benchmarks]
    if len(set(units)) > 1:
        listed = ", ".join(f"{unit} in {suite.filename}" for unit, suite in zip(units, suites))
        raise ResultError(f"benchmark {name!r} has different units: {listed}")
    clocks = [benchmark.get_clock() for benchmark in benchmarks]
    if len(set(clocks)) > 1:
        # CPU time leaves out what wall time includes: their ratio is no speed-up
        listed = ", ".join(f"{clock} in {suite.filename}" for clock, suite in zip(clocks, suites))
        raise ResultError(f"benchmark {name!r} was timed with different clocks (--clock): {listed}")


def comparison_entries(suites: Sequence[BenchmarkSuite], args: argparse.Namespace, margin: float) -> list[Entry]:
    selected = [select_benchmarks(suite, args.benchmarks) for suite in suites]
    by_name = [{benchmark.get_name(): benchmark for benchmark in benchmarks} for benchmarks in selected]
    entries = []
    for name in _common_names(suites, selected):
        benchmarks = [found[name] for found in by_name]
        _check_comparable(name, benchmarks, suites)
        reference, changed = benchmarks[0], benchmarks[1:]
        comparisons = [compare_benchmarks(reference, other, margin, args.robust) for other in changed]
        entries.append(Entry(name, reference, changed, comparisons))
    return entries


def ignored_lines(suites: Sequence[BenchmarkSuite], entries: Sequence[Entry], names: Sequence[str] | None) -> list[str]:
    compared = {entry.name for entry in entries}
    lines = []
    for suite in suites:
        ignored = sorted(
            benchmark.get_name()
            for benchmark in suite
            if benchmark.get_name() not in compared and (not names or benchmark.get_name() in names)
        )
        if ignored:
            lines.append(f"Ignored benchmarks ({len(ignored)}) of {suite.filename}: {', '.join(ignored)}")
    return lines


# --- the blocks of a section -------------------------------------------------------


def _mean_lines(entry: Entry, context: Context) -> list[str]:
    lines = []
    for title, changed, comparison in zip(context.changed_titles, entry.changed, entry.comparisons):
        verbose = context.args.verbose
        # verbose: the verdict line that follows says what the verdict means
        reference = entry.reference
        line = text.format_mean_line(
            context.reference_title, reference, title, changed, comparison, margin=context.margin, meaning=not verbose
        )
        rate = _win_rate(entry.reference, changed) if verbose or context.args.win_rate else None
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


def adjustment_lines(entries: Sequence[Entry], titles: Sequence[str]) -> list[str]:
    """What each comparison of separate recordings corrected for a busy
    machine, named after its benchmark (the HTML report lists them)."""
    lines: list[str] = []
    for entry in entries:
        for title, comparison in zip(titles[1:], entry.comparisons):
            lines.extend(f"{entry.name}: {line}" for line in text.format_adjustment(comparison, titles[0], title))
    return lines


def _win_rate(reference: Benchmark, changed: Benchmark) -> str | None:
    paired = paired_process_means(reference, changed)
    if paired is not None:
        return text.format_win_rate(compare.paired_win_rate(*paired), paired=True)
    ref_means, new_means = reference.get_process_means(), changed.get_process_means()
    if len(ref_means) < 2 or len(new_means) < 2:
        return None
    return text.format_win_rate(compare.win_rate(ref_means, new_means))


def _hidden_lines(hidden: Sequence[Entry], context: Context) -> list[str]:
    """pyperf's "hidden because not significant" line, then what perf knows
    about them: which are equivalent, which need more processes."""
    if not hidden or context.args.quiet:
        return []
    lines = [f"Benchmark hidden because not significant ({len(hidden)}): " + ", ".join(e.name for e in hidden)]
    several = len(context.changed_titles) > 1
    no_change: list[str] = []
    for entry in hidden:
        for title, comparison in zip(context.changed_titles, entry.comparisons):
            label = f"{entry.name} ({title})" if several else entry.name
            if comparison.verdict == compare.NO_CHANGE:
                no_change.append(label)
    if no_change:
        lines.append(f"- no change (within +-{context.margin * 100:g}%): " + ", ".join(no_change))
    for entry in hidden:
        for title, comparison in zip(context.changed_titles, entry.comparisons):
            if comparison.verdict == compare.INCONCLUSIVE:
                label = f"{entry.name} ({title})" if several else entry.name
                bracket = text.format_bracket(comparison, context.margin)
                details = ", ".join(filter(None, [bracket, text.format_needed(comparison, context.margin)]))
                lines.append(f"- inconclusive: {label}: {text.format_factor(comparison.ratio)} {details}")
    # the verdicts that rest on corrected data say so, hidden or not
    lines.extend(f"- {line}" for line in adjustment_lines(hidden, [context.reference_title, *context.changed_titles]))
    return lines


def geometric_means(entries: Sequence[Entry], margin: float) -> list[Comparison] | None:
    """The suite's geometric mean for each changed file (None for fewer
    than 2 benchmarks)."""
    if len(entries) < 2:
        return None
    return [
        compare.combine_comparisons([entry.comparisons[index] for entry in entries], margin)
        for index in range(len(entries[0].comparisons))
    ]


def _geometric_mean_lines(means: Sequence[Comparison] | None, context: Context) -> list[str]:
    if means is None:
        return []
    if len(means) == 1:
        return [f"Geometric mean: {text.format_change(means[0], context.margin)}"]
    lines = format_title("Geometric mean")
    lines.append("")
    lines.extend(
        f"{title}: {text.format_change(mean, context.margin)}" for title, mean in zip(context.changed_titles, means)
    )
    return lines


def chance_lines(entries: Sequence[Entry]) -> list[str]:
    """How many comparisons differ from 1x at level ALPHA, next to how many
    would by chance alone, and how many survive a false discovery rate."""
    comparisons = [comparison for entry in entries for comparison in entry.comparisons]
    if len(comparisons) < 2:
        return []
    p_values = [comparison.p_value for comparison in comparisons]
    significant = sum(1 for p_value in p_values if p_value < ALPHA)
    kept = sum(compare.benjamini_hochberg(p_values, ALPHA))
    expected = compare.expected_by_chance(len(comparisons), ALPHA)
    return [
        f"{len(comparisons)} comparisons, {significant} {'differs' if significant == 1 else 'differ'} from 1x "
        f"at {1 - ALPHA:.0%} confidence; chance alone would give about {expected:.2g} ({ALPHA:.0%} each); "
        f"{kept} {'remains' if kept == 1 else 'remain'} at a {ALPHA:.0%} false discovery rate (Benjamini-Hochberg)"
    ]


def _blocks(*blocks: list[str]) -> list[str]:
    lines: list[str] = []
    for block in blocks:
        if block:
            if lines:
                lines.append("")
            lines.extend(block)
    return lines


def _list_section(entries: Sequence[Entry], context: Context) -> list[str]:
    shown = [entry for entry in entries if entry.different or context.args.verbose]
    hidden = [entry for entry in entries if not (entry.different or context.args.verbose)]
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
            blocks.append([*format_title(entry.name), "", *lines] if context.names else lines)
            single = False
    return _blocks(
        *blocks,
        _hidden_lines(hidden, context),
        _geometric_mean_lines(geometric_means(entries, context.margin), context),
    )


def _group_section(entries: Sequence[Entry], context: Context) -> list[str]:
    groups: dict[str, list[Entry]] = {compare.SLOWER: [], compare.FASTER: [], compare.SMALL_CHANGE: []}
    hidden = []
    for entry in entries:
        verdict = entry.comparisons[0].verdict
        if verdict in groups:
            groups[verdict].append(entry)
        else:
            hidden.append(entry)
    groups[compare.SLOWER].sort(key=lambda entry: entry.comparisons[0].ratio, reverse=True)
    groups[compare.FASTER].sort(key=lambda entry: entry.comparisons[0].ratio)
    groups[compare.SMALL_CHANGE].sort(key=lambda entry: entry.comparisons[0].ratio, reverse=True)
    blocks = []
    for verdict, title in (
        (compare.SLOWER, "Slower"),
        (compare.FASTER, "Faster"),
        (compare.SMALL_CHANGE, "Small change"),
    ):
        members = groups[verdict]
        if members:
            lines = [f"{title} ({len(members)}):"]
            for entry in members:
                values = f"{format_result_value(entry.reference)} -> {format_result_value(entry.changed[0])}"
                lines.append(f"- {entry.name}: {values}: {text.format_change(entry.comparisons[0], context.margin)}")
            blocks.append(lines)
    return _blocks(
        *blocks,
        _hidden_lines(hidden, context),
        _geometric_mean_lines(geometric_means(entries, context.margin), context),
    )


def _table_section(entries: Sequence[Entry], context: Context) -> list[str]:
    ordered = list(entries)
    if context.args.group_by_speed:
        ordered.sort(key=lambda entry: entry.comparisons[0].ratio)
    headers = ["Benchmark", context.reference_title, *context.changed_titles]
    rows = []
    hidden = []
    for entry in ordered:
        if not entry.different:
            hidden.append(entry)
            continue
        row = [entry.name, entry.reference.format_value(entry.reference.mean())]
        for changed, comparison in zip(entry.changed, entry.comparisons):
            if not comparison.different:
                row.append("not significant")
                continue
            cell = text.format_change(comparison, context.margin, meaning=False)
            if not context.args.quiet:
                cell = f"{changed.format_value(changed.mean())}: {cell}"
            row.append(cell)
        rows.append(row)
    means = geometric_means(entries, context.margin)
    if means is not None and rows:
        rows.append(
            ["Geometric mean", "(ref)", *(text.format_change(mean, context.margin, meaning=False) for mean in means)]
        )
    table = text.format_table(headers, rows, context.args.table_format) if rows else []
    return _blocks(table, _hidden_lines(hidden, context))


def _section(entries: Sequence[Entry], context: Context) -> list[str]:
    if context.args.table:
        return _table_section(entries, context)
    if context.args.group_by_speed:
        return _group_section(entries, context)
    return _list_section(entries, context)


# --- warnings ------------------------------------------------------------------------


def _values_of(suite: BenchmarkSuite, key: str) -> list[str]:
    found: list[str] = []
    for benchmark in suite:
        # the shared common value, not a copy of get_metadata(): read only
        value = benchmark._get_common_value(key)
        if value is not None and str(value) not in found:
            found.append(str(value))
    return found


def environment_warnings(
    suites: Sequence[BenchmarkSuite], titles: Sequence[str], entries: Sequence[Entry]
) -> list[str]:
    """Differences between the reference file and each changed file that a
    comparison of separate recordings cannot cancel (none for the two sides
    of an interleaved run: the pairs cancel the drift)."""
    lines: list[str] = []
    checks = (("hostname", "hosts"), ("cpu_model_name", "CPUs"), ("python_version", "Python builds"))
    reference = suites[0]
    for index, (suite, title) in enumerate(zip(suites[1:], titles[1:])):
        if all(entry.comparisons[index].paired for entry in entries):
            continue
        for key, what in checks:
            ref_values, new_values = _values_of(reference, key), _values_of(suite, key)
            if ref_values and new_values and ref_values != new_values:
                lines.append(
                    f"WARNING: {titles[0]} and {title} come from different {what}: "
                    f"{' / '.join(ref_values)} vs {' / '.join(new_values)}"
                )
        gap = _gap(reference, suite)
        if gap is not None and gap > FAR_APART:
            lines.append(f"WARNING: {titles[0]} and {title} were recorded {_format_gap(gap)} apart")
    if lines:
        lines.append(
            "The machine drifts between separate recordings and the comparison cannot cancel it; "
            "an interleaved run (--compare-to) measures both sides in alternation."
        )
    return lines


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


def _format_gap(gap: datetime.timedelta) -> str:
    hours = gap.total_seconds() / 3600
    if hours < 48:
        return f"{hours:.0f} hours" if hours >= 2 else f"{hours * 60:.0f} minutes"
    return f"{hours / 24:.0f} days"


# --- the gate ------------------------------------------------------------------------


def _slowdowns(
    entries: Sequence[Entry], means: Sequence[Comparison] | None, context: Context, percent: float
) -> list[str]:
    threshold = 1 + percent / 100

    def too_slow(comparison: Comparison) -> bool:
        return comparison.verdict == compare.SLOWER and comparison.low > threshold

    several = len(context.changed_titles) > 1
    found = []
    labelled: list[tuple[str, Comparison]] = []
    for entry in entries:
        for title, comparison in zip(context.changed_titles, entry.comparisons):
            labelled.append((f"{entry.name} ({title})" if several else entry.name, comparison))
    for title, mean in zip(context.changed_titles, means or []):
        labelled.append((f"geometric mean ({title})" if several else "geometric mean", mean))
    for label, comparison in labelled:
        if too_slow(comparison):
            found.append(f"SLOWDOWN: {label}: {text.format_change(comparison, context.margin)}, beyond +{percent:g}%")
    return found


# --- the command ---------------------------------------------------------------------


def format_comparison(suites: Sequence[BenchmarkSuite], args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The text of ``compare_to`` (stdout lines) and the slowdowns found by
    ``--fail-on-slowdown`` (stderr lines)."""
    margin = args.min_speed / 100
    titles = filename_titles([str(suite.filename) for suite in suites])
    entries = comparison_entries(suites, args, margin)
    context = Context(args, titles, margin, len(entries) > 1)
    entry_tags = [entry.tags() for entry in entries]
    tags = sorted({tag for tags_of_entry in entry_tags for tag in tags_of_entry})
    output: list[str] = []
    for tag in tags:
        tagged = [entry for entry, tags_of_entry in zip(entries, entry_tags) if tag in tags_of_entry]
        output.extend(format_title(f"Benchmarks with tag '{tag}':"))
        output.append("")
        output.extend(_section(tagged, context))
        output.append("")
    if tags:
        output.extend(format_title("All benchmarks:"))
        output.append("")
    output.extend(_section(entries, context))
    if not args.quiet:
        notes = _blocks(chance_lines(entries), ignored_lines(suites, entries, args.benchmarks))
        warnings = environment_warnings(suites, titles, entries)
        for block in (notes, warnings):
            if block:
                output.append("")
                output.extend(block)
    slowdowns: list[str] = []
    if args.fail_on_slowdown is not None:
        slowdowns = _slowdowns(entries, geometric_means(entries, context.margin), context, args.fail_on_slowdown)
    return output, slowdowns


def run(args: argparse.Namespace) -> int:
    import sys

    _check_options(args)
    suites = load_suites(args.filenames)
    output, slowdowns = format_comparison(suites, args)
    print_lines(output)
    if slowdowns:
        sys.stdout.flush()
        for line in slowdowns:
            print(line, file=sys.stderr)
        return EXIT_SLOWDOWN
    return 0


__all__ = ["EXIT_SLOWDOWN", "HELP", "add_arguments", "format_comparison", "run"]
