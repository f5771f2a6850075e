"""``python -m perf convert INPUT (-o OUTPUT | --stdout)``: edit a result file.

The steps always run in this order, whatever the order of the options: add
the runs of other files, keep or drop benchmarks, keep or drop runs, remove
warmups, update metadata, extract a metadata as the values, remove the
metadata, write.  Every option is checked and every step is computed in
memory before anything is written; ``-o`` writes atomically and refuses an
existing file unless ``--replace`` is given.

``--csv`` and ``--csv-summary`` write the converted result as CSV instead
of JSON (RFC 4180: comma-separated, quoted when needed, CRLF line ends, a
header row; numbers with a ``.`` decimal separator, floats as ``repr()``
writes them, so that they read back exactly):

- ``--csv``: one row per value, warmups included (:data:`VALUE_COLUMNS`):
  the benchmark, the run's number (1-based, calibration runs included, as
  ``--include-runs`` counts), the process's number (1-based among the runs
  with values; empty for a calibration run), ``warmup`` or ``value``, the
  value's position among the run's warmups or values (1-based), the loop
  iterations the value is the average of (loops x inner loops), the value
  in the benchmark's unit, and the unit (``second``, ``byte``...);
- ``--csv-summary``: one row per benchmark (:data:`SUMMARY_COLUMNS`): the
  unit, the processes and values counts, the mean, standard deviation,
  median, minimum and maximum of all values, and the 95 % confidence
  interval of the mean of process means (a process is one sample).  A
  figure that needs more values than there are is an empty cell.  The
  statistics come from the model and :mod:`perf.analysis`.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import sys
from typing import Any, Iterator, NamedTuple, Sequence

from perf.analysis.intervals import benchmark_mean_interval
from perf.errors import IncompatibleRunError, ResultError, UsageError
from perf.model.benchmark import Benchmark
from perf.model.metadata import Metadata, get_metadata_info, is_number, parse_metadata
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.storage import files

HELP = "Modify a result file: merge, select benchmarks and runs, remove warmups, edit metadata."

#: keys --update-metadata refuses: the values were divided by the loop
#: counts, and the calibration keys say what a run without values is
MEASUREMENT_KEYS = (
    "loops",
    "inner_loops",
    "calibrate_loops",
    "recalibrate_loops",
    "calibrate_warmups",
    "recalibrate_warmups",
)

#: the columns of --csv
VALUE_COLUMNS = ("benchmark", "run", "process", "kind", "index", "loops", "value", "unit")
#: the columns of --csv-summary
SUMMARY_COLUMNS = (
    "benchmark",
    "unit",
    "processes",
    "values",
    "mean",
    "std_dev",
    "median",
    "min",
    "max",
    "ci95_low",
    "ci95_high",
)

#: one item of a run list: "7" or "1-3" (spaces allowed around the dash)
_RUN_ITEM = re.compile(r"([0-9]+)(?:\s*-\s*([0-9]+))?")

RunRanges = tuple[tuple[int, int], ...]


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


def _in_ranges(number: int, ranges: RunRanges) -> bool:
    return any(first <= number <= last for first, last in ranges)


def _typed_value(key: str, text: str) -> Any:
    """*text* as the type metadata *key* takes: a str when the key accepts
    strings (as pyperf, for every key it does not know), else a number."""
    types = get_metadata_info(key).types
    if str in types:
        return text
    if list in types:
        raise UsageError(f"--update-metadata: {key!r} is a list and cannot be set here")
    for kind in (int, float):
        if kind in types:
            try:
                return kind(text)
            except ValueError:
                pass
    expected = "an integer" if float not in types else "a number"
    raise UsageError(f"--update-metadata: {key}={text}: {key!r} must be {expected}")


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
        if key in MEASUREMENT_KEYS:
            raise UsageError(
                f"--update-metadata: {key!r} cannot be changed (it describes how the values were measured)"
            )
        updates[key] = _typed_value(key, value.strip())
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
        raise UsageError(f"{args.output}: the file already exists (use --replace to overwrite it)")


# --- the steps ---------------------------------------------------------------


class _Runs(NamedTuple):
    """One benchmark being converted: its runs, each with its number in the
    input (1-based, after --add) for the error messages."""

    name: str
    runs: list[tuple[int, Run]]


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
    names = [benchmark.get_name() for benchmark in benchmarks]
    source = args.input + (" or the --add files" if args.add else "")
    used = []
    for option, given in (("--include-benchmark", include), ("--exclude-benchmark", exclude)):
        if not given:
            continue
        used.append(option)
        unknown = [name for name in dict.fromkeys(given) if name not in names]
        if unknown:
            listed = ", ".join(repr(name) for name in unknown)
            raise ResultError(f"{option}: no benchmark named {listed} in {source}")
    kept = [
        benchmark
        for benchmark, name in zip(benchmarks, names)
        if (include is None or name in include) and name not in exclude
    ]
    if not kept:
        raise ResultError(f"no benchmark left after {' and '.join(used)} (a result file needs at least one)")
    return kept


def _select_runs(items: list[_Runs], include: RunRanges, exclude: RunRanges, args: argparse.Namespace) -> list[_Runs]:
    largest = max(len(item.runs) for item in items)
    used = []
    for option, text, ranges in (
        ("--include-runs", args.include_runs, include),
        ("--exclude-runs", args.exclude_runs, exclude),
    ):
        if not ranges:
            continue
        used.append(f"{option} {text}")
        highest = max(last for _, last in ranges)
        if highest > largest:
            raise ResultError(f"{used[-1]}: there is no run {highest}: no benchmark has more than {largest} runs")
    selected = []
    for item in items:
        runs = [
            (number, run)
            for number, run in item.runs
            if (not include or _in_ranges(number, include)) and not _in_ranges(number, exclude)
        ]
        if not runs:
            raise ResultError(
                f"benchmark {item.name!r}: no run left after {' and '.join(used)} (a benchmark needs at least one)"
            )
        selected.append(item._replace(runs=runs))
    return selected


def _remove_warmups(items: list[_Runs]) -> list[_Runs]:
    # A calibration run keeps its warmups: they are all it holds.
    return [item._replace(runs=[(number, run.remove_warmups()) for number, run in item.runs]) for item in items]


def _update_metadata(items: list[_Runs], updates: Metadata) -> list[_Runs]:
    if "name" in updates and len(items) > 1:
        raise ResultError(
            f"--update-metadata: name={updates['name']} would give {len(items)} benchmarks the same name "
            "(keep one with --include-benchmark)"
        )
    return [
        item._replace(
            runs=[
                (number, Run(run.values, run.warmups, {**run.get_metadata(), **updates}, collect_metadata=False))
                for number, run in item.runs
            ]
        )
        for item in items
    ]


def _extracted_run(run: Run, name: str) -> Run:
    """A run whose only value is its metadata *name*; ResultError if it cannot be."""
    metadata = run.get_metadata()
    value = metadata.get(name)
    if value is None:
        raise ResultError(f"no metadata {name!r}")
    if not is_number(value):
        raise ResultError(f"{name!r} is not a number: {value!r}")
    if value <= 0:
        raise ResultError(f"{name!r} is {value!r}, and a value must be > 0")
    unit = get_metadata_info(name).unit
    if unit is not None:
        metadata["unit"] = unit
    return Run([value], metadata=metadata, collect_metadata=False)


def _extract_metadata(items: list[_Runs], name: str) -> list[_Runs]:
    extracted = []
    for item in items:
        runs = []
        for number, run in item.runs:
            try:
                runs.append((number, _extracted_run(run, name)))
            except ResultError as exc:
                raise ResultError(f"--extract-metadata {name}: benchmark {item.name!r}, run {number}: {exc}") from None
        extracted.append(item._replace(runs=runs))
    return extracted


def _remove_all_metadata(items: list[_Runs]) -> list[_Runs]:
    def stripped(run: Run) -> Run:
        metadata = run.get_metadata()
        kept: Metadata = {key: metadata[key] for key in ("name", "unit") if key in metadata}
        return Run(run.values, run.warmups, kept, collect_metadata=False)

    return [item._replace(runs=[(number, stripped(run)) for number, run in item.runs]) for item in items]


def convert(args: argparse.Namespace) -> BenchmarkSuite:
    """The converted suite: every step, in the documented order."""
    include_runs = parse_runs(args.include_runs, "--include-runs") if args.include_runs is not None else ()
    exclude_runs = parse_runs(args.exclude_runs, "--exclude-runs") if args.exclude_runs is not None else ()
    updates = parse_metadata_updates(args.update_metadata) if args.update_metadata is not None else None
    _check_output(args)

    benchmarks = _load(args.input, args.add or ())
    if args.include_benchmarks or args.exclude_benchmarks:
        benchmarks = _select_benchmarks(benchmarks, args)
    items = [_Runs(benchmark.get_name(), list(enumerate(benchmark.get_runs(), 1))) for benchmark in benchmarks]
    if include_runs or exclude_runs:
        items = _select_runs(items, include_runs, exclude_runs, args)
    if args.remove_warmups:
        items = _remove_warmups(items)
    if updates is not None:
        items = _update_metadata(items, updates)
    if args.extract_metadata is not None:
        items = _extract_metadata(items, args.extract_metadata)
    if args.remove_all_metadata:
        items = _remove_all_metadata(items)
    return BenchmarkSuite([Benchmark([run for _, run in item.runs]) for item in items])


# --- CSV -----------------------------------------------------------------------


def _number(value: float) -> str:
    """An int or a float as Python writes it: exact when read back."""
    return repr(value)


def csv_value_rows(suite: BenchmarkSuite) -> Iterator[list[str]]:
    """The rows of ``--csv`` (without the header)."""
    for benchmark in suite:
        name, unit = benchmark.get_name(), benchmark.get_unit()
        process = 0
        for number, run in enumerate(benchmark.get_runs(), 1):
            process_cell = ""
            if run.values:
                process += 1
                process_cell = str(process)
            prefix = [name, str(number), process_cell]
            inner_loops = run.get_inner_loops()
            for index, (loops, value) in enumerate(run.warmups, 1):
                yield [*prefix, "warmup", str(index), str(loops * inner_loops), _number(value), unit]
            loops_cell = str(run.get_total_loops())
            for index, value in enumerate(run.values, 1):
                yield [*prefix, "value", str(index), loops_cell, _number(value), unit]


def csv_summary_rows(suite: BenchmarkSuite) -> Iterator[list[str]]:
    """The rows of ``--csv-summary`` (without the header)."""
    for benchmark in suite:
        values = benchmark.get_values()
        row = [benchmark.get_name(), benchmark.get_unit(), str(len(benchmark.get_process_means())), str(len(values))]
        if values:
            stdev = _number(benchmark.stdev()) if len(values) > 1 else ""
            row.extend([_number(benchmark.mean()), stdev, _number(benchmark.median())])
            row.extend([_number(min(values)), _number(max(values))])
        else:
            row.extend([""] * 5)
        interval = benchmark_mean_interval(benchmark)
        row.extend([_number(interval.low), _number(interval.high)] if interval is not None else ["", ""])
        yield row


def format_csv(suite: BenchmarkSuite, summary: bool = False) -> str:
    """The CSV text of ``--csv`` (or with *summary*, ``--csv-summary``)."""
    output = io.StringIO(newline="")
    writer = csv.writer(output, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(SUMMARY_COLUMNS if summary else VALUE_COLUMNS)
    writer.writerows(csv_summary_rows(suite) if summary else csv_value_rows(suite))
    return output.getvalue()


def run(args: argparse.Namespace) -> int:
    suite = convert(args)
    if _writes_csv(args):
        text = format_csv(suite, summary=bool(getattr(args, "csv_summary", False)))
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
