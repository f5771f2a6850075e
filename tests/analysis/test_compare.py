"""Ratio, interval and verdict of a comparison of process means."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from perf.analysis.compare import (
    FASTER,
    INCONCLUSIVE,
    MAX_SUGGESTED_PROCESSES,
    NO_CHANGE,
    PAIRED,
    RANKS,
    SIGNED_RANKS,
    SLOWER,
    SMALL_CHANGE,
    SUITE,
    compare_paired_process_means,
    compare_process_means,
    unknown_comparison,
)
from perf.analysis.ranks import (
    EXACT_RANK_PAIRS,
    EXACT_SIGNED_RANK_PAIRS,
    _signed_rank_distribution,
    _u_distribution,
    rank_compare_process_means,
    signed_rank_compare_process_means,
)
from perf.analysis.suites import benjamini_hochberg, combine_comparisons, expected_by_chance
from perf.analysis.win_rate import win_rate


def noisy(level, count, spread, seed):
    rng = random.Random(seed)
    return [level * math.exp(rng.gauss(0, spread)) for _ in range(count)]


def test_ratio_is_of_geometric_means_changed_over_reference():
    result = compare_process_means([1.0, 4.0], [4.0, 16.0])
    assert result.ratio == pytest.approx(4.0)
    assert result.low < 4.0 < result.high
    assert (result.reference_processes, result.changed_processes) == (2, 2)


def test_welch_interval_against_a_hand_computation():
    reference = [10.0, 11.0, 12.0, 10.5]
    changed = [12.0, 13.0, 12.5]
    result = compare_process_means(reference, changed)
    a = [math.log(v) for v in reference]
    b = [math.log(v) for v in changed]

    def var(x):
        m = sum(x) / len(x)
        return sum((v - m) ** 2 for v in x) / (len(x) - 1)

    sa, sb = var(a) / 4, var(b) / 3
    df = (sa + sb) ** 2 / (sa**2 / 3 + sb**2 / 2)
    assert result.df == pytest.approx(df)
    half = math.log(result.high / result.ratio)
    assert half == pytest.approx(math.log(result.ratio / result.low))  # symmetric on the log scale
    # df is about 4.9 here: the t quantile lies between t(0.975, 5) = 2.5706
    # and t(0.975, 4) = 2.7764 (standard tables)
    assert 4 < df < 5
    assert 2.5706 < half / math.sqrt(sa + sb) < 2.7764


def test_clearly_slower_and_faster():
    reference = noisy(1.0, 20, 0.01, 1)
    assert compare_process_means(reference, noisy(1.10, 20, 0.01, 2)).verdict == SLOWER
    assert compare_process_means(reference, noisy(0.90, 20, 0.01, 3)).verdict == FASTER


def test_identical_code_with_a_tight_interval_is_no_change():
    result = compare_process_means(noisy(1.0, 30, 0.002, 4), noisy(1.0, 30, 0.002, 5))
    assert result.verdict == NO_CHANGE
    assert 1 / 1.01 < result.low <= result.high < 1.01


def test_a_real_difference_at_the_margin_is_a_small_change():
    # the interval excludes 1 but straddles the 1 % boundary
    result = compare_process_means(noisy(1.0, 20, 0.005, 6), noisy(1.01, 20, 0.005, 7))
    assert result.verdict == SMALL_CHANGE
    assert 1 < result.low < 1.01 < result.high


def test_a_real_difference_inside_the_margin_is_no_change():
    result = compare_process_means(noisy(1.0, 40, 0.001, 6), noisy(1.004, 40, 0.001, 7))
    assert result.verdict == NO_CHANGE
    assert 1 < result.low < result.high < 1.01


def test_noisy_data_is_inconclusive_with_a_suggestion():
    result = compare_process_means(noisy(1.0, 4, 0.05, 8), noisy(1.01, 4, 0.05, 9))
    assert result.verdict == INCONCLUSIVE
    assert result.low < 1 < result.high
    assert 4 < result.needed_processes <= MAX_SUGGESTED_PROCESSES
    assert compare_process_means([1.0, 1.1], [1.0, 1.1]).needed_processes is not None


def test_unequal_process_counts_are_normal_input():
    # pyperf's pooled test on values calls unequal counts significant; the
    # same distribution with 3 vs 30 processes rarely excludes a ratio of 1
    rng = random.Random(10)
    excluded = 0
    for _ in range(400):
        reference = [math.exp(rng.gauss(0, 0.02)) for _ in range(3)]
        changed = [math.exp(rng.gauss(0, 0.02)) for _ in range(30)]
        result = compare_process_means(reference, changed)
        assert (result.reference_processes, result.changed_processes) == (3, 30)
        excluded += not result.low <= 1 <= result.high
    assert excluded / 400 <= 0.08


def test_one_slow_process_widens_the_interval_instead_of_deciding():
    reference = [1.0, 1.001, 0.999, 1.0, 1.002, 0.998]
    changed = [1.0, 1.001, 0.999, 1.0, 1.002, 1.35]  # a noisy neighbour in one process
    assert compare_process_means(reference, changed).verdict == INCONCLUSIVE


def test_zero_variance_on_both_sides():
    result = compare_process_means([2.0, 2.0], [3.0, 3.0])
    assert (result.ratio, result.low, result.high) == pytest.approx((1.5, 1.5, 1.5))
    assert result.df == math.inf
    assert result.verdict == SLOWER
    assert compare_process_means([2.0, 2.0], [2.0, 2.0]).verdict == NO_CHANGE


def test_margin_changes_the_verdict():
    reference, changed = noisy(1.0, 30, 0.002, 12), noisy(1.03, 30, 0.002, 13)
    assert compare_process_means(reference, changed, margin=0.01).verdict == SLOWER
    assert compare_process_means(reference, changed, margin=0.05).verdict == NO_CHANGE
    assert compare_process_means(reference, changed, margin=0.0).verdict == SLOWER


def test_confidence_level_widens_the_interval():
    reference, changed = noisy(1.0, 10, 0.02, 14), noisy(1.01, 10, 0.02, 15)
    narrow = compare_process_means(reference, changed, confidence=0.8)
    wide = compare_process_means(reference, changed, confidence=0.99)
    assert wide.low < narrow.low < narrow.high < wide.high


@pytest.mark.parametrize(
    "reference, changed, message",
    [
        ([1.0], [1.0, 2.0], "the reference needs at least 2 processes with values, got 1"),
        ([1.0, 2.0], [], "the changed benchmark needs at least 2 processes with values, got 0"),
        ([1.0, 0.0], [1.0, 2.0], "the reference has a process mean that is not a finite number > 0"),
        ([1.0, 2.0], [1.0, math.inf], "the changed benchmark has a process mean that is not a finite number > 0"),
    ],
)
def test_bad_input(reference, changed, message):
    with pytest.raises(ValueError, match=message):
        compare_process_means(reference, changed)


def test_bad_margin_and_confidence():
    with pytest.raises(ValueError, match="the margin must be >= 0"):
        compare_process_means([1.0, 2.0], [1.0, 2.0], margin=-0.01)
    with pytest.raises(ValueError, match=r"confidence must be in \(0, 1\)"):
        compare_process_means([1.0, 2.0], [1.0, 2.0], confidence=1.0)


def test_aa_false_positive_rate_on_synthetic_processes():
    """Identical distributions: 'slower' or 'faster' about 5 % of the time
    or less (the equivalence band only removes decisions)."""
    rng = random.Random(2024)
    decided = 0
    trials = 400
    for _ in range(trials):
        reference = [math.exp(rng.gauss(0, 0.02)) for _ in range(20)]
        changed = [math.exp(rng.gauss(0, 0.02)) for _ in range(20)]
        result = compare_process_means(reference, changed, margin=0.0)
        decided += result.verdict in (SLOWER, FASTER)
    assert 0.02 <= decided / trials <= 0.08


# --- robust comparison: Mann-Whitney and Hodges-Lehmann ------------------------------


def brute_force_u_counts(n, m):
    """Count U over every way of interleaving n reference and m changed values."""
    counts = [0] * (n * m + 1)
    for positions in itertools.combinations(range(n + m), n):
        # U: pairs where a changed value precedes a reference value
        chosen = set(positions)
        u = 0
        changed_seen = 0
        for index in range(n + m):
            if index in chosen:
                u += changed_seen
            else:
                changed_seen += 1
        counts[u] += 1
    return counts


@pytest.mark.parametrize("n, m", [(1, 1), (2, 3), (3, 3), (4, 6), (5, 2)])
def test_u_distribution_matches_enumeration(n, m):
    assert list(_u_distribution(n, m)) == brute_force_u_counts(n, m)
    assert sum(_u_distribution(n, m)) == math.comb(n + m, n)


def test_rank_comparison_estimate_is_the_median_pairwise_log_ratio():
    reference = [1.0, 1.1, 1.2]
    changed = [1.3, 1.5]
    result = rank_compare_process_means(reference, changed)
    differences = sorted(math.log(b) - math.log(a) for a in reference for b in changed)
    assert math.log(result.ratio) == pytest.approx((differences[2] + differences[3]) / 2)
    assert result.method == RANKS


def test_rank_comparison_with_too_few_processes_is_unbounded():
    # 2 vs 2: the smallest two-sided p-value is 1/3, no 95 % interval exists
    result = rank_compare_process_means([1.0, 1.1], [2.0, 2.1])
    assert (result.low, result.high) == (0.0, math.inf)
    assert result.verdict == INCONCLUSIVE
    assert result.needed_processes is None
    assert result.p_value == pytest.approx(1 / 3)


def test_rank_comparison_decides_clear_cases_and_resists_one_slow_process():
    reference = noisy(1.0, 20, 0.01, 30)
    changed = noisy(1.10, 20, 0.01, 31)
    assert rank_compare_process_means(reference, changed).verdict == SLOWER
    assert rank_compare_process_means(reference, noisy(0.9, 20, 0.01, 32)).verdict == FASTER
    polluted = [*changed[:-1], changed[-1] * 3]  # a noisy neighbour in one process
    robust = rank_compare_process_means(reference, polluted)
    assert robust.verdict == SLOWER
    assert robust.ratio == pytest.approx(rank_compare_process_means(reference, changed).ratio, rel=0.01)


def test_rank_exact_and_normal_intervals_agree_near_the_switch():
    reference, changed = noisy(1.0, 100, 0.02, 33), noisy(1.01, 100, 0.02, 34)
    exact = rank_compare_process_means(reference, changed)  # 100 x 100 pairs: exact
    assert EXACT_RANK_PAIRS >= 100 * 100
    normal = rank_compare_process_means(reference, [*changed, changed[0]])  # 100 x 101: normal
    assert normal.low == pytest.approx(exact.low, rel=0.005)
    assert normal.high == pytest.approx(exact.high, rel=0.005)


def test_rank_interval_coverage_on_a_a_data():
    rng = random.Random(35)
    covered = 0
    trials = 300
    for _ in range(trials):
        reference = [math.exp(rng.gauss(0, 0.02)) for _ in range(12)]
        changed = [math.exp(rng.gauss(0, 0.02)) for _ in range(12)]
        result = rank_compare_process_means(reference, changed, margin=0.0)
        covered += result.low <= 1 <= result.high
    assert covered / trials >= 0.93


# --- robust and paired: Wilcoxon signed-rank -----------------------------------


def brute_force_signed_rank_counts(n):
    counts = [0] * (n * (n + 1) // 2 + 1)
    for signs in itertools.product((0, 1), repeat=n):
        counts[sum(rank for rank, positive in zip(range(1, n + 1), signs) if positive)] += 1
    return counts


@pytest.mark.parametrize("n", [1, 2, 3, 6, 10])
def test_signed_rank_distribution_matches_enumeration(n):
    assert list(_signed_rank_distribution(n)) == brute_force_signed_rank_counts(n)


def paired(level, count, spread, seed, drift=0.0):
    """Pairs sharing a drift (and a per-pair disturbance), changed = level x reference."""
    rng = random.Random(seed)
    shared = [math.exp(drift * index + rng.gauss(0, 0.05)) for index in range(count)]
    reference = [value * math.exp(rng.gauss(0, spread)) for value in shared]
    changed = [level * value * math.exp(rng.gauss(0, spread)) for value in shared]
    return reference, changed


def test_signed_rank_estimate_is_the_median_walsh_average():
    reference, changed = [1.0, 1.0, 1.0], [1.1, 1.3, 0.9]
    result = signed_rank_compare_process_means(reference, changed)
    d = [math.log(value) for value in changed]
    walsh = sorted((d[i] + d[j]) / 2 for i in range(3) for j in range(i, 3))
    assert math.log(result.ratio) == pytest.approx((walsh[2] + walsh[3]) / 2)
    assert result.method == SIGNED_RANKS and result.paired
    assert (result.reference_processes, result.changed_processes) == (3, 3)


def test_signed_rank_needs_six_pairs_for_a_95_interval():
    five = signed_rank_compare_process_means(*paired(1.5, 5, 0.001, 1))
    assert (five.low, five.high, five.verdict) == (0.0, math.inf, INCONCLUSIVE)
    assert five.p_value == pytest.approx(2 / 32)  # every pair slower: the smallest p-value of 5 pairs
    six = signed_rank_compare_process_means(*paired(1.5, 6, 0.001, 1))
    assert six.verdict == SLOWER
    assert six.p_value == pytest.approx(2 / 64)
    d = sorted(math.log(b / a) for a, b in zip(*paired(1.5, 6, 0.001, 1)))
    assert (math.log(six.low), math.log(six.high)) == pytest.approx((d[0], d[-1]))  # cut 0: extreme Walsh averages


def test_signed_rank_cancels_drift_and_resists_one_disturbed_pair():
    reference, changed = paired(1.03, 20, 0.003, 2, drift=0.02)
    result = signed_rank_compare_process_means(reference, changed)
    assert result.verdict == SLOWER
    assert result.ratio == pytest.approx(1.03, rel=0.005)
    disturbed = [*changed[:-1], changed[-1] * 3]  # a noisy neighbour during one worker
    robust = signed_rank_compare_process_means(reference, disturbed)
    assert robust.verdict == SLOWER
    assert robust.ratio == pytest.approx(result.ratio, rel=0.003)
    assert compare_paired_process_means(reference, disturbed).verdict == INCONCLUSIVE  # the t test is not robust


def test_signed_rank_exact_and_normal_agree_near_the_switch():
    n = EXACT_SIGNED_RANK_PAIRS
    reference, changed = paired(1.01, n + 1, 0.02, 3)
    exact = signed_rank_compare_process_means(reference[:n], changed[:n])
    normal = signed_rank_compare_process_means(reference, changed)
    assert normal.low == pytest.approx(exact.low, rel=0.005)
    assert normal.high == pytest.approx(exact.high, rel=0.005)
    assert normal.p_value == pytest.approx(exact.p_value, abs=0.02)


def test_signed_rank_interval_coverage_on_a_a_pairs():
    covered = 0
    trials = 300
    for seed in range(trials):
        result = signed_rank_compare_process_means(*paired(1.0, 12, 0.02, 100 + seed, drift=0.01), margin=0.0)
        covered += result.low <= 1 <= result.high
    assert covered / trials >= 0.93


def test_signed_rank_refuses_unequal_sides():
    with pytest.raises(ValueError, match="as many processes on each side"):
        signed_rank_compare_process_means([1.0, 1.1, 1.2], [1.0, 1.1])


# --- suites, chance and false discoveries -------------------------------------------


def test_combine_is_the_geometric_mean_with_added_variances():
    first = compare_process_means(noisy(1.0, 10, 0.02, 40), noisy(1.2, 10, 0.02, 41))
    second = compare_process_means(noisy(1.0, 10, 0.03, 42), noisy(0.9, 10, 0.03, 43))
    suite = combine_comparisons([first, second])
    assert suite.ratio == pytest.approx(math.sqrt(first.ratio * second.ratio))
    assert suite.standard_error == pytest.approx(math.hypot(first.standard_error, second.standard_error) / 2)
    assert suite.low < suite.ratio < suite.high
    assert suite.method == SUITE
    assert (suite.reference_processes, suite.changed_processes) == (20, 20)
    assert min(first.df, second.df) < suite.df < first.df + second.df


def test_combine_narrows_with_more_benchmarks():
    comparisons = [compare_process_means(noisy(1.0, 6, 0.04, 50 + i), noisy(1.05, 6, 0.04, 70 + i)) for i in range(8)]
    suite = combine_comparisons(comparisons)
    widest = max(math.log(c.high / c.low) for c in comparisons)
    assert math.log(suite.high / suite.low) < widest / 2


def test_combine_with_an_unknown_side_is_inconclusive():
    unknown = unknown_comparison([1.0], [1.1, 1.2])
    assert unknown.verdict == INCONCLUSIVE and unknown.ratio == pytest.approx(math.sqrt(1.1 * 1.2))
    known = compare_process_means([1.0, 1.01], [1.5, 1.51])
    suite = combine_comparisons([known, unknown])
    assert suite.verdict == INCONCLUSIVE and (suite.low, suite.high) == (0.0, math.inf)
    with pytest.raises(ValueError, match="no comparison to combine"):
        combine_comparisons([])


def test_unknown_comparison_without_processes_is_a_ratio_of_one():
    assert unknown_comparison([], [1.0]).ratio == 1.0


def test_welch_p_value_agrees_with_the_interval():
    rng = random.Random(60)
    for _ in range(200):
        result = compare_process_means(noisy(1.0, 8, 0.02, rng.random()), noisy(1.01, 8, 0.02, rng.random()), margin=0)
        assert (result.p_value < 0.05) == (not result.low <= 1 <= result.high)
    assert compare_process_means([2.0, 2.0], [2.0, 2.0]).p_value == 1.0
    assert compare_process_means([2.0, 2.0], [3.0, 3.0]).p_value == 0.0


def test_expected_by_chance():
    assert expected_by_chance(200) == pytest.approx(10.0)
    assert expected_by_chance(3, 0.01) == pytest.approx(0.03)


def test_benjamini_hochberg_on_a_textbook_example():
    # sorted p-values 0.01, 0.02, 0.03, 0.04, 0.20 at q = 0.05: thresholds
    # 0.01, 0.02, 0.03, 0.04, 0.05 -> the first four are rejected
    p_values = [0.20, 0.03, 0.01, 0.04, 0.02]
    assert benjamini_hochberg(p_values, 0.05) == [False, True, True, True, True]
    assert benjamini_hochberg([0.04, 0.5], 0.05) == [False, False]  # 0.04 > 0.05 * 1 / 2
    assert benjamini_hochberg([], 0.05) == []


# --- win rate ---------------------------------------------------------------------


def test_win_rate_of_separated_sides():
    faster = win_rate([2.0, 2.1, 2.2, 2.3], [1.0, 1.1, 1.2, 1.3])
    assert faster.rate == 1.0 and 0.5 < faster.low < faster.high == 1.0
    slower = win_rate([1.0, 1.1, 1.2, 1.3], [2.0, 2.1, 2.2, 2.3])
    assert slower.rate == 0.0 and slower.low == 0.0 < slower.high < 0.5


def test_win_rate_counts_ties_as_half():
    assert win_rate([1.0, 2.0], [1.0, 2.0]).rate == pytest.approx(0.5)


def test_win_rate_interval_covers_one_half_on_a_a_data():
    rng = random.Random(61)
    covered = 0
    trials = 300
    for _ in range(trials):
        reference = [math.exp(rng.gauss(0, 0.02)) for _ in range(20)]
        changed = [math.exp(rng.gauss(0, 0.02)) for _ in range(20)]
        rate = win_rate(reference, changed)
        covered += rate.low <= 0.5 <= rate.high
    assert covered / trials >= 0.93


def test_win_rate_bad_input():
    with pytest.raises(ValueError, match="at least 2 processes per side"):
        win_rate([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="confidence"):
        win_rate([1.0, 2.0], [1.0, 2.0], confidence=0)


# --- paired comparison of an interleaved run (R6) -------------------------------------


def test_paired_interval_against_a_hand_computation():
    reference = [1.00, 1.10, 0.95, 1.20]
    changed = [1.03, 1.12, 0.99, 1.22]
    result = compare_paired_process_means(reference, changed)
    d = [math.log(b / a) for a, b in zip(reference, changed)]
    m = sum(d) / 4
    sd = math.sqrt(sum((x - m) ** 2 for x in d) / 3)
    # t(0.975, 3) = 3.1824 (standard tables)
    assert math.log(result.ratio) == pytest.approx(m)
    assert math.log(result.high) - m == pytest.approx(3.1824 * sd / 2, rel=1e-4)
    assert (result.df, result.method) == (3.0, PAIRED)
    assert (result.reference_processes, result.changed_processes) == (4, 4)


def test_pairs_cancel_drift_that_hides_a_change_from_the_unpaired_test():
    rng = random.Random(80)
    drift = [math.exp(0.002 * i + rng.gauss(0, 0.08)) for i in range(24)]  # shared by both of a pair
    reference = [d * math.exp(rng.gauss(0, 0.003)) for d in drift]
    changed = [1.03 * d * math.exp(rng.gauss(0, 0.003)) for d in drift]
    assert compare_process_means(reference, changed).verdict == INCONCLUSIVE
    paired = compare_paired_process_means(reference, changed)
    assert paired.verdict == SLOWER
    assert 1.02 < paired.low < paired.ratio < paired.high < 1.04


def test_paired_a_a_false_positive_rate_with_drift():
    rng = random.Random(81)
    decided = 0
    trials = 400
    for _ in range(trials):
        drift = [math.exp(0.01 * i + rng.gauss(0, 0.05)) for i in range(20)]
        reference = [d * math.exp(rng.gauss(0, 0.01)) for d in drift]
        changed = [d * math.exp(rng.gauss(0, 0.01)) for d in drift]
        decided += compare_paired_process_means(reference, changed, margin=0.0).different
    assert 0.02 <= decided / trials <= 0.08


def test_paired_needs_pairs():
    with pytest.raises(ValueError, match="as many processes on each side, got 3 and 2"):
        compare_paired_process_means([1.0, 1.1, 1.2], [1.0, 1.1])
    with pytest.raises(ValueError, match="at least 2 processes"):
        compare_paired_process_means([1.0], [1.0])
    inconclusive = compare_paired_process_means([1.0, 1.2, 0.9], [1.1, 1.0, 1.0])
    assert inconclusive.verdict == INCONCLUSIVE and inconclusive.needed_processes > 3


def test_exact_counts_decide_without_an_interval():
    # instruction counts of deterministic code: no process varies, the interval has no width
    same = compare_process_means([183002.0] * 5, [183002.0] * 5)
    assert (same.ratio, same.low, same.high, same.verdict, same.p_value) == (1.0, 1.0, 1.0, NO_CHANGE, 1.0)
    more = compare_process_means([183002.0] * 5, [184850.0] * 5)  # 1.0 % more instructions
    assert more.low == more.high == more.ratio == pytest.approx(184850 / 183002)
    assert (more.verdict, more.p_value, more.standard_error) == (SLOWER, 0.0, 0.0)
    # inside the margin, an exact difference is still no change (--min-speed 0 shows it)
    tiny = compare_process_means([53001118.0] * 3, [53001378.0] * 3)
    assert tiny.verdict == NO_CHANGE and tiny.p_value == 0.0
    assert compare_process_means([53001118.0] * 3, [53001378.0] * 3, margin=0.0).verdict == SLOWER
    for result in (same, more, tiny):
        assert not any(map(math.isnan, (result.ratio, result.low, result.high, result.p_value, result.df)))
