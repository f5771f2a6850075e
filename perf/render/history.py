"""The text of ``history add``, ``history show`` and ``history changes``.

``show`` prints one table per benchmark and machine, a row per commit::

    call_method on speed-1
    ======================

    commit        date        mean     95% CI                processes
    8f4e2a1c0b9d  2026-10-17  17.0 ms  [16.9 ms .. 17.1 ms]         20
    3b5d7f9e1a2c  2026-10-19  29.0 ms  [28.8 ms .. 29.2 ms]         20  <- change: 1.706x [1.690x .. 1.720x] slower

A ratio is after / before (above 1: slower), as in ``changes --json``;
the first row of a change and a spike (one commit off its neighbours,
not a change) are marked at the end of their row.

Must not: compute statistics, read the store, or print.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

from perf.model.metadata import COUNT_UNIT
from perf.render.units import count_of, format_about, format_values, format_widths, join_blocks

if TYPE_CHECKING:
    from perf.history.confirm import ConfirmSession
    from perf.history.record import RecordProgress
    from perf.history.store import Recording
    from perf.history.timelines import Timeline

#: characters of a commit id in the tables
SHORT = 12
#: characters of a commit id in the line of an add
ADD_SHORT = 8
#: characters of a commit id in the progress lines of record and --confirm
PROGRESS_SHORT = 10


def short(commit: str, length: int = SHORT) -> str:
    return commit[:length]


def _date(date: str | None) -> str:
    """The day of an ISO-8601 date, as given (the committer's day)."""
    return date[:10] if date else "-"


def format_added(filename: str, recording: Recording, benchmarks: int) -> str:
    """``Added FILE: commit 1a2b3c4d (2026-10-19), machine M, 12 benchmarks``."""
    date = _date(recording.date) if recording.date else "no date"
    plural = "" if benchmarks == 1 else "s"
    return (
        f"Added {filename}: commit {short(recording.commit, ADD_SHORT)} ({date}), "
        f"machine {recording.machine}, {benchmarks} benchmark{plural}"
    )


def format_ratio(ratio: float) -> str:
    """A ratio after / before, with three decimals: steps are a few
    percent, and the bounds of a narrow interval must differ."""
    if not math.isfinite(ratio):
        return "inf"
    return f"{ratio:.3f}x"


def format_ratio_interval(low: float, high: float) -> str:
    return f"[{format_ratio(low)} .. {format_ratio(high)}]"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> list[str]:
    """Columns separated by two spaces; the columns in *right* aligned to
    the right; trailing spaces removed."""
    widths = [max(len(row[column]) for row in [headers, *rows]) for column in range(len(headers))]
    lines = []
    for row in [headers, *rows]:
        cells = [
            cell.rjust(width) if column in right else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(row, widths))
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _marks(timeline: Timeline) -> dict[int, str]:
    """index of a commit -> the note at the end of its row."""
    marks = {}
    for spike in timeline.spikes:
        marks[spike.index] = f"<- spike: {format_ratio(spike.ratio)} of its neighbours"
    for change in timeline.changes:
        marks[change.index] = (
            f"<- change: {format_ratio(change.ratio)} {format_ratio_interval(change.ci_low, change.ci_high)}"
            f" {change.direction}"
        )
    return marks


def _timeline_rows(timeline: Timeline) -> list[list[str]]:
    commits = timeline.commits
    # every value of the table in the unit of the first mean: the column lines up
    numbers = [commit.mean for commit in commits]
    numbers += [bound for commit in commits for bound in (commit.low, commit.high) if math.isfinite(bound)]
    texts = dict(zip(numbers, format_values(timeline.unit, numbers)))
    marks = _marks(timeline)
    rows = []
    for position, commit in enumerate(commits):
        if math.isfinite(commit.low) and math.isfinite(commit.high):
            interval = f"[{texts[commit.low]} .. {texts[commit.high]}]"
        else:
            interval = "-"
        row = [short(commit.commit), _date(commit.date), texts[commit.mean], interval, str(commit.processes)]
        rows.append([*row, marks.get(position, "")])
    return rows


def format_timeline(timeline: Timeline) -> list[str]:
    """The title and table of one timeline."""
    title = f"{_named(timeline)} on {timeline.machine}"
    headers = ["commit", "date", "mean", "95% CI", "processes", ""]
    lines = [title, "=" * len(title), ""]
    lines += _table(headers, _timeline_rows(timeline), right=(2, 4))
    found = [f"{len(timeline.changes)} change{'' if len(timeline.changes) == 1 else 's'}"] if timeline.changes else []
    if timeline.spikes:
        found.append(f"{len(timeline.spikes)} spike{'' if len(timeline.spikes) == 1 else 's'}")
    commits = len(timeline.commits)
    lines += ["", f"{commits} commit{'' if commits == 1 else 's'}" + (": " + ", ".join(found) if found else "")]
    return lines


def format_show(timelines: Sequence[Timeline]) -> list[str]:
    """The text of ``history show``: every timeline, a blank line between."""
    return join_blocks(*(format_timeline(timeline) for timeline in timelines))


def format_changes(timelines: Sequence[Timeline]) -> list[str]:
    """The text of ``history changes``: one row per change."""
    if not any(timeline.changes for timeline in timelines):
        count = len(timelines)
        return [f"No change detected in {count} timeline{'' if count == 1 else 's'}."]
    headers = ["benchmark", "machine", "before", "after", "ratio", "95% CI", "direction"]
    rows = [
        [
            _named(timeline),
            change.machine,
            short(change.before),
            short(change.after),
            format_ratio(change.ratio),
            format_ratio_interval(change.ci_low, change.ci_high),
            change.direction,
        ]
        for timeline in timelines
        for change in timeline.changes
    ]
    return _table(headers, rows, right=(4,))


def _named(timeline: Timeline) -> str:
    """The benchmark of *timeline*, with its metric when it is counts
    (time and counts of one benchmark are two timelines)."""
    return timeline.benchmark if timeline.unit != COUNT_UNIT else f"{timeline.benchmark} ({COUNT_UNIT})"


def format_record_progress(progress: RecordProgress) -> str:
    """The progress line of ``history record`` (rewritten in place on a
    terminal): the round it waits for, the commit whose worker just
    finished, the processes done, and about how long is left::

        batch 1/2, round 3/6 (0bd58d9ffb): 9/24 processes, about 10 s left
    """
    text = f"round {progress.round}/{progress.rounds} ({short(progress.commit, PROGRESS_SHORT)})"
    if progress.batches > 1:
        text = f"batch {progress.batch}/{progress.batches}, {text}"
    text += f": {progress.done}/{progress.total} processes"
    if progress.left is not None and progress.done < progress.total:
        text += f", {format_about(progress.left)} left"
    return text


def format_confirm_session(pair: Sequence[str], start: ConfirmSession) -> str:
    """The line before a session of ``--confirm``: the pair of commits
    (first session), or the benchmarks still inconclusive, the interval
    of the one furthest from a verdict against the half-width it needs,
    and about how long the pair likely still takes (one line)."""
    if start.session == 1:
        about = "" if start.seconds is None else f" (this session: {format_about(start.seconds)})"
        return f"Measuring {short(pair[0], PROGRESS_SHORT)} and {short(pair[1], PROGRESS_SHORT)} together{about}..."
    text = f"    session {start.session}: {', '.join(start.benchmarks)} still inconclusive"
    waiting = start.waiting
    if waiting is not None:
        interval = waiting.interval
        furthest = f", the furthest {waiting.subject}" if waiting.undecided > 1 else ""
        text += (
            f"{furthest} at {format_ratio(interval.ratio)} {format_ratio_interval(interval.low, interval.high)}, "
            f"{format_widths(waiting.half_width, waiting.needed)}"
        )
    text += f"; {count_of(start.rounds, 'more pair')}"
    outlook = None if waiting is None else waiting.outlook
    if outlook is not None:
        if outlook.decided:
            return f"{text}; this pair: {format_about(outlook.seconds)}"
        return f"{text}; likely still inconclusive at its last session, in {format_about(outlook.seconds)}"
    if start.seconds is not None:
        return f"{text}; this session: {format_about(start.seconds)}"
    return text + "..."


def _number(value: float) -> float | None:
    """JSON has no infinity: an unbounded interval is null."""
    return value if math.isfinite(value) else None


def changes_document(timelines: Sequence[Timeline]) -> list[dict[str, Any]]:
    """``history changes --json``: a list of objects with exactly the keys
    benchmark, unit (``second``, ``instructions``...), machine, before,
    after (full commit ids), ratio, ci_low, ci_high, direction (a bound that
    cannot be estimated is null)."""
    return [
        {
            "benchmark": change.benchmark,
            "unit": timeline.unit,
            "machine": change.machine,
            "before": change.before,
            "after": change.after,
            "ratio": _number(change.ratio),
            "ci_low": _number(change.ci_low),
            "ci_high": _number(change.ci_high),
            "direction": change.direction,
        }
        for timeline in timelines
        for change in timeline.changes
    ]
