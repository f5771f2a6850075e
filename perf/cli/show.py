"""``python -m perf show FILE...``: one result line per benchmark.

With ``-d/--dump``, ``-g/--hist``, ``-t/--stats`` or ``-m/--metadata`` the
layout becomes pyperf's multi-line one (titles, then each block); without
them, stability warnings (unless ``-q``) switch to that layout too.  The
warnings are one line that points to ``python -m perf check FILE``, which
prints them in full.
"""

from __future__ import annotations

import argparse

from perf.analysis.checks import check_benchmark
from perf.cli.common import (
    Blocks,
    add_input_arguments,
    check_summary_lines,
    format_benchmarks,
    format_title,
    load_selection,
    print_lines,
)
from perf.render.benchmark import format_result

HELP = "Display the result of each benchmark: mean and standard deviation."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the results, no stability warnings")
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
            result=True,
        )
        print_lines(format_benchmarks(items, blocks, found))
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
        line = format_result(item.benchmark)
        lines.append(f"{item.benchmark.get_name()}: {line}" if several_benchmarks else line)
    print_lines(lines)
    return 0
