"""``python -m perf history record STORE REV... [options] -- ARGS...``:
measure git revisions and add their results to a store.

Checked before anything is measured: the repository (``--repo``, default
``.``), every revision, the command ``ARGS`` (a bench script or ``-m perf
timeit ...``) and the store (created when the folder is missing or
empty).  One line per revision recorded; a failing build or run stops
with one error naming the revision, and the revisions recorded before it
stay in the store.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perf.history.store import Recording


def add_arguments(action: str, parser: argparse.ArgumentParser) -> None:
    from perf.cli.bisect import add_measure_arguments

    parser.usage = "%(prog)s STORE REV... [options] -- ARGS..."
    parser.add_argument("store", metavar="STORE", help="the store folder (created when missing or empty)")
    parser.add_argument("revisions", nargs="+", metavar="REV", help="git revisions to measure, in this order")
    add_measure_arguments(parser)
    parser.add_argument("--machine", metavar="NAME", help="the machine of the results (default: the hostname)")
    parser.add_argument("--branch", metavar="NAME", help="the branch of the results (default: none)")
    parser.epilog = "ARGS: a bench script and its options, or -m perf timeit ...; run as PYTHON ARGS... -o FILE."


def run(args: argparse.Namespace) -> int:
    from perf.cli.history_store import adding_to
    from perf.history.git import Repository, short
    from perf.history.record import RecordEvents, RecordOptions, check_args, record

    command = check_args(args.trailing)
    repository = Repository(args.repo)
    commits = repository.resolve_all(args.revisions)

    class Events(RecordEvents):
        def building(self, commit: str) -> None:
            print(f"Building {short(commit)}...", flush=True)

        def recorded(self, commit: str, recordings: list[Recording]) -> None:
            for recording in recordings:
                print(f"Recorded {short(commit)} {recording.date or ''}: {recording.path}", flush=True)

    options = RecordOptions(args.python, args.build, args.machine, args.branch)
    with adding_to(args.store) as store:
        record(store, repository, commits, command, options=options, events=Events())
    return 0
