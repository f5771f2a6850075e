"""perf.render.compare_summary: one line per comparison, and what an
inconclusive one would need, on constructed comparisons."""

from __future__ import annotations

import math

import pytest
from golden import DATA

from perf.analysis.compare import (
    FASTER,
    INCONCLUSIVE,
    MAX_SUGGESTED_PROCESSES,
    NO_CHANGE,
    PAIRED,
    SLOWER,
    SMALL_CHANGE,
    SUITE,
    WELCH,
    Comparison,
)
from perf.analysis.finished import finish_comparison
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.render.compare import format_ratio_interval
from perf.render.compare_summary import format_summary, format_summary_lines
from perf.storage import files

COMPARE = DATA / "compare"


def comparison(ratio, low, high, verdict, *, counts=(10, 10), needed=None, method=PAIRED):
    return Comparison(ratio, low, high, 0.95, verdict, counts[0], counts[1], 9.0, needed, 0.05, 0.5, method)


#: inconclusive comparisons, the margin, and their lines
INCONCLUSIVE_CASES = [
    # the case: 10 pairs, +-20 %
    (
        comparison(1.03, 0.85, 1.24, INCONCLUSIVE, needed=140),
        0.2,
        "inconclusive: 1.03x [0.85x .. 1.24x]; about 140 pairs would likely narrow the interval to +-20% (this run: 10)",
    ),
    # separate recordings: processes per side
    (
        comparison(1.01, 0.979, 1.040, INCONCLUSIVE, counts=(20, 12), needed=168, method=WELCH),
        0.01,
        "inconclusive: 1.010x [0.979x .. 1.040x]; about 168 processes per side would likely narrow the interval "
        "to +-1% (this run: 20 and 12)",
    ),
    # the most ever suggested: more would be needed
    (
        comparison(1.03, 0.18, 5.81, INCONCLUSIVE, counts=(3, 3), needed=MAX_SUGGESTED_PROCESSES),
        0.01,
        "inconclusive: 1.03x [0.18x .. 5.81x]; more than 10000 pairs would be needed to narrow the interval to +-1% "
        "(this run: 3)",
    ),
    # an estimate no more than the run had (the 10 pairs at +-20 %):
    # no count smaller than the run's
    (
        comparison(1.02, 0.84, 1.23, INCONCLUSIVE, needed=9),
        0.2,
        "inconclusive: 1.02x [0.84x .. 1.23x]; more pairs than this run's 10 are needed to settle it at +-20%",
    ),
    (
        comparison(1.02, 0.84, 1.23, INCONCLUSIVE, counts=(12, 10), needed=10, method=WELCH),
        0.2,
        "inconclusive: 1.02x [0.84x .. 1.23x]; more processes per side than this run's 12 and 10 are needed to "
        "settle it at +-20%",
    ),
    # fewer than 2 processes on a side: no interval, nothing to scale
    (
        comparison(1.0, 0.0, math.inf, INCONCLUSIVE, counts=(1, 3), method=WELCH),
        0.01,
        "inconclusive: 1.00x [no interval: fewer than 2 processes]; needs at least 2 processes per side "
        "(this run: 1 and 3)",
    ),
    # a suite's geometric mean suggests no count
    (
        comparison(1.02, 0.97, 1.08, INCONCLUSIVE, counts=(60, 60), method=SUITE),
        0.01,
        "inconclusive: 1.020x [0.970x .. 1.080x]; the interval contains 1x and reaches beyond +-1%",
    ),
]


@pytest.mark.parametrize(("result", "margin", "expected"), INCONCLUSIVE_CASES)
def test_an_inconclusive_line_says_what_would_settle_it(result, margin, expected):
    line = format_summary(result, margin)
    assert line == expected
    assert "no change" not in line


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (comparison(1.11, 1.10, 1.12, SLOWER), "slower: 1.11x [1.10x .. 1.12x]; by more than 1% (10 pairs)"),
        (
            comparison(0.80, 0.79, 0.81, FASTER, counts=(20, 8), method=WELCH),
            "faster: 0.80x [0.79x .. 0.81x]; by more than 1% (20 vs 8 processes)",
        ),
        (
            comparison(1.011, 1.009, 1.014, SMALL_CHANGE),
            "small change: 1.011x [1.009x .. 1.014x]; real, but maybe less than 1% (10 pairs)",
        ),
        (
            comparison(1.0, 0.999, 1.002, NO_CHANGE),
            "no change: 1.000x [0.999x .. 1.002x]; less than 1% either way (10 pairs)",
        ),
        (
            comparison(0.992, 0.987, 0.998, SMALL_CHANGE, counts=(60, 60), method=SUITE),
            "small change: 0.992x [0.987x .. 0.998x]; real, but maybe less than 1%",
        ),
    ],
)
def test_a_settled_line_says_what_its_verdict_means(result, expected):
    assert format_summary(result) == expected


def test_the_ratio_and_its_bounds_stay_changed_over_reference():
    # faster is under 1x, not turned into a factor; a bound gets the
    # decimals that put it on its side of the margin, as in brackets
    assert format_ratio_interval(comparison(0.91, 0.88, 0.95, FASTER)) == "0.91x [0.88x .. 0.95x]"
    assert format_ratio_interval(comparison(1.03, 1.0096, 1.05, SMALL_CHANGE)) == "1.030x [1.0096x .. 1.050x]"


def test_a_suite_comparison_is_a_line_per_benchmark_then_the_geometric_mean():
    reference = files.load(str(COMPARE / "ref.json"))
    changed = files.load(str(COMPARE / "same_host.json"))
    assert format_summary_lines(finish_comparison([reference, changed])) == [
        "call_slower: slower: 1.11x [1.10x .. 1.12x]; by more than 1% (20 vs 20 processes)",
        "call_faster: faster: 0.80x [0.80x .. 0.81x]; by more than 1% (20 vs 20 processes)",
        "dict_no_change: no change: 1.000x [0.999x .. 1.002x]; less than 1% either way (20 vs 20 processes)",
        "list_small_change: small change: 1.011x [1.009x .. 1.014x]; real, but maybe less than 1% (20 vs 20 processes)",
        "noisy_inconclusive: inconclusive: 1.009x [0.979x .. 1.040x]; about 171 processes per side would likely "
        "narrow the interval to +-1% (this run: 20 and 20)",
        "unequal_counts: slower: 1.052x [1.043x .. 1.061x]; by more than 1% (20 vs 8 processes)",
        "geometric mean: small change: 0.992x [0.987x .. 0.998x]; real, but maybe less than 1%",
    ]


def test_one_benchmark_against_one_changed_result_is_one_line():
    reference = files.load(str(COMPARE / "ref.json")).get_benchmark("noisy_inconclusive")
    changed = files.load(str(COMPARE / "same_host.json")).get_benchmark("noisy_inconclusive")
    (line,) = format_summary_lines(finish_comparison([[reference], [changed]], margin=0.2))
    assert line == "no change: 1.009x [0.979x .. 1.040x]; less than 20% either way (20 vs 20 processes)"


def test_several_changed_results_are_numbered():
    reference = files.load(str(COMPARE / "ref.json"))
    changed = [files.load(str(COMPARE / name)) for name in ("same_host.json", "changed.json")]
    lines = format_summary_lines(finish_comparison([reference, *changed]))
    assert [line.split(": ", 1)[0] for line in lines[:2]] == [
        "call_slower, changed result 1",
        "call_slower, changed result 2",
    ]
    assert [line.split(": ", 1)[0] for line in lines[-2:]] == [
        "geometric mean, changed result 1",
        "geometric mean, changed result 2",
    ]


def test_nothing_compared_says_so():
    def bench(name):
        return Benchmark([Run([1.0, 1.1], metadata={"name": name}, collect_metadata=False)])

    assert format_summary_lines(finish_comparison([[bench("a")], [bench("b")]])) == [
        "nothing compared: no benchmark with values is in every result"
    ]
