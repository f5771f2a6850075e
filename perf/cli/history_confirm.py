"""``history changes --confirm --repo PATH [--build CMD] [--python PATH] --
ARGS...``: re-measure each change before reporting it.

The change points of a store come from recordings made on different days;
``--confirm`` measures the last commit before each change and the first
commit after it again, interleaved on this machine in the same minutes
(:func:`perf.history.bisect.compare_commits`: two worktrees, paired
processes), and keeps only the changes the re-measurement shows too: compare_to's
verdict on the pairs is the change's direction (the whole interval beyond
the 1 % margin, on the same side).  A pair whose interval is
inconclusive is measured again, up to :data:`MAX_ROUNDS` sessions pooled;
each pair of commits is measured once, whatever the number of its
benchmarks that changed.  One line per
change on standard error says what the re-measurement found; standard
output keeps the table (or the ``--json`` list) of the confirmed changes.

Everything that can be checked is checked before the first measurement:
the command after ``--``, the repository, and every commit of the changes.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Sequence

from perf.errors import UsageError

if TYPE_CHECKING:
    from perf.analysis.compare import Comparison
    from perf.history.timelines import Change, Timeline


#: sessions measured at most for one pair of commits while inconclusive
MAX_ROUNDS = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from perf.cli.bisect import add_measure_arguments

    parser.add_argument(
        "--confirm",
        action="store_true",
        help="re-measure the commits around each change, interleaved, and keep the confirmed ones (needs -- ARGS)",
    )
    add_measure_arguments(parser)


def check(args: argparse.Namespace) -> None:
    """The command line of --confirm, before the store is read."""
    if not args.confirm:
        if args.trailing is not None:
            raise UsageError(f"history changes takes a command after -- only with --confirm: {' '.join(args.trailing)}")
        if args.build or args.python or args.repo != ".":
            raise UsageError("--repo, --build and --python apply to history changes --confirm")
        return
    if not args.trailing:
        raise UsageError("history changes --confirm needs the command to measure after --: -- bench.py [options]")
    from perf.history.worktrees import parse_command

    parse_command(args.trailing, args.python)


def _verdict(change: Change, comparison: Comparison | None) -> tuple[bool, str]:
    from perf.analysis.compare import INCONCLUSIVE
    from perf.render.history import format_ratio, format_ratio_interval

    if comparison is None:
        return False, "not measured by the command (no benchmark of that name)"
    measured = f"re-measured {format_ratio(comparison.ratio)} {format_ratio_interval(comparison.low, comparison.high)}"
    if comparison.verdict == change.direction:
        return True, f"{measured}: confirmed"
    if comparison.verdict == INCONCLUSIVE:
        return False, f"{measured}: inconclusive, not reported (measure it with a larger budget)"
    return False, f"{measured}: not confirmed"


def confirm(args: argparse.Namespace, found: Sequence[Timeline]) -> list[Timeline]:
    """*found* with only the changes a re-measurement confirms."""
    from perf.history.bisect import compare_commits
    from perf.history.git import Repository, short

    repository = Repository(args.repo)
    changes = [change for timeline in found for change in timeline.changes]
    for commit in {commit for change in changes for commit in (change.before, change.after)}:
        repository.resolve(commit)
    measured: dict[tuple[str, str], dict[str, Comparison]] = {}
    kept: set[Change] = set()
    for change in changes:
        pair = (change.before, change.after)
        if pair not in measured:
            print(f"Measuring {short(change.before)} and {short(change.after)} interleaved...", file=sys.stderr)
            measured[pair] = compare_commits(
                repository, *pair, args.trailing, python=args.python, build_command=args.build, max_rounds=MAX_ROUNDS
            )
        confirmed, text = _verdict(change, measured[pair].get(change.benchmark))
        print(f"{change.benchmark} on {change.machine}, {short(change.after)}: {text}", file=sys.stderr)
        if confirmed:
            kept.add(change)
    return [timeline._replace(changes=tuple(c for c in timeline.changes if c in kept)) for timeline in found]
