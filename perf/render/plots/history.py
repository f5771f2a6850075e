"""The history figure: the timeline of a benchmark across commits, one
panel per benchmark and machine (at most
:data:`~perf.render.plots.canvas.MAX_PANELS`).

x: the commits in the order of the timeline (commit date, then the time
they were added), labelled with their 8-character ids, thinned when there
are many (the first commit after each change is always labelled); y: the
mean of each commit with its 95 % interval as an error bar.  A change is a
dashed vertical line between the last commit before it and the first
after it, coloured by its direction and labelled with its ratio
after / before; a spike (one commit off its neighbours, not a change) is
drawn as a hollow diamond.

The timelines, their changes and spikes come from
:func:`perf.history.timelines.timelines`.

Must not: read the store, print, or compute statistics (the means,
intervals, changes and spikes are the timelines').
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

from perf.render.plots import canvas

if TYPE_CHECKING:
    from perf.history.timelines import Change, Timeline

__all__ = [
    "CHANGE_COLOURS",
    "MAX_COMMIT_LABELS",
    "SHORT_ID",
    "SPIKE_COLOUR",
    "change_gid",
    "commit_ticks",
    "history_figure",
    "ratio_text",
    "short_id",
    "spike_gid",
]

#: the colour of a change by direction
CHANGE_COLOURS = {"slower": "#d62728", "faster": "#2ca02c"}
#: the colour of the points, and of the spikes
POINT_COLOUR = canvas.PALETTE[0]
SPIKE_COLOUR = "#ff7f0e"
#: the characters of a commit id on the axis
SHORT_ID = 8
#: the most commit ids labelled on the x axis of a panel
MAX_COMMIT_LABELS = 30


def short_id(commit: str) -> str:
    """The first :data:`SHORT_ID` characters of *commit*."""
    return commit[:SHORT_ID]


def ratio_text(ratio: float) -> str:
    """``'1.052x'``: a ratio after / before as the figure and the report
    show it."""
    return f"{ratio:.3f}x"


def change_gid(panel: int, number: int) -> str:
    """The id of the line of the *number*-th change of *panel* (an ``<g
    id>`` in the SVG)."""
    return f"history-change-{panel}-{number}"


def spike_gid(panel: int) -> str:
    """The id of the spikes of *panel*."""
    return f"history-spikes-{panel}"


def _error_bars(points: Sequence[Any]) -> tuple[list[float], list[float]]:
    """(below, above) the mean of each point: its interval; none when the
    interval is unknown (not finite)."""
    below, above = [], []
    for point in points:
        finite = math.isfinite(point.low) and math.isfinite(point.high)
        below.append(max(point.mean - point.low, 0.0) if finite else 0.0)
        above.append(max(point.high - point.mean, 0.0) if finite else 0.0)
    return below, above


def _draw_points(ax: Any, timeline: Timeline, panel: int) -> None:
    """The mean and interval of each commit; the spikes hollow diamonds."""
    commits = timeline.commits
    spikes = {spike.index for spike in timeline.spikes if 0 <= spike.index < len(commits)}
    ax.plot(range(len(commits)), [point.mean for point in commits], color="#bbbbbb", linewidth=0.8, zorder=1)
    size = 4.5 if len(commits) <= 60 else 3.0
    for spike, indexes in ((False, [i for i in range(len(commits)) if i not in spikes]), (True, sorted(spikes))):
        if not indexes:
            continue
        points = [commits[index] for index in indexes]
        below, above = _error_bars(points)
        colour = SPIKE_COLOUR if spike else POINT_COLOUR
        ax.errorbar(
            indexes, [point.mean for point in points], yerr=[below, above], fmt="D" if spike else "o",
            markersize=size + 1 if spike else size, color=colour, markerfacecolor="none" if spike else colour,
            elinewidth=0.9, capsize=2 if len(commits) <= 60 else 0, zorder=3, gid=spike_gid(panel) if spike else None,
        )  # fmt: skip


def _draw_changes(ax: Any, changes: Sequence[Change], panel: int) -> None:
    """A dashed line between the commits around each change, labelled
    with its ratio (alternately high and lower: neighbours do not cover
    each other)."""
    from matplotlib import transforms

    where = transforms.blended_transform_factory(ax.transData, ax.transAxes)
    for number, change in enumerate(changes):
        colour = CHANGE_COLOURS.get(change.direction, "#444444")
        x = change.index - 0.5
        ax.axvline(x, color=colour, linestyle="--", linewidth=1.3, zorder=2, gid=change_gid(panel, number))
        ax.text(
            x, 0.97 if number % 2 == 0 else 0.86, " " + ratio_text(change.ratio), transform=where,
            ha="left", va="top", fontsize=8, color=colour, zorder=4,
        )  # fmt: skip


def _value_limits(timeline: Timeline) -> tuple[float, float]:
    """The y range: every mean and finite bound, and room above for the
    labels of the changes."""
    values = [point.mean for point in timeline.commits]
    values += [bound for point in timeline.commits for bound in (point.low, point.high) if math.isfinite(bound)]
    low, high = min(values), max(values)
    spread = (high - low) or abs(high) * 0.02 or 1.0
    return low - spread * 0.08, high + spread * (0.35 if timeline.changes else 0.08)


def commit_ticks(count: int, always: Sequence[int] = (), most: int = MAX_COMMIT_LABELS) -> list[int]:
    """The indexes of the commits labelled on an axis of *count* commits:
    every one when they are at most *most*, else every k-th one, plus
    those of *always* (the first commits after the changes) in place of
    their close neighbours."""
    step = max(1, math.ceil(count / most))
    ticks = set(range(0, count, step))
    for index in always:
        if 0 <= index < count:
            ticks = {tick for tick in ticks if abs(tick - index) * 2 >= step} | {index}
    return sorted(ticks)


def _commit_axis(ax: Any, timeline: Timeline) -> int:
    """Label the commits; return the step between labels (1: every commit)."""
    commits = timeline.commits
    ticks = commit_ticks(len(commits), [change.index for change in timeline.changes])
    ax.set_xticks(ticks)
    ax.set_xticklabels(
        [short_id(commits[index].commit) for index in ticks], rotation=90, fontsize=7, family="monospace"
    )
    ax.set_xlim(-0.5 - len(commits) * 0.01, len(commits) - 0.5 + len(commits) * 0.01)
    return max(1, math.ceil(len(commits) / MAX_COMMIT_LABELS))


def _summary(timeline: Timeline) -> str:
    """``'40 commits, 2 changes, 1 spike'``."""
    counts = [(len(timeline.commits), "commit"), (len(timeline.changes), "change"), (len(timeline.spikes), "spike")]
    return ", ".join(
        f"{count} {what}{'' if count == 1 else 's'}" for count, what in counts if count or what == "commit"
    )


def _history_panel(ax: Any, timeline: Timeline, panel: int) -> int:
    """Draw *timeline* in *ax*; return the step between commit labels."""
    if not timeline.commits:
        canvas.panel_message(ax, "no commit")
        return 1
    _draw_points(ax, timeline, panel)
    _draw_changes(ax, timeline.changes, panel)
    low, high = _value_limits(timeline)
    ax.set_ylim(low, high)
    canvas.unit_axis(ax.yaxis, timeline.unit, high, 5)
    ax.grid(axis="y", color="#eeeeee", linewidth=0.6, zorder=0)
    return _commit_axis(ax, timeline)


def _history_legend(timelines: Sequence[Timeline]) -> tuple[list[Any], list[str]]:
    """The legend of what *timelines* draw: points, and spikes and the
    directions of changes when there are some."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", color=POINT_COLOUR, markersize=5)]
    labels = ["mean of a commit, 95% interval"]
    if any(timeline.spikes for timeline in timelines):
        handles.append(
            Line2D([], [], marker="D", color=SPIKE_COLOUR, markerfacecolor="none", linestyle="none", markersize=5)
        )
        labels.append("spike (not a change)")
    directions = {change.direction for timeline in timelines for change in timeline.changes}
    for direction, colour in CHANGE_COLOURS.items():
        if direction in directions:
            handles.append(Line2D([], [], color=colour, linestyle="--"))
            labels.append(f"change: {direction}")
    return handles, labels


def _panel_title(timeline: Timeline, several_machines: bool) -> str:
    return f"{timeline.benchmark} on {timeline.machine}" if several_machines else timeline.benchmark


@canvas.quiet
def history_figure(timelines: Sequence[Timeline]) -> Any:
    """The timeline of each of *timelines* (one panel each, in their
    order) with its changes and spikes."""
    shown = list(timelines[: canvas.MAX_PANELS])
    figure = canvas.new_figure(11.0, 2.9 * max(1, len(shown)) + 1.4)
    machines = sorted({timeline.machine for timeline in timelines})
    title = "Performance history" + (f" on {machines[0]}" if len(machines) == 1 else "")
    canvas.add_header(figure, title, *_history_legend(shown))
    if not shown:
        canvas.panel_message(figure.subplots(), "no benchmark to show")
        return figure
    axes = figure.subplots(len(shown), 1, squeeze=False)[:, 0]
    several_machines = len(machines) > 1
    step = 1
    for panel, (ax, timeline) in enumerate(zip(axes, shown)):
        ax.set_title(_panel_title(timeline, several_machines), fontsize=10, loc="left")
        ax.set_title(_summary(timeline), fontsize=8, loc="right", color="#444444")
        step = max(step, _history_panel(ax, timeline, panel))
    notes = [
        "x: the commits in the order of their dates; y: the mean of each commit with its 95% interval. "
        "A dashed line marks each change, with its ratio after / before.",
        f"One commit in {step} is labelled, and the first after each change." if step > 1 else "",
        canvas.capped_note(len(shown), len(timelines), "panels (one per benchmark and machine)"),
    ]
    canvas.add_notes(figure, notes)
    return figure
