"""The matplotlib side of the figures: importing it, new figures, their
bytes, axes in the unit of a benchmark, titles, legends and notes.

matplotlib is imported only when a figure is made, with the
non-interactive Agg backend; without it, :func:`require_matplotlib` raises
one MissingDependencyError that says what to install.  Figures are built
with matplotlib's object API (``Figure``), never registered with pyplot,
never shown.  :func:`figure_bytes` turns a figure into PNG or SVG bytes
(reproducible: no date, SVG ids from a fixed salt, clip paths numbered in
order).

Must not: draw a kind of figure (:mod:`perf.render.plots.distribution`,
:mod:`perf.render.plots.timeline` and :mod:`perf.render.plots.comparison`
do), read files, print, or compute statistics.
"""

from __future__ import annotations

import functools
import importlib
import io
import itertools
import re
import sys
import warnings
from typing import Any, Callable, Sequence, TypeVar

from perf.model.benchmark import Benchmark
from perf.model.metadata import COUNT_UNIT
from perf.model.suite import BenchmarkSuite
from perf.render.units import format_filesize, format_timedelta

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
#: the size of the notes under a figure
_NOTE_SIZE = 8.5
#: characters of a note per inch of figure width
_NOTE_CHARS_PER_INCH = 14

__all__ = [
    "DPI",
    "FORMATS",
    "INSTALL_HINT",
    "MATPLOTLIB_MODULE",
    "MAX_PANELS",
    "MINIMUM_MATPLOTLIB",
    "PALETTE",
    "SVG_HASH_SALT",
    "Files",
    "add_header",
    "add_notes",
    "by_name",
    "capped_note",
    "corner_text",
    "figure_bytes",
    "new_figure",
    "panel_message",
    "quiet",
    "require_matplotlib",
    "selected_names",
    "step_decimals",
    "unit_axis",
]


# --- matplotlib -----------------------------------------------------------------------

#: pyparsing >= 3.3 warns (a UserWarning) about the names older matplotlib
#: releases (3.9, the last one for Python 3.9) still call: noise for users
_DEPENDENCY_NOISE = r"'\w+' deprecated - use '\w+'"

_F = TypeVar("_F", bound=Callable[..., Any])


def quiet(function: _F) -> _F:
    """*function* without the deprecation warnings of matplotlib's own
    dependencies (they say nothing about perf or its input)."""

    @functools.wraps(function)
    def quiet(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_DEPENDENCY_NOISE, category=DeprecationWarning)
            return function(*args, **kwargs)

    return quiet  # type: ignore[return-value]


@quiet
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


def new_figure(width: float, height: float) -> Any:
    require_matplotlib()
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


@quiet
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
#: instruction counts: (factor, suffix) from the largest
_COUNT_FACTORS = ((1e-9, "G"), (1e-6, "M"), (1e-3, "k"))


def _scale(unit: str, reference: float) -> tuple[float, str]:
    """(factor, suffix): the unit in which perf's text shows *reference*."""
    if unit == "second":
        suffix = format_timedelta(reference).rsplit(" ", 1)[-1]
        return _TIME_FACTORS[suffix], suffix
    if unit == "byte":
        suffix = format_filesize(reference).rsplit(" ", 1)[-1]
        return _SIZE_FACTORS[suffix], "bytes" if suffix == "byte" else suffix
    if unit == COUNT_UNIT:  # 183.5k, 53.0M under an axis labelled "instructions"
        for factor, suffix in _COUNT_FACTORS:
            if abs(reference) * factor >= 10:
                return factor, suffix
    return 1.0, ""


def step_decimals(step: float) -> int:
    """The decimals that write the multiples of *step* exactly."""
    for decimals in range(10):
        if abs(round(step, decimals) - step) <= abs(step) * 1e-6:
            return decimals
    return 10


def unit_axis(axis: Any, unit: str, reference: float, bins: int) -> None:
    """Ticks of *axis* in the unit perf's text would use for *reference*
    (``2.05 us``, ``14.1 MiB``): at round numbers of that unit, with as
    many decimals as their spacing needs; *unit* is a benchmark's display
    unit: instruction counts get ticks of thousands or millions (``183.5k``)
    on an axis labelled ``instructions``."""
    from matplotlib import ticker

    factor, suffix = _scale(unit, reference)
    separator = " "
    if unit == COUNT_UNIT:
        axis.set_label_text(COUNT_UNIT, fontsize=9)
        separator = ""
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
            self.decimals = step_decimals(min(steps)) if steps else 2

        def __call__(self, x: float, pos: int | None = None) -> str:
            text = f"{x * factor:.{self.decimals}f}"
            return f"{text}{separator}{suffix}" if suffix else text

    axis.set_major_locator(UnitLocator())
    axis.set_major_formatter(UnitFormatter())


# --- selection ---------------------------------------------------------------------


def by_name(suite: BenchmarkSuite) -> dict[str, Benchmark]:
    """The benchmarks of *suite* by name."""
    return {benchmark.get_name(): benchmark for benchmark in suite}


def selected_names(files: Files, names: Sequence[str] | None) -> list[str]:
    """*names* (in their order) found in some file; by default every
    benchmark in the order of first appearance."""
    found: dict[str, None] = {}
    for _title, suite in files:
        for name in suite.get_benchmark_names():
            found.setdefault(name)
    if names is None:
        return list(found)
    return [name for name in dict.fromkeys(names) if name in found]


def capped_note(shown: int, total: int, what: str) -> str:
    """The note of a figure that shows *shown* of *total* panels (``''``
    when it shows them all)."""
    if shown >= total:
        return ""
    return f"Only the first {shown} of {total} {what} are shown: select benchmarks by name to see the others."


def add_notes(figure: Any, notes: Sequence[str]) -> None:
    """*notes* under the figure, wrapped to its width."""
    import textwrap

    width = int(figure.get_figwidth() * _NOTE_CHARS_PER_INCH)
    lines = [line for note in notes if note for line in textwrap.wrap(note, width)]
    if lines:
        figure.supxlabel("\n".join(lines), fontsize=_NOTE_SIZE, color="#444444")


def add_header(
    figure: Any, title: str, handles: Sequence[Any] = (), labels: Sequence[str] = (), columns: int = 4
) -> None:
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


def corner_text(ax: Any, text: str, right: bool) -> None:
    """A small *text* in the upper right (left) corner of *ax*."""
    x, align = (0.99, "right") if right else (0.01, "left")
    ax.text(x, 0.96, text, transform=ax.transAxes, ha=align, va="top", fontsize=8, color="#444444")


def panel_message(ax: Any, text: str) -> None:
    """*text* in the middle of an empty panel."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", fontsize=9, color="#444444", wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])
