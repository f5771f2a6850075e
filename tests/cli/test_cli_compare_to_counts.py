"""python -m perf compare_to on instruction counts (--metric instructions):
exact ratios, the CI gate on them, and what cannot be compared.

The files are tests/data/counts/*.json (make_count_files.py): ``main.json``;
``branch.json`` (sorted: 1.0 % more instructions; sum_list: a shuffled
list; call_chain: 70x the I1 misses; dict_strings: unchanged, its counts
move with the hash seed); ``rerun.json`` (main.json counted again);
``bigger_ll.json`` (another simulated LL cache) and ``timed.json`` (the
same names, timed).  Golden outputs are tests/data/counts/*.txt
(``PERF_UPDATE_GOLDEN=1`` rewrites them: review the diff).
"""

from __future__ import annotations

import json
import os

import pytest
from counts import COUNTS, count_benchmark, count_suite
from golden import deterministic, run  # noqa: F401 (deterministic: an autouse fixture)

from perf.cli.compare_to import EXIT_SLOWDOWN

REF = str(COUNTS / "main.json")
CHANGED = str(COUNTS / "branch.json")
SAME = str(COUNTS / "rerun.json")

GOLDEN = {
    "compare_to_changed": [REF, CHANGED],
    "compare_to_same": [REF, SAME],
    "compare_to_verbose": ["-v", REF, CHANGED],
    "compare_to_explain": ["--explain", REF, CHANGED],
    "compare_to_explain_two_files": ["--explain", "-q", "--table-format", "md", REF, CHANGED, SAME],
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_output(name, capsys):
    status, out, err = run(capsys, "compare_to", *GOLDEN[name])
    assert (status, err) == (0, "")
    path = COUNTS / f"{name}.txt"
    if os.environ.get("PERF_UPDATE_GOLDEN"):
        path.write_text(out)
    assert out == path.read_text()


def test_counts_print_with_their_unit_and_no_seconds(capsys):
    status, out, _err = run(capsys, "compare_to", "-v", REF, CHANGED)
    assert status == 0
    assert "[main] 183,002 instructions +- 0 instructions -> [branch] 184,850 instructions +- 0 instructions" in out
    assert not any(unit in out for unit in (" sec", " ms", " us", " ns"))
    # counts do not drift with the machine: no warning on the two hours between the files
    assert "apart" not in out


def test_identical_counts_are_the_same_exactly(capsys):
    status, out, _err = run(capsys, "compare_to", "-v", "-b", "sorted", REF, SAME)
    assert status == 0
    assert out.splitlines()[0].endswith(": no change [exact] (same)")
    assert "Not significant! (same: equal in every process; 10 vs 10 processes; p = 1)" in out
    assert "inconclusive" not in out


@pytest.mark.parametrize(
    ("argv", "status", "slowdowns"),
    [
        (["--fail-on-slowdown", "0.1", REF, SAME], 0, []),
        (["--fail-on-slowdown", "0.5", REF, CHANGED], EXIT_SLOWDOWN, ["SLOWDOWN: sorted: 1.01x slower [exactly +1.01%], beyond +0.5%"]),
        # the whole (exact) change must be beyond the threshold
        (["--fail-on-slowdown", "1.1", REF, CHANGED], 0, []),
    ],
)  # fmt: skip
def test_the_gate_on_exact_counts(capsys, argv, status, slowdowns):
    found, _out, err = run(capsys, "compare_to", "-q", *argv)
    assert (found, err.splitlines()) == (status, slowdowns)


def test_one_process_per_side_has_no_interval_and_no_nan(capsys, tmp_path):
    ref = count_suite(tmp_path / "a.json", count_benchmark(processes=1))
    changed = count_suite(tmp_path / "b.json", count_benchmark(instructions=184850.0, processes=1))
    status, out, err = run(capsys, "compare_to", "-v", ref, changed)
    assert (status, err) == (0, "")
    assert "183,002 instructions -> [b] 184,850 instructions: 1.01x slower [no interval: fewer than 2 processes]" in out
    status, document, err = run(capsys, "compare_to", "--json", ref, changed)
    assert (status, err) == (0, "")
    assert "nan" not in out.lower() + document.lower()
    assert "NaN" not in document and "Infinity" not in document


@pytest.mark.parametrize(
    ("other", "described"),
    [
        ("timed.json", "no counter (second) in {other}"),
        (
            "bigger_ll.json",
            "instructions counted by 'cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 33554432,16,64' in {other}",
        ),
    ],
)
def test_counts_compare_only_with_counts_of_the_same_counter(capsys, other, described):
    path = str(COUNTS / other)
    status, out, err = run(capsys, "compare_to", REF, path)
    assert (status, out) == (1, "")
    counted = "instructions counted by 'cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 8388608,16,64'"
    assert err == (
        f"ERROR: benchmark 'sorted' was measured by different counters: {counted} in {REF}, "
        f"{described.format(other=path)}; counts compare only with counts of the same counter_source\n"
    )


def test_json_carries_the_unit_of_the_counts(capsys):
    status, out, _err = run(capsys, "compare_to", "--json", REF, CHANGED)
    assert status == 0
    document = json.loads(out)
    sorted_ = document["benchmarks"][0]
    assert sorted_["reference"]["unit"] == "instructions"
    assert sorted_["reference"]["counter_source"] == "cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 8388608,16,64"
    (changed,) = sorted_["changed"]
    assert (changed["ratio"], changed["low"], changed["high"]) == (changed["ratio"],) * 3
    assert changed["exact"] is True
    assert changed["change"] == "1.01x slower [exactly +1.01%]"


def test_explain_reads_each_benchmark(capsys):
    status, out, _err = run(capsys, "compare_to", "--explain", "-q", REF, CHANGED)
    assert status == 0
    readings = [line for line in out.splitlines() if line.startswith("- ")]
    assert readings == [
        "- sorted: 1.0 % more instructions",
        "- sum_list: same instructions (+0.0 %), D1 misses 2.6x, LL misses 2.2x: memory layout, not more work",
        "- dict_strings: same instructions and misses",
        "- call_chain: same instructions (+0.0 %), I1 misses 70x: code placement, not more work",
    ]


def test_explain_without_counts_says_so_and_still_compares(capsys):
    compare = COUNTS.parent / "compare"
    status, out, err = run(capsys, "compare_to", "-q", str(compare / "ref.json"), str(compare / "changed.json"))
    assert status == 0
    status, explained, err = run(
        capsys, "compare_to", "--explain", "-q", str(compare / "ref.json"), str(compare / "changed.json")
    )
    assert (status, err) == (0, "")
    assert explained == out + "\n--explain needs instruction counts: record the benchmarks with --metric instructions\n"


def test_explain_in_the_json_document(capsys):
    status, out, _err = run(capsys, "compare_to", "--json", "--explain", REF, CHANGED)
    assert status == 0
    benchmarks = {item["name"]: item["changed"][0]["counts"] for item in json.loads(out)["benchmarks"]}
    assert benchmarks["sum_list"]["d1_misses"] == {
        "reference": 627051.0,
        "changed": 1624149.0,
        "ratio": 1624149 / 627051,
    }
    assert benchmarks["sum_list"]["reading"] == (
        "same instructions (+0.0 %), D1 misses 2.6x, LL misses 2.2x: memory layout, not more work"
    )
    assert benchmarks["sorted"]["reading"] == "1.0 % more instructions"
    # without --explain, no counts key; without counts, null
    status, out, _err = run(capsys, "compare_to", "--json", REF, CHANGED)
    assert "counts" not in json.loads(out)["benchmarks"][0]["changed"][0]
    timed = str(COUNTS / "timed.json")
    status, out, _err = run(capsys, "compare_to", "--json", "--explain", timed, timed)
    assert {item["changed"][0]["counts"] for item in json.loads(out)["benchmarks"]} == {None}
