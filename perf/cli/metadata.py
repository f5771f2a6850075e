"""``python -m perf metadata FILE...``: the metadata of each benchmark.

With several benchmarks, the metadata they all share come first under
"Common metadata", then each benchmark's own; stability warnings follow
unless ``-q`` (one line: ``check`` prints them in full).
"""

from __future__ import annotations

import argparse

from perf.cli.common import Blocks, add_input_arguments, format_benchmarks, load_selection, print_lines

HELP = "Display the metadata of each benchmark."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)


def run(args: argparse.Namespace) -> int:
    print_lines(format_benchmarks(load_selection(args), Blocks(metadata=True, checks=not args.quiet)))
    return 0
