"""perf.analysis.finished: the one finished comparison that compare_to,
report, plot --kind compare and the runner's --compare-to lay out."""

from __future__ import annotations

import pytest

from perf.analysis.benchmarks import benchmark_wins
from perf.analysis.compare import SLOWER, Method, Verdict
from perf.analysis.finished import Wins, find_slowdowns, finish, finish_comparison
from perf.analysis.suites import Reason, compare_suites, count_differences, geometric_means
from perf.model.benchmark import Benchmark
from perf.model.run import Run


def bench(name, level=1.0, processes=6, *, tags=None, pair_seed=None, spread=0.002, speed_probe=None):
    """*processes* runs of two values around *level*; *tags*: the
    benchmark's tags; *pair_seed*: one side of an interleaved run;
    *speed_probe*: each run carries a speed probe of this time."""
    runs = []
    for index in range(processes):
        metadata = {"name": name, "loops": 1}
        if tags:
            metadata["tags"] = list(tags)
        if pair_seed is not None:
            metadata.update(ab_pair=index + 1, ab_seed=pair_seed)
        if speed_probe is not None:
            metadata.update(
                cpu_share=0.999, involuntary_switches=0, speed_probe_before=speed_probe, speed_probe_after=speed_probe
            )
        value = level * (1 + spread * (index % 3))
        runs.append(Run([value, value * 1.001], metadata=metadata, collect_metadata=False))
    return Benchmark(runs)


def files_with_tags():
    reference = [
        bench("a", tags=["x"]),
        bench("b", tags=["y", "x"]),
        bench("c"),
        bench("d", tags=["y"]),
    ]
    changed = [
        bench("a", 1.2),
        bench("b", 0.9),
        bench("c", 1.0, spread=0.003),
        bench("d", 1.05),
    ]
    return reference, changed


def test_a_section_per_tag_in_the_order_of_the_names_then_every_benchmark():
    finished = finish_comparison(files_with_tags())
    assert [section.tag for section in finished.sections] == ["x", "y", None]
    assert [[entry.name for entry in section.entries] for section in finished.sections] == [
        ["a", "b"],
        ["b", "d"],
        ["a", "b", "c", "d"],
    ]
    assert finished.everything is finished.sections[-1]
    assert finished.everything.entries == tuple(finished.entries)


def test_without_tags_one_section():
    finished = finish_comparison([[bench("a"), bench("b")], [bench("a", 1.1), bench("b", 1.1)]])
    assert [section.tag for section in finished.sections] == [None]


def test_each_section_has_its_geometric_means():
    finished = finish_comparison(files_with_tags(), margin=0.02)
    for section in finished.sections:
        assert section.geometric_means == geometric_means(section.entries, 0.02)
        assert section.geometric_means[0].method == Method.SUITE
    # every benchmark: the suite's own, not computed again
    assert finished.geometric_means is finished.suite.geometric_means


def test_a_section_of_one_benchmark_has_no_geometric_mean():
    reference, changed = files_with_tags()
    reference[1] = bench("b")  # without tags: a alone in x, d alone in y
    finished = finish_comparison([reference, changed])
    assert [(section.tag, section.geometric_means) for section in finished.sections[:-1]] == [("x", None), ("y", None)]
    assert finished.geometric_means is not None


def test_chance_counts_of_each_section():
    finished = finish_comparison(files_with_tags(), alpha=0.1)
    assert finished.alpha == 0.1
    for section in finished.sections:
        comparisons = [comparison for entry in section.entries for comparison in entry.comparisons]
        assert section.differences == count_differences(comparisons, 0.1)
        assert section.compared == len(comparisons)
    assert finished.everything.differences.total == 4
    assert finished.everything.differences.significant >= 3


def test_one_comparison_has_no_chance_count():
    finished = finish_comparison([[bench("a")], [bench("a", 1.1)]])
    assert finished.everything.differences is None
    assert finished.everything.compared == 1


def test_the_ratios_a_correction_changed_are_counted():
    # the machine ran 6 % slower while the changed side was recorded: the
    # speed probe takes it out of a, b got no probe and stays as recorded
    reference = [bench("a", speed_probe=1e-4), bench("b")]
    changed = [bench("a", 1.06, speed_probe=1.06e-4), bench("b", 1.06)]
    finished = finish_comparison([reference, changed])
    corrected = [entry.comparisons[0].corrected for entry in finished.entries]
    assert corrected == [True, False]
    assert (finished.everything.corrected, finished.everything.compared) == (1, 2)
    raw = finished.entries[0].comparisons[0].adjustment.raw
    assert raw.verdict == Verdict.SLOWER
    assert finished.entries[0].comparisons[0].verdict != Verdict.SLOWER
    uncorrected = finish_comparison([reference, changed], correct=False)
    assert not uncorrected.correct and uncorrected.everything.corrected == 0


def test_win_rates_only_when_asked_for():
    reference, changed = files_with_tags()
    assert finish_comparison([reference, changed]).wins is None
    finished = finish_comparison([reference, changed], win_rates=True)
    assert list(finished.wins) == ["a", "b", "c", "d"]
    for entry in finished.entries:
        (found,) = finished.wins[entry.name]
        assert found == Wins(*benchmark_wins(entry.reference, entry.changed[0]))
        assert not found.paired
    assert finished.wins["a"][0].rate.rate == 0.0  # a changed process never beats a reference one
    assert finished.wins["b"][0].rate.rate == 1.0


def test_win_rates_of_an_interleaved_run_and_of_one_process():
    reference = [bench("pairs", pair_seed=3), bench("one", processes=1)]
    changed = [bench("pairs", 1.1, pair_seed=3), bench("one", 1.1, processes=1)]
    finished = finish_comparison([reference, changed], win_rates=True)
    assert finished.wins["pairs"][0].paired
    assert finished.wins["one"] == (None,)


def test_which_changed_files_are_paired():
    reference = [bench("a", pair_seed=3)]
    interleaved = [bench("a", 1.1, pair_seed=3)]
    separate = [bench("a", 1.1)]
    assert finish_comparison([reference, interleaved, separate]).paired == (True, False)
    assert finish_comparison([[bench("a")], [bench("b")]]).paired == ()


def test_the_suite_comparison_is_kept_whole():
    reference = [bench("a"), bench("b"), bench("only_ref")]
    changed = [bench("a", 1.1), bench("b", 1.1), bench("only_new")]
    finished = finish_comparison([reference, changed], 0.03, robust=True)
    suite = compare_suites([reference, changed], 0.03, robust=True)
    assert finished.suite == suite
    assert finished == finish(suite)
    assert finished.margin == 0.03 and finished.correct
    assert finished.entries == suite.entries
    assert [missing.name for missing in finished.missing] == ["only_ref", "only_new"]
    assert finished.incompatible == ()
    assert {comparison.method for entry in finished.entries for comparison in entry.comparisons} == {Method.RANKS}


def test_incompatible_benchmarks_stay_left_out():
    calibration = Benchmark(
        [Run([], warmups=[(1, 1.0)], metadata={"name": "a", "loops": 1, "calibrate_loops": 1}, collect_metadata=False)]
    )
    finished = finish_comparison([[calibration, bench("b")], [bench("a"), bench("b", 1.1)]])
    assert [(skipped.name, skipped.reason) for skipped in finished.incompatible] == [("a", Reason.NO_VALUES)]
    assert [entry.name for entry in finished.everything.entries] == ["b"]


def test_slowdowns_beyond_the_gate_benchmarks_then_geometric_means():
    reference = [bench("a"), bench("b"), bench("c")]
    first = [bench("a", 1.2), bench("b", 1.05), bench("c", 0.8)]
    second = [bench("a", 1.3), bench("b", 1.0), bench("c", 1.3)]
    finished = finish_comparison([reference, first, second])
    found = find_slowdowns(finished, 10)
    assert [(slowdown.name, slowdown.changed) for slowdown in found] == [("a", 0), ("a", 1), ("c", 1), (None, 1)]
    assert all(slowdown.comparison.verdict == SLOWER and slowdown.comparison.low > 1.1 for slowdown in found)
    assert found[-1].comparison is finished.geometric_means[1]
    # the whole interval must be beyond the gate
    assert [(slowdown.name, slowdown.changed) for slowdown in find_slowdowns(finished, 25)] == [("a", 1), ("c", 1)]
    assert find_slowdowns(finished, 50) == []


@pytest.mark.parametrize("percent", [0, 4])
def test_a_slower_benchmark_inside_the_gate_is_no_slowdown(percent):
    finished = finish_comparison([[bench("a")], [bench("a", 1.05)]])
    assert finished.entries[0].comparisons[0].verdict == SLOWER
    assert [slowdown.name for slowdown in find_slowdowns(finished, percent)] == ["a"]
    assert find_slowdowns(finished, 6) == []
