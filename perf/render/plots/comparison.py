"""The comparison figure: the ratio changed / reference of each benchmark
with its confidence interval, coloured by verdict, sorted (slowest at the
top), the equivalence band drawn, the suite's geometric mean on top; one
marker per changed file.

The figure lays out the caller's
:class:`~perf.analysis.finished.FinishedComparison`: the benchmarks
compared, and those left out, are
:func:`perf.analysis.suites.compare_suites`'s: a benchmark that a file
lacks is not drawn, one without values, in other units or timed with
another clock is named in a note under the figure ("Left out: ...").

Must not: match or compare benchmarks itself, read files, print, or
compute statistics.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Sequence

from perf.analysis.compare import Comparison, Method, Verdict
from perf.analysis.finished import FinishedComparison
from perf.render.compare import format_change, format_ratio_source
from perf.render.plots.canvas import add_header, add_notes, new_figure, panel_message, quiet, step_decimals

__all__ = ["MARKERS", "VERDICT_COLOURS", "comparison_figure"]

#: the colour of each verdict of a comparison
VERDICT_COLOURS = {
    Verdict.SLOWER: "#d62728",
    Verdict.FASTER: "#2ca02c",
    Verdict.SMALL_CHANGE: "#ff7f0e",
    Verdict.NO_CHANGE: "#1f77b4",
    Verdict.INCONCLUSIVE: "#7f7f7f",
}
#: the marker of each changed file of a comparison
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")


class _Row(NamedTuple):
    label: str
    comparisons: Sequence[Comparison]
    suite: bool = False


class _Style(NamedTuple):
    marker: str
    size: float
    #: the geometric mean: a black edge
    suite: bool


def _rows(comparison: FinishedComparison) -> list[_Row]:
    """The rows of the figure: the geometric mean first, then the
    benchmarks by ratio (slowest at the top)."""
    rows = [_Row(entry.name, entry.comparisons) for entry in comparison.entries]
    rows.sort(key=lambda row: row.comparisons[0].ratio, reverse=True)
    if comparison.geometric_means is not None:
        rows.insert(0, _Row("geometric mean", comparison.geometric_means, suite=True))
    return rows


def _skipped(comparison: FinishedComparison) -> list[str]:
    """``'name (reason)'`` of each benchmark left out."""
    return [f"{skipped.name} ({skipped.reason})" for skipped in comparison.incompatible]


def _ratio_limits(rows: Sequence[_Row], margin: float) -> tuple[float, float]:
    """The x range (ratios): every finite ratio and bound, 1 and the band."""
    points = [1.0, 1.0 + margin, 1.0 / (1.0 + margin)]
    for row in rows:
        for comparison in row.comparisons:
            points.extend(value for value in comparison[:3] if 0 < value < math.inf)
    low, high = math.log(min(points)), math.log(max(points))
    pad = (high - low) * 0.06 or 0.01
    return math.exp(low - pad), math.exp(high + pad)


def _ratio_axis(ax: Any, limits: tuple[float, float]) -> None:
    from matplotlib import ticker

    ax.set_xscale("log")
    ax.set_xlim(*limits)
    low, high = limits
    if high / low <= 2.5:
        ticks = ticker.MaxNLocator(nbins=7, steps=[1, 2, 2.5, 5, 10]).tick_values(low, high)
    else:
        ticks = ticker.LogLocator(base=10.0, subs=(1.0, 2.0, 5.0)).tick_values(low, high)
    kept = [float(tick) for tick in ticks if low <= tick <= high and tick > 0]
    ax.xaxis.set_major_locator(ticker.FixedLocator(kept))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    step = min((b - a for a, b in zip(kept, kept[1:])), default=0.1)
    decimals = step_decimals(step) if step < 1 else 0
    ax.xaxis.set_major_formatter(ticker.FixedFormatter([f"{tick:.{decimals}f}x" for tick in kept]))


def _draw_interval(ax: Any, comparison: Comparison, y: float, limits: tuple[float, float], style: _Style) -> None:
    """The interval of *comparison* as a horizontal bar at *y*; a bound
    beyond the axis (or unknown) ends in an arrow head on the edge."""
    colour = VERDICT_COLOURS[comparison.verdict]
    low = max(comparison.low, limits[0]) if comparison.low > 0 else limits[0]
    high = min(comparison.high, limits[1])
    dashed = comparison.low <= 0 and math.isinf(comparison.high)
    ax.plot([low, high], [y, y], color=colour, linewidth=1.6, linestyle=":" if dashed else "-", zorder=2)
    for bound, edge, arrow in ((comparison.low, low, "<"), (comparison.high, high, ">")):
        clipped = bound != edge
        ax.plot(
            [edge], [y], marker=arrow if clipped else "|", color=colour,
            markersize=6 if clipped else 8, markeredgewidth=1.4, linestyle="none", zorder=2, clip_on=False,
        )  # fmt: skip
    ax.plot(
        [comparison.ratio], [y], marker=style.marker, color=colour, markersize=style.size,
        markeredgecolor="black" if style.suite else colour, linestyle="none", zorder=3,
    )  # fmt: skip


def _compare_legend(rows: Sequence[_Row], changed: Sequence[str], margin: float) -> tuple[list[Any], list[str]]:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Any] = []
    labels: list[str] = []
    verdicts = {comparison.verdict for row in rows for comparison in row.comparisons}
    for verdict in Verdict.ALL:
        if verdict in verdicts:
            handles.append(Line2D([], [], color=VERDICT_COLOURS[verdict], marker="o", linewidth=1.6))
            labels.append(verdict)
    if margin > 0:
        handles.append(Patch(color="#e4e4e4"))
        labels.append(f"within \u00b1{margin * 100:g}%")
    if len(changed) > 1:
        for index, title in enumerate(changed):
            handles.append(Line2D([], [], color="#444444", marker=MARKERS[index % len(MARKERS)], linestyle="none"))
            labels.append(title)
    return handles, labels


def _methods_note(rows: Sequence[_Row]) -> str:
    methods = {comparison.method for row in rows if not row.suite for comparison in row.comparisons}
    names = {
        Method.WELCH: "Welch's t on the logs of the process means",
        Method.PAIRED: "paired t on the interleaved pairs",
        Method.RANKS: "Mann-Whitney / Hodges-Lehmann on the process means",
        Method.SIGNED_RANKS: "Wilcoxon signed ranks on the interleaved pairs",
    }
    used = [names[method] for method in names if method in methods]
    text = "Ratio of the geometric means of the process means, changed / reference, with its 95% interval"
    if used:
        text += " (" + "; ".join(used) + ")"
    return text + "."


def _draw_rows(ax: Any, rows: Sequence[_Row], series: int, limits: tuple[float, float]) -> None:
    """The interval of each comparison of each row; with several changed
    files, their markers side by side in the row."""
    spread = 0.6 if series > 1 else 0.0
    for position, row in enumerate(rows):
        for index, comparison in enumerate(row.comparisons):
            offset = (index / (series - 1) - 0.5) * spread if series > 1 else 0.0
            style = _Style(MARKERS[index % len(MARKERS)], 8 if row.suite else 6, row.suite)
            _draw_interval(ax, comparison, position + offset, limits, style)
    for position in range(1, len(rows)):
        if position == 1 and rows[0].suite:
            ax.axhline(0.5, color="#999999", linewidth=0.8)
        elif series > 1:  # the rows of several files: which markers go together
            ax.axhline(position - 0.5, color="#e8e8e8", linewidth=0.6, zorder=0)


def _row_axis(ax: Any, rows: Sequence[_Row]) -> None:
    """The name of each row on the y axis, the geometric mean in bold."""
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([row.label for row in rows], fontsize=9)
    if rows[0].suite:
        ax.get_yticklabels()[0].set_fontweight("bold")
    ax.set_ylim(len(rows) - 0.5, -0.5)


@quiet
def comparison_figure(titles: Sequence[str], comparison: FinishedComparison) -> Any:
    """The figure of *comparison*; *titles*: of each file, the reference
    first."""
    rows, skipped = _rows(comparison), _skipped(comparison)
    margin = comparison.margin
    changed = titles[1:]
    series = len(changed)
    pitch = max(0.34, 0.24 * series)
    single = series == 1
    width = 11.0 if single else 9.0
    figure = new_figure(width, 2.2 + pitch * max(1, len(rows)))
    title = f"{', '.join(changed)} compared to {titles[0]}"
    ax = figure.subplots()
    if not rows:
        add_header(figure, title)
        panel_message(ax, "no benchmark with values in every file")
        add_notes(figure, [_skipped_note(skipped)])
        return figure
    limits = _ratio_limits(rows, margin)
    if margin > 0:
        ax.axvspan(1.0 / (1.0 + margin), 1.0 + margin, color="#e4e4e4", zorder=0, linewidth=0)
    ax.axvline(1.0, color="black", linewidth=0.8, zorder=1)
    _draw_rows(ax, rows, series, limits)
    _ratio_axis(ax, limits)
    _row_axis(ax, rows)
    if single:
        _change_labels(ax, rows, margin)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6, zorder=0)
    ax.set_xlabel("changed / reference (log scale): below 1x faster, above 1x slower", fontsize=9)
    add_header(figure, title, *_compare_legend(rows, changed, margin), columns=6)
    ratios = format_ratio_source(comparison.everything, comparison.correct)
    add_notes(figure, [_methods_note(rows), ratios, _skipped_note(skipped)])
    return figure


def _change_labels(ax: Any, rows: Sequence[_Row], margin: float) -> None:
    """Each row's change (``1.11x slower [1.10x .. 1.12x]``) on the right,
    in its verdict's colour: the tick labels of a twin y axis, so that the
    constrained layout makes room for the longest one (a text placed next
    to the axes could run past the right edge of the image)."""
    right = ax.twinx()
    # and a margin around the figure: the labels end clear of its edge
    ax.figure.get_layout_engine().set(w_pad=0.12)
    right.set_ylim(ax.get_ylim())
    right.set_yticks(range(len(rows)))
    right.set_yticklabels([_change_label(row.comparisons[0], margin) for row in rows], fontsize=8)
    right.tick_params(axis="y", length=0, pad=8)  # clear of the arrow heads on the edge
    for label, row in zip(right.get_yticklabels(), rows):
        label.set_color(VERDICT_COLOURS[row.comparisons[0].verdict])


def _change_label(comparison: Comparison, margin: float) -> str:
    label = format_change(comparison, margin, meaning=False)
    return f"{label}, corrected" if comparison.corrected else label


def _skipped_note(skipped: Sequence[str]) -> str:
    return "Left out: " + ", ".join(skipped) if skipped else ""
