"""``python -m perf slowest FILE...``: the benchmarks that took the longest.

One line per benchmark, ``#1: name (duration)``, sorted by total duration
(every run, calibration included), the *N* longest of each file.

Instruction counts (``--metric instructions``) took the time of a
simulator, not their own: they are ranked by their mean instructions per
loop instead, ``#1: name (53,001,118 instructions)``, after the timed
benchmarks of the file (under a line of their own when it has both).
"""

from __future__ import annotations

import argparse

from perf.cli.common import filename_titles, format_title, load_suites

HELP = "List the benchmarks which took the most time to run."

#: the line above the counts of a file that has timed benchmarks too
COUNTED = "Most instructions per loop:"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("filenames", metavar="FILE", nargs="+", help="result file (.json, .json.gz, - for stdin)")
    parser.add_argument("-n", type=int, default=5, metavar="N", help="how many benchmarks (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    from perf.errors import UsageError
    from perf.render.units import format_timedelta

    if args.n < 1:
        raise UsageError(f"-n must be >= 1, got {args.n}")
    suites = load_suites(args.filenames)
    titles = filename_titles(args.filenames)
    for title, suite in zip(titles, suites):
        if len(suites) > 1:
            print("\n".join([*format_title(title), ""]))
        timed = [benchmark for benchmark in suite if benchmark.get_counter_source() is None]
        counted = [benchmark for benchmark in suite if benchmark.get_counter_source() is not None]
        durations = sorted(
            ((benchmark.get_total_duration(), benchmark.get_name()) for benchmark in timed),
            key=lambda item: item[0],
            reverse=True,
        )
        for rank, (duration, name) in enumerate(durations[: args.n], 1):
            print(f"#{rank}: {name} ({format_timedelta(duration)})")
        counts = sorted(
            ((benchmark.mean(), benchmark) for benchmark in counted if benchmark.get_nvalue()),
            key=lambda item: item[0],
            reverse=True,
        )
        if counts and timed:
            print(COUNTED)
        for rank, (count, benchmark) in enumerate(counts[: args.n], 1):
            print(f"#{rank}: {benchmark.get_name()} ({benchmark.format_value(count)})")
    return 0
