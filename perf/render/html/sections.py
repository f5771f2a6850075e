"""The sections of the HTML report about the files themselves.

* :func:`header_table`: each file with its path, benchmark count, dates,
  hosts, CPUs and Python versions from the metadata;
* :func:`results_section`: with one file, the table of results (mean +-
  std dev, the confidence interval of the mean of process means,
  processes, values);
* :func:`stability_section`: the stability warnings of each benchmark;
* :func:`metadata_section`: what every file shares, once, and the keys
  whose values differ between files.

The intervals and checks of each benchmark are the caller's
:class:`~perf.analysis.summaries.BenchmarkFindings`, one mapping per file
(``findings`` of :func:`perf.analysis.summaries.summarize_files`).

Must not: compare files (:mod:`perf.render.html.comparison`), read files,
print, or compute statistics or run the checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from perf.analysis.checks import Level
from perf.model.benchmark import Benchmark
from perf.model.metadata import common_metadata
from perf.model.suite import BenchmarkSuite
from perf.render.benchmark import format_result_value
from perf.render.checks import format_check
from perf.render.html.markup import NONE, bullet_list, cell, element, escape, row, table
from perf.render.metadata import format_metadata
from perf.render.units import format_datetime

if TYPE_CHECKING:
    from perf.analysis.summaries import BenchmarkFindings

__all__ = ["Files", "Findings", "header_table", "metadata_section", "results_section", "stability_section"]

#: (title, suite) of each file, in the order given on the command line
Files = Sequence[tuple[str, BenchmarkSuite]]
#: the findings of each file's benchmarks by name, in the order of the files
Findings = Sequence[Mapping[str, "BenchmarkFindings"]]

#: header keys: (metadata key, column title)
_HEADER_KEYS = (
    ("hostname", "Hosts"),
    ("cpu_model_name", "CPUs"),
    ("python_version", "Python"),
)

#: metadata that describes one benchmark, not the files
_PER_BENCHMARK_KEYS = frozenset({"name"})


def _distinct(suite: BenchmarkSuite, key: str) -> list[str]:
    """The values of metadata *key* in the benchmarks of *suite*, each once."""
    values = (benchmark.get_metadata().get(key) for benchmark in suite)
    return list(dict.fromkeys(format_metadata(key, value) for value in values if value is not None))


def _dates(suite: BenchmarkSuite) -> tuple[str, str]:
    dates = suite.get_dates()
    if not dates:
        return NONE, NONE
    return format_datetime(dates[0], microsecond=False), format_datetime(dates[1], microsecond=False)


def header_table(files: Files) -> str:
    """The files: path, benchmark count, dates, hosts, CPUs and Pythons."""
    headers = ["File", "Path", "Benchmarks", "Start", "End", *(title for _, title in _HEADER_KEYS)]
    rows = []
    for index, (title, suite) in enumerate(files):
        label = f"{title} (reference)" if index == 0 and len(files) > 1 else title
        cells = [cell(label), cell(str(suite.filename or NONE)), cell(str(len(suite)), class_="num")]
        cells.extend(cell(date) for date in _dates(suite))
        cells.extend(cell(", ".join(_distinct(suite, key)) or NONE) for key, _ in _HEADER_KEYS)
        rows.append(row(cells))
    return table(headers, rows, class_="files")


def _interval_text(benchmark: Benchmark, found: BenchmarkFindings) -> tuple[str, str]:
    """(interval, processes) cells of a benchmark."""
    nprocesses = str(found.figures.processes if found.figures is not None else 0)
    interval = found.interval  # the result line's interval
    if interval is None:
        return NONE, nprocesses
    low, high = benchmark.format_values((interval.low, interval.high))
    return f"{low} .. {high}", nprocesses


def _results_table(suite: BenchmarkSuite, findings: Mapping[str, BenchmarkFindings]) -> str:
    rows = []
    for benchmark in suite:
        found = findings[benchmark.get_name()]
        interval, nprocesses = _interval_text(benchmark, found)
        cells = [
            cell(benchmark.get_name(), class_="name"),
            cell(format_result_value(benchmark, found.figures), class_="num"),
            cell(interval, class_="num"),
            cell(nprocesses, class_="num"),
            cell(str(benchmark.get_nvalue()), class_="num"),
        ]
        rows.append(row(cells))
    headers = ["Benchmark", "Mean +- std dev", "95% CI", "Processes", "Values"]
    return table(headers, rows, class_="results")


def results_section(files: Files, findings: Findings) -> str:
    """The table of results of each file (a report of one file), with the
    *findings* of its benchmarks."""
    parts = [element("h2", "Results")]
    for (title, suite), file_found in zip(files, findings):
        if len(files) > 1:
            parts.append(element("h3", escape(title)))
        parts.append(_results_table(suite, file_found))
    parts.append(
        bullet_list(
            [
                "Mean +- std dev of all values; the interval is the t interval of the mean of the process means "
                "(a process is one sample: its values are not independent)."
            ],
            class_="notes",
        )
    )
    return element("section", "\n".join(parts), id="results")


def _check_items(benchmark: Benchmark, found: BenchmarkFindings) -> tuple[list[str], list[str]]:
    """(warnings, other findings) of a benchmark, as texts."""
    warnings, others = [], []
    for check in found.checks:
        text = format_check(check, benchmark).replace("\n", " ")
        if check.level is Level.WARNING:
            warnings.append(text)
        else:
            others.append(text)
    return warnings, others


def stability_section(files: Files, findings: Findings) -> str:
    """The stability warnings and other findings of each benchmark (its
    *findings*)."""
    parts = [element("h2", "Stability")]
    unstable = 0
    for (title, suite), file_found in zip(files, findings):
        for benchmark in suite:
            warnings, others = _check_items(benchmark, file_found[benchmark.get_name()])
            if not warnings and not others:
                continue
            unstable += bool(warnings)
            label = f"{benchmark.get_name()} ({title})" if len(files) > 1 else benchmark.get_name()
            parts.append(element("h3", escape(label)))
            if warnings:
                parts.append(bullet_list(warnings, class_="warning"))
            if others:
                parts.append(bullet_list(others))
    if unstable:
        parts.insert(
            1,
            element(
                "p",
                escape(
                    f"WARNING: {unstable} benchmark result{'s' if unstable > 1 else ''} may be unstable. "
                    "Rerun with more processes, values or loops; 'python -m perf system tune' reduces "
                    "the system jitter."
                ),
                class_="warning",
            ),
        )
    else:
        parts.insert(1, element("p", "No stability warning: every benchmark seems stable.", class_="stable"))
    return element("section", "\n".join(parts), id="stability")


def _file_metadata(suite: BenchmarkSuite) -> dict[str, Any]:
    metadata = suite.get_metadata()
    if len(suite) > 1:
        for key in _PER_BENCHMARK_KEYS:
            metadata.pop(key, None)
    return metadata


def metadata_section(files: Files) -> str:
    """The metadata every file shares, once, then the keys whose values differ."""
    metadatas = [_file_metadata(suite) for _, suite in files]
    common = common_metadata(metadatas)
    parts = [element("h2", "Metadata")]
    parts.append(element("h3", "Common to every file" if len(files) > 1 else "Common to every benchmark"))
    if common:
        rows = [row([cell(key), cell(format_metadata(key, common[key]))]) for key in sorted(common)]
        parts.append(table(["Key", "Value"], rows, class_="metadata"))
    else:
        parts.append(element("p", "None."))
    if len(files) > 1:
        parts.append(element("h3", "Different between files"))
        keys = sorted({key for metadata in metadatas for key in metadata} - set(common))
        if keys:
            rows = [
                row([cell(key), *(cell(format_metadata(key, m[key]) if key in m else NONE) for m in metadatas)])
                for key in keys
            ]
            parts.append(table(["Key", *(title for title, _ in files)], rows, class_="metadata-differences"))
        else:
            parts.append(element("p", "None: the files share all their common metadata."))
    return element("section", "\n".join(parts), id="metadata")
