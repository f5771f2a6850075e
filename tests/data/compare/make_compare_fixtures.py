"""Write the constructed result files of the compare_to tests (fixed seed).

    python3 tests/data/compare/make_compare_fixtures.py

Each benchmark is built to reach one verdict of perf's comparison (Welch t
on log process means, 1 % margin); process means are drawn log-normally
around a level, values around their process mean.  ``ref.json`` and
``changed.json``: 20 processes x 3 values each side, except ``unequal``
(20 x 3 against 8 x 6).  Tags make per-tag sections.  The dates put the
changed file 3 days after the reference, on another host, to exercise the
warnings; ``same_host.json`` is ``changed.json`` recorded right after the
reference on the same host.
"""

from __future__ import annotations

import datetime
import math
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from perf.analysis.compare import compare_process_means
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.storage import files

HERE = pathlib.Path(__file__).resolve().parent

#: the verdict each benchmark is built for (checked when writing)
VERDICTS = {
    "call_slower": "slower",
    "call_faster": "faster",
    "dict_no_change": "no change",
    "list_small_change": "small change",
    "noisy_inconclusive": "inconclusive",
    "unequal_counts": "slower",
}

#: name -> (tags, reference level, changed factor, process spread, value spread,
#:          changed processes, changed values per process)
BENCHMARKS = {
    "call_slower": (["calls"], 2.0e-6, 1.10, 0.01, 0.005, 20, 3),
    "call_faster": (["calls"], 5.0e-6, 0.80, 0.01, 0.005, 20, 3),
    "dict_no_change": (["containers"], 1.0e-6, 1.000, 0.002, 0.002, 20, 3),
    "list_small_change": (["containers"], 3.0e-6, 1.012, 0.004, 0.002, 20, 3),
    "noisy_inconclusive": ([], 8.0e-6, 1.00, 0.05, 0.01, 20, 3),
    "unequal_counts": ([], 4.0e-6, 1.05, 0.01, 0.01, 8, 6),
}


def make_benchmark(rng, name, tags, level, processes, values, process_spread, value_spread, start, host):  # noqa: PLR0917
    runs = []
    for index in range(processes):
        process_mean = level * math.exp(rng.gauss(0, process_spread))
        run_values = [process_mean * math.exp(rng.gauss(0, value_spread)) for _ in range(values)]
        date = start + datetime.timedelta(seconds=index)
        metadata = {
            "name": name,
            "loops": 1000,
            "date": date.strftime("%Y-%m-%d %H:%M:%S"),
            "duration": 0.5,
            "hostname": host,
            "cpu_model_name": "Fake CPU @ 2.00GHz",
            "python_version": "3.12.1 (64-bit)",
        }
        if tags:
            metadata["tags"] = tags
        runs.append(Run(run_values, warmups=[(1000, run_values[0] * 1.1)], metadata=metadata, collect_metadata=False))
    return Benchmark(runs)


def write(path, benchmarks):
    files.dump(BenchmarkSuite(benchmarks), str(path), replace=True)


def main():
    rng = random.Random(2)
    reference_start = datetime.datetime(2026, 11, 18, 10, 0, 0)
    changed_start = datetime.datetime(2026, 11, 21, 10, 0, 0)
    near_start = datetime.datetime(2026, 11, 18, 10, 10, 0)
    reference, changed, near = [], [], []
    for name, (tags, level, factor, p_spread, v_spread, processes, values) in BENCHMARKS.items():
        reference.append(make_benchmark(rng, name, tags, level, 20, 3, p_spread, v_spread, reference_start, "bench1"))
        state = rng.getstate()
        changed.append(
            make_benchmark(
                rng, name, tags, level * factor, processes, values, p_spread, v_spread, changed_start, "bench2"
            )
        )
        rng.setstate(state)
        near.append(
            make_benchmark(rng, name, tags, level * factor, processes, values, p_spread, v_spread, near_start, "bench1")
        )
    for ref_bench, new_bench, near_bench in zip(reference, changed, near):
        for other in (new_bench, near_bench):
            verdict = compare_process_means(ref_bench.get_process_means(), other.get_process_means()).verdict
            assert verdict == VERDICTS[ref_bench.get_name()], (ref_bench.get_name(), verdict)
    write(HERE / "ref.json", reference)
    write(HERE / "changed.json", changed)
    write(HERE / "same_host.json", near)


if __name__ == "__main__":
    main()
