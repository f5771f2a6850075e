"""``python -m perf history record STORE REV... [options] -- ARGS...``:
measure git revisions and add their results to a store.

Checked before anything is measured: the command ``ARGS`` (a bench script
or ``-m perf timeit ...``, and its budget), the repository (``--repo``,
default ``.``), every revision and the store (created when the folder is
missing or empty).  The revisions are measured together, in rounds
(:mod:`perf.history.record`); a progress line on stderr says the round,
the commit and, after two rounds, about how long is left
(:func:`perf.render.history.format_record_progress`); one line per
revision recorded.  A failing build or run stops with one error naming
the revision, and the batches recorded before it stay in the store.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from perf.history.store import Recording


def add_arguments(action: str, parser: argparse.ArgumentParser) -> None:
    from perf.cli.bisect import add_measure_arguments
    from perf.measure.arguments import strictly_positive

    parser.usage = "%(prog)s STORE REV... [options] -- ARGS..."
    parser.add_argument("store", metavar="STORE", help="the store folder (created when missing or empty)")
    parser.add_argument("revisions", nargs="+", metavar="REV", help="git revisions to measure, in this order")
    add_measure_arguments(parser)
    parser.add_argument("--machine", metavar="NAME", help="the machine of the results (default: the hostname)")
    parser.add_argument("--branch", metavar="NAME", help="the branch of the results (default: none)")
    parser.add_argument(
        "--max-worktrees",
        metavar="N",
        type=strictly_positive,
        help="at most N worktrees at once: the revisions are measured in interleaved batches of N that "
        "overlap by two (default: all of them in one session)",
    )
    parser.epilog = (
        "ARGS: a bench script and its options, or -m perf timeit ...: the budget of each revision "
        "(default: the runner's, 24 processes of 2 values). The revisions are measured together, one "
        "process of each per round, in a new order each round."
    )


def run(args: argparse.Namespace) -> int:
    from perf.cli.display import ProgressLine
    from perf.cli.history_store import adding_to
    from perf.errors import UsageError
    from perf.history.git import Repository, short
    from perf.history.record import RecordEvents, RecordOptions, RecordProgress, parse_args, record
    from perf.render.history import format_record_progress
    from perf.render.units import count_of

    if args.max_worktrees is not None and args.max_worktrees < 2:
        raise UsageError(f"--max-worktrees must be at least 2, got {args.max_worktrees}")
    command = parse_args(args.trailing, args.python, len(args.revisions))
    repository = Repository(args.repo)
    commits = repository.resolve_all(args.revisions)
    options = command.plan.options

    class Events(RecordEvents):
        def __init__(self) -> None:
            self.line = ProgressLine(options.quiet)

        def building(self, commit: str) -> None:
            self.line.close()
            print(f"Building {short(commit)}...", flush=True)

        def measuring(self, commits: Sequence[str], batch: int, batches: int) -> None:
            part = f" (batch {batch}/{batches})" if batches > 1 else ""
            rounds = count_of(options.processes, "round")
            if len(commits) > 1:
                what = f"{len(commits)} revisions together{part}: {rounds} of {len(commits)} processes"
            else:
                what = f"1 revision{part}: {count_of(options.processes, 'process', 'processes')}"
            print(f"Measuring {what}", flush=True)

        def progress(self, progress: RecordProgress) -> None:
            self.line.show(format_record_progress(progress), progress.stderr)

        def recorded(self, commit: str, recordings: list[Recording]) -> None:
            self.line.close()
            for recording in recordings:
                print(f"Recorded {short(commit)} {recording.date or ''}: {recording.path}", flush=True)

    events = Events()
    record_options = RecordOptions(args.python, args.build, args.machine, args.branch, args.max_worktrees)
    try:
        with adding_to(args.store) as store:
            record(store, repository, commits, command, options=record_options, events=events)
    finally:
        events.line.close()
    return 0
