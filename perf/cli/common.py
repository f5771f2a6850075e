"""Arguments and helpers shared by the analysis commands."""

from __future__ import annotations

import argparse
from typing import Sequence

from perf.errors import UsageError
from perf.model.benchmark import Benchmark
from perf.model.suite import BenchmarkSuite
from perf.storage import files


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("filenames", metavar="FILE", nargs="+", help="result file (.json, .json.gz, - for stdin)")
    parser.add_argument(
        "-b",
        "--benchmark",
        dest="benchmarks",
        metavar="NAME",
        action="append",
        help="only this benchmark (repeatable)",
    )


def load_suites(filenames: Sequence[str]) -> list[BenchmarkSuite]:
    return [files.load(filename) for filename in filenames]


def select_benchmarks(suite: BenchmarkSuite, names: Sequence[str] | None) -> list[Benchmark]:
    """The benchmarks of *suite* named in *names* (all when None)."""
    if not names:
        return suite.get_benchmarks()
    selected = [benchmark for benchmark in suite if benchmark.get_name() in names]
    if not selected:
        raise UsageError(f"{suite.filename}: no benchmark named " + ", ".join(repr(name) for name in names))
    return selected
