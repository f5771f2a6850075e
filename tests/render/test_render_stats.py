"""perf.render.stats: pyperf's ``stats`` text, then perf's process-level block.

tests/data/X.stats.txt holds pyperf 2.10.0's ``pyperf stats X`` output: the
statistics of each benchmark (from "Total duration" to "Number of outlier")
must be the same.  perf's block (process means, variance components, ICC,
outlier processes) follows and is checked on constructed benchmarks with
known figures.  The figures added to perf.analysis.statistics for it
(Tukey fences, variance components) are tested here too.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from golden import DATA, fixtures_with

from perf.analysis import statistics
from perf.analysis.intervals import benchmark_mean_interval
from perf.analysis.summaries import benchmark_stats
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.render.stats import format_process_stats, format_pyperf_stats, format_stats
from perf.storage import files

FIXTURES = fixtures_with("stats")


def make_run(values: Any = (1.0,), warmups: Any = None, **metadata: Any) -> Run:
    metadata.setdefault("name", "bench")
    return Run(values, warmups=warmups, metadata=metadata, collect_metadata=False)


def stats_blocks(text: str) -> list[list[str]]:
    """The statistics of each benchmark: "Total duration" .. "Number of outlier"."""
    lines = text.splitlines()
    blocks = []
    for end, line in enumerate(lines):
        if line.startswith("Number of outlier"):
            start = max(index for index in range(end) if lines[index].startswith("Raw value minimum:"))
            while start > 0 and lines[start - 1].startswith(("Total duration:", "Start date:", "End date:")):
                start -= 1
            blocks.append(lines[start : end + 1])
    return blocks


def interval_lines(benchmark: Benchmark) -> list[str]:
    """The CI line expected from perf.analysis.intervals."""
    interval = benchmark_mean_interval(benchmark)
    if interval is None:
        return ["CI of the mean of process means: not computed (needs 2 processes or more)"]
    low, high = benchmark.format_values((interval.estimate, interval.low, interval.high))[1:]
    return [f"{interval.confidence:.0%} CI of the mean of process means: {low} .. {high}"]


# --- pyperf's part: fixtures ---------------------------------------------------


def test_every_fixture_is_covered():
    assert {
        "timeit.json",
        "suite_tags.json",
        "track_memory.json",
        "command.json",
        "timeit_inner_loops.json",
        "calibration_only.json",
        "timeit.json.gz",
        "format_v5_inner_loops_synthetic.json",
        "format_v6_synthetic.json",
    } <= set(FIXTURES)


@pytest.mark.parametrize("name", [name for name in FIXTURES if name != "calibration_only.json"])
def test_stats_match_pyperf(name):
    benchmarks = files.load(str(DATA / name)).get_benchmarks()
    expected = stats_blocks((DATA / f"{name}.stats.txt").read_text())
    assert len(expected) == len(benchmarks)
    assert [format_pyperf_stats(benchmark, benchmark_stats(benchmark)) for benchmark in benchmarks] == expected


@pytest.mark.parametrize("name", FIXTURES)
def test_perf_block_follows_pyperf_part(name):
    for benchmark in files.load(str(DATA / name)).get_benchmarks():
        lines = format_stats(benchmark, benchmark_stats(benchmark))
        pyperf_part = format_pyperf_stats(benchmark, benchmark_stats(benchmark))
        assert lines == [*pyperf_part, "", *format_process_stats(benchmark, benchmark_stats(benchmark))]
        nprocess = sum(1 for run in benchmark.get_runs() if run.values)
        assert lines[len(pyperf_part) + 1] == f"Number of processes with values: {nprocess}"


def test_calibration_only_does_not_crash():
    """pyperf 2.10.0 crashes (calibration_only.json.stats.stderr.txt)."""
    assert "ValueError" in (DATA / "calibration_only.json.stats.stderr.txt").read_text()
    benchmark = files.load_benchmark(str(DATA / "calibration_only.json"))
    assert format_stats(benchmark, benchmark_stats(benchmark)) == [
        "Total duration: 146 ms",
        "Start date: 2026-11-21 15:59:21",
        "End date: 2026-11-21 15:59:22",
        "",
        "Number of calibration run: 1",
        "Number of run with values: 0",
        "Total number of run: 1",
        "",
        "Total number of values: 0",
        "Calibration: 2^15 loops",
        "",
        "Number of processes with values: 0",
    ]


def test_timeit_fixture_perf_block():
    benchmark = files.load_benchmark(str(DATA / "timeit.json"))
    means = benchmark.get_process_means()
    between, within = statistics.variance_components([run.values for run in benchmark.get_runs()])
    assert len(means) == 4
    assert format_process_stats(benchmark, benchmark_stats(benchmark)) == [
        "Number of processes with values: 4",
        f"Mean of process means: {benchmark.format_value(statistics.mean(means))}",
        *interval_lines(benchmark),
        "Std dev between processes: 4 ns",
        "Std dev within processes: 11 ns",
        f"ICC (between / total variance): {between / (between + within):.2f}",
        "Number of outlier process means (out of 821 ns..862 ns): 0",
    ]


# --- constructed benchmarks ------------------------------------------------------


def two_processes() -> Benchmark:
    """Process means 2 ms and 5 ms; within-process std dev 1 ms."""
    return Benchmark(
        [
            make_run((), warmups=[(1, 0.004)], calibrate_loops=1),
            make_run((0.001, 0.002, 0.003), warmups=[(1, 0.0035)], date="2024-05-06T07:08:09", duration=0.5),
            make_run((0.004, 0.005, 0.006), warmups=[(1, 0.0065)], date="2024-05-06T07:08:10", duration=0.5),
        ]
    )


def test_two_processes():
    benchmark = two_processes()
    assert format_stats(benchmark, benchmark_stats(benchmark)) == [
        "Total duration: 1.0 sec",
        "Start date: 2024-05-06 07:08:09",
        "End date: 2024-05-06 07:08:11",
        "Raw value minimum: 1.00 ms",
        "Raw value maximum: 6.00 ms",
        "",
        "Number of calibration run: 1",
        "Number of run with values: 2",
        "Total number of run: 3",
        "",
        "Number of warmup per run: 1",
        "Number of value per run: 3",
        "Loop iterations per value: 1",
        "Total number of values: 6",
        "",
        "Minimum:         1.00 ms",
        "Median +- MAD:   3.50 ms +- 1.50 ms",
        "Mean +- std dev: 3.50 ms +- 1.87 ms",
        "Maximum:         6.00 ms",
        "",
        "  0th percentile: 1.00 ms (-71% of the mean) -- minimum",
        "  5th percentile: 1.25 ms (-64% of the mean)",
        " 25th percentile: 2.25 ms (-36% of the mean) -- Q1",
        " 50th percentile: 3.50 ms (+0% of the mean) -- median",
        " 75th percentile: 4.75 ms (+36% of the mean) -- Q3",
        " 95th percentile: 5.75 ms (+64% of the mean)",
        "100th percentile: 6.00 ms (+71% of the mean) -- maximum",
        "",
        "Number of outlier (out of -1.50 ms..8.50 ms): 0",
        "",
        "Number of processes with values: 2",
        "Mean of process means: 3.50 ms",
        # 3.50 ms +- t(0.975, 1) * 2.12 ms / sqrt(2), with t = 12.71
        "95% CI of the mean of process means: -15.56 ms .. 22.56 ms",
        # var(means) - within / k = 4.5 - 1 / 3 (ms^2)
        "Std dev between processes: 2.04 ms",
        "Std dev within processes: 1.00 ms",
        "ICC (between / total variance): 0.81",
        "Number of outlier process means (out of 500 us..6500 us): 0",
    ]


def test_outlier_process():
    runs = [make_run((value, value * 1.01)) for value in (0.010, 0.0101, 0.0099, 0.0100, 0.0102, 0.0150)]
    benchmark = Benchmark(runs)
    lines = format_process_stats(benchmark, benchmark_stats(benchmark))
    assert lines[0] == "Number of processes with values: 6"
    assert lines[-1].startswith("Number of outlier process means (out of ")
    assert lines[-1].endswith("): 1")


def test_one_value():
    benchmark = Benchmark([make_run((0.0225,))])
    lines = format_stats(benchmark, benchmark_stats(benchmark))
    assert lines[lines.index("Total number of values: 1") + 2 :] == [
        "Minimum: 22.5 ms",
        "Mean:    22.5 ms",
        "Mean:    22.5 ms",
        "Maximum: 22.5 ms",
        "",
        "  0th percentile: 22.5 ms (+0% of the mean) -- minimum",
        "  5th percentile: 22.5 ms (+0% of the mean)",
        " 25th percentile: 22.5 ms (+0% of the mean) -- Q1",
        " 50th percentile: 22.5 ms (+0% of the mean) -- median",
        " 75th percentile: 22.5 ms (+0% of the mean) -- Q3",
        " 95th percentile: 22.5 ms (+0% of the mean)",
        "100th percentile: 22.5 ms (+0% of the mean) -- maximum",
        "",
        "Number of outlier (out of 22.5 ms..22.5 ms): 0",
        "",
        "Number of processes with values: 1",
        "Mean of process means: 22.5 ms",
        "CI of the mean of process means: not computed (needs 2 processes or more)",
        "Std dev between/within processes: not computed (needs 2 processes, one of them with 2 values or more)",
        "Number of outlier process means (out of 22.5 ms..22.5 ms): 0",
    ]
    # no duration metadata: the sum of the values; no date
    assert lines[:2] == ["Total duration: 22.5 ms", "Raw value minimum: 22.5 ms"]


def test_one_run_many_values():
    benchmark = Benchmark([make_run((0.001, 0.0011, 0.0012))])
    assert format_process_stats(benchmark, benchmark_stats(benchmark)) == [
        "Number of processes with values: 1",
        "Mean of process means: 1.10 ms",
        *interval_lines(benchmark),
        "Std dev between/within processes: not computed (needs 2 processes, one of them with 2 values or more)",
        "Number of outlier process means (out of 1.10 ms..1.10 ms): 0",
    ]


def test_no_variance():
    benchmark = Benchmark([make_run((0.5, 0.5)), make_run((0.5, 0.5))])
    lines = format_process_stats(benchmark, benchmark_stats(benchmark))
    assert "ICC (between / total variance): n/a (no variance)" in lines
    assert "Std dev between processes: 0 ms" in lines
    assert "95% CI of the mean of process means: 500 ms .. 500 ms" in lines


def test_bytes():
    mib = 1024.0**2
    benchmark = Benchmark(
        [make_run((14 * mib, 15 * mib), unit="byte", loops=512), make_run((16 * mib, 17 * mib), unit="byte", loops=512)]
    )
    lines = format_stats(benchmark, benchmark_stats(benchmark))
    assert "Raw value minimum: 7168.0 MiB" in lines
    # sizes are formatted one by one (no shared unit, as pyperf)
    assert "Median +- MAD:   15.5 MiB +- 1024.0 KiB" in lines
    assert "Number of outlier (out of 12.5 MiB..18.5 MiB): 0" in lines
    assert "Mean of process means: 15.5 MiB" in lines
    assert "Std dev within processes: 724.1 KiB" in lines
    assert "ICC (between / total variance): 0.78" in lines


def test_averages_when_runs_differ():
    benchmark = Benchmark(
        [
            make_run((1e-6, 1e-6), warmups=[(2, 1e-6)], loops=2, inner_loops=10),
            make_run((1e-6,), loops=4, inner_loops=10),
        ]
    )
    lines = format_pyperf_stats(benchmark, benchmark_stats(benchmark))
    assert "Number of warmup per run: 0.5 (average)" in lines
    assert "Number of value per run: 1.5 (average)" in lines
    # pyperf 2.10.0 prints "%.1f outer-loops (average)" unformatted: a bug not copied
    assert "Loop iterations per value: 30.0 (average) (3.0 outer-loops (average) x 10 inner-loops)" in lines


def constructed() -> list[Benchmark]:
    mib = 1024.0**2
    return [
        two_processes(),
        Benchmark([make_run((0.0225,))]),
        Benchmark([make_run((0.001, 0.0011, 0.0012))]),
        Benchmark([make_run((0.5, 0.5)), make_run((0.5, 0.5))]),
        Benchmark([make_run((14 * mib, 15 * mib), unit="byte"), make_run((16 * mib, 17 * mib), unit="byte")]),
        Benchmark([make_run((1e-6, 1e-6), warmups=[(2, 1e-6)], loops=2), make_run((1e-6,), loops=4)]),
        Benchmark([make_run((2.0, 3.0), unit="integer", inner_loops=4)]),
    ]


@pytest.mark.pyperf
def test_constructed_benchmarks_match_pyperf():
    pyperf = pytest.importorskip("pyperf")
    from pyperf import _cli

    for benchmark in constructed():
        theirs = pyperf.Benchmark.loads(files.dumps(benchmark))
        assert format_pyperf_stats(benchmark, benchmark_stats(benchmark)) == _cli.format_stats(theirs, [])


# --- the figures added to perf.analysis.statistics --------------------------------


def test_tukey_fences():
    assert statistics.tukey_fences([1, 2, 3, 4, 100]) == (-1.0, 7.0)
    assert statistics.tukey_fences([1, 2, 3, 4, 100], factor=3.0) == (-4.0, 10.0)
    assert statistics.tukey_fences([5.0]) == (5.0, 5.0)
    with pytest.raises(ValueError):
        statistics.tukey_fences([])


def test_count_outside():
    assert statistics.count_outside([1, 2, 3, 4, 100], -1.0, 7.0) == 1
    # the fences themselves are inside
    assert statistics.count_outside([-1.0, 7.0], -1.0, 7.0) == 0


def test_variance_components_balanced():
    """With k values per group: between = var(means) - within / k."""
    between, within = statistics.variance_components([[1, 2, 3], [4, 5, 6]])
    assert within == pytest.approx(1.0)
    assert between == pytest.approx(4.5 - 1.0 / 3)


def test_variance_components_unbalanced():
    """One-way ANOVA: MSB 12, MSW 1.375, n0 = 6 - 20 / 6."""
    between, within = statistics.variance_components([[1, 2], [3, 4, 5, 6], []])
    assert within == pytest.approx(1.375)
    assert between == pytest.approx((12 - 1.375) / (6 - 20 / 6))


def test_variance_components_clamped_at_zero():
    between, within = statistics.variance_components([[1, 3], [1.1, 2.9]])
    assert between == 0.0
    assert within == pytest.approx(math.fsum([1, 1, 0.81, 0.81]) / 2)


@pytest.mark.parametrize("groups", [[], [[1, 2]], [[1], [2]], [[1, 2], []]])
def test_variance_components_need_two_groups_and_a_pair(groups):
    with pytest.raises(ValueError):
        statistics.variance_components(groups)


def test_loop_overhead_is_shown_beside_the_median_value():
    runs = [make_run((40e-9, 42e-9, 41e-9), loop_overhead=overhead) for overhead in (5e-9, 6e-9, 7e-9)]
    benchmark = Benchmark(runs)
    lines = format_process_stats(benchmark, benchmark_stats(benchmark))
    assert lines[-1] == "Loop overhead (empty loop, included in the values): 6.00 ns (15% of the median value)"


def test_no_loop_overhead_line_when_it_was_not_measured():
    benchmark = Benchmark([make_run((1.0, 1.1)), make_run((1.2, 1.0))])
    lines = format_process_stats(benchmark, benchmark_stats(benchmark))
    assert not any(line.startswith("Loop overhead") for line in lines)


def test_loop_overhead_check_text():
    from perf.analysis.checks import Check
    from perf.render.checks import format_check

    benchmark = Benchmark([make_run((10e-9, 11e-9), loop_overhead=6e-9)])
    assert format_check(Check("loop_overhead", (6e-9, 57.1)), benchmark) == (
        "loop overhead: the empty timing loop takes 6.00 ns per iteration, 57% of the median value; "
        "it is included, not subtracted (--duplicate N repeats the statement N times per iteration)"
    )
