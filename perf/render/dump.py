"""Text of ``dump``: every run of a benchmark, value by value.

The lines match pyperf 2.10.0's ``pyperf dump`` byte for byte: calibration
runs list their warmups with their loops, value runs their warmups and
values, and a value (or warmup) more than 5 % away from the benchmark's
mean is followed by its distance, ``(+7%)``.

Options (pyperf's ``-q``, ``-v`` and ``--raw``):

* *quiet* hides calibration runs and warmups and shortens the run header;
* *verbose* starts with the benchmark's common metadata and ends each run
  with the metadata that differ from it;
* *raw* shows raw values: values multiplied back by the loop iterations.

The mean is the caller's (:func:`perf.analysis.summaries.value_figures`).

Must not: compute statistics, read files, print.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from perf.model.benchmark import Benchmark
from perf.model.metadata import Metadata
from perf.model.run import Number, Run
from perf.render.metadata import format_metadata
from perf.render.units import DEFAULT_UNIT, format_number

if TYPE_CHECKING:
    from perf.analysis.summaries import ValueFigures

#: values further than this fraction of the mean away from it are annotated
_ANNOTATE_FRACTION = 0.05


def _calibration_action(run: Run) -> str:
    if run.is_calibration_warmups():
        return f"calibrate the number of warmups: {format_number(run.get_calibration_warmups())}"
    if run.is_recalibration_warmups():
        return f"recalibrate the number of warmups: {format_number(run.get_calibration_warmups())}"
    if run.is_recalibration_loops():
        return f"recalibrate the number of loops: {format_number(run.get_calibration_loops())}"
    return f"calibrate the number of loops: {format_number(run.get_calibration_loops())}"


def _format_calibration_run(benchmark: Benchmark, index: int, run: Run, raw: bool) -> list[str]:
    lines = [f"Run {index}: {_calibration_action(run)}"]
    name = "raw calibrate" if raw else "calibrate"
    inner_loops = run.get_inner_loops()
    show_raw = benchmark.get_unit() == DEFAULT_UNIT
    for number, (loops, value) in enumerate(run.warmups, 1):
        raw_value = value * (loops * inner_loops)
        if raw:
            text = f"{benchmark.format_value(raw_value)} (loops: {format_number(loops)})"
        elif show_raw:
            # value * loops only means something for durations
            text = (
                f"{benchmark.format_value(value)} (loops: {format_number(loops)}, "
                f"raw: {benchmark.format_value(raw_value)})"
            )
        else:
            text = f"{benchmark.format_value(value)} (loops: {format_number(loops)})"
        lines.append(f"- {name} {number}: {text}")
    return lines


def _annotate(benchmark: Benchmark, mean: float, values: Sequence[Number], divisor: Number = 1) -> list[str]:
    """Format *values*, adding ``(+N%)`` to those more than 5 % from the
    *mean* of all values.

    *divisor* brings raw values back to the scale of the mean.
    """
    texts = []
    for value in values:
        text = benchmark.format_value(value)
        delta = float(value) / divisor - mean
        if abs(delta) > mean * _ANNOTATE_FRACTION:
            text += f" ({delta * 100 / mean:+.0f}%)"
        texts.append(text)
    return texts


def _format_value_run(
    benchmark: Benchmark, mean: float, index: int, run: Run, *, raw: bool, verbosity: int
) -> list[str]:
    inner_loops = run.get_inner_loops()
    total_loops = run.get_total_loops()
    if raw:
        warmups = [benchmark.format_value(value * (loops * inner_loops)) for loops, value in run.warmups]
        values = _annotate(benchmark, mean, [value * total_loops for value in run.values], divisor=total_loops)
    else:
        warmups = _annotate(benchmark, mean, [value for _loops, value in run.warmups])
        values = _annotate(benchmark, mean, run.values)

    if verbosity >= 0:
        header = (
            f"Run {index}: {format_number(len(warmups), 'warmup')}, "
            f"{format_number(len(values), 'value')}, {format_number(run.get_loops(), 'loop')}"
        )
        lines = [header]
        name = "raw warmup" if raw else "warmup"
        lines.extend(f"- {name} {number}: {text}" for number, text in enumerate(warmups, 1))
    else:
        lines = [f"Run {index}:"]
    name = "raw value" if raw else "value"
    lines.extend(f"- {name} {number}: {text}" for number, text in enumerate(values, 1))
    return lines


def _format_run_metadata(run: Run, common: Metadata) -> list[str]:
    metadata = run.get_metadata()
    if not metadata:
        return []
    lines = ["- Metadata:"]
    lines.extend(
        f"  {name}: {format_metadata(name, value)}" for name, value in sorted(metadata.items()) if name not in common
    )
    return lines


def format_run(
    benchmark: Benchmark,
    figures: ValueFigures | None,
    index: int,
    run: Run,
    *,
    raw: bool = False,
    verbosity: int = 0,
    common_metadata: Metadata | None = None,
) -> list[str]:
    """Lines of one run: ``Run 2: 1 warmup, 3 values, 2^15 loops``, then one
    line per warmup and value.

    *figures* are the benchmark's
    (:func:`~perf.analysis.summaries.value_figures`); *index* is the run's
    number (from 1); *verbosity* is -1 (quiet: no
    warmups, short header), 0 or 1 (then the run's metadata missing from
    *common_metadata* follow).
    """
    if run.is_calibration():
        lines = _format_calibration_run(benchmark, index, run, raw)
    else:
        # a run with values makes a benchmark with values: figures is not None
        mean = figures.mean if figures is not None else math.nan
        lines = _format_value_run(benchmark, mean, index, run, raw=raw, verbosity=verbosity)
    if verbosity > 0:
        lines.extend(_format_run_metadata(run, common_metadata or {}))
    return lines


def format_dump(
    benchmark: Benchmark, figures: ValueFigures | None, quiet: bool = False, verbose: bool = False, raw: bool = False
) -> list[str]:
    """Lines of ``dump`` for one benchmark (no title, no checks); *figures*
    are its :func:`~perf.analysis.summaries.value_figures`.

    *quiet* wins over *verbose*, as in pyperf.
    """
    verbosity = -1 if quiet else (1 if verbose else 0)
    lines: list[str] = []
    common: Metadata = {}
    if verbosity > 0:
        common = benchmark.get_metadata()
        lines.append("Metadata:")
        lines.extend(f"  {name}: {format_metadata(name, value)}" for name, value in sorted(common.items()))
        lines.append("")
    for index, run in enumerate(benchmark.get_runs(), 1):
        if quiet and run.is_calibration():
            continue
        lines.extend(format_run(benchmark, figures, index, run, raw=raw, verbosity=verbosity, common_metadata=common))
    return lines
