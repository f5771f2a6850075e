"""``history changes --confirm [--budget DURATION] --repo PATH [--build CMD]
[--python PATH] -- ARGS...``: re-measure each change before reporting it.

The change points of a store come from recordings made on different days;
``--confirm`` measures the last commit before each change and the first
commit after it again, together on this machine in the same minutes
(:func:`perf.history.confirm.compare_commits`: two worktrees, one worker
of each per round), and reports only the changes the re-measurement shows
too.  A benchmark whose interval is inconclusive is measured again, up to
:data:`~perf.history.confirm.MAX_SESSIONS` sessions pooled, while the
budget lasts; each pair of commits is measured once for all its
benchmarks that changed.  One line per change on standard error says what
the re-measurement found; standard output keeps the table (or the
``--json`` list) of the confirmed changes, and a summary line that tells
confirmed, refuted (a shown "no change"), inconclusive and not confirmed
apart (on standard error with ``--json``).

Everything that can be checked is checked before the first measurement:
the command after ``--``, the budget, the repository, and every commit of
the changes.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Sequence

from perf.errors import UsageError

if TYPE_CHECKING:
    from perf.history.confirm import ConfirmEvents, ConfirmSession, Remeasurement
    from perf.history.timelines import Change, Timeline

#: what a change can come to, in the summary's order (NOT_MEASURED: no session measured it)
NOT_MEASURED = "not measured"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from perf.cli.bisect import add_budget_argument, add_measure_arguments

    parser.add_argument(
        "--confirm",
        action="store_true",
        help="re-measure the commits around each change, together, and keep the confirmed ones (needs -- ARGS)",
    )
    add_measure_arguments(parser)
    add_budget_argument(parser, "--confirm measures")


def check(args: argparse.Namespace) -> None:
    """The command line of --confirm, before the store is read."""
    if not args.confirm:
        if args.trailing is not None:
            raise UsageError(f"history changes takes a command after -- only with --confirm: {' '.join(args.trailing)}")
        if args.build or args.python or args.repo != "." or args.budget is not None:
            raise UsageError("--repo, --build, --python and --budget apply to history changes --confirm")
        return
    if not args.trailing:
        raise UsageError("history changes --confirm needs the command to measure after --: -- bench.py [options]")
    from perf.history.worktrees import parse_command

    command = parse_command(args.trailing, args.python)
    if command.plan.options.processes < 2:
        raise UsageError("after --: -p must be at least 2: a session needs 2 rounds or more to pair the commits")


def _measured(remeasurement: Remeasurement, name: str) -> str:
    from perf.render.history import format_ratio, format_ratio_interval

    comparison = remeasurement.comparisons[name]
    sessions = f"{remeasurement.sessions} session{'s' if remeasurement.sessions != 1 else ''}"
    return (
        f"re-measured {format_ratio(comparison.ratio)} {format_ratio_interval(comparison.low, comparison.high)} "
        f"({sessions}, {comparison.reference_processes} pairs)"
    )


def _verdict(change: Change, remeasurement: Remeasurement) -> tuple[str, str]:
    """What the re-measurement shows of *change*, and the line that says it."""
    from perf.history import confirm
    from perf.render.units import format_seconds

    comparison = remeasurement.comparisons.get(change.benchmark)
    if comparison is None:
        if remeasurement.skipped:
            return NOT_MEASURED, "not re-measured: the budget was spent (not shown)"
        return NOT_MEASURED, "not measured by the command (no benchmark of that name)"
    measured = _measured(remeasurement, change.benchmark)
    result = confirm.outcome(change.direction, comparison)
    if result == confirm.CONFIRMED:
        return result, f"{measured}: confirmed"
    if result == confirm.REFUTED:
        return result, f"{measured}: refuted, no change (the whole interval within 1 %)"
    if result == confirm.NOT_CONFIRMED:
        why = "it changed the other way" if confirm.other_direction(change.direction, comparison) else "under 1 %"
        return result, f"{measured}: not confirmed ({why}; not shown)"
    text = f"{measured}: inconclusive, not shown"
    needed, per_pair = comparison.needed_processes, remeasurement.seconds_per_pair
    if needed is not None and per_pair is not None and needed > comparison.reference_processes:
        more = needed - comparison.reference_processes
        text += f" (about {more} more pairs, {format_seconds(more * per_pair)}, would likely decide it)"
    return result, text


def summary(counts: dict[str, int]) -> str:
    """``1 change confirmed, 1 refuted (no change), 1 inconclusive (not shown).``"""
    from perf.analysis.compare import INCONCLUSIVE
    from perf.history import confirm

    confirmed = counts.get(confirm.CONFIRMED, 0)
    parts = [f"{confirmed} change{'' if confirmed == 1 else 's'} confirmed"]
    labels = [
        (confirm.REFUTED, "refuted (no change)"),
        (INCONCLUSIVE, "inconclusive (not shown)"),
        (confirm.NOT_CONFIRMED, "not confirmed (not shown)"),
        (NOT_MEASURED, "not measured (not shown)"),
    ]
    parts += [f"{counts[key]} {label}" for key, label in labels if counts.get(key)]
    return ", ".join(parts) + "."


def _progress(pair: tuple[str, str]) -> ConfirmEvents:
    """Events that say on standard error when the sessions of *pair* start,
    and what they wait for."""
    from perf.history.confirm import ConfirmEvents
    from perf.render.history import format_confirm_session

    class Progress(ConfirmEvents):
        def measuring(self, start: ConfirmSession) -> None:
            print(format_confirm_session(pair, start), file=sys.stderr, flush=True)

    return Progress()


def confirm(args: argparse.Namespace, found: Sequence[Timeline]) -> tuple[list[Timeline], str | None]:
    """*found* with only the changes a re-measurement confirms, and the
    summary line (None when there was no change to re-measure)."""
    from perf.history.confirm import CONFIRMED, compare_commits
    from perf.history.git import Repository, short
    from perf.history.rounds import DEFAULT_BUDGET, Budget

    repository = Repository(args.repo)
    changes = [change for timeline in found for change in timeline.changes]
    for commit in {commit for change in changes for commit in (change.before, change.after)}:
        repository.resolve(commit)
    budget = Budget(args.budget or DEFAULT_BUDGET)

    measured: dict[tuple[str, str], Remeasurement] = {}
    kept: set[Change] = set()
    counts: dict[str, int] = {}
    for change in changes:
        pair = (change.before, change.after)
        if pair not in measured:
            names = sorted({other.benchmark for other in changes if (other.before, other.after) == pair})
            measured[pair] = compare_commits(
                repository, *pair, args.trailing, benchmarks=names, python=args.python, build_command=args.build,
                budget=budget, confirm_events=_progress(pair),
            )  # fmt: skip
        result, text = _verdict(change, measured[pair])
        counts[result] = counts.get(result, 0) + 1
        print(f"{change.benchmark} on {change.machine}, {short(change.after)}: {text}", file=sys.stderr)
        if result == CONFIRMED:
            kept.add(change)
    timelines = [timeline._replace(changes=tuple(c for c in timeline.changes if c in kept)) for timeline in found]
    return timelines, summary(counts) if changes else None
