"""A small suite for the examples of doc/analyze.rst: run it with two
interpreters and compare the files.

    python3.11 bench_suite.py -o py311.json
    python3.12 bench_suite.py -o py312.json
    python3 -m perf compare_to py311.json py312.json
"""

import perf


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm2(self):
        return self.x * self.x + self.y * self.y


def make_points():
    return [Point(i, i + 1).norm2() for i in range(200)]


runner = perf.Runner()
runner.metadata["description"] = "doc/analyze.rst example suite"
runner.bench_func("fib(18)", fib, 18)
runner.bench_func("points", make_points)
runner.timeit("sorted(1000)", "sorted(data)", "data = list(range(1000, 0, -1))")
runner.timeit("str.join", "''.join(words)", "words = ['abc'] * 1000")
runner.timeit("dict lookup", "d['key500']", "d = {f'key{i}': i for i in range(1000)}")
