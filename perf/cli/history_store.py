"""``python -m perf history add|reindex|show|changes``: the store's actions.

* ``add STORE FILE... [--commit SHA] [--date ISO-8601] [--branch NAME]
  [--machine NAME]``: one line per file added (the store is created when
  STORE is missing or empty);
* ``reindex STORE``: rebuild the index from the files;
* ``show STORE [-b NAME] [--machine M]``: each timeline, commit by commit;
* ``changes STORE [-b NAME] [--machine M] [--json] [--confirm --repo PATH
  -- ARGS...]``: the changes found (with ``--confirm``, those a
  re-measurement shows too: :mod:`perf.cli.history_confirm`).

The text is :mod:`perf.render.history`'s; the timelines come from
:func:`perf.history.timelines.timelines`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING, Iterator, Sequence

from perf.errors import UsageError

if TYPE_CHECKING:
    from perf.history.store import HistoryStore


def add_arguments(action: str, parser: argparse.ArgumentParser) -> None:
    from perf.cli.common import add_benchmark_argument

    parser.add_argument("store", metavar="STORE", help="the history store (a folder)")
    if action == "add":
        parser.add_argument("filenames", metavar="FILE", nargs="+", help="result file (.json, .json.gz)")
        parser.add_argument("--commit", metavar="SHA", help="the commit measured (default: the commit_id metadata)")
        parser.add_argument(
            "--date",
            metavar="ISO-8601",
            help="the commit's date (default: the commit_date metadata of the file's own commit)",
        )
        parser.add_argument("--branch", metavar="NAME", help="the branch (default: the commit_branch metadata)")
        parser.add_argument("--machine", metavar="NAME", help="the machine (default: the hostname metadata)")
    if action in ("show", "changes"):
        add_benchmark_argument(parser)
        parser.add_argument("--machine", metavar="NAME", help="only this machine")
    if action == "changes":
        from perf.cli import history_confirm

        parser.add_argument("--json", action="store_true", help="print a JSON list of the changes")
        history_confirm.add_arguments(parser)


def _close_names(name: str, names: Sequence[str], what: str) -> str:
    """`` (did you mean a, b?)``, else the names there are (at most 10)."""
    import difflib

    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    if close:
        return f" (did you mean {', '.join(close)}?)"
    if not names:
        return " (the store has no recording)"
    shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
    return f" ({what}: {shown})"


def check_selection(store: HistoryStore, benchmarks: Sequence[str] | None, machine: str | None) -> None:
    """UsageError naming an unknown -b NAME or --machine M."""
    if machine is not None:
        machines = store.machines()
        if machine not in machines:
            raise UsageError(f"unknown machine: {machine}{_close_names(machine, machines, 'machines')}")
    if benchmarks:
        names = store.benchmark_names()
        known = set(names)
        for name in benchmarks:
            if name not in known:
                raise UsageError(f"unknown benchmark: {name}{_close_names(name, names, 'benchmarks')}")


@contextlib.contextmanager
def adding_to(path: str) -> Iterator[HistoryStore]:
    """The store *path*, created when missing or empty; a command that
    creates it and then fails leaves no empty store behind."""
    import os

    from perf.history.store import MARKER, HistoryStore, discard_if_empty

    folder_existed = os.path.exists(path)
    creating = not os.path.exists(os.path.join(path, MARKER))
    try:
        with HistoryStore.open_or_create(path) as store:
            yield store
    except BaseException:
        if creating:
            discard_if_empty(path, remove_folder=not folder_existed)
        raise


def _add(args: argparse.Namespace) -> list[str]:
    from perf.render.history import format_added

    with adding_to(args.store) as store:
        recordings = store.add(
            args.filenames, commit=args.commit, date=args.date, branch=args.branch, machine=args.machine
        )
        return [
            format_added(filename, recording, store.benchmark_count(recording))
            for filename, recording in zip(args.filenames, recordings)
        ]


def _reindex(args: argparse.Namespace) -> list[str]:
    from perf.history.store import HistoryStore

    with HistoryStore(args.store, sync=False) as store:
        count = store.reindex()
        machines = len(store.machines())
        benchmarks = len(store.benchmark_names())
    counts = ", ".join(_count(number, what) for number, what in ((benchmarks, "benchmark"), (machines, "machine")))
    return [f"Reindexed {args.store}: {_count(count, 'recording')} ({counts})"]


def _count(number: int, what: str) -> str:
    return f"{number} {what}{'' if number == 1 else 's'}"


def _timelines(args: argparse.Namespace) -> list[str]:
    import json

    from perf.history.store import HistoryStore
    from perf.history.timelines import timelines
    from perf.render.history import changes_document, format_changes, format_show

    with HistoryStore(args.store) as store:
        check_selection(store, args.benchmarks, args.machine)
        found = timelines(store, args.benchmarks, args.machine)
    confirmed: str | None = None
    if args.action == "changes" and args.confirm:
        from perf.cli.history_confirm import confirm

        found, confirmed = confirm(args, found)
    if args.action == "changes":
        if args.json:
            if confirmed is not None:
                print(confirmed, file=sys.stderr)
            return [json.dumps(changes_document(found), indent=2)]
        if confirmed is None:
            return format_changes(found)
        # "No change detected" is not what an inconclusive re-measurement shows
        table = format_changes(found) if any(timeline.changes for timeline in found) else []
        return [*table, confirmed]
    if not found:
        return [f"No recording in {args.store}."]
    return format_show(found)


def run(args: argparse.Namespace) -> int:
    from perf.cli.common import print_lines

    if args.action == "changes":
        from perf.cli.history_confirm import check

        check(args)
    if args.action == "add":
        lines = _add(args)
    elif args.action == "reindex":
        lines = _reindex(args)
    else:
        lines = _timelines(args)
    print_lines(lines)
    return 0
