"""perf.analysis.counts: the means of a count benchmark's counts per loop,
their ratios between two files and what they say (compare_to --explain)."""

from __future__ import annotations

import math

import pytest
from counts import count_benchmark

from perf.analysis.counts import (
    CODE_PLACEMENT,
    MEMORY_LAYOUT,
    CountRatio,
    Counts,
    count_means,
    explain_comparison,
)
from perf.analysis.finished import finish_comparison
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite


def test_count_means_are_the_means_per_loop_of_the_runs_with_values():
    benchmark = count_benchmark(instructions=[24810.0, 25157.0, 24587.0], d1=41.0)
    calibration = Run([], warmups=[(1, 1.0)], metadata={**benchmark.get_runs()[0].get_metadata(), "calibrate_loops": 1}, collect_metadata=False)  # fmt: skip
    benchmark.add_run(calibration)
    found = count_means(benchmark)
    assert found == Counts(
        pytest.approx(24851.333), 3.0, 41.0, 0.0, pytest.approx(24851.333 + 440), processes=3, hash_seeds=3
    )


def test_count_means_of_what_is_no_count():
    timed = Benchmark([Run([1e-6], metadata={"name": "t"}, collect_metadata=False)])
    assert count_means(timed) is None
    # a counter without the miss metadata: only the instructions
    bare = Benchmark([Run([5.0], metadata={"name": "b", "counter_source": "x", "instructions": 5.0, "hash_seed": 0}, collect_metadata=False)])  # fmt: skip
    assert count_means(bare) == Counts(5.0, None, None, None, None, 1, 1)


def explain(reference, *changed):
    files = [BenchmarkSuite([reference]), *(BenchmarkSuite([benchmark]) for benchmark in changed)]
    return explain_comparison(finish_comparison(files).entries)


def reading_of(reference, changed):
    (change,) = explain(reference, changed).changes
    return change.reading


def test_more_instructions_is_more_work():
    reading = reading_of(count_benchmark(), count_benchmark(instructions=184850.0))
    assert reading.work and not reading.uncertain and not reading.identical
    assert reading.instructions == pytest.approx(184850 / 183002 - 1)
    assert reading.misses == () and reading.causes == ()


def test_same_instructions_more_data_misses_is_memory_layout():
    # the sum of 1M ints, in memory order then shuffled (real counts)
    reference = count_benchmark("sum_list", 53001118.0, i1=0.0, d1=627051.0, ll=627049.0)
    shuffled = count_benchmark("sum_list", 53001378.0, i1=0.0, d1=1624149.0, ll=1374796.0)
    (change,) = explain(reference, shuffled).changes
    reading = change.reading
    assert not reading.work and reading.instructions == pytest.approx(0.0000049, abs=1e-7)
    assert [key for key, _ratio in reading.misses] == ["d1_misses", "ll_misses"]
    assert [round(ratio, 2) for _key, ratio in reading.misses] == [2.59, 2.19]
    assert reading.causes == (MEMORY_LAYOUT,)
    _instructions, i1, d1, ll, cycles = change.ratios
    assert ll.ratio == pytest.approx(1374796 / 627049)
    assert i1 == CountRatio(0.0, 0.0, 1.0)  # none on either side
    assert d1.ratio == pytest.approx(1624149 / 627051)
    assert cycles.ratio == pytest.approx(
        (53001378 + 10 * 1624149 + 100 * 1374796) / (53001118 + 10 * 627051 + 100 * 627049)
    )


def test_same_instructions_more_instruction_misses_is_code_placement():
    reading = reading_of(count_benchmark(i1=120.0, d1=310.0), count_benchmark(i1=8400.0, d1=310.0))
    assert not reading.work
    assert reading.misses == ((("i1_misses", 70.0)),)
    assert reading.causes == (CODE_PLACEMENT,)


def test_a_miss_change_that_costs_little_is_not_worth_a_word():
    # 3 -> 9 I1 misses: 3x, but 60 cycles of 202,322
    assert reading_of(count_benchmark(), count_benchmark(i1=9.0)).misses == ()
    # +20 % D1 misses cost 2 % of the cycles, but are within the 1.25x ratio
    assert reading_of(count_benchmark(), count_benchmark(d1=1929 * 1.2)).misses == ()
    # misses from none
    reading = reading_of(count_benchmark(ll=0.0), count_benchmark(ll=500.0))
    assert reading.misses == (("ll_misses", None),) and reading.causes == (MEMORY_LAYOUT,)


def test_identical_counts():
    reading = reading_of(count_benchmark(), count_benchmark())
    assert reading.identical and not reading.work and reading.misses == ()
    assert reading.instructions == 0.0


def test_a_difference_within_the_spread_of_hash_seeds_is_uncertain():
    seeded = [24810.0, 25157.0, 24587.0, 25256.0, 24959.0]
    moved = [value * 1.004 for value in reversed(seeded)]
    reading = reading_of(count_benchmark(instructions=seeded), count_benchmark(instructions=moved))
    assert reading.work and reading.uncertain


def test_explain_lists_the_benchmarks_without_counts_and_each_changed_file():
    timed = Benchmark([Run([1e-6, 1.1e-6], metadata={"name": "t"}, collect_metadata=False) for _ in range(3)])
    files = [
        BenchmarkSuite([count_benchmark(), timed]),
        BenchmarkSuite([count_benchmark(instructions=184850.0), timed]),
        BenchmarkSuite([count_benchmark(), timed]),
    ]
    explained = explain_comparison(finish_comparison(files).entries)
    assert explained.without_counts == ("t",)
    assert [(change.name, change.changed) for change in explained.changes] == [("sorted", 0), ("sorted", 1)]
    assert [change.reading.identical for change in explained.changes] == [False, True]


def test_no_nan_and_no_division_by_zero():
    # nothing but zero misses, one process per side
    reference = count_benchmark(processes=1, i1=0.0, d1=0.0, ll=0.0)
    changed = count_benchmark(instructions=184850.0, processes=1, i1=0.0, d1=0.0, ll=0.0)
    (change,) = explain(reference, changed).changes
    numbers = [value for found in change.ratios for value in found if value is not None]
    numbers.append(change.reading.instructions)
    assert all(math.isfinite(number) for number in numbers)
    assert change.reading.work and not change.reading.uncertain  # no interval: nothing says it is within a spread
