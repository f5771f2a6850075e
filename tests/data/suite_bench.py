"""Small 3-benchmark pyperf script used by make_fixtures.sh (suite_tags.json).

Run with the Python of a venv where pyperf 2.10.0 is installed, e.g.:

    python suite_bench.py -p 2 -n 3 --min-time 0.02 -o suite_tags.json
"""

import pyperf


def build_dict(n):
    return {i: str(i) for i in range(n)}


runner = pyperf.Runner()
runner.metadata["description"] = "perf fixture suite (three small benchmarks)"
runner.bench_func("sort_list", sorted, list(range(200, 0, -1)))
runner.bench_func("build_dict", build_dict, 50)
runner.timeit("join_str", "'-'.join(words)", setup="words = ['a'] * 50")
