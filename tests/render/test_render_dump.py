"""perf.render.dump: the runs of a benchmark as ``pyperf dump`` shows them.

tests/data/X.dump.txt holds pyperf 2.10.0's ``pyperf dump X`` output: the
run lines of each benchmark must be the same.  The options (-q, -v, --raw)
are compared with pyperf's own formatter when pyperf is installed, and on
constructed benchmarks with the expected text written out.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from golden import DATA, consecutive_groups, fixtures_with

from perf.analysis.summaries import value_figures
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.render.dump import format_dump, format_run
from perf.storage import files


def dump(benchmark: Benchmark, **options: Any) -> list[str]:
    """format_dump with the figures that the command computes first."""
    return format_dump(benchmark, value_figures(benchmark), **options)


FIXTURES = fixtures_with("dump")
OPTIONS = [
    {},
    {"quiet": True},
    {"verbose": True},
    {"raw": True},
    {"raw": True, "verbose": True},
    {"quiet": True, "raw": True},
    {"quiet": True, "verbose": True},
]


def make_run(values: Any = (1.0,), warmups: Any = None, **metadata: Any) -> Run:
    metadata.setdefault("name", "bench")
    return Run(values, warmups=warmups, metadata=metadata, collect_metadata=False)


def run_blocks(text: str) -> list[list[str]]:
    """Groups of consecutive run lines (``Run N...`` and ``- ...``)."""
    return consecutive_groups(text, lambda line: re.match(r"Run \d+:", line) or line.startswith("- "))


def test_every_fixture_is_covered():
    assert {
        "timeit.json",
        "suite_tags.json",
        "track_memory.json",
        "command.json",
        "timeit_inner_loops.json",
        "calibration_only.json",
        "timeit.json.gz",
        "format_v5_synthetic.json",
        "format_v6_synthetic.json",
    } <= set(FIXTURES)


@pytest.mark.parametrize("name", FIXTURES)
def test_dump_matches_pyperf(name):
    benchmarks = files.load(str(DATA / name)).get_benchmarks()
    expected = run_blocks((DATA / f"{name}.dump.txt").read_text())
    assert [dump(benchmark) for benchmark in benchmarks] == expected


@pytest.fixture
def pyperf_cli():
    pytest.importorskip("pyperf")
    from pyperf import _cli

    return _cli


@pytest.mark.pyperf
@pytest.mark.parametrize("options", OPTIONS, ids=lambda options: "-".join(options) or "default")
@pytest.mark.parametrize("name", FIXTURES)
def test_options_match_pyperf(pyperf_cli, name, options):
    import pyperf

    ours = files.load(str(DATA / name)).get_benchmarks()
    theirs = pyperf.BenchmarkSuite.load(str(DATA / name)).get_benchmarks()
    for benchmark, pyperf_benchmark in zip(ours, theirs):
        assert dump(benchmark, **options) == pyperf_cli._format_runs(pyperf_benchmark, **options)


# --- constructed benchmarks ------------------------------------------------------


def calibrated() -> Benchmark:
    """A loop calibration run and two runs; mean 1.0 ms, one value at +10 %."""
    return Benchmark(
        [
            make_run((), warmups=[(1, 0.004), (2, 0.0011)], calibrate_loops=2, loops=2),
            make_run((0.001, 0.0011), warmups=[(2, 0.00094)], loops=2, date="2024-01-02T03:04:05"),
            make_run((0.00097, 0.00093), warmups=[(2, 0.001)], loops=2, date="2024-01-02T03:04:06"),
        ]
    )


def test_default():
    assert dump(calibrated()) == [
        "Run 1: calibrate the number of loops: 2",
        "- calibrate 1: 4.00 ms (loops: 1, raw: 4.00 ms)",
        "- calibrate 2: 1.10 ms (loops: 2, raw: 2.20 ms)",
        "Run 2: 1 warmup, 2 values, 2 loops",
        "- warmup 1: 940 us (-6%)",
        "- value 1: 1.00 ms",
        "- value 2: 1.10 ms (+10%)",
        "Run 3: 1 warmup, 2 values, 2 loops",
        "- warmup 1: 1.00 ms",
        "- value 1: 970 us",
        "- value 2: 930 us (-7%)",
    ]


def test_quiet_hides_calibration_and_warmups():
    assert dump(calibrated(), quiet=True) == [
        "Run 2:",
        "- value 1: 1.00 ms",
        "- value 2: 1.10 ms (+10%)",
        "Run 3:",
        "- value 1: 970 us",
        "- value 2: 930 us (-7%)",
    ]


def test_raw_values_are_multiplied_by_the_loops():
    assert dump(calibrated(), raw=True) == [
        "Run 1: calibrate the number of loops: 2",
        "- raw calibrate 1: 4.00 ms (loops: 1)",
        "- raw calibrate 2: 2.20 ms (loops: 2)",
        "Run 2: 1 warmup, 2 values, 2 loops",
        # raw warmups are never annotated (as pyperf)
        "- raw warmup 1: 1.88 ms",
        "- raw value 1: 2.00 ms",
        "- raw value 2: 2.20 ms (+10%)",
        "Run 3: 1 warmup, 2 values, 2 loops",
        "- raw warmup 1: 2.00 ms",
        "- raw value 1: 1.94 ms",
        "- raw value 2: 1.86 ms (-7%)",
    ]


def test_verbose_shows_common_then_run_metadata():
    # the common metadata comes first; each run shows only what differs
    assert dump(calibrated(), verbose=True) == [
        "Metadata:",
        "  loops: 2",
        "  name: bench",
        "",
        "Run 1: calibrate the number of loops: 2",
        "- calibrate 1: 4.00 ms (loops: 1, raw: 4.00 ms)",
        "- calibrate 2: 1.10 ms (loops: 2, raw: 2.20 ms)",
        "- Metadata:",
        "  calibrate_loops: 2",
        "Run 2: 1 warmup, 2 values, 2 loops",
        "- warmup 1: 940 us (-6%)",
        "- value 1: 1.00 ms",
        "- value 2: 1.10 ms (+10%)",
        "- Metadata:",
        "  date: 2024-01-02T03:04:05",
        "Run 3: 1 warmup, 2 values, 2 loops",
        "- warmup 1: 1.00 ms",
        "- value 1: 970 us",
        "- value 2: 930 us (-7%)",
        "- Metadata:",
        "  date: 2024-01-02T03:04:06",
    ]


def test_quiet_wins_over_verbose():
    assert dump(calibrated(), quiet=True, verbose=True) == dump(calibrated(), quiet=True)


@pytest.mark.parametrize(
    ("metadata", "header"),
    [
        ({"calibrate_loops": 2**15}, "Run 1: calibrate the number of loops: 2^15"),
        ({"recalibrate_loops": 8}, "Run 1: recalibrate the number of loops: 8"),
        ({"calibrate_warmups": 3}, "Run 1: calibrate the number of warmups: 3"),
        ({"recalibrate_warmups": 1}, "Run 1: recalibrate the number of warmups: 1"),
        # perf <= 1.1: no calibration key, the loops of the run
        ({"loops": 4}, "Run 1: calibrate the number of loops: 4"),
    ],
)
def test_calibration_actions(metadata, header):
    benchmark = Benchmark([make_run((), warmups=[(1, 0.5)], **metadata)])
    assert dump(benchmark) == [header, "- calibrate 1: 500 ms (loops: 1, raw: 500 ms)"]
    assert dump(benchmark, quiet=True) == []


def test_bytes_calibration_has_no_raw_column():
    benchmark = Benchmark(
        [
            make_run((), warmups=[(512, 14.0 * 1024**2)], calibrate_loops=512, unit="byte"),
            make_run((14.1 * 1024**2,), loops=512, unit="byte"),
        ]
    )
    assert dump(benchmark) == [
        "Run 1: calibrate the number of loops: 512",
        "- calibrate 1: 14.0 MiB (loops: 512)",
        "Run 2: 0 warmups, 1 value, 512 loops",
        "- value 1: 14.1 MiB",
    ]


def test_one_value():
    benchmark = Benchmark([make_run((0.0225,))])
    assert dump(benchmark) == ["Run 1: 0 warmups, 1 value, 1 loop", "- value 1: 22.5 ms"]


def test_inner_loops_in_raw_values():
    benchmark = Benchmark([make_run((1e-9, 1.2e-9), warmups=[(4, 2e-9)], loops=4, inner_loops=10)])
    assert dump(benchmark, raw=True) == [
        "Run 1: 1 warmup, 2 values, 4 loops",
        "- raw warmup 1: 80.0 ns",
        "- raw value 1: 40.0 ns (-9%)",
        "- raw value 2: 48.0 ns (+9%)",
    ]


def test_format_run_alone():
    benchmark = calibrated()
    run = benchmark.get_runs()[2]
    assert format_run(benchmark, value_figures(benchmark), 7, run, verbosity=-1) == [
        "Run 7:",
        "- value 1: 970 us",
        "- value 2: 930 us (-7%)",
    ]


def constructed() -> list[Benchmark]:
    return [
        calibrated(),
        Benchmark([make_run((0.0225,))]),
        Benchmark([make_run((1e-9, 1.2e-9), warmups=[(4, 2e-9)], loops=4, inner_loops=10)]),
        Benchmark(
            [
                make_run((), warmups=[(512, 14.0 * 1024**2)], calibrate_loops=512, unit="byte"),
                make_run((14.1 * 1024**2, 12.0 * 1024**2), loops=512, unit="byte"),
            ]
        ),
        Benchmark(
            [
                make_run((), warmups=[(1, 0.5), (1, 0.4)], calibrate_warmups=1, loops=1),
                make_run((), warmups=[(1, 0.5)], recalibrate_loops=1, loops=1),
                make_run((0.45, 0.5), warmups=[(1, 0.4)]),
            ]
        ),
    ]


@pytest.mark.pyperf
@pytest.mark.parametrize("options", OPTIONS, ids=lambda options: "-".join(options) or "default")
def test_constructed_benchmarks_match_pyperf(pyperf_cli, options):
    import pyperf

    for benchmark in constructed():
        theirs = pyperf.Benchmark.loads(files.dumps(benchmark))
        assert dump(benchmark, **options) == pyperf_cli._format_runs(theirs, **options)
