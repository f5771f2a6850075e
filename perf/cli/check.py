"""``python -m perf check FILE...``: is each benchmark stable?

Prints the stability warnings of each benchmark (pyperf's, then perf's own
checks) and the advice when fewer processes would have been enough; when
no warning is found, "The benchmark seems to be stable" (or "All
benchmarks seem to be stable").  The exit status is 0 either way, as in
pyperf.
"""

from __future__ import annotations

import argparse

from perf.cli.common import Blocks, add_input_arguments, format_benchmarks, load_selection, print_lines
from perf.render.checks import WARNING_TITLE

HELP = "Check whether each benchmark seems stable."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, "accepted for compatibility (no effect)")


def run(args: argparse.Namespace) -> int:
    items = load_selection(args)
    lines = format_benchmarks(items, Blocks(checks=True, full_checks=True, check_too_many_processes=True))
    print_lines(lines)
    if WARNING_TITLE not in lines:
        print("The benchmark seems to be stable" if len(items) == 1 else "All benchmarks seem to be stable")
    return 0
