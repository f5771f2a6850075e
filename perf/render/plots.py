"""Figures of results (the optional ``plot`` extra: matplotlib).

Three kinds, each a function from result suites to a matplotlib Figure:

- :func:`distribution_figure`: histogram + density of the values and of
  the process means, one colour per file, one panel per benchmark, a
  shared axis between files;
- :func:`timeline_figure`: every value in run order, coloured by process,
  warmups marked: drift, warmup curves and noisy processes at a glance;
- :func:`compare_figure`: per-benchmark ratios with their confidence
  intervals against a reference file, sorted, the equivalence band drawn,
  the suite's geometric mean on top.

:func:`figure_bytes` turns a figure into PNG or SVG bytes (reproducible:
no date, SVG ids from a fixed salt, clip paths numbered in order).  matplotlib is imported only when a figure is
made, with the non-interactive Agg backend; without it,
:func:`require_matplotlib` raises one MissingDependencyError that says what to install.
Figures are built with matplotlib's object API (``Figure``), never
registered with pyplot, never shown.  Workers never import this module.

Must not: read files, print, compute statistics (densities and
comparisons come from :mod:`perf.analysis`).
"""

from __future__ import annotations

import functools
import importlib
import io
import itertools
import math
import re
import sys
import warnings
from typing import Any, Callable, NamedTuple, Sequence, TypeVar

from perf.analysis import compare
from perf.analysis.benchmarks import compare_benchmarks
from perf.analysis.compare import Comparison, combine_comparisons
from perf.analysis.density import gaussian_kde, histogram_edges
from perf.model.benchmark import Benchmark
from perf.model.suite import BenchmarkSuite
from perf.render.compare import format_change
from perf.render.units import format_filesize, format_timedelta

#: (title, suite) of each file, in the order given on the command line
Files = Sequence[tuple[str, BenchmarkSuite]]

_NEEDS = "the plot and report commands need matplotlib"
#: the name perf on PyPI is an unrelated old release: the extra is installed
#: from a clone (pip install ".[plot]" at its root), or matplotlib alone
INSTALL_HINT = f'{_NEEDS}: pip install matplotlib (or pip install ".[plot]" in a clone of perf)'

#: the module :func:`require_matplotlib` imports (the tests point it at a
#: module that does not exist to see the message of a missing matplotlib)
MATPLOTLIB_MODULE = "matplotlib"

#: the oldest matplotlib with what the figures use (figure legends outside
#: the axes, ``Figure(layout=...)``, ``subplots(height_ratios=...)``)
MINIMUM_MATPLOTLIB = (3, 7)
#: what :func:`figure_bytes` writes
FORMATS = ("png", "svg")
#: the resolution of PNG figures
DPI = 100
#: the salt of the SVG ids (matplotlib draws random ids without one)
SVG_HASH_SALT = "perf"
#: the most benchmark panels of a distribution figure, and the most
#: (benchmark, file) panels of a timeline
MAX_PANELS = 12

#: one colour per file (distribution) or per process (timeline): the
#: "tab10" qualitative colours, fixed here so that a user style does not
#: change what a colour means
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
#: the colour of each verdict of a comparison
VERDICT_COLOURS = {
    compare.SLOWER: "#d62728",
    compare.FASTER: "#2ca02c",
    compare.SMALL_CHANGE: "#ff7f0e",
    compare.NO_CHANGE: "#1f77b4",
    compare.INCONCLUSIVE: "#7f7f7f",
}
#: the marker of each changed file of a comparison
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
_NOTE_SIZE = 8.5
#: characters of a note per inch of figure width
_NOTE_CHARS_PER_INCH = 14

__all__ = [
    "FORMATS",
    "INSTALL_HINT",
    "MATPLOTLIB_MODULE",
    "compare_figure",
    "distribution_figure",
    "figure_bytes",
    "require_matplotlib",
    "timeline_figure",
]


# --- matplotlib -----------------------------------------------------------------------

#: pyparsing >= 3.3 warns (a UserWarning) about the names older matplotlib
#: releases (3.9, the last one for Python 3.9) still call: noise for users
_DEPENDENCY_NOISE = r"'\w+' deprecated - use '\w+'"

_F = TypeVar("_F", bound=Callable[..., Any])


def _quiet(function: _F) -> _F:
    """*function* without the deprecation warnings of matplotlib's own
    dependencies (they say nothing about perf or its input)."""

    @functools.wraps(function)
    def quiet(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_DEPENDENCY_NOISE, category=DeprecationWarning)
            return function(*args, **kwargs)

    return quiet  # type: ignore[return-value]


@_quiet
def require_matplotlib() -> Any:
    """The ``matplotlib.pyplot`` module with the Agg backend; raises
    perf.errors.MissingDependencyError with :data:`INSTALL_HINT` when matplotlib
    cannot be imported."""
    from perf.errors import MissingDependencyError

    try:
        matplotlib = importlib.import_module(MATPLOTLIB_MODULE)
    except ImportError:
        raise MissingDependencyError(INSTALL_HINT) from None
    version = str(getattr(matplotlib, "__version__", ""))
    found = _version_tuple(version)
    if found and found < MINIMUM_MATPLOTLIB:  # an unknown version may do
        wanted = ".".join(map(str, MINIMUM_MATPLOTLIB))
        raise MissingDependencyError(f"{_NEEDS} {wanted} or newer, not {version}: pip install -U matplotlib")
    pyplot_name = MATPLOTLIB_MODULE + ".pyplot"
    if pyplot_name not in sys.modules:
        # before pyplot chooses a backend; a program that imported pyplot
        # already keeps its own (our figures never go through it)
        matplotlib.use("Agg")
    return importlib.import_module(pyplot_name)


def _version_tuple(version: str) -> tuple[int, ...]:
    """``(3, 11)`` for ``"3.11.2"``; ``()`` when *version* does not start
    with numbers."""
    numbers = []
    for part in version.split(".")[:2]:
        digits = "".join(itertools.takewhile(str.isdigit, part))
        if not digits:
            break
        numbers.append(int(digits))
    return tuple(numbers)


def _new_figure(width: float, height: float) -> Any:
    require_matplotlib()
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


@_quiet
def figure_bytes(figure: Any, fmt: str) -> bytes:
    """*figure* as ``"png"`` or ``"svg"`` bytes, reproducibly."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown figure format {fmt!r}: choose one of {', '.join(FORMATS)}")
    pyplot = require_matplotlib()
    import matplotlib

    buffer = io.BytesIO()
    try:
        # no date in the metadata; hashed, not random, SVG ids
        metadata = {"Date": None} if fmt == "svg" else {}
        with matplotlib.rc_context({"svg.hashsalt": SVG_HASH_SALT}):
            figure.savefig(buffer, format=fmt, dpi=DPI, metadata=metadata)
    finally:
        pyplot.close(figure)
    if fmt == "svg":
        return _number_clip_paths(buffer.getvalue().decode("utf-8")).encode("utf-8")
    return buffer.getvalue()


_CLIP_PATH_ID = re.compile(r'<clipPath id="(p[0-9a-f]{10})"')
_CLIP_PATH_REFERENCE = re.compile(r'(?<=[#"])p[0-9a-f]{10}(?=[")])')


def _number_clip_paths(svg: str) -> str:
    """*svg* with its clip paths named ``clip1``, ``clip2``... in order.

    matplotlib names a clip path after a hash of its rectangle, and the
    constrained layout places the axes a few ulps apart from one drawing
    to the next: the same figure would get other names."""
    names = {old: f"clip{number}" for number, old in enumerate(dict.fromkeys(_CLIP_PATH_ID.findall(svg)), 1)}
    return _CLIP_PATH_REFERENCE.sub(lambda match: names.get(match.group(0), match.group(0)), svg)


# --- axes in the unit of a benchmark ---------------------------------------------------

_TIME_FACTORS = {"sec": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}
_SIZE_FACTORS = {"byte": 1.0, "bytes": 1.0, "KiB": 1.0 / 1024, "MiB": 1.0 / 1024**2}


def _scale(unit: str, reference: float) -> tuple[float, str]:
    """(factor, suffix): the unit in which perf's text shows *reference*."""
    if unit == "second":
        suffix = format_timedelta(reference).rsplit(" ", 1)[-1]
        return _TIME_FACTORS[suffix], suffix
    if unit == "byte":
        suffix = format_filesize(reference).rsplit(" ", 1)[-1]
        return _SIZE_FACTORS[suffix], "bytes" if suffix == "byte" else suffix
    return 1.0, ""


def _decimals(step: float) -> int:
    """The decimals that write the multiples of *step* exactly."""
    for decimals in range(10):
        if abs(round(step, decimals) - step) <= abs(step) * 1e-6:
            return decimals
    return 10


def _unit_axis(axis: Any, unit: str, reference: float, bins: int) -> None:
    """Ticks of *axis* in the unit perf's text would use for *reference*
    (``2.05 us``, ``14.1 MiB``): at round numbers of that unit, with as
    many decimals as their spacing needs."""
    from matplotlib import ticker

    factor, suffix = _scale(unit, reference)
    nice = ticker.MaxNLocator(nbins=bins, steps=[1, 2, 2.5, 5, 10])

    class UnitLocator(ticker.Locator):
        def __call__(self) -> Sequence[float]:
            low, high = self.axis.get_view_interval() if self.axis is not None else (0.0, 1.0)
            return self.tick_values(low, high)

        def tick_values(self, vmin: float, vmax: float) -> Sequence[float]:
            return [tick / factor for tick in nice.tick_values(vmin * factor, vmax * factor)]

    class UnitFormatter(ticker.Formatter):
        decimals = 0

        def set_locs(self, locs: list[float]) -> None:
            super().set_locs(locs)
            steps = [abs(b - a) * factor for a, b in zip(locs, locs[1:]) if b != a]
            self.decimals = _decimals(min(steps)) if steps else 2

        def __call__(self, x: float, pos: int | None = None) -> str:
            text = f"{x * factor:.{self.decimals}f}"
            return f"{text} {suffix}" if suffix else text

    axis.set_major_locator(UnitLocator())
    axis.set_major_formatter(UnitFormatter())


# --- selection ---------------------------------------------------------------------


def _by_name(suite: BenchmarkSuite) -> dict[str, Benchmark]:
    return {benchmark.get_name(): benchmark for benchmark in suite}


def _selected_names(files: Files, names: Sequence[str] | None) -> list[str]:
    """*names* (in their order) found in some file; by default every
    benchmark in the order of first appearance."""
    found: dict[str, None] = {}
    for _title, suite in files:
        for name in suite.get_benchmark_names():
            found.setdefault(name)
    if names is None:
        return list(found)
    return [name for name in dict.fromkeys(names) if name in found]


def _capped_note(shown: int, total: int, what: str) -> str:
    if shown >= total:
        return ""
    return f"Only the first {shown} of {total} {what} are shown: select benchmarks by name to see the others."


def _notes(figure: Any, notes: Sequence[str]) -> None:
    """*notes* under the figure, wrapped to its width."""
    import textwrap

    width = int(figure.get_figwidth() * _NOTE_CHARS_PER_INCH)
    lines = [line for note in notes if note for line in textwrap.wrap(note, width)]
    if lines:
        figure.supxlabel("\n".join(lines), fontsize=_NOTE_SIZE, color="#444444")


def _header(figure: Any, title: str, handles: Sequence[Any] = (), labels: Sequence[str] = (), columns: int = 4) -> None:
    """*title* on top of *figure*, above the legend of *handles* when
    there is one (the legend's own title: a figure legend placed outside
    the axes would cover a suptitle)."""
    if not handles:
        figure.suptitle(title, fontsize=12)
        return
    figure.legend(
        list(handles), list(labels), loc="outside upper center", ncols=min(len(labels), columns),
        fontsize=9, frameon=False, title=title, title_fontsize=12,
    )  # fmt: skip


def _corner(ax: Any, text: str, right: bool) -> None:
    """A small *text* in the upper right (left) corner of *ax*."""
    x, align = (0.99, "right") if right else (0.01, "left")
    ax.text(x, 0.96, text, transform=ax.transAxes, ha=align, va="top", fontsize=8, color="#444444")


def _message(ax: Any, text: str) -> None:
    """*text* in the middle of an empty panel."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", fontsize=9, color="#444444", wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])


# --- distribution ------------------------------------------------------------------


class _Sample(NamedTuple):
    title: str
    colour: str
    values: list[float]


def _draw_samples(ax: Any, samples: Sequence[_Sample], label: str) -> tuple[float, float]:
    """Histograms on shared bins and density curves of *samples* (one
    per file); a sample whose values are all equal (one value) is a
    vertical line: a bin would draw a spread that is not there.  Returns
    the x range of what was drawn."""
    counts = " / ".join(str(len(sample.values)) for sample in samples)
    ax.set_yticks([])
    ax.set_ylabel(label, fontsize=9)
    ax.margins(y=0.15)  # room for the counts
    _corner(ax, f"n = {counts}", right=True)
    spread = [sample for sample in samples if min(sample.values) != max(sample.values)]
    extent = [value for sample in samples for value in (min(sample.values), max(sample.values))]
    for sample in samples:
        if sample not in spread:
            ax.axvline(sample.values[0], color=sample.colour, linewidth=2)
    if not spread:
        return min(extent), max(extent)
    edges = histogram_edges([sample.values for sample in spread])
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
        xs, ys = gaussian_kde(sample.values)
        ax.plot(xs, ys, color=sample.colour, linewidth=1.6)
        extent.extend((xs[0], xs[-1]))
    return min(extent), max(extent)


def _distribution_panel(axes: tuple[Any, Any], name: str, files: Files, found: Sequence[Benchmark | None]) -> None:
    ax_values, ax_means = axes
    present = [(index, benchmark) for index, benchmark in enumerate(found) if benchmark is not None]
    unit = present[0][1].get_unit()
    values: list[_Sample] = []
    means: list[_Sample] = []
    missing: list[str] = []
    for index, benchmark in present:
        title = files[index][0]
        if not benchmark.get_nvalue():
            missing.append(f"{title}: no values (only calibration runs)")
            continue
        if benchmark.get_unit() != unit:
            missing.append(f"{title}: in {benchmark.get_unit()}, not {unit}")
            continue
        colour = PALETTE[index % len(PALETTE)]
        values.append(_Sample(title, colour, [float(value) for value in benchmark.get_values()]))
        means.append(_Sample(title, colour, benchmark.get_process_means()))
    ax_values.set_title(name, fontsize=11, fontweight="bold")
    if not values:
        _message(ax_values, "\n".join(missing) if len(files) > 1 else "no values (only calibration runs)")
        ax_means.set_axis_off()
        return
    extents = _draw_samples(ax_values, values, "values") + _draw_samples(ax_means, means, "process\nmeans")
    low, high = min(extents), max(extents)
    pad = (high - low) * 0.06 or abs(low) * 0.01 or 1.0
    ax_values.set_xlim(low - pad, high + pad)
    _unit_axis(ax_means.xaxis, unit, high, 7)
    ax_values.tick_params(labelbottom=False)
    if missing:
        _corner(ax_values, "\n".join(missing), right=False)


def _file_handles(files: Files) -> list[Any]:
    """A patch of the colour of each file (none for a single file)."""
    from matplotlib.patches import Patch

    if len(files) < 2:
        return []
    return [Patch(color=PALETTE[index % len(PALETTE)], alpha=0.6) for index in range(len(files))]


_DISTRIBUTION_TITLE = "Distribution of the values and of the process means"


@_quiet
def distribution_figure(files: Files, names: Sequence[str] | None = None) -> Any:
    """Histogram and density of the values and of the process means of the
    benchmarks *names* (default: every benchmark found in any file)."""
    selected = _selected_names(files, names)
    shown = selected[:MAX_PANELS]
    columns = 1 if len(shown) <= 1 else 2
    rows = max(1, math.ceil(len(shown) / columns))
    figure = _new_figure(6.4 * columns, 3.4 * rows + 1.2)
    _header(figure, _DISTRIBUTION_TITLE, _file_handles(files), [title for title, _suite in files])
    if not shown:
        _message(figure.subplots(), "no benchmark to show")
        return figure
    tables = [_by_name(suite) for _title, suite in files]
    # one grid, not subfigures: the layout of subfigures moves by a few
    # ulps from one drawing to the next, and the SVG would change
    # (and an empty row between panels keeps them apart)
    grid = figure.add_gridspec(3 * rows - 1, columns, height_ratios=([2, 1, 0.2] * rows)[:-1])
    for position, name in enumerate(shown):
        row, column = divmod(position, columns)
        ax_values = figure.add_subplot(grid[3 * row, column])
        ax_means = figure.add_subplot(grid[3 * row + 1, column], sharex=ax_values)
        _distribution_panel((ax_values, ax_means), name, files, [table.get(name) for table in tables])
    notes = [
        "Bars: histogram; lines: Gaussian kernel density (Silverman's bandwidth). "
        "A process mean is the mean of the values of one worker process.",
        _capped_note(len(shown), len(selected), "benchmarks"),
    ]
    _notes(figure, notes)
    return figure


# --- timeline --------------------------------------------------------------------


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
        colour = PALETTE[number % len(PALETTE)]
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
    _unit_axis(ax.yaxis, benchmark.get_unit(), limits[1] if limits else _largest(runs), 5)
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


@_quiet
def timeline_figure(files: Files, names: Sequence[str] | None = None) -> Any:
    """Every value (warmups marked) in run order, coloured by process."""
    tables = [_by_name(suite) for _title, suite in files]
    panels: list[tuple[str, str, Benchmark]] = []
    for name in _selected_names(files, names):
        for (title, _suite), table in zip(files, tables):
            if name in table:
                panels.append((name, title, table[name]))
    shown = panels[:MAX_PANELS]
    figure = _new_figure(10.0, (2.5 if len(shown) <= 4 else 2.1) * max(1, len(shown)) + 1.3)
    _header(figure, "Values in run order, one colour per process", *_timeline_legend())
    if not shown:
        _message(figure.subplots(), "no benchmark to show")
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
            _corner(ax, "no values (only calibration runs)", right=True)
    notes = [
        "x: every warmup and value in run order; grey lines separate the worker processes.",
        f"{outside} warmups beyond the range of the values are drawn on the edge of their panel." if outside else "",
        _capped_note(len(shown), len(panels), "panels (one per benchmark and file)"),
    ]
    _notes(figure, notes)
    return figure


def _union(first: tuple[float, float] | None, second: tuple[float, float] | None) -> tuple[float, float] | None:
    if first is None:
        return second
    if second is None:
        return first
    return min(first[0], second[0]), max(first[1], second[1])


# --- compare -------------------------------------------------------------------


class _Row(NamedTuple):
    label: str
    comparisons: list[Comparison]
    suite: bool = False


class _Style(NamedTuple):
    marker: str
    size: float
    #: the geometric mean: a black edge
    suite: bool


def _compare_rows(
    reference: tuple[str, BenchmarkSuite], changed: Files, margin: float, robust: bool
) -> tuple[list[_Row], list[str]]:
    """The rows of the comparison, geometric mean first then by ratio
    (slowest at the top), and the benchmarks left out with the reason."""
    tables = [_by_name(suite) for _title, suite in changed]
    rows: list[_Row] = []
    skipped: list[str] = []
    for benchmark in reference[1]:
        name = benchmark.get_name()
        others = [table.get(name) for table in tables]
        if any(other is None for other in others):
            continue
        sides = [benchmark, *(other for other in others if other is not None)]
        if any(not side.get_nvalue() for side in sides):
            skipped.append(f"{name} (no values)")
            continue
        if len({side.get_unit() for side in sides}) > 1:
            skipped.append(f"{name} (different units)")
            continue
        if len({side.get_clock() for side in sides}) > 1:
            skipped.append(f"{name} (different clocks)")
            continue
        comparisons = [compare_benchmarks(benchmark, other, margin, robust) for other in sides[1:]]
        rows.append(_Row(name, comparisons))
    rows.sort(key=lambda row: row.comparisons[0].ratio, reverse=True)
    if len(rows) >= 2:
        means = [combine_comparisons([row.comparisons[i] for row in rows], margin) for i in range(len(changed))]
        rows.insert(0, _Row("geometric mean", means, suite=True))
    return rows, skipped


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
    decimals = _decimals(step) if step < 1 else 0
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


def _compare_legend(rows: Sequence[_Row], changed: Files, margin: float) -> tuple[list[Any], list[str]]:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Any] = []
    labels: list[str] = []
    verdicts = {comparison.verdict for row in rows for comparison in row.comparisons}
    for verdict in compare.VERDICTS:
        if verdict in verdicts:
            handles.append(Line2D([], [], color=VERDICT_COLOURS[verdict], marker="o", linewidth=1.6))
            labels.append(verdict)
    if margin > 0:
        handles.append(Patch(color="#e4e4e4"))
        labels.append(f"within \u00b1{margin * 100:g}%")
    if len(changed) > 1:
        for index, (title, _suite) in enumerate(changed):
            handles.append(Line2D([], [], color="#444444", marker=MARKERS[index % len(MARKERS)], linestyle="none"))
            labels.append(title)
    return handles, labels


def _methods_note(rows: Sequence[_Row]) -> str:
    methods = {comparison.method for row in rows if not row.suite for comparison in row.comparisons}
    names = {
        compare.WELCH: "Welch's t on the logs of the process means",
        compare.PAIRED: "paired t on the interleaved pairs",
        compare.RANKS: "Mann-Whitney / Hodges-Lehmann on the process means",
        compare.SIGNED_RANKS: "Wilcoxon signed ranks on the interleaved pairs",
    }
    used = [names[method] for method in names if method in methods]
    text = "Ratio of the geometric means of the process means, changed / reference, with its 95% interval"
    if used:
        text += " (" + "; ".join(used) + ")"
    return text + "."


@_quiet
def compare_figure(reference: tuple[str, BenchmarkSuite], changed: Files, margin: float, robust: bool = False) -> Any:
    """Ratios changed / reference of each benchmark in all files, with
    their confidence interval (perf.analysis.benchmarks.compare_benchmarks),
    sorted, the +-margin equivalence band, the geometric mean on top."""
    rows, skipped = _compare_rows(reference, changed, margin, robust)
    series = len(changed)
    pitch = max(0.34, 0.24 * series)
    single = series == 1
    width = 11.0 if single else 9.0
    figure = _new_figure(width, 2.2 + pitch * max(1, len(rows)))
    titles = ", ".join(title for title, _suite in changed)
    title = f"{titles} compared to {reference[0]}"
    ax = figure.subplots()
    if not rows:
        _header(figure, title)
        _message(ax, "no benchmark with values in every file")
        _notes(figure, [_skipped_note(skipped)])
        return figure
    limits = _ratio_limits(rows, margin)
    if margin > 0:
        ax.axvspan(1.0 / (1.0 + margin), 1.0 + margin, color="#e4e4e4", zorder=0, linewidth=0)
    ax.axvline(1.0, color="black", linewidth=0.8, zorder=1)
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
    _ratio_axis(ax, limits)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([row.label for row in rows], fontsize=9)
    if rows[0].suite:
        ax.get_yticklabels()[0].set_fontweight("bold")
    ax.set_ylim(len(rows) - 0.5, -0.5)
    if single:
        _change_labels(ax, rows, margin)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6, zorder=0)
    ax.set_xlabel("changed / reference (log scale): below 1x faster, above 1x slower", fontsize=9)
    _header(figure, title, *_compare_legend(rows, changed, margin), columns=6)
    _notes(figure, [_methods_note(rows), _skipped_note(skipped)])
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
    right.set_yticklabels([format_change(row.comparisons[0], margin, meaning=False) for row in rows], fontsize=8)
    right.tick_params(axis="y", length=0, pad=8)  # clear of the arrow heads on the edge
    for label, row in zip(right.get_yticklabels(), rows):
        label.set_color(VERDICT_COLOURS[row.comparisons[0].verdict])


def _skipped_note(skipped: Sequence[str]) -> str:
    return "Left out: " + ", ".join(skipped) if skipped else ""
