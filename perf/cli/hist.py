"""``python -m perf hist FILE...``: a text histogram of each benchmark.

As pyperf: the benchmarks of the same name in every file share one
histogram scale (each under ``[ file ]`` when several files are given), a
title per name when there are several names, stability warnings after each
histogram unless ``-q`` (one line pointing to ``check``), and benchmarks missing from some files come last,
each on its own scale under ``[ name ]``.  A benchmark without values (only
calibration runs) is an error (pyperf crashes).
"""

from __future__ import annotations

import argparse

from perf.cli.common import (
    Item,
    add_input_arguments,
    check_summary_lines,
    distinct_suites,
    format_title,
    load_selection,
    print_lines,
    require_values,
)
from perf.model.benchmark import Benchmark
from perf.model.suite import BenchmarkSuite
from perf.render.hist import format_histogram
from perf.render.units import join_blocks

HELP = "Render a text histogram of the values."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument(
        "-n",
        "--bins",
        type=int,
        default=None,
        help="number of bars (default: the terminal height minus 3, at least 3, at most 25 unless --extend)",
    )
    parser.add_argument("--extend", action="store_true", help="use the whole terminal width and height")


def _histogram(titled: list[tuple[str | None, Item]], args: argparse.Namespace) -> list[str]:
    """Histograms on a shared scale, each followed by its warnings (one
    line pointing to ``check``)."""
    pairs: list[tuple[str | None, Benchmark]] = [(title, item.benchmark) for title, item in titled]
    # benchmarks are separated by one empty line and hold none themselves
    blocks: list[list[str]] = [[]]
    for line in format_histogram(pairs, bins=args.bins, extend=args.extend):
        if line:
            blocks[-1].append(line)
        else:
            blocks.append([])
    return join_blocks(
        *(
            join_blocks(block, [] if args.quiet else check_summary_lines(item))
            for block, (_title, item) in zip(blocks, titled)
        )
    )


def _items_by_name(items: list[Item], suites: list[BenchmarkSuite]) -> dict[str, list[Item]]:
    """The items of each benchmark name, in the order of the files."""
    by_name: dict[str, list[Item]] = {}
    for suite in suites:
        for item in items:
            if item.suite is suite:
                by_name.setdefault(item.benchmark.get_name(), []).append(item)
    return by_name


def _shared_names(suites: list[BenchmarkSuite]) -> list[str]:
    """The names of the benchmarks every file has, in the first file's order."""
    other_names = [set(suite.get_benchmark_names()) for suite in suites[1:]]
    return [name for name in suites[0].get_benchmark_names() if all(name in names for names in other_names)]


def run(args: argparse.Namespace) -> int:
    items = load_selection(args)
    require_values(items)
    suites = distinct_suites(items)
    by_name = _items_by_name(items, suites)
    shared = _shared_names(suites)
    show_filename = len(suites) > 1
    show_group_name = len(shared) > 1
    groups: list[list[str]] = []
    for name in shared:
        lines = [*format_title(name, 1), ""] if show_group_name else []
        titled: list[tuple[str | None, Item]] = [
            (item.filename if show_filename else None, item) for item in by_name[name]
        ]
        lines.extend(_histogram(titled, args))
        groups.append(lines)
    shared_names = set(shared)
    for item in items:
        if item.benchmark.get_name() not in shared_names:
            groups.append(_histogram([(item.benchmark.get_name(), item)], args))
    print_lines(join_blocks(*groups))
    return 0
