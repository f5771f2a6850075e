"""Text of one benchmark's result: the ``Mean +- std dev:`` line.

Must not: compute statistics beyond calling the model, read files, print.
"""

from __future__ import annotations

from perf.model.benchmark import Benchmark


def format_result_value(benchmark: Benchmark) -> str:
    """``'22.5 ms +- 0.2 ms'``, or one value, or a note for no value."""
    values = benchmark.get_values()
    if not values:
        return "<no value: only calibration runs>"
    if len(values) == 1:
        return benchmark.format_value(values[0])
    mean, stdev = benchmark.format_values((benchmark.mean(), benchmark.stdev()))
    return f"{mean} +- {stdev}"


def format_result(benchmark: Benchmark) -> str:
    """``'Mean +- std dev: 22.5 ms +- 0.2 ms'`` (pyperf's grep-able line)."""
    values = benchmark.get_values()
    if len(values) < 2:
        return format_result_value(benchmark)
    return f"Mean +- std dev: {format_result_value(benchmark)}"
