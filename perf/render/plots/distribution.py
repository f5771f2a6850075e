"""The distribution figure: per benchmark, the histogram and density of the
values and of the process means, one colour per file, one panel per
benchmark (at most :data:`~perf.render.plots.canvas.MAX_PANELS`), a shared
axis between files.

The samples, bins and densities are the caller's: a
:class:`~perf.analysis.summaries.DistributionPanel` per benchmark
(:func:`perf.analysis.summaries.distribution_panels` of the names of
:func:`panel_names`).

Must not: read files, print, or compute statistics.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence

from perf.model.benchmark import Benchmark
from perf.render.plots import canvas

if TYPE_CHECKING:
    from perf.analysis.density import AxisShape
    from perf.analysis.summaries import DistributionPanel

__all__ = ["distribution_figure", "panel_names"]


class _Sample(NamedTuple):
    title: str
    colour: str
    values: list[float]
    #: the density curve (xs, ys), empty when the values do not spread
    density: tuple[list[float], list[float]]


def _draw_samples(ax: Any, samples: Sequence[_Sample], label: str, edges: Sequence[float]) -> tuple[float, float]:
    """Histograms on shared bins and density curves of *samples* (one
    per file); a sample whose values are all equal (one value) is a
    vertical line: a bin would draw a spread that is not there.  Returns
    the x range of what was drawn."""
    counts = " / ".join(str(len(sample.values)) for sample in samples)
    ax.set_yticks([])
    ax.set_ylabel(label, fontsize=9)
    ax.margins(y=0.15)  # room for the counts
    canvas.corner_text(ax, f"n = {counts}", right=True)
    spread = [sample for sample in samples if min(sample.values) != max(sample.values)]
    extent = [value for sample in samples for value in (min(sample.values), max(sample.values))]
    for sample in samples:
        if sample not in spread:
            ax.axvline(sample.values[0], color=sample.colour, linewidth=2)
    if not spread:
        return min(extent), max(extent)
    for sample in spread:
        ax.hist(
            sample.values,
            bins=edges,
            density=True,
            color=sample.colour,
            alpha=0.3 if len(samples) > 1 else 0.45,
            edgecolor=sample.colour,
            linewidth=0.6,
        )
        xs, ys = sample.density
        ax.plot(xs, ys, color=sample.colour, linewidth=1.6)
        extent.extend((xs[0], xs[-1]))
    return min(extent), max(extent)


def _sample(title: str, colour: str, shape: AxisShape, position: int) -> _Sample:
    return _Sample(title, colour, shape.samples[position], shape.densities[position])


def _distribution_panel(
    axes: tuple[Any, Any], name: str, files: canvas.Files, found: Sequence[Benchmark | None], panel: DistributionPanel
) -> None:
    ax_values, ax_means = axes
    present = [(index, benchmark) for index, benchmark in enumerate(found) if benchmark is not None]
    unit = present[0][1].get_display_unit()
    values: list[_Sample] = []
    means: list[_Sample] = []
    missing: list[str] = []
    for index, benchmark in present:
        title = files[index][0]
        if index not in panel.files:
            if not benchmark.get_nvalue():
                missing.append(f"{title}: no values (only calibration runs)")
            else:
                missing.append(f"{title}: in {benchmark.get_display_unit()}, not {unit}")
            continue
        colour = canvas.PALETTE[index % len(canvas.PALETTE)]
        position = panel.files.index(index)
        values.append(_sample(title, colour, panel.values, position))
        means.append(_sample(title, colour, panel.means, position))
    ax_values.set_title(name, fontsize=11, fontweight="bold")
    if not values:
        canvas.panel_message(ax_values, "\n".join(missing) if len(files) > 1 else "no values (only calibration runs)")
        ax_means.set_axis_off()
        return
    extents = _draw_samples(ax_values, values, "values", panel.values.edges) + _draw_samples(
        ax_means, means, "process\nmeans", panel.means.edges
    )
    low, high = min(extents), max(extents)
    pad = (high - low) * 0.06 or abs(low) * 0.01 or 1.0
    ax_values.set_xlim(low - pad, high + pad)
    canvas.unit_axis(ax_means.xaxis, unit, high, 7)
    ax_values.tick_params(labelbottom=False)
    if missing:
        canvas.corner_text(ax_values, "\n".join(missing), right=False)


def _file_handles(files: canvas.Files) -> list[Any]:
    """A patch of the colour of each file (none for a single file)."""
    from matplotlib.patches import Patch

    if len(files) < 2:
        return []
    return [Patch(color=canvas.PALETTE[index % len(canvas.PALETTE)], alpha=0.6) for index in range(len(files))]


_DISTRIBUTION_TITLE = "Distribution of the values and of the process means"


def panel_names(files: canvas.Files, names: Sequence[str] | None = None) -> list[str]:
    """The benchmarks :func:`distribution_figure` draws: *names* (default:
    every benchmark found in any file), at most
    :data:`~perf.render.plots.canvas.MAX_PANELS`."""
    return canvas.selected_names(files, names)[: canvas.MAX_PANELS]


@canvas.quiet
def distribution_figure(
    files: canvas.Files, names: Sequence[str] | None, panels: Mapping[str, DistributionPanel]
) -> Any:
    """Histogram and density of the values and of the process means of the
    benchmarks *names* (default: every benchmark found in any file).
    *panels* holds the :class:`~perf.analysis.summaries.DistributionPanel`
    of each name of :func:`panel_names`."""
    selected = canvas.selected_names(files, names)
    shown = selected[: canvas.MAX_PANELS]
    columns = 1 if len(shown) <= 1 else 2
    rows = max(1, math.ceil(len(shown) / columns))
    figure = canvas.new_figure(6.4 * columns, 3.4 * rows + 1.2)
    canvas.add_header(figure, _DISTRIBUTION_TITLE, _file_handles(files), [title for title, _suite in files])
    if not shown:
        canvas.panel_message(figure.subplots(), "no benchmark to show")
        return figure
    tables = [canvas.by_name(suite) for _title, suite in files]
    # one grid, not subfigures: the layout of subfigures moves by a few
    # ulps from one drawing to the next, and the SVG would change
    # (and an empty row between panels keeps them apart)
    grid = figure.add_gridspec(3 * rows - 1, columns, height_ratios=([2, 1, 0.2] * rows)[:-1])
    for position, name in enumerate(shown):
        row, column = divmod(position, columns)
        ax_values = figure.add_subplot(grid[3 * row, column])
        ax_means = figure.add_subplot(grid[3 * row + 1, column], sharex=ax_values)
        _distribution_panel((ax_values, ax_means), name, files, [table.get(name) for table in tables], panels[name])
    notes = [
        "Bars: histogram; lines: Gaussian kernel density (Silverman's bandwidth). "
        "A process mean is the mean of the values of one worker process.",
        canvas.capped_note(len(shown), len(selected), "benchmarks"),
    ]
    canvas.add_notes(figure, notes)
    return figure
