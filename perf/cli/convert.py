"""``python -m perf convert INPUT (-o OUTPUT | --stdout)``: edit a result file.

The steps always run in this order, whatever the order of the options: add
the runs of other files, keep or drop benchmarks, keep or drop runs, remove
warmups, update metadata, extract a metadata as the values, remove the
metadata, write.  Every option is checked and every step is computed in
memory before anything is written; ``-o`` writes atomically and refuses an
existing file unless ``--replace`` is given.

``--csv`` and ``--csv-summary`` write the converted result as CSV instead
of JSON (:mod:`perf.render.csv` describes the columns).  The steps
themselves are :mod:`perf.model.edits`; this module parses the options,
loads the files, adds the options to the messages and writes.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any, Sequence

from perf.errors import IncompatibleRunError, OutputExistsError, ResultError, UsageError
from perf.model import edits
from perf.model.benchmark import Benchmark
from perf.model.edits import NumberedRuns, RunRanges
from perf.model.metadata import Metadata, parse_metadata
from perf.model.suite import BenchmarkSuite
from perf.render.csv import SUMMARY_COLUMNS, VALUE_COLUMNS, format_csv
from perf.storage import files

HELP = "Modify a result file: merge, select benchmarks and runs, remove warmups, edit metadata."

#: one item of a run list: "7" or "1-3" (spaces allowed around the dash)
_RUN_ITEM = re.compile(r"([0-9]+)(?:\s*-\s*([0-9]+))?")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "The steps run in this order, whatever the order of the options: add files, select benchmarks, "
        "select runs, remove warmups, update metadata, extract metadata, remove metadata, write "
        "(JSON, or CSV with --csv or --csv-summary)."
    )
    parser.add_argument("input", metavar="INPUT", help="result file (.json, .json.gz, - for stdin)")
    output = parser.add_mutually_exclusive_group(required=True)
    output.add_argument(
        "-o", "--output", metavar="OUTPUT", help="write the result to OUTPUT (.json, or .json.gz: compressed)"
    )
    output.add_argument("--stdout", action="store_true", help="write the JSON to standard output")
    parser.add_argument(
        "--replace", action="store_true", help="with -o: replace OUTPUT if it exists (atomically; may be INPUT)"
    )
    parser.add_argument("--indent", action="store_true", help="indented JSON instead of compact JSON")
    table = parser.add_mutually_exclusive_group()
    table.add_argument(
        "--csv",
        action="store_true",
        help="write CSV instead of JSON (-o must end in .csv): one row per value, warmups included; columns: "
        + ", ".join(VALUE_COLUMNS),
    )
    table.add_argument(
        "--csv-summary",
        action="store_true",
        help="write CSV instead of JSON (-o must end in .csv): one row of statistics per benchmark "
        "(std_dev: of all values; ci95: of the mean of process means); columns: " + ", ".join(SUMMARY_COLUMNS),
    )
    parser.add_argument(
        "--add", metavar="FILE", action="append", help="first add the runs of FILE's benchmarks (repeatable)"
    )
    parser.add_argument(
        "--include-benchmark",
        metavar="NAME",
        dest="include_benchmarks",
        action="append",
        help="keep only the benchmark NAME (repeatable)",
    )
    parser.add_argument(
        "--exclude-benchmark",
        metavar="NAME",
        dest="exclude_benchmarks",
        action="append",
        help="remove the benchmark NAME (repeatable)",
    )
    parser.add_argument(
        "--include-runs",
        metavar="RUNS",
        help="keep only these runs of each benchmark (1-based, calibration included: 1-3,7)",
    )
    parser.add_argument(
        "--exclude-runs", metavar="RUNS", help="remove these runs of each benchmark (like --include-runs)"
    )
    parser.add_argument("--remove-warmups", action="store_true", help="remove the warmups of the runs with values")
    parser.add_argument(
        "--update-metadata", metavar="K=V,...", help="set metadata in every run (a comma-separated list of KEY=VALUE)"
    )
    parser.add_argument(
        "--extract-metadata", metavar="NAME", help="replace the values of each run by its metadata NAME (one value)"
    )
    parser.add_argument(
        "--remove-all-metadata", action="store_true", help="remove every metadata except the name and the unit"
    )


# --- option values, checked before any file is read --------------------------


def parse_runs(text: str, option: str) -> RunRanges:
    """Parse a list of run numbers such as ``1-3,7`` into ranges (1-based)."""
    if not text.strip():
        raise UsageError(f"{option}: the list of runs is empty (expected run numbers such as 1-3,7)")
    ranges = []
    for part in (item.strip() for item in text.split(",")):
        match = _RUN_ITEM.fullmatch(part)
        if match is None:
            raise UsageError(f"{option} {text}: {part!r} is neither a run number nor a range FIRST-LAST")
        try:
            first = int(match.group(1))
            last = int(match.group(2)) if match.group(2) is not None else first
        except ValueError:  # more digits than int() accepts
            raise UsageError(f"{option}: {part[:20]}...: no run has such a number") from None
        if first < 1:
            raise UsageError(f"{option} {text}: run numbers start at 1")
        if last < first:
            raise UsageError(f"{option} {text}: the range {part} is empty ({first} > {last})")
        ranges.append((first, last))
    return tuple(ranges)


def parse_metadata_updates(text: str) -> Metadata:
    """Parse ``KEY=VALUE,KEY2=VALUE2`` into validated metadata."""
    updates: dict[str, Any] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        key, equal, value = item.partition("=")
        key = key.strip()
        if not equal or not key:
            raise UsageError(f"--update-metadata: {item!r} is not KEY=VALUE")
        if key in updates:
            raise UsageError(f"--update-metadata: {key!r} is given twice")
        try:
            updates[key] = edits.metadata_value(key, value.strip())
        except ResultError as exc:
            raise UsageError(f"--update-metadata: {exc}") from None
    if not updates:
        raise UsageError("--update-metadata: no KEY=VALUE given")
    try:
        return parse_metadata(updates)
    except ResultError as exc:
        raise UsageError(f"--update-metadata: {exc}") from None


def _writes_csv(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "csv", False) or getattr(args, "csv_summary", False))


def _check_output(args: argparse.Namespace) -> None:
    if _writes_csv(args):
        option = "--csv" if getattr(args, "csv", False) else "--csv-summary"
        if args.indent:
            raise UsageError(f"--indent applies to JSON, not to {option}")
        if not args.stdout and args.output != "-" and not args.output.lower().endswith(".csv"):
            raise UsageError(f"-o {args.output}: {option} writes CSV: the name must end in .csv")
    if args.stdout:
        if args.replace:
            raise UsageError("--replace only applies to -o/--output")
        return
    if args.output == "-":
        raise UsageError("-o -: use --stdout to write to standard output")
    if not args.replace and os.path.lexists(args.output):
        raise OutputExistsError(args.output, " (use --replace to overwrite it)")


# --- the steps ---------------------------------------------------------------


def _load(input_name: str, added: Sequence[str]) -> list[Benchmark]:
    if [input_name, *added].count("-") > 1:
        raise UsageError("standard input (-) can be read only once")
    suite = files.load(input_name)
    for filename in added:
        other = files.load(filename)
        try:
            suite.add_runs(other)
        except IncompatibleRunError as exc:
            raise IncompatibleRunError(f"--add {filename}: {exc}") from None
    return suite.get_benchmarks()


def _select_benchmarks(benchmarks: list[Benchmark], args: argparse.Namespace) -> list[Benchmark]:
    include = args.include_benchmarks
    exclude = args.exclude_benchmarks or []
    source = args.input + (" or the --add files" if args.add else "")
    used = []
    for option, given in (("--include-benchmark", include), ("--exclude-benchmark", exclude)):
        if not given:
            continue
        used.append(option)
        try:
            edits.check_benchmark_names(benchmarks, given)
        except ResultError as exc:
            raise ResultError(f"{option}: {exc} in {source}") from None
    kept = edits.select_benchmarks(benchmarks, include, exclude)
    if not kept:
        raise ResultError(f"no benchmark left after {' and '.join(used)} (a result file needs at least one)")
    return kept


def _select_runs(
    items: list[NumberedRuns], include: RunRanges, exclude: RunRanges, args: argparse.Namespace
) -> list[NumberedRuns]:
    used = []
    for option, text, ranges in (
        ("--include-runs", args.include_runs, include),
        ("--exclude-runs", args.exclude_runs, exclude),
    ):
        if not ranges:
            continue
        used.append(f"{option} {text}")
        try:
            edits.check_run_ranges(items, ranges)
        except ResultError as exc:
            raise ResultError(f"{used[-1]}: {exc}") from None
    selected = edits.select_runs(items, include, exclude)
    for item in selected:
        if not item.runs:
            raise ResultError(
                f"benchmark {item.name!r}: no run left after {' and '.join(used)} (a benchmark needs at least one)"
            )
    return selected


def _update_metadata(items: list[NumberedRuns], updates: Metadata) -> list[NumberedRuns]:
    try:
        edits.check_metadata_updates(items, updates)
    except ResultError as exc:
        raise ResultError(f"--update-metadata: {exc} (keep one with --include-benchmark)") from None
    return edits.update_metadata(items, updates)


def _extract_metadata(items: list[NumberedRuns], name: str) -> list[NumberedRuns]:
    try:
        return edits.extract_metadata(items, name)
    except ResultError as exc:
        raise ResultError(f"--extract-metadata {name}: {exc}") from None


def convert(args: argparse.Namespace) -> BenchmarkSuite:
    """The converted suite: every step, in the documented order."""
    include_runs = parse_runs(args.include_runs, "--include-runs") if args.include_runs is not None else ()
    exclude_runs = parse_runs(args.exclude_runs, "--exclude-runs") if args.exclude_runs is not None else ()
    updates = parse_metadata_updates(args.update_metadata) if args.update_metadata is not None else None
    _check_output(args)

    benchmarks = _load(args.input, args.add or ())
    if args.include_benchmarks or args.exclude_benchmarks:
        benchmarks = _select_benchmarks(benchmarks, args)
    items = edits.number_runs(benchmarks)
    if include_runs or exclude_runs:
        items = _select_runs(items, include_runs, exclude_runs, args)
    if args.remove_warmups:
        items = edits.remove_warmups(items)
    if updates is not None:
        items = _update_metadata(items, updates)
    if args.extract_metadata is not None:
        items = _extract_metadata(items, args.extract_metadata)
    if args.remove_all_metadata:
        items = edits.remove_all_metadata(items)
    return edits.to_suite(items)


def run(args: argparse.Namespace) -> int:
    suite = convert(args)
    if _writes_csv(args):
        summaries = None
        if getattr(args, "csv_summary", False):
            from perf.analysis.intervals import benchmark_mean_interval
            from perf.analysis.summaries import value_figures

            summaries = [(value_figures(benchmark), benchmark_mean_interval(benchmark)) for benchmark in suite]
        text = format_csv(suite, summaries)
        if args.stdout:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            files.write_atomic(args.output, text.encode("utf-8"), replace=args.replace)
        return 0
    compact = not args.indent
    if args.stdout:
        files.dump(suite, sys.stdout, compact=compact)
    else:
        files.dump(suite, args.output, compact=compact, replace=args.replace)
    return 0
