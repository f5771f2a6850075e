"""``python -m perf show FILE...``: one result line per benchmark.

With ``-d/--dump``, ``-g/--hist``, ``-t/--stats`` or ``-m/--metadata`` the
layout becomes pyperf's multi-line one (titles, then each block); without
them, stability warnings (unless ``-q``) switch to that layout too.  The
warnings are one line that points to ``python -m perf check FILE``, which
prints them in full.

A benchmark saved from a run that stopped early (Ctrl-C, a failed worker:
the ``incomplete`` check) is flagged first, unless ``-q``: the output
starts with one ``incomplete:`` line per such file (for a file of several
benchmarks, the line names them, and each of their blocks starts with its
own ``incomplete:`` line).
"""

from __future__ import annotations

import argparse
from typing import Sequence

from perf.analysis.checks import Check, check_benchmark
from perf.analysis.summaries import value_figures
from perf.cli.common import (
    Blocks,
    Item,
    add_input_arguments,
    check_summary_lines,
    distinct_suites,
    format_benchmarks,
    format_title,
    load_selection,
    print_lines,
)
from perf.render.benchmark import format_result
from perf.render.checks import incomplete_benchmarks_notice, incomplete_notice

HELP = "Display the result of each benchmark: mean and standard deviation."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, "print only the results, no stability warnings")
    parser.add_argument("-d", "--dump", action="store_true", help="also print every run's values")
    parser.add_argument("-m", "--metadata", action="store_true", help="also print the metadata")
    parser.add_argument("-g", "--hist", action="store_true", help="also print a histogram of the values")
    parser.add_argument("-t", "--stats", action="store_true", help="also print statistics (min, max, ...)")


def run(args: argparse.Namespace) -> int:
    items = load_selection(args)
    checks = not args.quiet
    multiline = args.dump or args.metadata or args.hist or args.stats
    # each benchmark's checks run once: to choose the layout, then to show them
    found = [check_benchmark(item.benchmark) for item in items] if checks else None
    if not multiline and found is not None:
        multiline = any(check_summary_lines(item, item_checks) for item, item_checks in zip(items, found))
    if multiline:
        blocks = Blocks(
            metadata=args.metadata,
            dump=args.dump,
            hist=args.hist,
            stats=args.stats,
            checks=checks,
            incomplete=checks,
            result=True,
        )
        notices = incomplete_notices(items, found) if found is not None else []
        print_lines([*notices, *([""] if notices else []), *format_benchmarks(items, blocks, found)])
        return 0

    several_files = len({id(item.suite) for item in items}) > 1
    several_benchmarks = len(items) > 1
    current = None
    lines: list[str] = []
    for item in items:
        if several_files and item.suite is not current:
            if current is not None:
                lines.append("")
            current = item.suite
            lines.extend([*format_title(item.filename), ""])
        line = format_result(item.benchmark, value_figures(item.benchmark))
        lines.append(f"{item.benchmark.get_name()}: {line}" if several_benchmarks else line)
    print_lines(lines)
    return 0


def incomplete_notices(items: Sequence[Item], found: Sequence[Sequence[Check]]) -> list[str]:
    """One line per file of *items* that holds benchmarks saved from a run
    that stopped early (their *found* checks have ``incomplete``): the
    check's own text for a file of one benchmark, else the names of those
    benchmarks; with several files, each line names its file."""
    suites = distinct_suites(items)
    lines = []
    for suite in suites:
        incomplete = [
            (item, check)
            for item, checks in zip(items, found)
            if item.suite is suite
            for check in checks
            if check.code == "incomplete"
        ]
        if not incomplete:
            continue
        where = incomplete[0][0].filename if len(suites) > 1 else None
        if len(suite) == 1:
            lines.append(incomplete_notice(incomplete[0][1], where))
        else:
            names = [item.benchmark.get_name() for item, _check in incomplete]
            lines.append(incomplete_benchmarks_notice(names, len(suite), where))
    return lines
