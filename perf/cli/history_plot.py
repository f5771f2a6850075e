"""``python -m perf history plot STORE -o OUT.png|OUT.svg``: draw a
history store's timelines (:mod:`perf.render.plots.history`).

One panel per benchmark and machine: the mean of each commit with its
95 % interval, a marker at each change labelled with its ratio, the
spikes apart, the commit ids on the axis.  ``-b NAME`` (repeatable) and
``--machine M`` select the timelines.

The checks are ``plot``'s (:func:`perf.cli.plot.output_format` and
:func:`perf.cli.plot.check_output`), made before the store is opened:
the output's extension and folder, an existing output (refused unless
``--replace``), and that matplotlib can be imported.  Then a folder that
is not a store, a benchmark or machine the store does not have, or a
store without results is a one-line error (the selection is checked as
``history show`` checks it).  The figure is written
atomically; one line on stdout says what was written.

Must not: draw, detect changes or compute statistics
(:mod:`perf.render.plots` and :mod:`perf.history.timelines` do), or import
matplotlib itself.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perf.history.timelines import Timeline

__all__ = ["add_arguments", "load_timelines", "run"]


def add_arguments(action: str, parser: argparse.ArgumentParser) -> None:
    from perf.cli.common import add_benchmark_argument

    parser.epilog = 'The figure needs matplotlib: pip install matplotlib (or pip install ".[plot]" in a clone of perf).'
    parser.add_argument("store", metavar="STORE", help="the history store (a folder made by history add)")
    parser.add_argument("-o", "--output", metavar="OUTPUT", required=True, help="the figure to write: .png or .svg")
    add_benchmark_argument(parser)
    parser.add_argument("--machine", metavar="M", help="only the results of this machine")
    parser.add_argument("--replace", action="store_true", help="replace OUTPUT if it exists (atomically)")


def load_timelines(args: argparse.Namespace) -> list[Timeline]:
    """The timelines of ``args.store`` selected by ``-b`` and
    ``--machine``, checked as ``history show`` checks them
    (HistoryStoreError, UsageError), and ResultError when there is
    nothing to draw."""
    from perf.cli.history_store import check_selection
    from perf.errors import ResultError
    from perf.history.store import HistoryStore
    from perf.history.timelines import timelines

    with HistoryStore(args.store) as store:
        if not store.benchmark_names():
            raise ResultError(f"{args.store}: the store has no results yet (add some with python -m perf history add)")
        check_selection(store, args.benchmarks, args.machine)
        found = list(timelines(store, args.benchmarks, args.machine))
    if not found:  # -b names that the --machine did not record
        raise ResultError(f"{args.store}: no results of the benchmarks selected on {args.machine}")
    return found


def run(args: argparse.Namespace) -> int:
    from perf.cli.plot import check_output, output_format, wrote_line

    fmt = output_format(args.output)
    check_output(args.output, args.replace)
    from perf.render.plots import canvas

    canvas.require_matplotlib()
    found = load_timelines(args)
    from perf.render.plots.history import history_figure
    from perf.storage import files

    data = canvas.figure_bytes(history_figure(found), fmt)
    files.write_atomic(args.output, data, replace=args.replace)
    print(wrote_line(args.output, len(data)))
    return 0
