"""The JSON of ``python -m perf compare_to --json``: the finished comparison
that the text lays out, as data.

:func:`comparison_document` lays out a
:class:`~perf.analysis.finished.FinishedComparison` as a dict that
:func:`json.dumps` writes: per benchmark the mean and standard deviation
of each file (the text's ``Mean +- std dev``), and for each changed file
the ratio with its interval, the verdict, whether it differs from 1x, the
change as the text's table shows it, the test, and what a busy machine
changed, and with ``--explain`` its instruction counts
(:func:`perf.render.counts.counts_document`); the suite's geometric means,
the sections of the tags, the chance counts, the ignored benchmarks and
the notes on the files (each with its ``kind``).  A figure that is not a finite number (the bound of a
ratio without an interval) is ``null``.  doc/json_format.rst describes
the document; :data:`VERSION` is its version.

The text (:mod:`perf.render.compare_to`) and this document come from the
same finished comparison, so they cannot disagree.

Must not: compute statistics, read files, or print.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from perf.analysis.compare import Adjustment, Comparison
from perf.analysis.counts import CountChange, Explained
from perf.analysis.finished import FinishedComparison, Section, Wins
from perf.analysis.suites import BenchmarkComparison
from perf.analysis.summaries import ValueFigures
from perf.render.compare import format_change
from perf.render.counts import counts_document

__all__ = ["FORMAT", "VERSION", "comparison_document"]

#: the "format" of the document
FORMAT = "perf compare_to"
#: the "version" of the document: a new key keeps it, a changed or
#: removed key raises it
VERSION = 1


def _number(value: float) -> float | None:
    """*value*, or None (``null``) for an infinite or NaN one."""
    return value if math.isfinite(value) else None


def _ratio(comparison: Comparison) -> dict[str, Any]:
    return {
        "ratio": _number(comparison.ratio),
        "low": _number(comparison.low),
        "high": _number(comparison.high),
        "verdict": comparison.verdict,
        # an interval of no width: no process varies (instruction counts)
        "exact": comparison.low == comparison.high,
    }


def _adjustment(adjustment: Adjustment) -> dict[str, Any]:
    machine = adjustment.machine
    tracking = adjustment.tracking
    return {
        "as_recorded": _ratio(adjustment.raw),
        "cpu_time": adjustment.cpu_time,
        "lost_cpu": list(adjustment.marked),
        "processes": list(adjustment.processes),
        "machine": None if machine is None else dict(zip(("ratio", "low", "high"), map(_number, machine))),
        "machine_weight": adjustment.machine_weight,
        "untracked": adjustment.untracked,
        "tracking": None if tracking is None else {"slope": tracking[0], "error": tracking[1]},
        "probes": list(adjustment.probes),
        "machine_skipped": adjustment.machine_skipped,
    }


def _comparison(comparison: Comparison, margin: float) -> dict[str, Any]:
    """A comparison: its ratio, interval and verdict, and the text's cell."""
    return {
        **_ratio(comparison),
        "confidence": comparison.confidence,
        "significant": comparison.different,
        "change": format_change(comparison, margin, meaning=False),
        "method": comparison.method,
        "p_value": _number(comparison.p_value),
        "reference_processes": comparison.reference_processes,
        "changed_processes": comparison.changed_processes,
        "needed_processes": comparison.needed_processes,
        "corrected": comparison.corrected,
        "busy_machine": None if comparison.adjustment is None else _adjustment(comparison.adjustment),
    }


def _values(figures: ValueFigures | None) -> dict[str, Any]:
    if figures is None:
        return {"mean": None, "std_dev": None, "processes": 0}
    return {"mean": figures.mean, "std_dev": figures.stdev, "processes": figures.processes}


def _wins(wins: Wins | None) -> dict[str, Any] | None:
    if wins is None:
        return None
    return {"rate": wins.rate.rate, "low": wins.rate.low, "high": wins.rate.high, "paired": wins.paired}


def _benchmark(
    entry: BenchmarkComparison, finished: FinishedComparison, counts: dict[tuple[str, int], CountChange] | None
) -> dict[str, Any]:
    changed = []
    wins = finished.wins[entry.name] if finished.wins is not None else None
    for index, comparison in enumerate(entry.comparisons):
        item = {"file": index + 1, **_values(entry.figures[index + 1]), **_comparison(comparison, finished.margin)}
        if wins is not None:
            item["win_rate"] = _wins(wins[index])
        if counts is not None:
            found = counts.get((entry.name, index))
            item["counts"] = None if found is None else counts_document(found)
        changed.append(item)
    benchmark = entry.reference
    reference = {"unit": benchmark.get_display_unit(), "counter_source": benchmark.get_counter_source()}
    reference.update(_values(entry.figures[0]))
    return {"name": entry.name, "reference": reference, "changed": changed}


def _geometric_means(section: Section, margin: float) -> list[dict[str, Any]] | None:
    means = section.geometric_means
    if means is None:
        return None
    return [{"file": index, **_comparison(mean, margin)} for index, mean in enumerate(means, 1)]


def comparison_document(
    finished: FinishedComparison, titles: Sequence[str], filenames: Sequence[str], explained: Explained | None = None
) -> dict[str, Any]:
    """The document of *finished* (see the module documentation); *titles*
    and *filenames*: those of the files, the reference first; with
    *explained* (``--explain``), each changed item has its ``counts``."""
    differences = finished.everything.differences
    counts = None
    if explained is not None:
        counts = {(change.name, change.changed): change for change in explained.changes}
    tags = [section for section in finished.sections if section.tag is not None]
    return {
        "format": FORMAT,
        "version": VERSION,
        "files": [{"title": title, "filename": filename} for title, filename in zip(titles, filenames)],
        "margin": finished.margin,
        "correction": finished.correct,
        "benchmarks": [_benchmark(entry, finished, counts) for entry in finished.entries],
        "geometric_mean": _geometric_means(finished.everything, finished.margin),
        "tags": [
            {
                "tag": section.tag,
                "benchmarks": [entry.name for entry in section.entries],
                "geometric_mean": _geometric_means(section, finished.margin),
            }
            for section in tags
        ],
        "chance": None if differences is None else differences._asdict(),
        "corrected_comparisons": finished.everything.corrected,
        "ignored": [finished.suite.ignored(index) for index in range(len(filenames))],
        "notes": [{"kind": note.kind, **note._asdict()} for note in finished.notes],
    }
