"""perf.render.counts: the text of compare_to --explain and of a count
benchmark's counts."""

from __future__ import annotations

import pytest

from perf.analysis.counts import CODE_PLACEMENT, MEMORY_LAYOUT, CountChange, CountRatio, Counts, Explained, Reading
from perf.render.counts import (
    NO_COUNTS,
    counts_document,
    format_counts,
    format_explained,
    format_ratio,
    format_reading,
)


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        (CountRatio(183002.0, 184850.0, 184850 / 183002), "1.010x"),
        (CountRatio(120.0, 8400.0, 70.0), "70.0x"),
        (CountRatio(1929.0, 740.0, 740 / 1929), "0.384x"),
        (CountRatio(0.0, 0.0, 1.0), "0 -> 0"),
        (CountRatio(0.0, 12.5, None), "0 -> 12.5"),
        (None, "n/a"),
    ],
)
def test_format_ratio(found, expected):
    assert format_ratio(found) == expected


def reading(instructions=0.0, work=False, *, uncertain=False, misses=(), causes=(), identical=False):
    return Reading(instructions, work, uncertain, misses, causes, identical)


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        (reading(0.0101, work=True), "1.0 % more instructions"),
        (reading(-0.023, work=True), "2.3 % fewer instructions"),
        (
            reading(0.004, work=True, uncertain=True),
            "0.4 % more instructions, within the spread of the processes (hash seeds)",
        ),
        (
            reading(0.0000049, misses=(("d1_misses", 2.59), ("ll_misses", 2.19)), causes=(MEMORY_LAYOUT,)),
            "same instructions (+0.0 %), D1 misses 2.6x, LL misses 2.2x: memory layout, not more work",
        ),
        (
            reading(0.0, misses=(("i1_misses", 70.0),), causes=(CODE_PLACEMENT,)),
            "same instructions (+0.0 %), I1 misses 70x: code placement, not more work",
        ),
        (
            reading(-0.0004, misses=(("i1_misses", 3.0), ("d1_misses", 0.38)), causes=(CODE_PLACEMENT, MEMORY_LAYOUT)),
            "same instructions (-0.0 %), I1 misses 3.0x, D1 misses 0.38x: code placement and memory layout, not more work",
        ),
        (
            reading(0.05, work=True, misses=(("ll_misses", None),), causes=(MEMORY_LAYOUT,)),
            "5.0 % more instructions; LL misses from none: memory layout too",
        ),
        (reading(0.0006), "same instructions (+0.1 %) and misses"),
        (reading(identical=True), "same instructions and misses"),
        (None, "no instruction count on a side"),
    ],
)
def test_format_reading(found, expected):
    assert format_reading(found) == expected


def change(name, changed=0, ratio=1.0101):
    ratios = (CountRatio(100.0, 100.0 * ratio, ratio), CountRatio(3.0, 3.0, 1.0), None, CountRatio(0.0, 0.0, 1.0), None)
    return CountChange(name, changed, ratios, reading(ratio - 1, work=True))


def test_the_explanation_is_a_table_and_a_reading_per_benchmark():
    lines = format_explained(Explained((change("sorted"),), ("timed",)), ["main", "branch"])
    assert lines == [
        "Instruction counts, changed / reference (means per loop):",
        "",
        "+-----------+--------------+-----------+-----------+-----------+------------------+",
        "| Benchmark | Instructions | I1 misses | D1 misses | LL misses | Estimated cycles |",
        "+===========+==============+===========+===========+===========+==================+",
        "| sorted    | 1.010x       | 1.000x    | n/a       | 0 -> 0    | n/a              |",
        "+-----------+--------------+-----------+-----------+-----------+------------------+",
        "",
        "- sorted: 1.0 % more instructions",
        "",
        "No instruction counts (record them with --metric instructions): timed",
    ]


def test_several_changed_files_name_theirs():
    explained = Explained((change("sorted", 0), change("sorted", 1, 1.02)), ())
    lines = format_explained(explained, ["main", "a", "b"], table_format="md")
    assert lines[2] == "| Benchmark  | Instructions | I1 misses | D1 misses | LL misses | Estimated cycles |"
    assert lines[4].startswith("| sorted (a) | 1.010x ")
    assert lines[5].startswith("| sorted (b) | 1.020x ")
    assert lines[-2:] == ["- sorted (a): 1.0 % more instructions", "- sorted (b): 2.0 % more instructions"]


def test_without_counts_one_line_says_what_is_needed():
    assert format_explained(Explained((), ("a", "b")), ["x", "y"]) == [NO_COUNTS]
    assert NO_COUNTS == "--explain needs instruction counts: record the benchmarks with --metric instructions"


def test_format_counts_leaves_out_what_the_runs_lack():
    assert format_counts(Counts(183002.0, 3.0, 1929.0, 0.0, 202322.0, 10, 10)) == (
        "183,002 instructions, 3 I1 misses, 1,929 D1 misses, 0 LL misses, 202,322 estimated cycles"
    )
    assert format_counts(Counts(5.25, None, None, None, None, 1, 1)) == "5.25 instructions"


def test_counts_document():
    document = counts_document(change("sorted"))
    assert document["instructions"] == {"reference": 100.0, "changed": pytest.approx(101.01), "ratio": 1.0101}
    assert document["d1_misses"] is None
    assert document["reading"] == "1.0 % more instructions"
