"""``python -m perf plot FILE... -o OUT.png|OUT.svg``: draw result files.

Three kinds of figure (:mod:`perf.render.plots`):

* ``--kind distribution`` (the default): per benchmark, the histogram and
  density of the values and of the process means, one colour per file;
* ``--kind timeline``: every warmup and value in run order, one colour per
  process: drift, warmup curves and noisy processes;
* ``--kind compare``: the ratio of each benchmark of the changed files to
  the first file (the reference) with its confidence interval and verdict,
  as ``compare_to`` computes it (``--min-speed``, ``--robust``).

Every option is checked before any work: the output's extension (``.png``
or ``.svg``), its folder, an existing output (refused unless
``--replace``), the benchmark names, and that matplotlib (the optional
``plot`` extra: ``pip install ".[plot]"`` in a clone) can be imported.
The figure is written atomically: an error never leaves a partial file;
then one line on stdout says what was written: ``Wrote compare.svg
(48.2 KiB)``.

The benchmarks of ``--kind compare`` are those of
:func:`perf.analysis.suites.compare_suites` (compared once, with
:func:`perf.analysis.finished.finish_comparison`): a ``-b`` name missing from a
file, no benchmark in common, or none with values in every file is an
error; a benchmark in other units or timed with another clock is left out
with a note under the figure.

Must not: draw or compute statistics (perf.render.plots and perf.analysis
do), or import matplotlib itself.
"""

from __future__ import annotations

import argparse
import os
from typing import Sequence

from perf.analysis import compare
from perf.analysis.finished import FinishedComparison, finish_comparison
from perf.analysis.suites import NO_VALUES, SuiteComparison
from perf.cli.common import add_benchmark_argument, add_correction_argument, filename_titles, load_suites
from perf.errors import OutputExistsError, ResultError, UsageError
from perf.model.suite import BenchmarkSuite
from perf.render.plots import canvas
from perf.render.plots.comparison import comparison_figure
from perf.render.plots.distribution import distribution_figure, panel_names
from perf.render.plots.timeline import timeline_figure
from perf.render.units import format_filesize
from perf.storage import files

HELP = "Draw result files as a PNG or SVG figure: distributions, timelines or a comparison (needs matplotlib)."

KINDS = ("distribution", "timeline", "compare")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = f"The figures need matplotlib: {canvas.INSTALL_HINT.split(': ', 1)[1]}."
    parser.add_argument(
        "filenames",
        metavar="FILE",
        nargs="+",
        help="result file (.json, .json.gz, - for stdin); with --kind compare, the reference first",
    )
    parser.add_argument("-o", "--output", metavar="OUTPUT", required=True, help="the figure to write: .png or .svg")
    parser.add_argument(
        "--kind",
        choices=KINDS,
        default=KINDS[0],
        help="distribution: histograms and densities of the values and process means; "
        "timeline: every value in run order; compare: ratios to the first file (default: %(default)s)",
    )
    add_benchmark_argument(parser)
    parser.add_argument(
        "--min-speed",
        metavar="PCT",
        type=float,
        help=f"with --kind compare: the equivalence margin in percent (default: {compare.DEFAULT_MARGIN * 100:g})",
    )
    parser.add_argument(
        "--robust",
        action="store_true",
        help="with --kind compare: Mann-Whitney test on process means with a Hodges-Lehmann ratio",
    )
    add_correction_argument(parser, "with --kind compare: ")
    parser.add_argument("--replace", action="store_true", help="replace OUTPUT if it exists (atomically)")


def output_format(output: str) -> str:
    """``"png"`` or ``"svg"``, from the extension of *output*."""
    extension = os.path.splitext(output)[1].lower().lstrip(".")
    if extension not in canvas.FORMATS:
        raise UsageError(f"{output}: the output must end with .png or .svg")
    return extension


def check_output(output: str, replace: bool) -> None:
    """Refuse an *output* whose folder is missing, that is a folder, or
    that exists without *replace* (UsageError); plot and history plot."""
    folder = os.path.dirname(output) or "."
    if not os.path.isdir(folder):
        raise UsageError(f"{output}: the folder {folder} does not exist")
    if os.path.isdir(output):
        raise UsageError(f"{output}: is a folder")
    if not replace and os.path.lexists(output):
        raise OutputExistsError(output, " (use --replace to overwrite it)")


def _check_options(args: argparse.Namespace) -> None:
    output_format(args.output)
    check_output(args.output, args.replace)
    if args.kind == "compare":
        if len(args.filenames) < 2:
            raise UsageError("--kind compare needs a reference file and at least one changed file")
        if args.min_speed is not None and not 0 <= args.min_speed < 100:
            raise UsageError(f"--min-speed must be between 0 and 100 (percent), got {args.min_speed:g}")
    else:
        options = (("--min-speed", args.min_speed is not None), ("--robust", args.robust))
        for option, given in (*options, ("--no-correction", not args.correct)):
            if given:
                raise UsageError(f"{option} only applies to --kind compare")


def _check_names(
    suites: Sequence[BenchmarkSuite], names: Sequence[str] | None, comparison: SuiteComparison | None = None
) -> None:
    """Every name of *names* is in some file (and with the *comparison* of
    ``--kind compare``: in every file)."""
    known = [set(suite.get_benchmark_names()) for suite in suites]
    missing = {found.name: found.absent for found in comparison.missing} if comparison is not None else {}
    for name in names or ():
        if not any(name in found for found in known):
            available = sorted(set().union(*known))
            raise ResultError(f"no benchmark named {name!r} (benchmarks: {', '.join(available)})")
        if name in missing:
            files = ", ".join(str(suites[index].filename) for index in missing[name])
            raise ResultError(f"benchmark {name!r} is missing from {files}")


def _comparable(suites: Sequence[BenchmarkSuite], comparison: SuiteComparison) -> None:
    """Some benchmark is in every file, and one of them has values in
    every file (other incompatible ones are noted on the figure)."""
    listed = ", ".join(str(suite.filename) for suite in suites)
    if not comparison.common:
        raise ResultError(f"the files have no benchmark in common: {listed}")
    if not comparison.entries and all(skipped.reason == NO_VALUES for skipped in comparison.incompatible):
        raise ResultError(f"no benchmark has values in every file: {listed}")


def _compare(suites: Sequence[BenchmarkSuite], args: argparse.Namespace) -> FinishedComparison:
    """The benchmarks of ``-b`` (all by default) compared to the first
    file's, checked."""
    selected = [[b for b in suite if not args.benchmarks or b.get_name() in args.benchmarks] for suite in suites]
    margin = (compare.DEFAULT_MARGIN * 100 if args.min_speed is None else args.min_speed) / 100
    comparison = finish_comparison(selected, margin, args.robust, args.correct)
    _check_names(suites, args.benchmarks, comparison.suite)
    _comparable(suites, comparison.suite)
    return comparison


def wrote_line(path: str, size: int) -> str:
    """``'Wrote timeline.svg (48.2 KiB)'``: what plot and report say on
    stdout once the file is in place."""
    return f"Wrote {path} ({format_filesize(size)})"


def make_figure(suites: Sequence[BenchmarkSuite], args: argparse.Namespace) -> object:
    """The figure of ``args.kind`` for *suites*; a ResultError when a
    ``-b`` name is not found or the files cannot be compared."""
    titles = filename_titles([str(suite.filename) for suite in suites])
    if args.kind == "compare":
        return comparison_figure(titles, _compare(suites, args))
    _check_names(suites, args.benchmarks)
    named = list(zip(titles, suites))
    if args.kind == "timeline":
        return timeline_figure(named, args.benchmarks)
    from perf.analysis.summaries import distribution_panels

    panels = distribution_panels(suites, panel_names(named, args.benchmarks))
    return distribution_figure(named, args.benchmarks, panels)


def run(args: argparse.Namespace) -> int:
    _check_options(args)
    fmt = output_format(args.output)
    canvas.require_matplotlib()
    suites = load_suites(args.filenames)
    data = canvas.figure_bytes(make_figure(suites, args), fmt)
    files.write_atomic(args.output, data, replace=args.replace)
    print(wrote_line(args.output, len(data)))
    return 0


__all__ = ["HELP", "KINDS", "add_arguments", "check_output", "make_figure", "output_format", "run", "wrote_line"]
