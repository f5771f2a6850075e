"""The page of the HTML report: :func:`render_report`.

The page: a header (each file with its path, benchmark count, dates,
hosts, CPUs and Python versions from the metadata), then with two files or
more the comparison table and its notes (:mod:`perf.render.html.comparison`),
or with one file the table of results, then the instruction counts of the
files that have them (:mod:`perf.render.html.counts`), the figures, the
stability warnings of each benchmark and the metadata
(:mod:`perf.render.html.sections`).

The figures come from a :data:`FigureSource`, a callable that returns the
SVG text of a :class:`FigureRequest`: :func:`matplotlib_svg` by default,
a fake in tests.

Must not: read files, print, compute statistics (the numbers come from the
model, :mod:`perf.analysis` and the caller's comparisons).
"""

from __future__ import annotations

from typing import Callable, Mapping, NamedTuple

from perf.analysis.compare import Verdict
from perf.analysis.finished import FinishedComparison
from perf.analysis.summaries import DistributionPanel, FileSummaries
from perf.render.html.comparison import Summary, comparison_section
from perf.render.html.counts import counts_section
from perf.render.html.markup import element, escape, svg_data_uri
from perf.render.html.sections import Files, header_table, metadata_section, results_section, stability_section

__all__ = [
    "COMPARISON",
    "DISTRIBUTION",
    "TIMELINE",
    "FigureRequest",
    "FigureSource",
    "matplotlib_svg",
    "render_report",
]

#: the kinds of figure, in the order of the page
DISTRIBUTION = "distribution"
TIMELINE = "timeline"
COMPARISON = "compare"

_STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
  color: #1b1b1b; background: #fff; line-height: 1.45; margin: 0 auto; max-width: 75rem; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 .75rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; padding-bottom: .2rem; border-bottom: 2px solid #d0d7de; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .3rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d0d7de; padding: .3rem .55rem; text-align: left; vertical-align: top; }
thead th { background: #f3f5f7; }
tfoot td { background: #f8f9fa; font-weight: 600; }
td.num { text-align: right; white-space: nowrap; }
td.name { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.ci { color: #555; white-space: nowrap; }
.verdict { font-weight: 700; }
.why { font-size: .85em; color: #555; font-weight: normal; }
.slower { color: #b3261e; }
.faster { color: #116d3a; }
.small-change { color: #8a5a00; }
.no-change { color: #444; }
.inconclusive { color: #444; font-style: italic; }
ul.notes { padding-left: 1.2rem; }
.warning { color: #8a1c12; }
.stable { color: #116d3a; }
figure { margin: 1rem 0 1.5rem; break-inside: avoid; page-break-inside: avoid; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid #e4e7eb; }
figcaption { font-size: .9em; color: #444; margin-top: .3rem; }
footer { margin-top: 2.5rem; font-size: .8em; color: #666; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  h2 { break-after: avoid; page-break-after: avoid; }
  tr, li { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
"""


class FigureRequest(NamedTuple):
    """One figure of the report."""

    #: DISTRIBUTION, TIMELINE or COMPARISON
    kind: str
    #: the files (the first one is the reference of a COMPARISON)
    files: Files
    #: the equivalence margin of a COMPARISON
    margin: float = Verdict.DEFAULT_MARGIN
    #: a COMPARISON with the rank test
    robust: bool = False
    #: a COMPARISON corrected for a busy machine (False: --no-correction)
    correct: bool = True
    #: the comparison that a COMPARISON draws (the caller's, as the table's)
    comparison: FinishedComparison | None = None
    #: the panels of a DISTRIBUTION, by benchmark name (the caller's)
    panels: Mapping[str, DistributionPanel] | None = None


#: returns the SVG text of a figure
FigureSource = Callable[[FigureRequest], str]


def matplotlib_svg(request: FigureRequest) -> str:
    """The figure of *request* drawn by :mod:`perf.render.plots`, as SVG text."""
    from perf.render.plots import canvas
    from perf.render.plots.comparison import comparison_figure
    from perf.render.plots.distribution import distribution_figure
    from perf.render.plots.timeline import timeline_figure

    pyplot = canvas.require_matplotlib()
    if request.kind == DISTRIBUTION:
        if request.panels is None:
            raise ValueError("a distribution figure needs the panels of its benchmarks")
        figure = distribution_figure(request.files, None, request.panels)
    elif request.kind == TIMELINE:
        figure = timeline_figure(request.files)
    elif request.kind == COMPARISON:
        if request.comparison is None:
            raise ValueError("a comparison figure needs the comparison of the files")
        figure = comparison_figure([title for title, _suite in request.files], request.comparison)
    else:
        raise ValueError(f"unknown figure kind {request.kind!r}")
    try:
        data = canvas.figure_bytes(figure, "svg")
    finally:
        pyplot.close(figure)
    return data.decode("utf-8")


_CAPTIONS = {
    DISTRIBUTION: "Distribution of the values and of the process means, one colour per file.",
    TIMELINE: "Every value in run order, coloured by process; warmups are marked.",
    COMPARISON: "Change of each benchmark against {reference} with its confidence interval; "
    "the band is the +-{margin:g}% equivalence margin; {ratios}.",
}


def _figures(
    files: Files, figures: FigureSource, summary: Summary | None, robust: bool, panels: Mapping[str, DistributionPanel]
) -> str:
    comparison = summary.comparison if summary is not None else None
    margin = comparison.margin if comparison is not None else Verdict.DEFAULT_MARGIN
    correct = comparison is None or comparison.correct
    # the comparison figure draws the suite's geometric mean of 2 benchmarks or more
    mean_on_top = comparison is not None and len(comparison.entries) > 1
    # the comparison figure draws the caller's comparison, as the table does
    kinds = [COMPARISON] if comparison is not None and len(files) > 1 else []
    kinds.extend([DISTRIBUTION, TIMELINE])
    parts = [element("h2", "Figures")]
    for kind in kinds:
        svg = figures(FigureRequest(kind, files, margin, robust, correct, comparison, panels))
        ratios = "ratios as recorded (--no-correction)" if not correct else "ratios as the comparison table gives them"
        caption = _CAPTIONS[kind].format(reference=files[0][0], margin=margin * 100, ratios=ratios)
        if kind == COMPARISON and mean_on_top:
            caption = caption[:-1] + "; the geometric mean of the benchmarks on top."
        image = f'<img src="{escape(svg_data_uri(svg))}" alt="{escape(caption)}" />'
        parts.append(element("figure", image + element("figcaption", escape(caption)), id=f"figure-{kind}"))
    return element("section", "\n".join(parts), id="figures")


def render_report(
    files: Files,
    summary: Summary | None = None,
    figures: FigureSource = matplotlib_svg,
    robust: bool = False,
    *,
    summaries: FileSummaries,
) -> str:
    """The HTML page of *files* (see the module documentation).

    *summary* is the comparison of the files to the first one (two files
    or more: without it, no comparison table or figure); *figures* draws
    each figure.  *robust* is only named in the notes: the comparisons are
    the caller's.  *summaries*: what is said of the files themselves
    (:func:`perf.analysis.summaries.summarize_files`, with the panels of
    :func:`perf.render.plots.distribution.panel_names`).
    """
    if not files:
        raise ValueError("a report needs at least one file")
    titles = [title for title, _ in files]
    page_title = "perf report: " + (
        " vs ".join(titles) if len(titles) <= 3 else f"{titles[0]} and {len(titles) - 1} files"
    )
    body = [
        element("header", element("h1", escape(page_title)) + "\n" + header_table(files)),
        "<main>",
        comparison_section(files, summary, robust)
        if summary is not None and len(files) > 1
        else results_section(files, summaries.findings),
        counts_section(files, summaries.findings, summary.explained if summary is not None else None),
        _figures(files, figures, summary, robust, summaries.panels),
        stability_section(files, summaries.findings),
        metadata_section(files),
        "</main>",
        element("footer", "Written by python -m perf report. Self-contained: no script, no external resource."),
    ]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8" />',
            '<meta name="viewport" content="width=device-width, initial-scale=1" />',
            '<meta name="generator" content="perf" />',
            element("title", escape(page_title)),
            element("style", _STYLE),
            "</head>",
            "<body>",
            *body,
            "</body>",
            "</html>",
            "",
        ]
    )
