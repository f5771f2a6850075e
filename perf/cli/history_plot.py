"""(being written)"""

from __future__ import annotations

import argparse

from perf.errors import UsageError


def add_arguments(action: str, parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise UsageError(f"history {args.action} is not written yet")
