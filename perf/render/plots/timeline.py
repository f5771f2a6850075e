"""The timeline figure: every warmup and value in run order, coloured by
process, warmups hollow, calibration runs shaded: drift, warmup curves and
noisy processes at a glance.  One panel per benchmark and file (at most
:data:`~perf.render.plots.canvas.MAX_PANELS`); the panels of one benchmark
share their y axis, and warmups far beyond the values are drawn on its
edge.

Must not: read files, print, or compute statistics.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from perf.model.benchmark import Benchmark
from perf.render.plots import canvas
from perf.render.units import count_of

__all__ = ["timeline_figure"]


class _Point(NamedTuple):
    x: int
    value: float
    warmup: bool


def _run_points(benchmark: Benchmark) -> list[tuple[bool, list[_Point]]]:
    """(calibration run?, its points in order) of each run, x counting
    every warmup and value of the benchmark in run order."""
    runs = []
    x = 0
    for run in benchmark.get_runs():
        points = []
        for _loops, value in run.warmups:
            points.append(_Point(x, float(value), True))
            x += 1
        for value in run.values:
            points.append(_Point(x, float(value), False))
            x += 1
        runs.append((run.is_calibration(), points))
    return runs


def _value_limits(benchmark: Benchmark) -> tuple[float, float] | None:
    """The y range of a timeline: every value, and the warmups that are
    within one spread of the values (the spread: the range of the values,
    at least 2 % of the largest); warmups beyond are drawn on its edge.
    None for a benchmark without values."""
    values = benchmark.get_values()
    if not values:
        return None
    low, high = min(values), max(values)
    spread = max(high - low, abs(high) * 0.02)
    warmups = [value for run in benchmark.get_runs() for _loops, value in run.warmups]
    low = max(min(low, *warmups), low - spread) if warmups else low
    high = min(max(high, *warmups), high + spread) if warmups else high
    pad = (high - low) * 0.05 or spread * 0.5
    return low - pad, high + pad


def _timeline_panel(ax: Any, benchmark: Benchmark, limits: tuple[float, float] | None) -> int:
    """Draw the timeline of *benchmark*; return how many warmups fell
    outside *limits* (drawn as triangles on the edge)."""
    runs = _run_points(benchmark)
    total = sum(len(points) for _calibration, points in runs)
    size = 4.5 if total <= 150 else 3.0 if total <= 600 else 2.0
    outside = 0
    for number, (calibration, points) in enumerate(runs):
        if not points:
            continue
        first, last = points[0].x, points[-1].x
        if number:
            ax.axvline(first - 0.5, color="#bbbbbb", linewidth=0.7, zorder=1)
        if calibration:
            ax.axvspan(first - 0.5, last + 0.5, color="#eeeeee", zorder=0, linewidth=0)
        colour = canvas.PALETTE[number % len(canvas.PALETTE)]
        shown = [point._replace(value=_clip(point.value, limits)) for point in points]
        ax.plot([p.x for p in shown], [p.value for p in shown], color=colour, linewidth=0.6, alpha=0.5, zorder=2)
        # one artist per kind of marker of the run, not one per point
        groups: dict[tuple[str, bool], list[_Point]] = {}
        for point, drawn in zip(points, shown):
            marker = "o"
            if drawn.value != point.value:
                marker = "^" if point.value > drawn.value else "v"
                outside += 1
            groups.setdefault((marker, point.warmup), []).append(drawn)
        for (marker, warmup), group in groups.items():
            ax.plot(
                [point.x for point in group],
                [point.value for point in group],
                marker=marker,
                markersize=size,
                markerfacecolor="none" if warmup else colour,
                markeredgecolor=colour,
                markeredgewidth=0.9,
                linestyle="none",
                zorder=3,
            )
    if limits is not None:
        # room for the triangles drawn on the limits
        room = (limits[1] - limits[0]) * 0.06
        ax.set_ylim(limits[0] - room, limits[1] + room)
    ax.set_xlim(-0.5 - total * 0.01, total - 0.5 + total * 0.01)
    canvas.unit_axis(ax.yaxis, benchmark.get_display_unit(), limits[1] if limits else _largest(runs), 5)
    _integer_axis(ax.xaxis)
    return outside


def _largest(runs: Sequence[tuple[bool, list[_Point]]]) -> float:
    return max((point.value for _calibration, points in runs for point in points), default=1.0)


def _clip(value: float, limits: tuple[float, float] | None) -> float:
    if limits is None:
        return value
    return min(max(value, limits[0]), limits[1])


def _integer_axis(axis: Any) -> None:
    from matplotlib import ticker

    axis.set_major_locator(ticker.MaxNLocator(nbins=10, integer=True, min_n_ticks=1))
    axis.set_major_formatter(ticker.StrMethodFormatter("{x:.0f}"))


def _timeline_legend() -> tuple[list[Any], list[str]]:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [
        Line2D([], [], marker="o", color="#444444", linestyle="none", markersize=5),
        Line2D([], [], marker="o", markerfacecolor="none", markeredgecolor="#444444", linestyle="none", markersize=5),
        Line2D([], [], marker="^", markerfacecolor="none", markeredgecolor="#444444", linestyle="none", markersize=5),
        Patch(color="#eeeeee"),
    ]
    labels = ["value", "warmup", "warmup off the scale (\u25b2 above, \u25bc below)", "calibration run"]
    return handles, labels


@canvas.quiet
def timeline_figure(files: canvas.Files, names: Sequence[str] | None = None) -> Any:
    """Every value (warmups marked) in run order, coloured by process."""
    tables = [canvas.by_name(suite) for _title, suite in files]
    panels: list[tuple[str, str, Benchmark]] = []
    for name in canvas.selected_names(files, names):
        for (title, _suite), table in zip(files, tables):
            if name in table:
                panels.append((name, title, table[name]))
    shown = panels[: canvas.MAX_PANELS]
    figure = canvas.new_figure(10.0, (2.5 if len(shown) <= 4 else 2.1) * max(1, len(shown)) + 1.3)
    canvas.add_header(figure, "Values in run order, one colour per process", *_timeline_legend())
    if not shown:
        canvas.panel_message(figure.subplots(), "no benchmark to show")
        return figure
    axes = figure.subplots(len(shown), 1, squeeze=False)[:, 0]
    limits: dict[str, tuple[float, float] | None] = {}
    for name, _title, benchmark in shown:
        limits[name] = _union(limits.get(name), _value_limits(benchmark))
    several = len(files) > 1
    outside = 0
    for ax, (name, title, benchmark) in zip(axes, shown):
        ax.set_title(f"{name} ({title})" if several else name, fontsize=10, loc="left")
        outside += _timeline_panel(ax, benchmark, limits[name])
        if not benchmark.get_nvalue():
            canvas.corner_text(ax, "no values (only calibration runs)", right=True)
    notes = [
        "x: every warmup and value in run order; grey lines separate the worker processes.",
        f"{count_of(outside, 'warmup')} beyond the range of the values {'is' if outside == 1 else 'are'} drawn on "
        "the edge of their panel."
        if outside
        else "",
        canvas.capped_note(len(shown), len(panels), "panels (one per benchmark and file)"),
    ]
    canvas.add_notes(figure, notes)
    return figure


def _union(first: tuple[float, float] | None, second: tuple[float, float] | None) -> tuple[float, float] | None:
    if first is None:
        return second
    if second is None:
        return first
    return min(first[0], second[0]), max(first[1], second[1])
