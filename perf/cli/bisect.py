"""(being written)"""

from __future__ import annotations

import argparse

from perf.errors import UsageError

HELP = "Find the first commit between GOOD and BAD that performs like BAD."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise UsageError("bisect is not written yet")
