"""``python -m perf stats FILE...``: descriptive statistics of each benchmark.

pyperf's text (``pyperf stats``), then perf's process-level block, then the
stability warnings unless ``-q`` (one line: ``check`` prints them in full).
A benchmark holding only calibration runs (an interrupted run) is an error:
there is nothing to compute (pyperf crashes).
"""

from __future__ import annotations

import argparse

from perf.cli.common import (
    Blocks,
    add_input_arguments,
    format_benchmarks,
    load_selection,
    print_lines,
    require_values,
)

HELP = "Compute statistics: duration, runs, min, median, mean, max, percentiles, outliers."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)


def run(args: argparse.Namespace) -> int:
    items = load_selection(args)
    require_values(items)
    print_lines(format_benchmarks(items, Blocks(stats=True, checks=not args.quiet)))
    return 0
