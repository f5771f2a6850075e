"""``python -m perf dump FILE...``: every run of each benchmark, value by value,
then the stability warnings unless ``-q`` (one line: ``check`` prints them
in full)."""

from __future__ import annotations

import argparse

from perf.cli.common import Blocks, add_input_arguments, format_benchmarks, load_selection, print_lines

HELP = "Display every run: calibration, warmups and values."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, "hide calibration runs, warmups and the stability warnings")
    parser.add_argument("-v", "--verbose", action="store_true", help="also print the metadata of each run")
    parser.add_argument("--raw", action="store_true", help="print raw values (multiplied by the loop iterations)")


def run(args: argparse.Namespace) -> int:
    blocks = Blocks(
        dump=True,
        dump_quiet=args.quiet,
        dump_verbose=args.verbose,
        dump_raw=args.raw,
        checks=not args.quiet,
    )
    print_lines(format_benchmarks(load_selection(args), blocks))
    return 0
