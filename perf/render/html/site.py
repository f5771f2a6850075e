"""The static site of ``history publish``: :func:`site_files`.

Every file is text that works from disk and from any static host: the
pages link each other, ``site.css`` and ``site.js`` by relative paths,
and nothing refers to the network (the Atom feed's namespace is a name,
not a link).

* ``index.html``, the overview: a row per benchmark and machine (and
  metric: times and counts are never mixed), with its small timeline,
  its latest value and its last change; filters by name, machine and
  branch.
* ``b/<name>-<hash>.html``, one page per benchmark, an address that stays
  the same from one publish to the next: the timeline of every machine
  (:mod:`perf.render.html.timeline_svg`), its changes and spikes.
* ``changes.html``: every change of the fleet, newest first; a reader can
  hide the ones judged already (kept in the browser's storage);
  ``changes.atom``: the same list as an Atom feed.
* ``compare.html``: ``compare_to``'s table for pairs of commits of one
  machine (the two sides of each change, the first and the latest
  commit), computed by the caller; a menu picks one.

Must not: detect changes (:mod:`perf.history.timelines`), read or write
files, or print.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Mapping, NamedTuple, Sequence

from perf.render.history import format_ratio, format_ratio_interval
from perf.render.html.markup import NONE, cell, element, escape, table
from perf.render.html.timeline_svg import sparkline, timeline_svg, value_text

if TYPE_CHECKING:
    from perf.history.timelines import Change, Timeline

__all__ = ["SiteComparison", "page_name", "site_files"]


class SiteComparison(NamedTuple):
    """A pair of commits of the compare page: ``compare_to``'s text for them."""

    machine: str
    before: str
    after: str
    #: why the pair is offered (the changes between them)
    label: str
    text: str


_STYLE = """\
body { font-family: sans-serif; margin: 1.5em; color: #222; }
a { color: #1f5fa8; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #ddd; text-align: left; vertical-align: middle; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.slower { color: #b3261e; } .faster { color: #1e7b34; }
nav a { margin-right: 1em; }
pre { overflow-x: auto; }
.filters { margin: 1em 0; } .filters label { margin-right: 1em; }
svg .axis { stroke: #888; } svg .tick, svg .change-label { font-size: 11px; fill: #555; }
svg .interval { stroke: #7da2cf; stroke-width: 2; } svg .point { fill: #1f5fa8; }
svg .point.spike { fill: #fff; stroke: #b3261e; stroke-width: 1.5; }
svg line.change { stroke-dasharray: 4 3; stroke-width: 1.5; }
svg line.change.slower { stroke: #b3261e; } svg line.change.faster { stroke: #1e7b34; }
svg.spark polyline { fill: none; stroke: #1f5fa8; stroke-width: 1.2; }
svg.spark circle.slower { fill: #b3261e; } svg.spark circle.faster { fill: #1e7b34; }
tr.hidden-change { display: none; } body.show-hidden tr.hidden-change { display: table-row; opacity: 0.5; }
"""

#: the site's behaviour: the overview's filters, and changes a reader hides
_SCRIPT = """\
"use strict";
(function () {
  var KEY = "perf-history-hidden-changes";
  function hidden() {
    try { return JSON.parse(window.localStorage.getItem(KEY) || "[]"); } catch (e) { return []; }
  }
  function store(keys) {
    try { window.localStorage.setItem(KEY, JSON.stringify(keys)); } catch (e) { /* storage off: not kept */ }
  }
  var FILTERS = ["name", "machine", "branch"];
  function fromAddress() {
    // #name=...&machine=...&branch=...: a filtered overview has an address
    var pairs = window.location.hash.replace(/^#/, "").split("&");
    for (var i = 0; i < pairs.length; i++) {
      var pair = pairs[i].split("=");
      var input = document.getElementById("filter-" + pair[0]);
      if (pair.length === 2 && input && FILTERS.indexOf(pair[0]) >= 0) { input.value = decodeURIComponent(pair[1]); }
    }
  }
  function toAddress() {
    var parts = [];
    FILTERS.forEach(function (id) {
      var value = document.getElementById("filter-" + id).value;
      if (value) { parts.push(id + "=" + encodeURIComponent(value)); }
    });
    window.history.replaceState(null, "", parts.length ? "#" + parts.join("&") : window.location.pathname);
  }
  function filter() {
    var name = document.getElementById("filter-name").value.toLowerCase();
    var machine = document.getElementById("filter-machine").value;
    var branch = document.getElementById("filter-branch").value;
    var rows = document.querySelectorAll("tr[data-name]");
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var show = row.getAttribute("data-name").toLowerCase().indexOf(name) >= 0
        && (!machine || row.getAttribute("data-machine") === machine)
        && (!branch || (" " + row.getAttribute("data-branches") + " ").indexOf(" " + branch + " ") >= 0);
      row.style.display = show ? "" : "none";
    }
  }
  function showHidden() {
    var keys = hidden();
    var rows = document.querySelectorAll("tr[data-change]");
    for (var i = 0; i < rows.length; i++) {
      var isHidden = keys.indexOf(rows[i].getAttribute("data-change")) >= 0;
      rows[i].classList.toggle("hidden-change", isHidden);
      rows[i].querySelector("button").textContent = isHidden ? "unhide" : "hide";
    }
    var count = document.getElementById("hidden-count");
    if (count) { count.textContent = String(document.querySelectorAll("tr.hidden-change").length); }
  }
  function toggle(event) {
    var key = event.target.closest("tr").getAttribute("data-change");
    var keys = hidden();
    var at = keys.indexOf(key);
    if (at >= 0) { keys.splice(at, 1); } else { keys.push(key); }
    store(keys);
    showHidden();
  }
  document.addEventListener("DOMContentLoaded", function () {
    if (document.getElementById("filter-name")) {
      FILTERS.forEach(function (id) {
        document.getElementById("filter-" + id).addEventListener("input", function () { filter(); toAddress(); });
      });
      fromAddress();
      filter();
    }
    var buttons = document.querySelectorAll("tr[data-change] button");
    for (var i = 0; i < buttons.length; i++) { buttons[i].addEventListener("click", toggle); }
    var pair = document.getElementById("pair");
    if (pair) {
      var show = function () {
        var blocks = document.querySelectorAll("section.comparison");
        for (var i = 0; i < blocks.length; i++) { blocks[i].hidden = blocks[i].id !== "pair-" + pair.value; }
      };
      var wanted = window.location.hash.match(/^#pair=([0-9]+)$/);
      if (wanted && document.getElementById("pair-" + wanted[1])) { pair.value = wanted[1]; }
      pair.addEventListener("input", function () {
        window.history.replaceState(null, "", "#pair=" + pair.value);
        show();
      });
      show();
    }
    var all = document.getElementById("show-hidden");
    if (all) {
      all.addEventListener("change", function () { document.body.classList.toggle("show-hidden", all.checked); });
    }
    showHidden();
  });
})();
"""


def page_name(benchmark: str) -> str:
    """The address of *benchmark*'s page: readable, and the same at every publish."""
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "_", benchmark).strip("._")[:60] or "benchmark"
    return f"b/{readable}-{hashlib.sha1(benchmark.encode('utf-8')).hexdigest()[:8]}.html"


def _metric(unit: str) -> str:
    return "time" if unit == "second" else unit


def _page(title: str, body: str, depth: int = 0) -> str:
    up = "../" * depth
    nav = element(
        "nav",
        f'<a href="{up}index.html">Overview</a><a href="{up}changes.html">Changes</a>'
        f'<a href="{up}compare.html">Compare</a><a href="{up}changes.atom">Atom feed</a>',
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"/>'
        f"<title>{escape(title)}</title>"
        f'<link rel="stylesheet" href="{up}site.css"/><script src="{up}site.js"></script></head>\n'
        f"<body>{nav}\n{element('h1', escape(title))}\n{body}\n</body></html>\n"
    )


def _change_text(change: Change) -> str:
    return f"{format_ratio(change.ratio)} {change.direction} at {change.after[:8]}"


def _latest(timeline: Timeline) -> str:
    return value_text(timeline.unit, timeline.commits[-1])


def _overview_row(timeline: Timeline, branches: Mapping[str, Sequence[str]]) -> str:
    names = sorted({branch for point in timeline.commits for branch in branches.get(point.commit, ())})
    last = timeline.changes[-1] if timeline.changes else None
    change = cell(NONE) if last is None else cell(_change_text(last), class_=last.direction)
    link = element("a", escape(timeline.benchmark), href=page_name(timeline.benchmark))
    cells = [
        element("td", link, class_="name"),
        cell(timeline.machine),
        cell(_metric(timeline.unit)),
        element("td", sparkline(timeline)),
        cell(_latest(timeline), class_="num"),
        change,
    ]
    attributes = {"data-name": timeline.benchmark, "data-machine": timeline.machine, "data-branches": " ".join(names)}
    opening = "<tr" + "".join(f' {key}="{escape(value)}"' for key, value in attributes.items()) + ">"
    return opening + "".join(cells) + "</tr>"


def _select(name: str, label: str, options: Sequence[str]) -> str:
    choices = '<option value="">all</option>' + "".join(
        f'<option value="{escape(option)}">{escape(option)}</option>' for option in options
    )
    return f'<label>{escape(label)} <select id="filter-{name}">{choices}</select></label>'


def _overview(timelines: Sequence[Timeline], branches: Mapping[str, Sequence[str]], title: str) -> str:
    machines = sorted({timeline.machine for timeline in timelines})
    every_branch = sorted({branch for names in branches.values() for branch in names})
    commits = len({point.commit for timeline in timelines for point in timeline.commits})
    changes = sum(len(timeline.changes) for timeline in timelines)
    summary = (
        f"{len({timeline.benchmark for timeline in timelines})} benchmarks on {len(machines)} machines, "
        f"{commits} commits, {changes} changes detected."
    )
    filters = element(
        "div",
        '<label>Benchmark <input id="filter-name" type="search" placeholder="name"/></label>'
        + _select("machine", "Machine", machines)
        + _select("branch", "Branch", every_branch),
        class_="filters",
    )
    headers = ["Benchmark", "Machine", "Metric", "Timeline", "Latest [95% CI]", "Last change"]
    body = table(headers, [_overview_row(timeline, branches) for timeline in timelines], id="overview")
    return _page(title, element("p", escape(summary)) + filters + body)


def _changes_rows(changes: Sequence[Change], depth: int) -> list[str]:
    rows = []
    for change in changes:
        key = f"{change.machine}|{change.benchmark}|{change.after}"
        link = element("a", escape(change.benchmark), href="../" * depth + page_name(change.benchmark))
        cells = [
            element("td", link, class_="name"),
            cell(change.machine),
            cell(change.before[:12], title=change.before),
            cell(change.after[:12], title=change.after),
            cell(format_ratio(change.ratio), class_="num"),
            cell(format_ratio_interval(change.ci_low, change.ci_high), class_="num"),
            cell(change.direction, class_=change.direction),
            '<td><button type="button">hide</button></td>',
        ]
        rows.append(f'<tr data-change="{escape(key)}">' + "".join(cells) + "</tr>")
    return rows


_CHANGE_HEADERS = ["Benchmark", "Machine", "Before", "After", "Ratio", "95% CI", "Direction", ""]


def _benchmark_page(name: str, timelines: Sequence[Timeline], title: str) -> str:
    sections = []
    for timeline in timelines:
        parts = [element("h2", escape(f"{timeline.machine} ({_metric(timeline.unit)})"))]
        parts.append(element("p", escape(f"Latest: {_latest(timeline)}, {len(timeline.commits)} commits.")))
        parts.append(element("figure", timeline_svg(timeline)))
        if timeline.changes:
            parts.append(table(_CHANGE_HEADERS, _changes_rows(timeline.changes, 1), class_="changes"))
        else:
            parts.append(element("p", "No change detected."))
        if timeline.spikes:
            spikes = ", ".join(f"{spike.commit[:12]} ({format_ratio(spike.ratio)})" for spike in timeline.spikes)
            parts.append(element("p", escape(f"Spikes (one commit off its neighbours; re-measure it): {spikes}.")))
        sections.append(element("section", "\n".join(parts)))
    notes = "Ratio: the mean after the change / the mean before (above 1: slower), with its 95% interval."
    return _page(f"{name} - {title}", "\n".join(sections) + element("p", escape(notes)), depth=1)


def _dated(timelines: Sequence[Timeline]) -> list[tuple[str, Change]]:
    """Every change with the date of its first commit, newest first."""
    found = [
        (timeline.commits[change.index].date or "", change) for timeline in timelines for change in timeline.changes
    ]
    return sorted(found, key=lambda item: (item[0], item[1].benchmark, item[1].machine), reverse=True)


def _changes_page(timelines: Sequence[Timeline], title: str) -> str:
    dated = _dated(timelines)
    if not dated:
        return _page(f"Changes - {title}", element("p", "No change detected."))
    toggle = (
        '<label><input id="show-hidden" type="checkbox"/> '
        'show the hidden ones (<span id="hidden-count">0</span>)</label>'
    )
    headers = ["Date", *_CHANGE_HEADERS]
    rows = [
        text.replace('<td class="name">', f'<td>{escape(date[:10])}</td><td class="name">', 1)
        for (date, _), text in zip(dated, _changes_rows([change for _, change in dated], 0))
    ]
    return _page(f"Changes - {title}", element("p", toggle) + table(headers, rows, id="changes"))


def _compare_page(comparisons: Sequence[SiteComparison], title: str) -> str:
    if not comparisons:
        return _page(f"Compare - {title}", element("p", "No pair of commits to compare yet."))
    options = "".join(
        f'<option value="{index}">{escape(f"{item.machine}: {item.before[:12]} -> {item.after[:12]} ({item.label})")}'
        "</option>"
        for index, item in enumerate(comparisons)
    )
    hidden = ' hidden="hidden"'
    blocks = "".join(
        f'<section class="comparison" id="pair-{index}"{"" if index == 0 else hidden}>'
        + element("h2", escape(f"{item.machine}: {item.before[:12]} -> {item.after[:12]}"))
        + element("pre", escape(item.text))
        + "</section>"
        for index, item in enumerate(comparisons)
    )
    intro = (
        "The table compare_to prints for two commits of one machine: the two sides of each change, and the "
        "first and the latest commit. Any other pair: python -m perf compare_to on the store's result files."
    )
    picker = f'<p><label>Commits <select id="pair">{options}</select></label></p>'
    return _page(f"Compare - {title}", element("p", escape(intro)) + picker + blocks)


def _atom_date(date: str) -> str:
    return date if re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", date) else "1970-01-01T00:00:00Z"


def _atom(timelines: Sequence[Timeline], title: str) -> str:
    dated = _dated(timelines)
    updated = _atom_date(dated[0][0]) if dated else "1970-01-01T00:00:00Z"
    entries = []
    for date, change in dated:
        summary = (
            f"{change.benchmark} on {change.machine}: {format_ratio(change.ratio)} "
            f"{format_ratio_interval(change.ci_low, change.ci_high)} {change.direction}, "
            f"between {change.before[:12]} and {change.after[:12]}"
        )
        entries.append(
            "<entry>"
            f"<id>urn:perf-history:{escape(change.machine)}:{escape(change.after)}:{escape(change.benchmark)}</id>"
            f"<title>{escape(f'{change.benchmark} on {change.machine}: {_change_text(change)}')}</title>"
            f"<updated>{escape(_atom_date(date))}</updated>"
            f'<link href="{escape(page_name(change.benchmark))}"/>'
            f"<summary>{escape(summary)}</summary></entry>"
        )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        # the namespace is Atom's name: it is never fetched
        '<feed xmlns="http://www.w3.org/2005/Atom">'
        f"<id>urn:perf-history:changes</id><title>{escape(f'Changes - {title}')}</title>"
        f"<updated>{escape(updated)}</updated><author><name>perf</name></author>\n" + "\n".join(entries) + "\n</feed>\n"
    )


def site_files(
    timelines: Sequence[Timeline],
    branches: Mapping[str, Sequence[str]],
    title: str = "Performance history",
    comparisons: Sequence[SiteComparison] = (),
) -> dict[str, str]:
    """The files of the site of *timelines* (sorted by benchmark, then
    machine), by their path relative to its folder.  *branches*: the
    branches each commit was recorded on (the overview's branch filter);
    *comparisons*: the pairs of commits of the compare page."""
    by_benchmark: dict[str, list[Timeline]] = {}
    for timeline in timelines:
        by_benchmark.setdefault(timeline.benchmark, []).append(timeline)
    site = {
        "site.css": _STYLE,
        "site.js": _SCRIPT,
        "index.html": _overview(timelines, branches, title),
        "changes.html": _changes_page(timelines, title),
        "changes.atom": _atom(timelines, title),
        "compare.html": _compare_page(comparisons, title),
    }
    for name, found in by_benchmark.items():
        site[page_name(name)] = _benchmark_page(name, found, title)
    return site
