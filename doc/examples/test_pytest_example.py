"""The example of doc/pytest.rst: tests written for pytest-benchmark."""

import json

import pytest

DATA = {"name": "perf", "values": list(range(100))}


def test_dumps(benchmark):
    text = benchmark(json.dumps, DATA)
    assert json.loads(text) == DATA


@pytest.mark.parametrize("size", [10, 1000])
def test_sorted(benchmark, size):
    data = list(range(size, 0, -1))
    assert benchmark(sorted, data)[0] == 1


def test_append_pedantic(benchmark):
    items = []
    benchmark.pedantic(items.append, args=(1,), rounds=100, iterations=10)
    assert len(items) == 1001
