"""``python -m perf timeit STMT...``: benchmark Python statements.

Takes every runner option (doc/compatibility.rst, runner options) plus the timeit ones;
the same module runs the workers (``-m perf timeit --worker ...``).
"""

from __future__ import annotations

import argparse
from typing import Sequence

HELP = "Benchmark Python statements, like the timeit module, in many worker processes."


def _worker_arguments(command: list[str], args: argparse.Namespace) -> None:
    """Pass the statements on to the worker command line."""
    from perf.measure.protocol import timeit_arguments

    command += timeit_arguments(args.name, args.stmt, args.setup, args.teardown, args.inner_loops, args.duplicate)


def main(argv: Sequence[str]) -> int:
    from perf.cli.runner import ArgumentParser, Runner
    from perf.measure.arguments import strictly_positive

    class TimeitRunner(Runner):
        mode = "timeit"  # one benchmark: nothing to list or shuffle

    parser = ArgumentParser(prog="python -m perf timeit", description=HELP)
    runner = TimeitRunner(
        program_args=("-m", "perf", "timeit"),
        _argparser=parser,
        show_name=False,
        add_cmdline_args=_worker_arguments,
    )
    parser.add_argument("--name", default="timeit", help="benchmark name (default: %(default)s)")
    parser.add_argument(
        "-s", "--setup", action="append", default=[], help="setup statement, run once per value (repeatable)"
    )
    parser.add_argument("--teardown", action="append", default=[], help="teardown statement (repeatable)")
    parser.add_argument(
        "--inner-loops",
        type=strictly_positive,
        metavar="N",
        help="statements executed per loop iteration (when duplicated)",
    )
    parser.add_argument(
        "--duplicate", type=strictly_positive, metavar="N", help="repeat the statement N times per loop iteration"
    )
    parser.add_argument("stmt", nargs="+", help="statement(s) to benchmark, joined with newlines")
    args = runner.parse_args(argv)
    runner.timeit(
        args.name,
        args.stmt,
        setup=args.setup,  # [] when not given: no timeit_setup key, as pyperf's CLI
        teardown=args.teardown,
        inner_loops=args.inner_loops,
        duplicate=args.duplicate,
    )
    return 0
