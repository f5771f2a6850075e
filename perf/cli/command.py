"""``python -m perf command [options] -- PROGRAM [ARGS...]``: benchmark a program.

Measures the wall time of running the program (its output is discarded);
with ``--track-memory`` the value is its peak resident memory.  With
``--compare-to "REF_PROGRAM ARGS"`` the two programs' workers alternate in
pairs and the result is their paired comparison.
"""

from __future__ import annotations

import argparse
from typing import Sequence

HELP = "Benchmark the wall time of a program, in many worker processes."


def _worker_arguments(command: list[str], args: argparse.Namespace) -> None:
    """The benchmark's name (the program of each side follows it)."""
    command += ["--name", args.name]


def main(argv: Sequence[str]) -> int:
    from perf.cli.runner import ArgumentParser, Runner, command_program

    class CommandRunner(Runner):
        mode = "command"  # a program of each side, timed by workers of this interpreter

    parser = ArgumentParser(prog="python -m perf command", description=HELP)
    runner = CommandRunner(
        program_args=("-m", "perf", "command"),
        _argparser=parser,
        show_name=False,
        add_cmdline_args=_worker_arguments,
    )
    parser.add_argument("--name", default="command", help="benchmark name (default: %(default)s)")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="program and its arguments (after --)")
    args = runner.parse_args(argv)
    program = list(command_program(args.program))
    if not program:
        parser.error("missing the program to benchmark (python -m perf command -- PROGRAM ARGS...)")
    runner.bench_command(args.name, program)
    return 0
