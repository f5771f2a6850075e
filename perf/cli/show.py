"""``python -m perf show FILE...``: one result line per benchmark."""

from __future__ import annotations

import argparse

from perf.cli.common import add_input_arguments, load_suites, select_benchmarks
from perf.render.benchmark import format_result

HELP = "Display the result of each benchmark: mean and standard deviation."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the results")


def run(args: argparse.Namespace) -> int:
    suites = load_suites(args.filenames)
    several_files = len(suites) > 1
    for index, suite in enumerate(suites):
        if several_files:
            if index:
                print()
            print(suite.filename)
            print("=" * len(str(suite.filename)))
            print()
        benchmarks = select_benchmarks(suite, args.benchmarks)
        for benchmark in benchmarks:
            line = format_result(benchmark)
            print(f"{benchmark.get_name()}: {line}" if len(benchmarks) > 1 else line)
    return 0
