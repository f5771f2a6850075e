"""compare_suites: the one rule that matches the benchmarks of several files
(compare_to, report, plot --kind compare, the runner's --compare-to)."""

from __future__ import annotations

import math

import pytest
from counts import SOURCE, count_benchmark

from perf.analysis.benchmarks import compare_benchmarks
from perf.analysis.compare import INCONCLUSIVE, SLOWER, SUITE
from perf.analysis.suites import (
    DIFFERENT_CLOCKS,
    DIFFERENT_COUNTERS,
    DIFFERENT_UNITS,
    NO_VALUES,
    combine_comparisons,
    compare_suites,
    count_differences,
    geometric_means,
    incompatibility,
)
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite


def bench(name, level=1.0, processes=6, *, unit=None, clock=None, values=True):
    """*processes* runs of two values around *level* (a little spread);
    without *values*, one calibration run only."""
    metadata = {"name": name, "loops": 1}
    if unit:
        metadata["unit"] = unit
    if clock:
        metadata["clock"] = clock
    if not values:
        calibration = {**metadata, "calibrate_loops": 1}
        return Benchmark([Run([], warmups=[(1, level)], metadata=calibration, collect_metadata=False)])
    runs = []
    for index in range(processes):
        value = level * (1 + 0.002 * (index % 3))
        runs.append(Run([value, value * 1.001], metadata=metadata, collect_metadata=False))
    return Benchmark(runs)


def suite(*benchmarks):
    return BenchmarkSuite(list(benchmarks))


def names(entries):
    return [entry.name for entry in entries]


def test_every_benchmark_in_common_is_compared_in_the_reference_order():
    reference = suite(bench("b"), bench("a"), bench("c"))
    changed = suite(bench("c", 1.2), bench("a", 1.2), bench("b", 1.2))
    comparison = compare_suites([reference, changed])
    assert names(comparison.entries) == ["b", "a", "c"]
    assert comparison.incompatible == () and comparison.missing == ()
    assert comparison.common
    entry = comparison.entries[0]
    assert entry.reference is reference.get_benchmark("b")
    assert list(entry.changed) == [changed.get_benchmark("b")]
    assert entry.comparisons[0] == compare_benchmarks(entry.reference, entry.changed[0])
    assert entry.comparisons[0].verdict == SLOWER and entry.different


def test_a_benchmark_missing_from_one_side_is_not_compared():
    reference = suite(bench("a"), bench("only_ref"), bench("b"))
    changed = suite(bench("only_new"), bench("b"), bench("a"))
    comparison = compare_suites([reference, changed])
    assert names(comparison.entries) == ["a", "b"]
    assert [(missing.name, tuple(missing.absent)) for missing in comparison.missing] == [
        ("only_ref", (1,)),
        ("only_new", (0,)),
    ]
    # what each file has that another lacks (compare_to's "Ignored benchmarks")
    assert comparison.ignored(0) == ["only_ref"]
    assert comparison.ignored(1) == ["only_new"]


def test_nothing_in_common():
    comparison = compare_suites([suite(bench("a")), suite(bench("b"))])
    assert not comparison.common
    assert comparison.entries == () and comparison.incompatible == ()
    assert comparison.geometric_means is None


@pytest.mark.parametrize(
    ("changed", "reason"),
    [
        (bench("t", values=False), NO_VALUES),
        (bench("t", unit="byte"), DIFFERENT_UNITS),
        (bench("t", clock="cpu"), DIFFERENT_CLOCKS),
    ],
)
def test_incompatible_benchmarks_are_left_out_with_the_reason(changed, reason):
    reference = suite(bench("t"), bench("u"))
    comparison = compare_suites([reference, suite(changed, bench("u", 1.1))])
    assert names(comparison.entries) == ["u"]
    (skipped,) = comparison.incompatible
    assert (skipped.name, skipped.reason) == ("t", reason)
    assert list(skipped.benchmarks) == [reference.get_benchmark("t"), changed]
    assert comparison.missing == ()
    assert comparison.common


def test_the_first_reason_wins_no_values_then_units_then_clocks():
    assert incompatibility([bench("t", unit="byte", clock="cpu"), bench("t", values=False)]) == NO_VALUES
    assert incompatibility([bench("t", unit="byte", clock="cpu"), bench("t")]) == DIFFERENT_UNITS
    assert incompatibility([bench("t", clock="cpu"), bench("t")]) == DIFFERENT_CLOCKS
    assert incompatibility([bench("t", clock="cpu"), bench("t", clock="cpu")]) is None


def test_counts_compare_only_with_counts_of_the_same_counter():
    counts = count_benchmark("t")
    other_cache = count_benchmark("t", source=SOURCE.replace("8388608", "33554432"))
    integers = bench("t", unit="integer")  # pyperf's integer unit, no counter
    assert incompatibility([counts, count_benchmark("t", 184850.0)]) is None
    assert incompatibility([counts, other_cache]) == DIFFERENT_COUNTERS
    assert incompatibility([counts, integers]) == DIFFERENT_COUNTERS
    # against times: the counter is named before the units
    assert incompatibility([counts, bench("t")]) == DIFFERENT_COUNTERS
    assert incompatibility([bench("t", values=False), counts]) == NO_VALUES
    comparison = compare_suites([suite(counts, count_benchmark("u")), suite(bench("t"), count_benchmark("u"))])
    assert names(comparison.entries) == ["u"]
    assert [(skipped.name, skipped.reason) for skipped in comparison.incompatible] == [("t", DIFFERENT_COUNTERS)]


def test_several_files():
    reference = suite(bench("a"), bench("b"), bench("c"))
    same = suite(bench("a"), bench("b"), bench("c"))
    slower = suite(bench("c", 1.3), bench("b", 1.3), bench("a", 1.3, unit="byte"))
    comparison = compare_suites([reference, same, slower], margin=0.05)
    assert names(comparison.entries) == ["b", "c"]
    assert [(skipped.name, skipped.reason) for skipped in comparison.incompatible] == [("a", DIFFERENT_UNITS)]
    for entry in comparison.entries:
        assert len(entry.changed) == len(entry.comparisons) == 2
        assert entry.comparisons[0].ratio == pytest.approx(1.0)
        assert entry.comparisons[1].verdict == SLOWER
    # a benchmark missing from the middle file only
    partial = compare_suites([reference, suite(bench("a")), same])
    assert names(partial.entries) == ["a"]
    assert [(missing.name, tuple(missing.absent)) for missing in partial.missing] == [("b", (1,)), ("c", (1,))]
    assert partial.ignored(0) == partial.ignored(2) == ["b", "c"] and partial.ignored(1) == []


def test_margin_and_robust_reach_every_comparison():
    reference, changed = suite(bench("a"), bench("b")), suite(bench("a", 1.03), bench("b", 1.03))
    comparison = compare_suites([reference, changed], margin=0.05, robust=True)
    assert comparison.margin == 0.05
    for entry in comparison.entries:
        assert entry.comparisons[0] == compare_benchmarks(entry.reference, entry.changed[0], 0.05, robust=True)


def test_geometric_means_of_two_benchmarks_or_more():
    reference = suite(bench("a"), bench("b"))
    changed = suite(bench("a", 1.2), bench("b", 1.1))
    comparison = compare_suites([reference, changed])
    (mean,) = comparison.geometric_means
    assert mean == combine_comparisons([entry.comparisons[0] for entry in comparison.entries])
    assert mean.method == SUITE
    assert mean.ratio == pytest.approx(math.sqrt(1.2 * 1.1), rel=1e-3)
    assert geometric_means(comparison.entries[:1], 0.01) is None
    single = compare_suites([suite(bench("a")), suite(bench("a", 1.2))])
    assert single.geometric_means is None


def test_a_benchmark_of_one_process_is_compared_without_interval():
    comparison = compare_suites([suite(bench("a", processes=1)), suite(bench("a", 1.2))])
    (entry,) = comparison.entries
    assert entry.comparisons[0].verdict == INCONCLUSIVE
    assert entry.comparisons[0].high == math.inf


def test_plain_lists_of_benchmarks_are_files_too():
    comparison = compare_suites([[bench("a")], [bench("a", 1.2)]])
    assert names(comparison.entries) == ["a"]


def test_a_comparison_needs_two_files():
    with pytest.raises(ValueError, match="at least one changed file"):
        compare_suites([suite(bench("a"))])


def test_count_differences():
    comparisons = [
        compare_benchmarks(bench("a"), bench("a", 1.2)),
        compare_benchmarks(bench("b"), bench("b")),
        compare_benchmarks(bench("c"), bench("c", 0.8)),
    ]
    found = count_differences(comparisons, 0.05)
    assert (found.total, found.significant, found.discoveries) == (3, 2, 2)
    assert found.expected == pytest.approx(0.15)
    assert found.alpha == 0.05
