"""``python -m perf report FILE... -o REPORT.html``: results you can look at.

Writes one self-contained HTML page (:mod:`perf.render.html`): with one
file its results, with several the comparison of each to the first one
(``compare_to``'s: :func:`perf.analysis.finished.finish_comparison`, the same
errors, verdicts, geometric means, notes and warnings of
:mod:`perf.render.compare_notes`), the figures of :mod:`perf.render.plots`
(matplotlib, the ``plot`` extra), the stability warnings and the metadata.
With ``--history STORE``, a last section shows the timelines of the
report's benchmarks in that history store, with the changes found in them
(:mod:`perf.render.html.history`); a folder that is not a store is an
error before any file is read.

Every option is checked before any file is read or any figure drawn: the
output must end in ``.html`` or ``.htm``, its folder must exist, an
existing file is refused unless ``--replace`` is given, and without
matplotlib the command stops with one line that says what to install.
The page is written atomically: a reader sees the old file or the new one;
then one line on stdout says what was written: ``Wrote report.html
(326.4 KiB)``.

Must not: compute statistics, lay out the page, or draw figures.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Sequence

from perf.analysis import compare
from perf.analysis.counts import explain_comparison
from perf.analysis.finished import finish_comparison
from perf.analysis.summaries import summarize_files
from perf.cli.common import (
    add_benchmark_argument,
    add_correction_argument,
    filename_titles,
    load_suites,
    select_benchmarks,
)
from perf.cli.plot import wrote_line
from perf.errors import OutputExistsError, UsageError
from perf.model.suite import BenchmarkSuite
from perf.render.compare_notes import (
    adjustment_lines,
    build_lines,
    chance_lines,
    comparison_error,
    environment_warnings,
    ignored_lines,
)
from perf.render.html.comparison import Summary
from perf.render.html.history import HistoryFigureSource, history_section, insert_section, matplotlib_history_svg
from perf.render.html.page import FigureSource, matplotlib_svg, render_report
from perf.render.plots.distribution import panel_names
from perf.storage import files

if TYPE_CHECKING:
    from perf.history.store import HistoryStore

HELP = "Write a self-contained HTML report of result files: tables, verdicts, figures, warnings, metadata."

#: the extensions of the output
EXTENSIONS = (".html", ".htm")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "With one file: its results. With several: each file is compared to the first one, as compare_to does. "
        'The figures need matplotlib: pip install matplotlib (or pip install ".[plot]" in a clone of perf).'
    )
    parser.add_argument(
        "filenames",
        metavar="FILE",
        nargs="+",
        help="result file (.json, .json.gz, - for stdin); the first is the reference",
    )
    parser.add_argument(
        "-o", "--output", metavar="REPORT", required=True, help="the HTML file to write (.html or .htm)"
    )
    add_benchmark_argument(parser)
    parser.add_argument(
        "--min-speed",
        metavar="PCT",
        type=float,
        default=compare.DEFAULT_MARGIN * 100,
        help="equivalence margin in percent: changes smaller than this do not matter (default: %(default)g)",
    )
    parser.add_argument(
        "--robust",
        action="store_true",
        help="Mann-Whitney test on process means with a Hodges-Lehmann ratio instead of Welch's t",
    )
    add_correction_argument(parser)
    parser.add_argument(
        "--history",
        metavar="STORE",
        help="add the timelines of the report's benchmarks in this history store, with their changes",
    )
    parser.add_argument("--replace", action="store_true", help="replace REPORT if it exists (atomically)")


def check_options(args: argparse.Namespace) -> None:
    """Refuse bad options before any work (UsageError)."""
    output = args.output
    if os.path.splitext(output)[1].lower() not in EXTENSIONS:
        raise UsageError(f"-o {output}: the report is an HTML file: its name must end in .html or .htm")
    folder = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(folder):
        raise UsageError(f"-o {output}: the folder {folder} does not exist")
    if os.path.isdir(output):
        raise UsageError(f"-o {output}: is a folder")
    if not args.replace and os.path.lexists(output):
        raise OutputExistsError(output, " (use --replace to overwrite it)")
    if not 0 <= args.min_speed < 100:
        raise UsageError(f"--min-speed must be between 0 and 100 (percent), got {args.min_speed:g}")


def default_figures() -> FigureSource:
    """The figures of :mod:`perf.render.plots`; MissingDependencyError with the install
    hint when matplotlib is missing."""
    from perf.render.plots import canvas

    canvas.require_matplotlib()
    return matplotlib_svg


def history_figures() -> HistoryFigureSource:
    """The figure of :mod:`perf.render.plots.history` (matplotlib is
    checked by :func:`default_figures`)."""
    return matplotlib_history_svg


def open_history(path: str) -> HistoryStore:
    """The history store at *path* (HistoryStoreError when it is not one;
    the caller closes it)."""
    from perf.history.store import HistoryStore

    return HistoryStore(path)


def _history(path: str, store: HistoryStore, selected: Sequence[BenchmarkSuite]) -> str:
    """The history section: the timelines of the benchmarks of *selected*
    that *store* has."""
    from perf.history.timelines import timelines

    known = set(store.benchmark_names())
    names = [name for name in dict.fromkeys(b.get_name() for suite in selected for b in suite) if name in known]
    order = {name: index for index, name in enumerate(names)}
    # in the report's order of the benchmarks (stable: each one's machines in the store's order)
    found = sorted(timelines(store, names), key=lambda timeline: order[timeline.benchmark]) if names else []
    return history_section(path, found, history_figures()(found) if found else None)


def _selected(suite: BenchmarkSuite, names: Sequence[str] | None) -> BenchmarkSuite:
    selected = select_benchmarks(suite, names)
    return suite if len(selected) == len(suite) else BenchmarkSuite(selected, filename=suite.filename)


def _summary(
    suites: Sequence[BenchmarkSuite],
    selected: Sequence[BenchmarkSuite],
    titles: Sequence[str],
    args: argparse.Namespace,
) -> Summary:
    """compare_to's comparison, notes and warnings: every benchmark in
    common is compared, or a ResultError, as compare_to does."""
    filenames = [str(suite.filename) for suite in suites]
    comparison = finish_comparison(selected, args.min_speed / 100, args.robust, args.correct, suites=suites)
    error = comparison_error(comparison.suite, filenames)
    if error is not None:
        raise error
    notes = [
        *chance_lines(comparison.everything.differences),
        *ignored_lines(comparison.suite, filenames),
        *build_lines(comparison.notes, titles),
    ]
    warnings = [*environment_warnings(comparison.notes, titles), *adjustment_lines(comparison.entries, titles)]
    return Summary(comparison, notes, warnings, explain_comparison(comparison.entries))


def make_report(args: argparse.Namespace, figures: FigureSource, history: HistoryStore | None = None) -> str:
    """The HTML page of ``args.filenames`` (options already checked),
    with the section of the *history* store of ``--history``."""
    suites = load_suites(args.filenames)
    titles = filename_titles([str(suite.filename) for suite in suites])
    selected = [_selected(suite, args.benchmarks) for suite in suites]
    summary = _summary(suites, selected, titles, args) if len(suites) > 1 else None
    files = list(zip(titles, selected))
    summaries = summarize_files(selected, panel_names(files))
    page = render_report(files, summary, figures, robust=args.robust, summaries=summaries)
    if history is not None:
        page = insert_section(page, _history(args.history, history, selected))
    return page


def run(args: argparse.Namespace) -> int:
    check_options(args)
    figures = default_figures()
    history = open_history(args.history) if args.history is not None else None
    try:
        page = make_report(args, figures, history)
    finally:
        if history is not None:
            history.close()
    data = page.encode("utf-8")
    files.write_atomic(args.output, data, replace=args.replace)
    print(wrote_line(args.output, len(data)))
    return 0
