"""The HTML report of ``python -m perf report``: one self-contained page.

:func:`render_report` turns result suites (already selected), the
comparisons of ``compare_to`` and the figures of :mod:`perf.render.plots`
into one HTML5 document that needs nothing else: the style sheet is inline,
there is no script, and each figure is an SVG image embedded in an
``<img>`` as a ``data:`` URI in base64.  Embedding the SVG as an image,
rather than inline, keeps each figure's ids and style sheet to itself (two
matplotlib figures share clip path and glyph ids) and keeps the SVG's
namespace and DOCTYPE URLs out of the page: the output references no URL
at all.  The base64 text is cut into lines of 76 characters, and wherever
the letters ``http`` would meet in it a line break is put between them
(``data:`` URLs ignore white space), so that "no URL" can be checked by
looking for ``http`` in the page.

The page: a header (each file with its path, benchmark count, dates,
hosts, CPUs and Python versions from the metadata), then with two files or
more the comparison table (benchmark, reference mean, changed mean, ratio
with its confidence interval, verdict; the suite's geometric mean below)
and its notes, or with one file the table of results (mean +- std dev, the
confidence interval of the mean of process means, processes, values), then
the figures, the stability warnings of each benchmark and the metadata:
what every file shares, once, and the keys whose values differ between
files.  Every text is escaped; the markup is also well-formed XML (void
elements closed with ``/>``, no named entity but XML's).

The figures come from a :data:`FigureSource`, a callable that returns the
SVG text of a :class:`FigureRequest`: :func:`matplotlib_svg` by default,
a fake in tests.

Must not: read files, print, compute statistics (the numbers come from the
model, :mod:`perf.analysis` and the caller's comparisons).
"""

from __future__ import annotations

import base64
import html
import re
from typing import Any, Callable, NamedTuple, Sequence

from perf.analysis import compare
from perf.analysis.checks import ADVICE_CODES, INFO_CODES, check_benchmark, is_warning
from perf.analysis.compare import Comparison
from perf.analysis.intervals import benchmark_log_interval
from perf.model.benchmark import Benchmark
from perf.model.metadata import common_metadata
from perf.model.suite import BenchmarkSuite
from perf.render.benchmark import format_result_value
from perf.render.checks import format_check
from perf.render.compare import format_bracket, format_factor, format_verdict
from perf.render.metadata import format_metadata
from perf.render.units import format_datetime

__all__ = [
    "ComparedBenchmark",
    "FigureRequest",
    "FigureSource",
    "Files",
    "Summary",
    "matplotlib_svg",
    "render_report",
    "svg_data_uri",
]

#: (title, suite) of each file, in the order given on the command line
Files = Sequence[tuple[str, BenchmarkSuite]]

#: the kinds of figure, in the order of the page
DISTRIBUTION = "distribution"
TIMELINE = "timeline"
COMPARISON = "compare"

#: header keys: (metadata key, column title)
_HEADER_KEYS = (
    ("hostname", "Hosts"),
    ("cpu_model_name", "CPUs"),
    ("python_version", "Python"),
)

#: metadata that describes one benchmark, not the files
_PER_BENCHMARK_KEYS = frozenset({"name"})

#: how each test is described in the notes of the comparison
_METHODS = {
    compare.WELCH: "Welch's t test on the logs of the process means",
    compare.PAIRED: "paired t test on the interleaved pairs",
    compare.RANKS: "Mann-Whitney test on the process means, Hodges-Lehmann ratio",
    compare.SIGNED_RANKS: "Wilcoxon signed-rank test on the interleaved pairs",
}

#: what is missing in a cell
_NONE = "\u2014"

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


class ComparedBenchmark(NamedTuple):
    """One benchmark found in every file, with its comparison to the
    reference for each changed file (``compare_to``'s entries)."""

    name: str
    reference: Benchmark
    changed: Sequence[Benchmark]
    comparisons: Sequence[Comparison]


class Summary(NamedTuple):
    """What ``compare_to`` found, for the comparison table."""

    entries: Sequence[ComparedBenchmark]
    #: the suite's geometric mean for each changed file (None: fewer than 2 benchmarks)
    geometric_means: Sequence[Comparison] | None
    #: the equivalence margin (0.01 for 1 %)
    margin: float
    #: lines under the table (how many differ by chance, ignored benchmarks)
    notes: Sequence[str] = ()
    #: warnings on the files (other hosts, far apart in time)
    warnings: Sequence[str] = ()


class FigureRequest(NamedTuple):
    """One figure of the report."""

    #: DISTRIBUTION, TIMELINE or COMPARISON
    kind: str
    #: the files (the first one is the reference of a COMPARISON)
    files: Files
    #: the equivalence margin of a COMPARISON
    margin: float = compare.DEFAULT_MARGIN
    #: a COMPARISON with the rank test
    robust: bool = False


#: returns the SVG text of a figure
FigureSource = Callable[[FigureRequest], str]


def matplotlib_svg(request: FigureRequest) -> str:
    """The figure of *request* drawn by :mod:`perf.render.plots`, as SVG text."""
    from perf.render import plots

    pyplot = plots.require_matplotlib()
    if request.kind == DISTRIBUTION:
        figure = plots.distribution_figure(request.files)
    elif request.kind == TIMELINE:
        figure = plots.timeline_figure(request.files)
    elif request.kind == COMPARISON:
        figure = plots.compare_figure(request.files[0], request.files[1:], request.margin, request.robust)
    else:
        raise ValueError(f"unknown figure kind {request.kind!r}")
    try:
        data = plots.figure_bytes(figure, "svg")
    finally:
        pyplot.close(figure)
    return data.decode("utf-8")


# --- HTML helpers ------------------------------------------------------------------


def _text(value: object) -> str:
    return html.escape(str(value), quote=True)


def _element(tag: str, content: str, **attributes: str) -> str:
    """``<tag a="v">content</tag>``; *content* is markup (already escaped),
    attribute values are escaped here (``class_`` for ``class``)."""
    attrs = "".join(f' {name.rstrip("_")}="{_text(value)}"' for name, value in attributes.items())
    return f"<{tag}{attrs}>{content}</{tag}>"


def _cell(text: str, tag: str = "td", **attributes: str) -> str:
    return _element(tag, _text(text), **attributes)


def _row(cells: Sequence[str]) -> str:
    return "<tr>" + "".join(cells) + "</tr>"


def _table(headers: Sequence[str], rows: Sequence[str], footer: Sequence[str] = (), **attributes: str) -> str:
    parts = ["<thead>", _row([_cell(header, "th") for header in headers]), "</thead>", "<tbody>", *rows, "</tbody>"]
    if footer:
        parts.extend(["<tfoot>", *footer, "</tfoot>"])
    return _element("table", "\n".join(parts), **attributes)


def _list(items: Sequence[str], **attributes: str) -> str:
    """A ``<ul>`` of plain texts."""
    return _element("ul", "".join(_cell(item, "li") for item in items), **attributes)


def svg_data_uri(svg: str) -> str:
    """*svg* as a ``data:image/svg+xml;base64,`` URI in lines of 76
    characters, with a line break inside every ``http`` of the base64 text."""
    encoded = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    lines = "\n".join(encoded[start : start + 76] for start in range(0, len(encoded), 76))
    return "data:image/svg+xml;base64," + re.sub("(?i)(ht)(tp)", "\\1\n\\2", lines)


# --- the blocks --------------------------------------------------------------------


def _distinct(suite: BenchmarkSuite, key: str) -> list[str]:
    """The values of metadata *key* in the benchmarks of *suite*, each once."""
    found: list[str] = []
    for benchmark in suite:
        value = benchmark.get_metadata().get(key)
        if value is not None and format_metadata(key, value) not in found:
            found.append(format_metadata(key, value))
    return found


def _dates(suite: BenchmarkSuite) -> tuple[str, str]:
    dates = suite.get_dates()
    if not dates:
        return _NONE, _NONE
    return format_datetime(dates[0], microsecond=False), format_datetime(dates[1], microsecond=False)


def _header(files: Files) -> str:
    headers = ["File", "Path", "Benchmarks", "Start", "End", *(title for _, title in _HEADER_KEYS)]
    rows = []
    for index, (title, suite) in enumerate(files):
        label = f"{title} (reference)" if index == 0 and len(files) > 1 else title
        cells = [_cell(label), _cell(str(suite.filename or _NONE)), _cell(str(len(suite)), class_="num")]
        cells.extend(_cell(date) for date in _dates(suite))
        cells.extend(_cell(", ".join(_distinct(suite, key)) or _NONE) for key, _ in _HEADER_KEYS)
        rows.append(_row(cells))
    return _table(headers, rows, class_="files")


def _verdict_cell(comparison: Comparison, margin: float) -> str:
    verdict = comparison.verdict
    why = format_verdict(comparison, margin)
    why = why.removeprefix(f"{verdict}: ")
    css = verdict.replace(" ", "-")
    content = _element("span", _text(verdict), class_=f"verdict {css}") + _element("div", _text(why), class_="why")
    return _element("td", content)


def _change_cell(comparison: Comparison, margin: float) -> str:
    bracket = format_bracket(comparison, margin)
    content = _text(format_factor(comparison.ratio)) + " " + _element("span", _text(bracket), class_="ci")
    return _element("td", content, class_="num")


def _summary_rows(entry: ComparedBenchmark, titles: Sequence[str], margin: float) -> list[str]:
    several = len(titles) > 1
    rows = []
    for index, (title, changed, comparison) in enumerate(zip(titles, entry.changed, entry.comparisons)):
        cells = []
        if index == 0:
            span = {"rowspan": str(len(titles))} if several else {}
            cells.append(_cell(entry.name, class_="name", **span))
            cells.append(_cell(format_result_value(entry.reference), class_="num", **span))
        if several:
            cells.append(_cell(title))
        cells.append(_cell(format_result_value(changed), class_="num"))
        cells.append(_change_cell(comparison, margin))
        cells.append(_verdict_cell(comparison, margin))
        rows.append(_row(cells))
    return rows


def _summary(files: Files, summary: Summary, robust: bool) -> str:
    reference = files[0][0]
    titles = [title for title, _ in files[1:]]
    several = len(titles) > 1
    comparisons = [comparison for entry in summary.entries for comparison in entry.comparisons]
    level = f"{comparisons[0].confidence * 100:g}%" if comparisons else "95%"
    headers = ["Benchmark", f"{reference} (reference)"]
    headers.extend(["File", "Mean +- std dev"] if several else [f"{titles[0]}"])
    headers.extend([f"Change [{level} CI]", "Verdict"])
    rows = [row for entry in summary.entries for row in _summary_rows(entry, titles, summary.margin)]
    footer = []
    for index, (title, mean) in enumerate(zip(titles, summary.geometric_means or ())):
        cells = []
        if index == 0:
            span = {"rowspan": str(len(titles))} if several else {}
            cells.extend([_cell("Geometric mean", **span), _cell("", **span)])
        if several:
            cells.append(_cell(title))
        cells.extend([_cell(""), _change_cell(mean, summary.margin), _verdict_cell(mean, summary.margin)])
        footer.append(_row(cells))
    notes = [
        f"Equivalence margin: +-{summary.margin * 100:g}%: a change inside it does not matter (--min-speed).",
        f"Mean +- std dev of all values; the change is the ratio of the geometric means of the process means, "
        f"changed / reference, with its {level} confidence interval.",
    ]
    methods = sorted({_METHODS.get(c.method, c.method) for c in comparisons if c.method in _METHODS})
    if methods:
        notes.append("Test: " + "; ".join(methods) + (" (--robust)" if robust else "") + ".")
    notes.extend(summary.notes)
    parts = [
        _element("h2", "Comparison to " + _text(reference)),
        _table(headers, rows, footer, class_="summary"),
        _list(notes, class_="notes"),
    ]
    if summary.warnings:
        parts.append(_list(summary.warnings, class_="notes warning"))
    return _element("section", "\n".join(parts), id="comparison")


def _interval_text(benchmark: Benchmark) -> tuple[str, str]:
    """(interval, processes) cells of a benchmark."""
    nprocesses = str(len(benchmark.get_process_means()))
    interval = benchmark_log_interval(benchmark)  # the result line's interval
    if interval is None:
        return _NONE, nprocesses
    low, high = benchmark.format_values((interval.low, interval.high))
    return f"{low} .. {high}", nprocesses


def _results_table(suite: BenchmarkSuite) -> str:
    rows = []
    for benchmark in suite:
        interval, nprocesses = _interval_text(benchmark)
        cells = [
            _cell(benchmark.get_name(), class_="name"),
            _cell(format_result_value(benchmark), class_="num"),
            _cell(interval, class_="num"),
            _cell(nprocesses, class_="num"),
            _cell(str(benchmark.get_nvalue()), class_="num"),
        ]
        rows.append(_row(cells))
    headers = ["Benchmark", "Mean +- std dev", "95% CI", "Processes", "Values"]
    return _table(headers, rows, class_="results")


def _results(files: Files) -> str:
    parts = [_element("h2", "Results")]
    for title, suite in files:
        if len(files) > 1:
            parts.append(_element("h3", _text(title)))
        parts.append(_results_table(suite))
    parts.append(
        _list(
            [
                "Mean +- std dev of all values; the interval is the t interval of the mean of the process means "
                "(a process is one sample: its values are not independent)."
            ],
            class_="notes",
        )
    )
    return _element("section", "\n".join(parts), id="results")


_CAPTIONS = {
    DISTRIBUTION: "Distribution of the values and of the process means, one colour per file.",
    TIMELINE: "Every value in run order, coloured by process; warmups are marked.",
    COMPARISON: "Change of each benchmark against {reference} with its confidence interval; "
    "the band is the +-{margin:g}% equivalence margin.",
}


def _figures(files: Files, figures: FigureSource, margin: float, robust: bool) -> str:
    kinds = [COMPARISON] if len(files) > 1 else []
    kinds.extend([DISTRIBUTION, TIMELINE])
    parts = [_element("h2", "Figures")]
    for kind in kinds:
        svg = figures(FigureRequest(kind, files, margin, robust))
        caption = _CAPTIONS[kind].format(reference=files[0][0], margin=margin * 100)
        common = set.intersection(*(set(suite.get_benchmark_names()) for _title, suite in files))
        if kind == COMPARISON and len(common) > 1:
            caption = caption[:-1] + "; the geometric mean of the benchmarks on top."
        image = f'<img src="{_text(svg_data_uri(svg))}" alt="{_text(caption)}" />'
        parts.append(_element("figure", image + _element("figcaption", _text(caption)), id=f"figure-{kind}"))
    return _element("section", "\n".join(parts), id="figures")


def _check_items(benchmark: Benchmark) -> tuple[list[str], list[str]]:
    """(warnings, other findings) of a benchmark, as texts."""
    warnings, others = [], []
    for check in check_benchmark(benchmark):
        text = format_check(check, benchmark).replace("\n", " ")
        if is_warning(check):
            warnings.append(text)
        elif check.code in ADVICE_CODES or check.code in INFO_CODES:
            others.append(text)
    return warnings, others


def _stability(files: Files) -> str:
    parts = [_element("h2", "Stability")]
    unstable = 0
    for title, suite in files:
        for benchmark in suite:
            warnings, others = _check_items(benchmark)
            if not warnings and not others:
                continue
            unstable += bool(warnings)
            label = f"{benchmark.get_name()} ({title})" if len(files) > 1 else benchmark.get_name()
            parts.append(_element("h3", _text(label)))
            if warnings:
                parts.append(_list(warnings, class_="warning"))
            if others:
                parts.append(_list(others))
    if unstable:
        parts.insert(
            1,
            _element(
                "p",
                _text(
                    f"WARNING: {unstable} benchmark result{'s' if unstable > 1 else ''} may be unstable. "
                    "Rerun with more processes, values or loops; 'python -m perf system tune' reduces "
                    "the system jitter."
                ),
                class_="warning",
            ),
        )
    else:
        parts.insert(1, _element("p", "No stability warning: every benchmark seems stable.", class_="stable"))
    return _element("section", "\n".join(parts), id="stability")


def _file_metadata(suite: BenchmarkSuite) -> dict[str, Any]:
    metadata = suite.get_metadata()
    if len(suite) > 1:
        for key in _PER_BENCHMARK_KEYS:
            metadata.pop(key, None)
    return metadata


def _metadata(files: Files) -> str:
    metadatas = [_file_metadata(suite) for _, suite in files]
    common = common_metadata(metadatas)
    parts = [_element("h2", "Metadata")]
    if len(files) > 1:
        parts.append(_element("h3", "Common to every file"))
    else:
        parts.append(_element("h3", "Common to every benchmark"))
    if common:
        rows = [_row([_cell(key), _cell(format_metadata(key, common[key]))]) for key in sorted(common)]
        parts.append(_table(["Key", "Value"], rows, class_="metadata"))
    else:
        parts.append(_element("p", "None."))
    if len(files) > 1:
        parts.append(_element("h3", "Different between files"))
        keys = sorted({key for metadata in metadatas for key in metadata} - set(common))
        if keys:
            rows = []
            for key in keys:
                cells = [_cell(key)]
                for metadata in metadatas:
                    cells.append(_cell(format_metadata(key, metadata[key]) if key in metadata else _NONE))
                rows.append(_row(cells))
            parts.append(_table(["Key", *(title for title, _ in files)], rows, class_="metadata-differences"))
        else:
            parts.append(_element("p", "None: the files share all their common metadata."))
    return _element("section", "\n".join(parts), id="metadata")


def render_report(
    files: Files,
    summary: Summary | None = None,
    figures: FigureSource = matplotlib_svg,
    robust: bool = False,
) -> str:
    """The HTML page of *files* (see the module documentation).

    *summary* is the comparison of the files to the first one (two files
    or more); *figures* draws each figure.  *robust* is only named in the
    notes: the comparisons are the caller's.
    """
    if not files:
        raise ValueError("a report needs at least one file")
    titles = [title for title, _ in files]
    page_title = "perf report: " + (
        " vs ".join(titles) if len(titles) <= 3 else f"{titles[0]} and {len(titles) - 1} files"
    )
    margin = summary.margin if summary is not None else compare.DEFAULT_MARGIN
    body = [
        _element("header", _element("h1", _text(page_title)) + "\n" + _header(files)),
        "<main>",
        _summary(files, summary, robust) if summary is not None and len(files) > 1 else _results(files),
        _figures(files, figures, margin, robust),
        _stability(files),
        _metadata(files),
        "</main>",
        _element("footer", "Written by python -m perf report. Self-contained: no script, no external resource."),
    ]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8" />',
            '<meta name="viewport" content="width=device-width, initial-scale=1" />',
            '<meta name="generator" content="perf" />',
            _element("title", _text(page_title)),
            _element("style", _STYLE),
            "</head>",
            "<body>",
            *body,
            "</body>",
            "</html>",
            "",
        ]
    )
