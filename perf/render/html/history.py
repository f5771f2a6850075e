"""The history section of the HTML report (``report --history STORE``):
the timelines of a history store.

:func:`history_section` is the section: how many timelines, commits and
changes; the figure of :mod:`perf.render.plots.history` (points with
their 95 % intervals, a marker at each change, commit ids), embedded as
the other figures of the page are (an ``<img>`` with a ``data:`` URI);
then the table of the changes: benchmark, machine, the last commit before
and the first after (short ids; the full ids in their ``title``), the
ratio after / before with its 95 % interval, and the direction.
:func:`insert_section` puts it in a page of
:func:`perf.render.html.page.render_report`, after the other sections.

Must not: read the store, print, detect changes or compute statistics
(the timelines come from :func:`perf.history.timelines.timelines`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from perf.render.html.markup import bullet_list, cell, element, escape, row, svg_data_uri, table
from perf.render.units import count_of

if TYPE_CHECKING:
    from perf.history.timelines import Change, Timeline

__all__ = ["HistoryFigureSource", "changes_table", "history_section", "insert_section", "matplotlib_history_svg"]

#: returns the SVG text of the figure of some timelines
HistoryFigureSource = Callable[[Sequence["Timeline"]], str]

#: the characters of a commit id in the table (the figure's)
_SHORT_ID = 8

_CAPTION = (
    "The mean of each commit with its 95% interval, commit by commit; a dashed line marks each change, "
    "labelled with its ratio after / before (red: slower, green: faster); hollow diamonds are spikes."
)


def matplotlib_history_svg(timelines: Sequence[Timeline]) -> str:
    """The figure of *timelines* drawn by :mod:`perf.render.plots.history`,
    as SVG text."""
    from perf.render.plots import canvas
    from perf.render.plots.history import history_figure

    canvas.require_matplotlib()
    return canvas.figure_bytes(history_figure(timelines), "svg").decode("utf-8")


def _commit_cell(commit: str) -> str:
    return cell(commit[:_SHORT_ID], class_="name", title=commit)


def _change_row(change: Change) -> str:
    direction = change.direction if change.direction in ("slower", "faster") else ""
    return row(
        [
            cell(change.benchmark, class_="name"),
            cell(change.machine),
            _commit_cell(change.before),
            _commit_cell(change.after),
            cell(f"{change.ratio:.3f}x", class_="num"),
            cell(f"{change.ci_low:.3f}x .. {change.ci_high:.3f}x", class_="num"),
            cell(change.direction, class_=f"verdict {direction}".strip()),
        ]
    )


def changes_table(timelines: Sequence[Timeline]) -> str:
    """Every change of *timelines*, in their order: the table, or a line
    that says there is none."""
    changes = [change for timeline in timelines for change in timeline.changes]
    if not changes:
        return element("p", "No change detected.")
    headers = ["Benchmark", "Machine", "Before", "After", "Ratio", "95% CI", "Direction"]
    return table(headers, [_change_row(change) for change in changes], class_="history-changes")


def _summary(store: str, timelines: Sequence[Timeline]) -> str:
    commits = len({point.commit for timeline in timelines for point in timeline.commits})
    changes = sum(len(timeline.changes) for timeline in timelines)
    machines = sorted({timeline.machine for timeline in timelines})
    return (
        f"{store}: {count_of(len(timelines), 'timeline')} (benchmark and machine) on {', '.join(machines)}, "
        f"{count_of(commits, 'commit')}, {count_of(changes, 'change')}."
    )


def history_section(store: str, timelines: Sequence[Timeline], figure: str | None) -> str:
    """The section of the *timelines* of the history *store* (its path),
    with the SVG text of their *figure* (none: no figure)."""
    parts = [element("h2", "History")]
    if not timelines:
        text = f"{store}: the history store has no results of the benchmarks of this report."
        parts.append(element("p", escape(text)))
        return element("section", "\n".join(parts), id="history")
    parts.append(element("p", escape(_summary(store, timelines))))
    if figure is not None:
        image = f'<img src="{escape(svg_data_uri(figure))}" alt="{escape(_CAPTION)}" />'
        parts.append(element("figure", image + element("figcaption", escape(_CAPTION)), id="figure-history"))
    parts.append(element("h3", "Changes"))
    parts.append(changes_table(timelines))
    notes = [
        "Ratio: the mean after the change / the mean before (above 1: slower); the interval is its 95% interval.",
        "Before: the last commit before the change; after: the first commit after it (full ids in their tooltips).",
    ]
    parts.append(bullet_list(notes, class_="notes"))
    return element("section", "\n".join(parts), id="history")


def insert_section(page: str, section: str) -> str:
    """*page* (of :func:`perf.render.html.page.render_report`) with
    *section* at the end of its ``<main>``."""
    end = page.rfind("</main>")
    if end < 0:
        raise ValueError("the page has no <main> element")
    return page[:end] + section + "\n" + page[end:]
