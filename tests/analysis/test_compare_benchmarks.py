"""Which comparison applies to two benchmarks: paired for the two sides of
an interleaved run, else unpaired (or ranks, or none)."""

from __future__ import annotations

import math
import random

import pytest
from counts import count_benchmark

from perf.analysis.benchmarks import compare_benchmarks, paired_process_means
from perf.analysis.compare import PAIRED, RANKS, SIGNED_RANKS, WELCH
from perf.analysis.win_rate import paired_win_rate
from perf.measure.parent.schedule import pair_order
from perf.model.benchmark import Benchmark
from perf.model.run import Run


def side(means, seed=7, pairs=None, name="bench"):
    runs = [Run([], warmups=[(1, 1.0)], metadata={"name": name, "calibrate_loops": 1}, collect_metadata=False)]
    for pair, value in zip(pairs or range(1, len(means) + 1), means):
        metadata = {"name": name, "loops": 1}
        if pair is not None:
            metadata["ab_pair"] = pair
        if seed is not None:
            metadata["ab_seed"] = seed
        runs.append(Run([value * 0.999, value * 1.001], metadata=metadata, collect_metadata=False))
    return Benchmark(runs)


def drifting(seed, factor, count=12):
    rng = random.Random(seed)
    drift = [math.exp(0.01 * i + rng.gauss(0, 0.08)) for i in range(count)]
    return drift, [factor * d * math.exp(rng.gauss(0, 0.002)) for d in drift]


def test_two_sides_of_one_interleaved_run_are_paired():
    reference, changed = drifting(1, 1.03)
    ref, new = side(reference), side(changed)
    means = paired_process_means(ref, new)
    assert means is not None
    assert means[0] == pytest.approx(reference) and means[1] == pytest.approx(changed)
    result = compare_benchmarks(ref, new)
    assert result.method == PAIRED and result.verdict == "slower" and result.paired
    robust = compare_benchmarks(ref, new, robust=True)
    assert robust.method == SIGNED_RANKS and robust.verdict == "slower" and robust.paired
    # the drift is larger than the change: unpaired, the ranks see nothing
    unpaired = compare_benchmarks(side(reference, seed=None), side(changed, seed=None), robust=True)
    assert unpaired.method == RANKS and unpaired.verdict == "inconclusive" and not unpaired.paired


def test_pairs_are_matched_by_number_not_by_position():
    ref = side([1.0, 2.0, 3.0], pairs=[1, 2, 3])
    new = side([3.3, 1.1, 2.2], pairs=[3, 1, 2])
    assert paired_process_means(ref, new) == (pytest.approx([1.0, 2.0, 3.0]), pytest.approx([1.1, 2.2, 3.3]))


@pytest.mark.parametrize(
    "changed",
    [
        side([1.0, 1.1, 1.2], seed=8),  # another interleaved run
        side([1.0, 1.1, 1.2], seed=None),  # a separate recording
        side([1.0, 1.1], pairs=[1, 2]),  # an incomplete pair
        side([1.0, 1.1, 1.2], pairs=[1, 1, 2]),  # two runs claim one pair
        side([1.0, 1.1, 1.2], pairs=[1, 2, None]),  # a run without its pair
    ],
    ids=["other seed", "no seed", "incomplete", "duplicate", "missing pair"],
)
def test_anything_else_falls_back_to_the_unpaired_test(changed):
    reference = side([1.0, 1.1, 1.2])
    assert paired_process_means(reference, changed) is None
    assert compare_benchmarks(reference, changed).method == WELCH


def test_one_process_is_no_comparison():
    result = compare_benchmarks(side([1.0]), side([1.1]))
    assert (result.low, result.high, result.verdict) == (0.0, math.inf, "inconclusive")


def test_paired_win_rate():
    rate = paired_win_rate([1.0, 1.0, 1.0, 1.0], [0.9, 0.9, 1.0, 1.1])
    assert rate.rate == pytest.approx((2 + 0.5) / 4)
    assert rate.low < rate.rate < rate.high
    with pytest.raises(ValueError, match="complete pairs"):
        paired_win_rate([1.0, 2.0], [1.0])


def test_pair_order_is_reproducible_and_random():
    first = pair_order(1234, 200)
    assert first == pair_order(1234, 200)
    assert set(first) == {(0, 1), (1, 0)}
    assert 70 < first.count((0, 1)) < 130
    assert first != pair_order(1235, 200)


def test_counts_are_never_corrected_for_a_busy_machine():
    # a busy machine moves no instruction count: the workers' evidence is not used
    busy = {"cpu_share": 0.7, "speed_probe_before": 1e-4, "speed_probe_after": 1e-4}
    reference = count_benchmark(processes=10, **busy)
    changed = count_benchmark(instructions=184850.0, processes=10, cpu_share=0.999, speed_probe_before=2e-4,
                              speed_probe_after=2e-4)  # fmt: skip
    result = compare_benchmarks(reference, changed)
    assert result.adjustment is None and result.method == WELCH
    assert result.low == result.high == result.ratio == pytest.approx(184850 / 183002)


def test_one_count_process_per_side_has_no_interval_and_no_nan():
    result = compare_benchmarks(count_benchmark(processes=1), count_benchmark(instructions=184850.0, processes=1))
    assert (result.low, result.high, result.verdict) == (0.0, math.inf, "inconclusive")
    assert result.ratio == pytest.approx(184850 / 183002)
