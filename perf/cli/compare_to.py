"""``python -m perf compare_to``: not written yet."""

from __future__ import annotations

import argparse

from perf.errors import UsageError

HELP = "compare_to (not implemented yet)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("filenames", metavar="FILE", nargs="+")


def run(args: argparse.Namespace) -> int:
    raise UsageError("compare_to is not implemented yet")
