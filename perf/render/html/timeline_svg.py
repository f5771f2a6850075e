"""The figures of the published site (``history publish``), drawn as
inline SVG text: a benchmark's timeline on one machine, and the small
line of the overview.

A timeline has one point per commit, in the order of the store (by
commit date): its mean and, as a vertical bar, its 95 % interval.  Every
point carries a ``<title>`` (the browser shows it on hover): the commit,
its date, the value with its interval and the processes.  A change is a
dashed vertical line before its first commit, labelled with its ratio;
a spike is a hollow point.  The y axis starts at zero, so that the
height of a step is its size.

No script, no font file, no ``xmlns`` (inline SVG in HTML needs none):
nothing in the figure refers to the network.

Must not: detect changes (:mod:`perf.history.timelines` does), read
files, or print.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from perf.render.history import format_ratio
from perf.render.html.markup import escape
from perf.render.units import format_value

if TYPE_CHECKING:
    from perf.history.timelines import CommitPoint, Timeline

__all__ = ["point_title", "sparkline", "timeline_svg", "value_text"]

WIDTH, HEIGHT = 900, 240
#: margins: left (the axis labels), right, top, bottom
LEFT, RIGHT, TOP, BOTTOM = 80, 20, 24, 28
SPARK_WIDTH, SPARK_HEIGHT = 160, 32


def _top(values: Sequence[float]) -> float:
    """The top of a figure's y axis (its bottom is zero): a little above the
    highest finite value (a commit of one process has no interval)."""
    high = max((value for value in values if math.isfinite(value)), default=1.0)
    return high * 1.08 if high > 0 else 1.0


def value_text(unit: str, point: CommitPoint) -> str:
    """``17.0 ms [16.9 ms .. 17.1 ms]``: a commit's mean and its 95 % interval
    (``[-]`` when it has none, as ``history show`` says)."""
    if not (math.isfinite(point.low) and math.isfinite(point.high)):
        return f"{format_value(unit, point.mean)} [-]"
    mean, low, high = (format_value(unit, number) for number in (point.mean, point.low, point.high))
    return f"{mean} [{low} .. {high}]"


def _x(index: int, count: int, left: float, width: float) -> float:
    return left + (width / 2 if count == 1 else width * index / (count - 1))


def point_title(timeline: Timeline, index: int) -> str:
    """What hovering a point says: commit, date, value [interval], processes."""
    point = timeline.commits[index]
    date = (point.date or "")[:19].replace("T", " ")
    return (
        f"{point.commit[:12]} {date}\n{value_text(timeline.unit, point)}\n"
        f"{point.processes} process{'es' if point.processes != 1 else ''}"
    )


def timeline_svg(timeline: Timeline) -> str:
    """The SVG text of *timeline*: its points, intervals, changes and spikes."""
    points = timeline.commits
    count = len(points)
    top_value = _top([bound for point in points for bound in (point.mean, point.high)])
    plot_width = WIDTH - LEFT - RIGHT
    plot_height = HEIGHT - TOP - BOTTOM

    def y(value: float) -> float:
        return TOP + plot_height * (1 - value / top_value)

    parts = [
        f'<svg class="timeline" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{escape(timeline.benchmark)} on {escape(timeline.machine)}">',
        f'<line class="axis" x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH - RIGHT}" y2="{HEIGHT - BOTTOM}"/>',
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{HEIGHT - BOTTOM}"/>',
    ]
    for fraction in (0.0, 0.5, 1.0):
        value = top_value * fraction
        parts.append(
            f'<text class="tick" x="{LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end">'
            f"{escape(format_value(timeline.unit, value) if value else '0')}</text>"
        )
    for change in timeline.changes:
        x = (_x(change.index - 1, count, LEFT, plot_width) + _x(change.index, count, LEFT, plot_width)) / 2
        parts.append(
            f'<line class="change {escape(change.direction)}" x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" '
            f'y2="{HEIGHT - BOTTOM}" data-commit="{escape(change.after)}"/>'
            f'<text class="change-label" x="{x + 4:.1f}" y="{TOP - 8}">{escape(format_ratio(change.ratio))}</text>'
        )
    spikes = {spike.index for spike in timeline.spikes}
    for index, point in enumerate(points):
        x = _x(index, count, LEFT, plot_width)
        kind = "point spike" if index in spikes else "point"
        if math.isfinite(point.low) and math.isfinite(point.high):  # one process: no interval to draw
            low, high = max(point.low, 0.0), min(point.high, top_value)
            parts.append(f'<line class="interval" x1="{x:.1f}" y1="{y(low):.1f}" x2="{x:.1f}" y2="{y(high):.1f}"/>')
        parts.append(
            f'<circle class="{kind}" cx="{x:.1f}" cy="{y(point.mean):.1f}" r="3.5" '
            f'data-commit="{escape(point.commit)}"><title>{escape(point_title(timeline, index))}</title></circle>'
        )
    if points:
        for index, anchor in ((0, "start"), (count - 1, "end"))[: 1 if count == 1 else 2]:
            x = _x(index, count, LEFT, plot_width)
            parts.append(
                f'<text class="tick" x="{x:.1f}" y="{HEIGHT - 8}" text-anchor="{anchor if count > 1 else "middle"}">'
                f"{escape(points[index].commit[:8])}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)


def sparkline(timeline: Timeline) -> str:
    """The overview's small line of *timeline*'s means, its changes marked."""
    means = [point.mean for point in timeline.commits]
    count = len(means)
    top_value = _top(means)
    coordinates = " ".join(
        f"{_x(index, count, 2, SPARK_WIDTH - 4):.1f},{2 + (SPARK_HEIGHT - 4) * (1 - mean / top_value):.1f}"
        for index, mean in enumerate(means)
    )
    marks = "".join(
        f'<circle class="{escape(change.direction)}" r="2.5" '
        f'cx="{_x(change.index, count, 2, SPARK_WIDTH - 4):.1f}" '
        f'cy="{2 + (SPARK_HEIGHT - 4) * (1 - means[change.index] / top_value):.1f}"/>'
        for change in timeline.changes
    )
    return (
        f'<svg class="spark" viewBox="0 0 {SPARK_WIDTH} {SPARK_HEIGHT}" width="{SPARK_WIDTH}" '
        f'height="{SPARK_HEIGHT}" aria-hidden="true"><polyline points="{coordinates}"/>{marks}</svg>'
    )
