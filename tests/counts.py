"""Builders of count benchmarks (``--metric instructions``) for the tests:
runs of the shape the runner writes (issue 31), one value per run (the
instructions per loop), ``unit: integer``, no warmups, the counts per loop,
``counter_source`` and ``hash_seed``.  tests/data/counts/ holds files of the
same shape (make_count_files.py)."""

from __future__ import annotations

import pathlib

from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite

COUNTS = pathlib.Path(__file__).resolve().parent / "data" / "counts"
SOURCE = "cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 8388608,16,64"


def count_run(name, instructions, *, i1=3.0, d1=1929.0, ll=0.0, seed=1, loops=1024, source=SOURCE, **metadata):
    """One run of a count benchmark: *instructions* per loop, and its misses."""
    counts = {
        "instructions": float(instructions),
        "i1_misses": float(i1),
        "d1_misses": float(d1),
        "ll_misses": float(ll),
        "cycles_estimate": float(instructions + 10 * (i1 + d1) + 100 * ll),
    }
    base = {"name": name, "unit": "integer", "loops": loops, "counter_source": source, "hash_seed": seed}
    return Run([float(instructions)], metadata={**base, **counts, **metadata}, collect_metadata=False)


def count_benchmark(name="sorted", instructions=183002.0, processes=5, **counts):
    """*processes* runs with hash seeds 1, 2...; *instructions* is one
    count (the same under every seed) or one per process."""
    if isinstance(instructions, (int, float)):
        instructions = [instructions] * processes
    return Benchmark([count_run(name, value, seed=seed, **counts) for seed, value in enumerate(instructions, 1)])


def count_suite(path, *benchmarks):
    """A file of *benchmarks* at *path* (its name, as a str)."""
    from perf.storage import files

    files.dump(BenchmarkSuite(list(benchmarks)), str(path))
    return str(path)
