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

``--json`` writes the same comparison as a JSON document instead of the
text (:mod:`perf.render.compare_json`; doc/json_format.rst).

``--explain`` adds, for instruction counts (``--metric instructions``),
the ratios of the instructions, misses and estimated cycles and what they
say (:mod:`perf.analysis.counts`, :mod:`perf.render.counts`), under the
text or in the JSON document; without counts, one line says so.

``--fail-on-slowdown PCT`` turns the comparison into a gate for CI jobs and
``git bisect run``: exit status :data:`EXIT_SLOWDOWN` when a benchmark (or
the suite's geometric mean) is slower by more than PCT % with its whole
interval.

This module parses the options, loads the files, compares them once
(:func:`perf.analysis.finished.finish_comparison`), refuses what it cannot
compare (no benchmark in common, or one that a file has without values,
in another unit or timed with another clock: an error, exit status 1),
prints the text of :mod:`perf.render.compare_to` (or the JSON document)
and chooses the exit status.

Must not: compute statistics or lay out text.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from perf.analysis import compare
from perf.analysis.counts import explain_comparison
from perf.analysis.finished import FinishedComparison, find_slowdowns, finish_comparison
from perf.cli.common import (
    add_benchmark_argument,
    add_correction_argument,
    filename_titles,
    load_suites,
    print_lines,
    select_benchmarks,
)
from perf.errors import UsageError
from perf.model.suite import BenchmarkSuite
from perf.render.compare_json import comparison_document
from perf.render.compare_notes import comparison_error
from perf.render.compare_to import Layout, format_compare_to, format_slowdowns
from perf.render.counts import format_explained
from perf.render.units import join_blocks

HELP = "Compare benchmark results: the ratio with its confidence interval and a verdict."

#: exit status of --fail-on-slowdown when a slowdown is found (1 is an error)
EXIT_SLOWDOWN = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "filenames", metavar="FILE", nargs="+", help="the reference result file, then one or more changed ones"
    )
    add_benchmark_argument(parser)
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
    # default None: --json refuses a --table-format given, even "rest"
    parser.add_argument("--table-format", choices=("rest", "md"), help="table format (default: rest)")
    parser.add_argument(
        "--json", action="store_true", help="write the comparison as a JSON document instead of the text"
    )
    parser.add_argument(
        "--robust",
        action="store_true",
        help="Mann-Whitney test on process means with a Hodges-Lehmann ratio instead of Welch's t",
    )
    add_correction_argument(parser)
    parser.add_argument(
        "--win-rate", action="store_true", help="show how often a changed process beats a reference process"
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="instruction counts (--metric instructions): the ratios of instructions, I1, D1 and LL misses "
        "and estimated cycles, and what they say",
    )
    parser.add_argument(
        "--fail-on-slowdown",
        metavar="PCT",
        type=float,
        help=f"exit with status {EXIT_SLOWDOWN} when a benchmark or the geometric mean is slower "
        "by more than PCT %% with its whole confidence interval",
    )


#: the options of the text's layout, which --json refuses: (attribute, option)
_TEXT_OPTIONS = (
    ("table", "--table"),
    ("table_format", "--table-format"),
    ("group_by_speed", "--group-by-speed"),
    ("quiet", "--quiet"),
    ("verbose", "--verbose"),
)


def _check_options(args: argparse.Namespace) -> None:
    if args.json:
        given = [option for attribute, option in _TEXT_OPTIONS if getattr(args, attribute)]
        if given:
            raise UsageError(f"--json writes every figure: {given[0]} only shapes the text")
    if len(args.filenames) < 2:
        raise UsageError("compare_to needs a reference file and at least one changed file")
    if args.group_by_speed and len(args.filenames) != 2:
        raise UsageError("--group-by-speed needs exactly 2 files")
    if not 0 <= args.min_speed < 100:
        raise UsageError(f"--min-speed must be between 0 and 100 (percent), got {args.min_speed:g}")
    if args.fail_on_slowdown is not None and not 0 <= args.fail_on_slowdown < 1000:
        raise UsageError(f"--fail-on-slowdown must be a percentage >= 0, got {args.fail_on_slowdown:g}")


def compare_files(suites: Sequence[BenchmarkSuite], args: argparse.Namespace) -> FinishedComparison:
    """The benchmarks of ``-b`` (all by default) of each suite compared to
    the first suite's, with the win rates that ``-v`` and ``--win-rate``
    show; a ResultError when a file has none of the names, when the files
    have no benchmark in common or when one of them cannot be compared."""
    selected = [select_benchmarks(suite, args.benchmarks) for suite in suites]
    win_rates = args.verbose or args.win_rate
    margin = args.min_speed / 100
    comparison = finish_comparison(selected, margin, args.robust, args.correct, win_rates=win_rates, suites=suites)
    error = comparison_error(comparison.suite, [str(suite.filename) for suite in suites])
    if error is not None:
        raise error
    return comparison


def format_comparison(suites: Sequence[BenchmarkSuite], args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The text of ``compare_to`` (stdout lines; with ``--json``, the
    document) and the slowdowns found by ``--fail-on-slowdown`` (stderr
    lines)."""
    comparison = compare_files(suites, args)
    filenames = [str(suite.filename) for suite in suites]
    layout = Layout(
        filename_titles(filenames),
        verbose=args.verbose,
        quiet=args.quiet,
        win_rate=args.win_rate,
        table=args.table,
        table_format=args.table_format or "rest",
        group_by_speed=args.group_by_speed,
    )
    explained = explain_comparison(comparison.entries) if args.explain else None
    if args.json:
        output = [json.dumps(comparison_document(comparison, layout.titles, filenames, explained), indent=2)]
    else:
        output = format_compare_to(suites, comparison, layout)
        if explained is not None:
            output = join_blocks(output, format_explained(explained, layout.titles, layout.table_format))
    slowdowns: list[str] = []
    if args.fail_on_slowdown is not None:
        found = find_slowdowns(comparison, args.fail_on_slowdown)
        slowdowns = format_slowdowns(found, layout, comparison.margin, args.fail_on_slowdown)
    return output, slowdowns


def run(args: argparse.Namespace) -> int:
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


__all__ = ["EXIT_SLOWDOWN", "HELP", "add_arguments", "compare_files", "format_comparison", "run"]
