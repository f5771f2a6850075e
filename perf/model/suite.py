"""BenchmarkSuite: benchmarks with unique names, in insertion order.

Must not: open files (``load``/``dump`` are one-line lazy calls into
``perf.storage.files``, kept for pyperf's API).
"""

from __future__ import annotations

import math
from typing import Iterator, Sequence, Union

from perf.errors import ResultError
from perf.model.benchmark import Benchmark, Dates, PathOrFile
from perf.model.metadata import Metadata, common_metadata, copy_metadata


class BenchmarkSuite:
    """A non-empty collection of benchmarks with unique names.

    :attr:`filename` is the file the suite was loaded from (``'<stdin>'``
    for standard input), or ``None``.
    """

    def __init__(self, benchmarks: Sequence[Benchmark], filename: str | None = None) -> None:
        if not benchmarks:
            raise ResultError("a suite needs at least one benchmark")
        self.filename = filename
        self._benchmarks: list[Benchmark] = []
        for benchmark in benchmarks:
            self.add_benchmark(benchmark)

    def __repr__(self) -> str:
        return f"<BenchmarkSuite with {len(self._benchmarks)} benchmarks>"

    def __len__(self) -> int:
        return len(self._benchmarks)

    def __iter__(self) -> Iterator[Benchmark]:
        return iter(self._benchmarks)

    def add_benchmark(self, benchmark: Benchmark) -> None:
        """Add *benchmark*; its name must not be in the suite yet."""
        if not isinstance(benchmark, Benchmark):
            raise TypeError(f"Benchmark expected, got {type(benchmark).__name__}")
        if any(benchmark is other for other in self._benchmarks):
            raise ResultError("the benchmark is already part of the suite")
        name = benchmark.get_name()
        if self._find(name) is not None:
            raise ResultError(f"the suite already has a benchmark called {name!r}")
        self._benchmarks.append(benchmark)

    def _find(self, name: str) -> Benchmark | None:
        # A linear search: names can change through update_metadata(), and
        # bulk loaders build suites through _from_checked() instead.
        for benchmark in self._benchmarks:
            if benchmark.get_name() == name:
                return benchmark
        return None

    @classmethod
    def _from_checked(cls, benchmarks: list[Benchmark], filename: str | None) -> BenchmarkSuite:
        """Build a suite whose benchmark names are known to be unique."""
        suite = cls.__new__(cls)
        suite.filename = filename
        suite._benchmarks = benchmarks
        return suite

    def add_runs(self, result: Union[Benchmark, BenchmarkSuite]) -> None:
        """Merge runs by benchmark name; unknown names become new benchmarks."""
        if isinstance(result, Benchmark):
            others = [result]
        elif isinstance(result, BenchmarkSuite):
            others = list(result)
        else:
            raise TypeError(f"Benchmark or BenchmarkSuite expected, got {type(result).__name__}")
        # check everything first: merge all or nothing
        pairs = [(other, self._find(other.get_name())) for other in others]
        for other, existing in pairs:
            if existing is not None:
                existing.check_benchmark(other)
        for other, existing in pairs:
            if existing is None:
                self.add_benchmark(other)
            else:
                existing.add_runs(other)

    def get_benchmark(self, name: str) -> Benchmark:
        benchmark = self._find(name)
        if benchmark is None:
            raise KeyError(f"there is no benchmark called {name!r}")
        return benchmark

    def get_benchmarks(self) -> list[Benchmark]:
        return list(self._benchmarks)

    def get_benchmark_names(self) -> list[str]:
        return [benchmark.get_name() for benchmark in self._benchmarks]

    def get_metadata(self) -> Metadata:
        """Metadata common to every run of every benchmark."""
        return copy_metadata(common_metadata(benchmark._get_common_metadata() for benchmark in self._benchmarks))

    def get_total_duration(self) -> float:
        return math.fsum(benchmark.get_total_duration() for benchmark in self._benchmarks)

    def get_dates(self) -> Dates:
        all_dates = [dates for dates in (b.get_dates() for b in self._benchmarks) if dates]
        if not all_dates:
            return None
        return (min(start for start, _ in all_dates), max(end for _, end in all_dates))

    # --- files (pyperf API) ---------------------------------------------

    @classmethod
    def load(cls, file: PathOrFile) -> BenchmarkSuite:
        """Load a result file: a path (``.json`` or ``.json.gz``), ``'-'``
        for standard input, or a file object.  Formats 5, 6 and ``"1.0"``."""
        from perf.storage import files

        return files.load(file)

    @classmethod
    def loads(cls, string: str) -> BenchmarkSuite:
        from perf.storage import files

        return files.loads(string)

    def dump(self, file: PathOrFile, compact: bool = True, replace: bool = False) -> None:
        """Write the suite as JSON format ``"1.0"``, atomically."""
        from perf.storage import files

        files.dump(self, file, compact=compact, replace=replace)
