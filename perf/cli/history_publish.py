"""``python -m perf history publish STORE OUTDIR``: a static site of a
history store (:mod:`perf.render.html.site`), for every machine of it.

OUTDIR is new, empty, or a site published before: perf keeps the list
of the files it wrote in ``OUTDIR/perf-site.json`` and refuses any other
folder, so that a typo cannot overwrite someone's files.  Publishing
again writes only the files whose text changed (atomically), and removes
the pages of benchmarks that are gone; it says how many files it wrote,
kept and removed.

The checks come before the store is read: OUTDIR is a folder (or can be
one) that perf published or that is empty; then a folder that is not a
store, or a store without results, is a one-line error.

Must not: render (:mod:`perf.render.html.site` does), detect changes
(:mod:`perf.history.timelines`).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Sequence

from perf.errors import ResultError, UsageError

if TYPE_CHECKING:
    from perf.history.store import HistoryStore, Recording
    from perf.history.timelines import Timeline
    from perf.model.benchmark import Benchmark
    from perf.render.html.site import SiteComparison

__all__ = ["add_arguments", "run"]

#: the list of the files perf wrote in a published folder
MARKER = "perf-site.json"


def add_arguments(action: str, parser: argparse.ArgumentParser) -> None:
    parser.add_argument("store", metavar="STORE", help="the history store (a folder made by history add)")
    parser.add_argument("outdir", metavar="OUTDIR", help="the folder of the site: new, empty, or published before")
    parser.add_argument("--title", default="Performance history", help="the title of the pages")


def _published_files(outdir: str) -> list[str]:
    """The files a previous publish wrote in *outdir* ([] when it is new or
    empty); UsageError when it is something else."""
    if not os.path.lexists(outdir):
        return []
    if not os.path.isdir(outdir):
        raise UsageError(f"{outdir}: not a folder")
    marker = os.path.join(outdir, MARKER)
    if not os.path.exists(marker):
        if os.listdir(outdir):
            message = f"not a site published by perf (no {MARKER}), and not empty: choose another folder"
            raise UsageError(f"{outdir}: {message}")
        return []
    try:
        with open(marker, encoding="utf-8") as file:
            listed = json.load(file)["files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{marker}: cannot read the list of published files ({exc})") from None
    return [name for name in listed if isinstance(name, str)]


def _write(outdir: str, site: dict[str, str], before: list[str]) -> tuple[int, int, int]:
    """Write the files of *site* whose text changed; remove those of
    *before* it no longer has.  (written, kept, removed)."""
    from perf.storage.files import write_atomic

    written = kept = 0
    for name, text in sorted(site.items()):
        path = os.path.join(outdir, *name.split("/"))
        data = text.encode("utf-8")
        try:
            with open(path, "rb") as file:
                if file.read() == data:
                    kept += 1
                    continue
        except OSError:
            pass
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, data, replace=True)
        written += 1
    removed = 0
    for name in set(before) - set(site):
        path = os.path.join(outdir, *name.split("/"))
        if not os.path.normpath(name).startswith((os.pardir, os.sep)) and os.path.isfile(path):
            os.unlink(path)
            removed += 1
    marker = json.dumps({"files": sorted(site)}, indent=1).encode("utf-8") + b"\n"
    write_atomic(os.path.join(outdir, MARKER), marker, replace=True)
    return written, kept, removed


def _change_pairs(found: Sequence[Timeline]) -> dict[str, dict[tuple[str, str], list[str]]]:
    """Per machine, the two sides of every change, and what changed there."""
    pairs: dict[str, dict[tuple[str, str], list[str]]] = {}
    for timeline in found:
        listed = pairs.setdefault(timeline.machine, {})
        for change in timeline.changes:
            what = f"{change.benchmark} {change.ratio:.3f}x {change.direction}"
            listed.setdefault((change.before, change.after), []).append(what)
    return pairs


def _comparisons(store: HistoryStore, found: Sequence[Timeline]) -> list[SiteComparison]:
    """``compare_to``'s text, from the store's result files of each commit
    on its machine, for the pairs of the compare page: the two sides of
    every change, then the first and the latest commit of each machine."""
    from perf.analysis.finished import finish_comparison
    from perf.model.suite import BenchmarkSuite
    from perf.render.compare_to import Layout, format_compare_to
    from perf.render.html.site import SiteComparison

    result = []
    for machine, pairs in _change_pairs(found).items():
        by_commit: dict[str, list[Recording]] = {}
        for recording in store.recordings(machine):  # in timeline order
            by_commit.setdefault(recording.commit, []).append(recording)
        commits = list(by_commit)
        if len(commits) > 1:
            pairs.setdefault((commits[0], commits[-1]), []).append("the first and the latest commit")
        for (before, after), labels in pairs.items():
            suites = []
            for commit in (before, after):
                benchmarks: dict[str, Benchmark] = {}
                for recording in by_commit.get(commit, []):
                    for benchmark in store.load(recording):
                        benchmarks.setdefault(benchmark.get_name(), benchmark)
                suites.append(BenchmarkSuite(list(benchmarks.values()), filename=commit[:12]))
            comparison = finish_comparison(suites, suites=suites)
            lines = format_compare_to(suites, comparison, Layout(titles=[before[:12], after[:12]], table=True))
            result.append(SiteComparison(machine, before, after, ", ".join(labels), "\n".join(lines)))
    return result


def run(args: argparse.Namespace) -> int:
    from perf.history.store import HistoryStore
    from perf.history.timelines import timelines
    from perf.render.html.site import site_files

    before = _published_files(args.outdir)
    with HistoryStore(args.store) as store:
        if not store.benchmark_names():
            raise ResultError(f"{args.store}: the store has no results yet (add some with python -m perf history add)")
        branches: dict[str, list[str]] = {}
        for recording in store.recordings():
            if recording.branch and recording.branch not in branches.setdefault(recording.commit, []):
                branches[recording.commit].append(recording.branch)
        found = timelines(store)
        comparisons = _comparisons(store, found)
    site = site_files(found, branches, args.title, comparisons)
    os.makedirs(args.outdir, exist_ok=True)
    written, kept, removed = _write(args.outdir, site, before)
    print(
        f"Published {len(site)} files to {args.outdir} ({written} written, {kept} unchanged, {removed} removed): "
        f"open {os.path.join(args.outdir, 'index.html')}"
    )
    return 0
