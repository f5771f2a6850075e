"""Write the synthetic count files of the tests and of doc/analyze.rst
(``--metric instructions``: instruction counts per loop, not times).

    python3 tests/data/counts/make_count_files.py

Each run has the shape the runner writes (issue 31): one value, the
instructions per loop, ``unit: integer``, no warmups, and per loop the
``instructions``, ``i1_misses``, ``d1_misses``, ``ll_misses`` and
``cycles_estimate`` metadata, with ``counter_source`` and ``hash_seed``.
Ten runs per benchmark, hash seeds 1 to 10; the counts of
``sorted``, ``sum_list`` and ``call_chain`` are the same under every seed
(their values do not vary), those of ``dict_strings`` (a dict of strings)
move by up to 1.8 % with the seed.  The numbers of ``sorted`` and
``sum_list`` were measured (bench/counts/count_method.py): sorted(range(1000)),
and the sum of 1M ints in memory order (``main.json``) or shuffled
(``branch.json``).

* ``main.json``: the reference;
* ``branch.json``: ``sorted`` does 1.0 % more instructions, ``sum_list``
  walks a shuffled list (the same instructions, 2.6x the D1 misses),
  ``call_chain`` has 70x the I1 misses with the same instructions (code
  placement), ``dict_strings`` is unchanged;
* ``rerun.json``: ``main.json`` counted again an hour later: the same counts;
* ``bigger_ll.json``: ``main.json`` under another simulated last-level
  cache (another ``counter_source``);
* ``timed.json``: the same benchmark names timed (seconds).
"""

from __future__ import annotations

import datetime
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.storage import files

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = "cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 8388608,16,64"
OTHER_SOURCE = "cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 33554432,16,64"
START = datetime.datetime(2026, 11, 30, 10, 0, 0)
SEEDS = range(1, 11)
#: dict_strings: its instructions under each hash seed, times its level
HASH_FACTORS = (1.000, 1.014, 0.991, 1.018, 1.006, 0.987, 1.011, 0.996, 1.009, 0.993)

COMMON = {
    "python_implementation": "cpython",
    "python_version": "3.12.1 (64-bit) revision 2305ca5",
    "python_executable": "/usr/bin/python3.12",
    "hostname": "devvm",
    "platform": "Linux-6.1.0-28-amd64-x86_64-with-glibc2.36",
    "cpu_model_name": "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz",
    "cpu_count": 2,
    "aslr": "Full randomization",
}

#: name -> (loops, instructions, I1 misses, D1 misses, LL misses, cycles
#: estimate or None: computed) per loop
REFERENCE = {
    "sorted": (1024, 183_002, 3, 1_929, 0, None),
    "sum_list": (1, 53_001_118, 0, 627_051, 627_049, 121_976_528),
    "dict_strings": (4096, 24_810, 2, 41, 0, None),
    "call_chain": (256, 1_250_400, 120, 310, 0, None),
}
CHANGED = {
    **REFERENCE,
    "sorted": (1024, 184_850, 3, 1_929, 0, None),
    "sum_list": (1, 53_001_378, 0, 1_624_149, 1_374_796, 206_722_213),
    "call_chain": (256, 1_250_400, 8_400, 310, 0, None),
}


def cycles(instructions: float, i1: float, d1: float, ll: float) -> float:
    """KCachegrind's estimate without branches."""
    return instructions + 10 * (i1 + d1) + 100 * ll


def count_runs(name, counts, start, source=SOURCE):
    loops, instructions, i1, d1, ll, estimate = counts
    runs = []
    for index, seed in enumerate(SEEDS):
        factor = HASH_FACTORS[index] if name == "dict_strings" else 1.0
        count = float(round(instructions * factor))
        metadata = {
            **COMMON,
            "name": name,
            "unit": "integer",
            "loops": loops,
            "counter_source": source,
            "hash_seed": seed,
            "date": (start + datetime.timedelta(seconds=30 * index)).isoformat(" "),
            "duration": 14.5 + index % 3,
            "instructions": count,
            "i1_misses": float(i1),
            "d1_misses": float(d1),
            "ll_misses": float(ll),
            "cycles_estimate": float(estimate if estimate is not None and factor == 1.0 else cycles(count, i1, d1, ll)),
        }
        runs.append(Run([count], metadata=metadata, collect_metadata=False))
    return runs


def time_runs(name, start):
    runs = []
    for index in range(5):
        metadata = {
            **COMMON,
            "name": name,
            "unit": "second",
            "loops": 1024,
            "date": (start + datetime.timedelta(seconds=index)).isoformat(" "),
        }
        runs.append(
            Run([4.6e-6 * (1 + index / 1000)] * 3, warmups=[(1024, 4.7e-6)], metadata=metadata, collect_metadata=False)
        )
    return runs


def write(filename, table, start, source=SOURCE):
    suite = BenchmarkSuite([Benchmark(count_runs(name, counts, start, source)) for name, counts in table.items()])
    files.dump(suite, str(HERE / filename), replace=True)


def main():
    write("main.json", REFERENCE, START)
    write("branch.json", CHANGED, START + datetime.timedelta(hours=2))
    write("rerun.json", REFERENCE, START + datetime.timedelta(hours=1))
    write("bigger_ll.json", REFERENCE, START + datetime.timedelta(hours=3), OTHER_SOURCE)
    suite = BenchmarkSuite([Benchmark(time_runs(name, START)) for name in REFERENCE])
    files.dump(suite, str(HERE / "timed.json"), replace=True)


if __name__ == "__main__":
    main()
