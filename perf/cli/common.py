"""Arguments and helpers shared by the analysis commands."""

from __future__ import annotations

import argparse
import errno
import os
import sys
from typing import Any, NamedTuple, Sequence

from perf.analysis.checks import Check, check_benchmark
from perf.analysis.summaries import value_figures
from perf.errors import PerfError, ResultError, ResultFileError
from perf.model.benchmark import Benchmark
from perf.model.metadata import common_metadata
from perf.model.suite import BenchmarkSuite
from perf.render.benchmark import format_result
from perf.render.checks import format_warning_summary, format_warnings, incomplete_notice
from perf.render.metadata import format_metadata_lines
from perf.render.units import format_datetime, format_seconds, join_blocks
from perf.storage import files


def add_benchmark_argument(parser: argparse.ArgumentParser) -> None:
    """``-b NAME`` / ``--benchmark NAME`` (repeatable): ``args.benchmarks``."""
    parser.add_argument(
        "-b",
        "--benchmark",
        dest="benchmarks",
        metavar="NAME",
        action="append",
        help="only this benchmark (repeatable)",
    )


def add_correction_argument(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    """``--no-correction``: ``args.correct`` False compares separate
    recordings as recorded (perf.analysis.interference)."""
    parser.add_argument(
        "--no-correction",
        dest="correct",
        action="store_false",
        help=f"{prefix}compare separate recordings as recorded, without correcting for a busy machine "
        "(time off the CPU, a machine that ran slower by the speed probe)",
    )


def add_input_arguments(parser: argparse.ArgumentParser, quiet: str = "hide the stability warnings") -> None:
    """FILE..., ``-b NAME`` and ``-q`` (what *quiet* hides)."""
    parser.add_argument("filenames", metavar="FILE", nargs="+", help="result file (.json, .json.gz, - for stdin)")
    add_benchmark_argument(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help=quiet)


#: lines written at once by print_lines(): a few KB, less than a pipe holds,
#: so that a reader that goes away early still breaks the pipe
_LINES_PER_WRITE = 256


def print_lines(lines: Sequence[str]) -> None:
    """Print *lines* (a print() per line costs more than the analysis of a
    big suite when standard output is unbuffered)."""
    write = sys.stdout.write
    for start in range(0, len(lines), _LINES_PER_WRITE):
        write("\n".join(lines[start : start + _LINES_PER_WRITE]) + "\n")


def load_suites(filenames: Sequence[str]) -> list[BenchmarkSuite]:
    return [files.load(filename) for filename in filenames]


def compare_to_files(path: str) -> list[list[str]]:
    """The files a ``--compare-to -o PATH`` run wrote instead of *path*
    (``ab.json`` -> ``ab-3.11.json``, ``ab-3.12.json``), grouped by run:
    the two files of one run share their pair seeds (``ab_seed``)."""
    import glob

    from perf.analysis.benchmarks import SEED_KEY
    from perf.measure.parent.sides import split_extension

    stem, extension = split_extension(path)
    runs: dict[frozenset[Any], list[str]] = {}
    for candidate in sorted(glob.glob(f"{glob.escape(stem)}-*{extension}")):
        try:
            suite = files.load(candidate)
        except PerfError:
            continue
        seeds = frozenset(run._get(SEED_KEY) for benchmark in suite for run in benchmark.get_runs()) - {None}
        if seeds:
            runs.setdefault(seeds, []).append(candidate)
    return [names for names in runs.values() if len(names) >= 2]


def missing_file_hint(error: BaseException) -> str | None:
    """The message of a missing result file that a ``--compare-to -o
    FILE`` run did not write under that name, naming the files it wrote;
    None for any other error."""
    if not isinstance(error, ResultFileError) or error.errno != errno.ENOENT or not error.filename:
        return None
    saved = compare_to_files(error.filename)
    if not saved:
        return None
    listed = "; ".join(" and ".join(names) for names in saved)
    runs = "run" if len(saved) == 1 else "runs"
    return f"{error.filename}: no such file; the --compare-to {runs} saved {listed}"


def select_benchmarks(suite: BenchmarkSuite, names: Sequence[str] | None) -> list[Benchmark]:
    """The benchmarks of *suite* named in *names* (all when None)."""
    if not names:
        return suite.get_benchmarks()
    selected = [benchmark for benchmark in suite if benchmark.get_name() in names]
    if not selected:
        # about the file's content, not the command line: exit status 1
        raise ResultError(f"{suite.filename}: no benchmark named " + ", ".join(repr(name) for name in names))
    return selected


def no_values_error(filename: object, name: str) -> ResultError:
    """The error of a command that needs values on a benchmark that has
    only calibration runs (an interrupted run, ``convert --include-runs``):
    a problem of the file, exit status 1."""
    return ResultError(f"{filename}: benchmark {name!r} has no values (only calibration runs)")


def require_values(items: Sequence[Item]) -> None:
    """Refuse benchmarks without values (``stats``, ``hist``: nothing to compute)."""
    for item in items:
        if not item.benchmark.get_nvalue():
            raise no_values_error(item.suite.filename, item.benchmark.get_name())


# --- the layout of pyperf's display commands ------------------------------


class Item(NamedTuple):
    """One benchmark to display, with its suite and the title of its file."""

    suite: BenchmarkSuite
    filename: str
    benchmark: Benchmark
    #: the benchmarks of its file, before -b selected some
    in_file: int = 1


def _strip_extension(filename: str) -> str:
    name = os.path.splitext(filename)[0]
    # "bench.json.gz" -> "bench"
    return name[:-5] if name.endswith(".json") else name


def filename_titles(filenames: Sequence[str]) -> list[str]:
    """The titles pyperf gives files: base names without ``.json``/``.json.gz``
    when they stay unique, else base names, else the names as given."""
    base_names = [os.path.basename(filename) for filename in filenames]
    if len(set(base_names)) != len(filenames):
        return list(filenames)
    stripped = [_strip_extension(name) for name in base_names]
    if len(set(stripped)) != len(base_names):
        return base_names
    return stripped


def load_selection(args: argparse.Namespace) -> list[Item]:
    """Load ``args.filenames`` and keep the benchmarks of ``args.benchmarks``.

    Each suite of the items holds only the selected benchmarks.
    """
    suites = load_suites(args.filenames)
    titles = filename_titles([str(suite.filename) for suite in suites])
    items: list[Item] = []
    for suite, title in zip(suites, titles):
        selected = select_benchmarks(suite, getattr(args, "benchmarks", None))
        kept = suite if len(selected) == len(suite) else BenchmarkSuite(selected, filename=suite.filename)
        items.extend(Item(kept, title, benchmark, len(suite)) for benchmark in selected)
    return items


def empty_line(lines: list[str]) -> None:
    """Append an empty line unless *lines* is empty (pyperf's separator)."""
    if lines:
        lines.append("")


def format_title(title: str, level: int = 1) -> list[str]:
    """``title`` underlined with ``=`` (level 1) or ``-`` (level 2)."""
    return [title, ("=" if level == 1 else "-") * len(title)]


def check_summary_lines(item: Item, checks: Sequence[Check] | None = None) -> list[str]:
    """The stability warnings of a displayed benchmark as one line that
    points to ``check`` (``show``, ``stats``, ``hist``, ``metadata``,
    ``dump``: the full block is printed by ``check`` and after a run);
    *checks* are its checks when the caller already ran them."""
    benchmark = item.benchmark
    if checks is None:
        checks = check_benchmark(benchmark)
    # the file's other benchmarks are not in this display: check needs -b too
    name = benchmark.get_name() if max(len(item.suite), item.in_file) > 1 else None
    filename = item.suite.filename
    return format_warning_summary(checks, benchmark, None if filename is None else str(filename), name)


def _suite_summary(suite: BenchmarkSuite) -> list[str]:
    lines = [f"Number of benchmarks: {len(suite)}"]
    # counted under a simulator, the benchmarks took 17 to 75 times longer: not their time
    if not all(benchmark.get_counter_source() for benchmark in suite):
        lines.append(f"Total duration: {format_seconds(suite.get_total_duration())}")
    dates = suite.get_dates()
    if dates:
        lines.append(f"Start date: {format_datetime(dates[0], microsecond=False)}")
        lines.append(f"End date: {format_datetime(dates[1], microsecond=False)}")
    return lines


def _common_metadata_lines(metadatas: list[dict[str, Any]]) -> list[str]:
    """pyperf's "Common metadata" block; removes the common keys (and
    ``name``) from *metadatas*.  Nothing for a single benchmark."""
    if len(metadatas) < 2:
        return []
    for metadata in metadatas:
        metadata.pop("name", None)
    common = common_metadata(metadatas)
    for metadata in metadatas:
        for key in common:
            metadata.pop(key, None)
    if not common:
        return []
    return [*format_title("Common metadata"), "", *format_metadata_lines(common)]


class Blocks(NamedTuple):
    """What to show for each benchmark, in pyperf's order."""

    metadata: bool = False
    dump: bool = False
    dump_quiet: bool = False
    dump_verbose: bool = False
    dump_raw: bool = False
    hist: bool = False
    stats: bool = False
    checks: bool = False
    #: the whole warning block (``check``), not one line pointing to ``check``
    full_checks: bool = False
    check_too_many_processes: bool = False
    #: ``show``: in a file of several benchmarks, the block of one saved
    #: from a run that stopped early starts with its ``incomplete`` notice
    incomplete: bool = False
    result: bool = False


def _benchmark_lines(item: Item, blocks: Blocks, checks: Sequence[Check] | None) -> list[str]:
    # each command imports the renderers of its blocks only
    benchmark = item.benchmark
    parts = []
    if blocks.incomplete and checks and len(item.suite) > 1:
        parts.append([incomplete_notice(check) for check in checks if check.code == "incomplete"])
    if blocks.dump:
        from perf.render.dump import format_dump

        figures = value_figures(benchmark)
        parts.append(
            format_dump(benchmark, figures, quiet=blocks.dump_quiet, verbose=blocks.dump_verbose, raw=blocks.dump_raw)
        )
    if blocks.hist:
        from perf.render.hist import format_histogram

        parts.append(format_histogram([(None, benchmark)]))
    if blocks.stats:
        from perf.analysis.summaries import benchmark_stats
        from perf.render.stats import format_stats

        parts.append(format_stats(benchmark, benchmark_stats(benchmark)))
    if blocks.checks and blocks.full_checks:
        # the check command: the warnings in full ([] when it looks stable)
        parts.append(format_warnings(check_benchmark(benchmark, blocks.check_too_many_processes), benchmark))
    elif blocks.checks:
        parts.append(check_summary_lines(item, checks))
    if blocks.result:
        parts.append([format_result(benchmark, value_figures(benchmark))])
    return join_blocks(*parts)


def distinct_suites(items: Sequence[Item]) -> list[BenchmarkSuite]:
    """The suites of *items*, each once (the same object), in order."""
    suites: list[BenchmarkSuite] = []
    for item in items:
        if all(item.suite is not suite for suite in suites):
            suites.append(item.suite)
    return suites


def _item_lines(item: Item, blocks: Blocks, metadata: dict[str, Any], checks: Sequence[Check] | None) -> list[str]:
    """The lines of one benchmark under its titles: its own *metadata*
    (none when empty), then its blocks (with its *checks* when the caller
    ran them)."""
    metadata_lines = ["Metadata:", *format_metadata_lines(metadata)] if metadata else []
    return join_blocks(metadata_lines, _benchmark_lines(item, blocks, checks))


def _file_header(item: Item, blocks: Blocks) -> list[str]:
    """The title of the file of *item* (``stats``: and its suite's totals
    when it holds several benchmarks)."""
    header = format_title(item.filename, 1)
    if blocks.stats and len(item.suite) > 1:
        header.append("")
        header.extend(_suite_summary(item.suite))
    return header


def format_benchmarks(
    items: Sequence[Item], blocks: Blocks, checks: Sequence[Sequence[Check]] | None = None
) -> list[str]:
    """pyperf's multi-line layout of ``show -d/-g/-t/-m``, ``dump``,
    ``stats``, ``metadata`` and ``check``.

    A file title (``=``) when several files are shown (``stats``: also for
    one file of several benchmarks, followed by the suite's totals), a
    benchmark title (``-``) unless every file holds the same single
    benchmark, and with *metadata* the metadata common to all benchmarks
    first.  *checks* are the checks of each item (one warning line each)
    when the caller already ran them.
    """
    output: list[str] = []
    # each benchmark's own metadata (the common keys are removed from them)
    metadatas: list[dict[str, Any]] = [{} for _ in items]
    if blocks.metadata:
        metadatas = [dict(item.benchmark.get_metadata()) for item in items]
        output.extend(_common_metadata_lines(metadatas))

    suites = distinct_suites(items)
    show_filename = len(suites) > 1 or (blocks.stats and len(items) > 1)
    names = [suite.get_benchmark_names() for suite in suites]
    show_name = not (all(len(suite) == 1 for suite in suites) and all(other == names[0] for other in names))

    current: BenchmarkSuite | None = None
    item_checks: Sequence[Sequence[Check] | None] = [None] * len(items) if checks is None else checks
    for item, metadata, found in zip(items, metadatas, item_checks):
        lines = _item_lines(item, blocks, metadata, found)
        if not lines:
            continue
        header: list[str] = []
        if show_filename and item.suite is not current:
            current = item.suite
            header.extend(_file_header(item, blocks))
        if show_name:
            empty_line(header)
            header.extend(format_title(item.benchmark.get_name(), 2))
        empty_line(header)
        empty_line(output)
        output.extend(header + lines)
    return output
