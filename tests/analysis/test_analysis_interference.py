"""perf.analysis.interference on synthetic recordings: a clean one, a load
that shifts a whole recording, a load that hits single processes."""

from __future__ import annotations

import math
from typing import Any

import pytest

from perf.analysis import compare
from perf.analysis.benchmarks import compare_benchmarks
from perf.analysis.checks import Check, check_benchmark
from perf.analysis.interference import marked, probe_ratio, process_evidence, summarize
from perf.analysis.recordings import compare_recordings
from perf.model.benchmark import Benchmark
from perf.model.run import Run

PROBE = 1e-4


def jitter(index: int, scale: float) -> float:
    """A deterministic spread around 1 (about +-scale)."""
    return 1.0 + scale * (((index * 7919) % 13) - 6) / 6


def recording(
    processes: int = 20,
    *,
    speed: float = 1.0,
    machine: float = 1.0,
    hit: dict[int, float] | None = None,
    seed: int = 0,
    evidence: bool = True,
    probe: float = 1.0,
    follows: float = 1.0,
    switches: int = 40,
    **metadata: Any,
) -> Benchmark:
    """*speed*: the code's time; *machine*: how much slower the machine ran
    (values and probe alike); *hit*: process -> share of the CPU it kept
    (its values take 1/share longer); *probe*: how much slower the probe
    alone ran (an interpreter running perf's first probe); *follows*: how
    far each process's values follow the machine's state that its probe
    measured (1: as much, 0: not at all); *switches*: the involuntary
    context switches of a hit process (0: it waited by itself)."""
    runs = []
    for process in range(processes):
        share = (hit or {}).get(process, 0.999)
        state = jitter(process + seed, 0.004) ** follows  # the machine, as the benchmark feels it
        base = speed * machine * state / (share / 0.999)
        values = [base * jitter(process * 3 + k + seed, 0.002) for k in range(3)]
        run_metadata: dict[str, Any] = {"name": "bench", **metadata}
        if evidence:
            probe_time = PROBE * machine * probe * jitter(process + seed, 0.004) * jitter(process * 5 + seed + 1, 0.001)
            run_metadata.update(
                cpu_share=share,
                involuntary_switches=0 if share > 0.99 else switches,
                speed_probe_before=probe_time,
                speed_probe_after=probe_time,
            )
        runs.append(Run(values, warmups=[(1, base)], metadata=run_metadata, collect_metadata=False))
    return Benchmark(runs)


# -- clean recordings -------------------------------------------------------------


def test_a_clean_recording_is_not_flagged():
    benchmark = recording()
    summary = summarize(benchmark)
    assert (summary.processes, summary.measured, summary.marked) == (20, 20, 0)
    assert summary.applies
    assert summary.probe_spread == pytest.approx(1.008, abs=0.002)
    assert not [check for check in check_benchmark(benchmark) if check.code == "lost_cpu"]


def test_clean_recordings_are_compared_as_before():
    reference, changed = recording(), recording(seed=5)
    adjusted = compare_recordings(reference, changed, 0.01)
    assert adjusted is not None and adjusted.adjustment is not None
    plain = compare.compare_process_means(reference.get_process_means(), changed.get_process_means())
    assert not adjusted.adjustment.machine_corrected  # the probe did not move
    assert adjusted.adjustment.marked == (0, 0)
    assert adjusted.ratio == pytest.approx(plain.ratio, rel=1e-9)  # the shares are all equal
    assert (adjusted.low, adjusted.high) == pytest.approx((plain.low, plain.high), rel=1e-9)


def test_a_real_change_on_a_clean_machine_is_found():
    comparison = compare_benchmarks(recording(), recording(speed=1.05, seed=5))
    assert comparison.verdict == compare.SLOWER
    assert comparison.ratio == pytest.approx(1.05, rel=0.01)
    assert comparison.adjustment is not None and not comparison.adjustment.machine_corrected


# -- a load that shifts a whole recording -----------------------------------------------


def test_a_machine_that_ran_slower_during_one_recording_is_corrected():
    reference, changed = recording(), recording(machine=1.06, seed=5)
    plain = compare.compare_process_means(reference.get_process_means(), changed.get_process_means())
    assert plain.verdict == compare.SLOWER  # what compare_to said before
    comparison = compare_benchmarks(reference, changed)
    adjustment = comparison.adjustment
    assert adjustment is not None and adjustment.machine_corrected
    assert adjustment.machine is not None and adjustment.machine[0] == pytest.approx(1.06, rel=0.005)
    assert adjustment.raw.ratio == pytest.approx(plain.ratio)
    assert comparison.ratio == pytest.approx(1.0, abs=0.005)
    assert comparison.verdict not in compare.DIFFERENT
    # the probe's uncertainty widens the interval
    assert comparison.standard_error > plain.standard_error


def test_a_real_change_on_a_machine_that_ran_slower_is_still_found():
    comparison = compare_benchmarks(recording(), recording(speed=1.10, machine=1.06, seed=5))
    assert comparison.verdict == compare.SLOWER
    assert comparison.ratio == pytest.approx(1.10, rel=0.01)


def test_the_machine_correction_is_shrunk_by_the_probe_noise():
    from perf.analysis.interference import machine_weight

    assert machine_weight(0.05, 0.0) == 1.0
    assert machine_weight(0.0, 0.0) == 0.0
    assert machine_weight(0.03, 0.01) == pytest.approx(0.9)  # a clear shift: nearly all of it
    assert machine_weight(0.01, 0.01) == pytest.approx(0.5)
    assert machine_weight(0.002, 0.01) == pytest.approx(0.04 / 1.04)  # within the noise: hardly any


def test_probe_ratio():
    ratio = probe_ratio(recording(), recording(machine=0.95, seed=3))
    assert ratio is not None and ratio.ratio == pytest.approx(0.95, rel=0.005)
    assert probe_ratio(recording(), recording(evidence=False)) is None


# -- a load that hits single processes ----------------------------------------------------


def test_processes_that_lost_the_cpu_are_marked_and_their_lost_time_left_out():
    hit = {2: 0.75, 7: 0.8, 11: 0.7, 15: 0.85}
    reference, changed = recording(), recording(hit=hit, seed=5)
    evidence = process_evidence(changed)
    assert marked(evidence) == [process in hit for process in range(20)]
    plain = compare.compare_process_means(reference.get_process_means(), changed.get_process_means())
    assert plain.ratio > 1.05  # the lost time made it look slower
    comparison = compare_benchmarks(reference, changed)
    assert comparison.adjustment is not None
    assert comparison.adjustment.marked == (0, 4)
    assert comparison.adjustment.cpu_time
    assert comparison.ratio == pytest.approx(1.0, abs=0.005)
    assert comparison.verdict not in compare.DIFFERENT
    assert Check("lost_cpu", (4, 20, 160)) in check_benchmark(changed)


def test_code_that_gives_the_cpu_away_is_never_marked():
    # a benchmark that waits (a child program, sleep): low shares by nature
    shares = {process: 0.02 + 0.01 * (process % 3) for process in range(20)}
    benchmark = recording(hit=shares)
    assert not summarize(benchmark).applies
    assert summarize(benchmark).marked == 0
    comparison = compare_recordings(benchmark, recording(hit=shares, seed=5), 0.01)
    assert comparison is not None and comparison.adjustment is not None
    assert not comparison.adjustment.cpu_time


def test_cpu_clock_values_are_not_corrected_again():
    reference = recording(clock="cpu")
    changed = recording(hit={1: 0.5}, seed=5, clock="cpu")
    assert not summarize(changed).applies
    comparison = compare_recordings(reference, changed, 0.01)
    assert comparison is not None and comparison.adjustment is not None
    assert not comparison.adjustment.cpu_time


# -- files without the evidence -----------------------------------------------------------


def test_files_without_evidence_get_the_plain_comparison():
    reference, changed = recording(evidence=False), recording(machine=1.06, seed=5, evidence=False)
    assert compare_recordings(reference, changed, 0.01) is None
    comparison = compare_benchmarks(reference, changed)
    assert comparison.adjustment is None
    assert comparison.verdict == compare.SLOWER  # nothing to correct with
    summary = summarize(reference)
    assert (summary.measured, summary.marked, summary.probe_spread) == (0, 0, None)
    assert not summary.applies


def test_one_side_without_evidence_gets_the_plain_comparison():
    assert compare_benchmarks(recording(), recording(seed=5, evidence=False)).adjustment is None


def test_interleaved_runs_stay_paired():
    def interleaved(speed: float) -> Benchmark:
        runs = [
            Run(
                [speed * jitter(pair, 0.01)] * 2,
                metadata={
                    "name": "bench",
                    "ab_pair": pair,
                    "ab_seed": 7,
                    "cpu_share": 0.999,
                    "speed_probe_before": PROBE,
                    "speed_probe_after": PROBE,
                },
                collect_metadata=False,
            )
            for pair in range(10)
        ]
        return Benchmark(runs)

    comparison = compare_benchmarks(interleaved(1.0), interleaved(1.02))
    assert comparison.paired and comparison.adjustment is None
    assert math.isclose(comparison.ratio, 1.02, rel_tol=1e-9)


# -- what the user reads --------------------------------------------------------------------


def test_compare_to_says_what_it_corrected():
    from perf.render.compare import format_adjustment

    reference, changed = recording(hit={3: 0.7}), recording(machine=1.06, seed=5)
    comparison = compare_benchmarks(reference, changed)
    raw = comparison.adjustment.raw
    assert raw == compare.compare_process_means(reference.get_process_means(), changed.get_process_means())
    lines = format_adjustment(comparison, "a.json", "b.json")
    assert lines[0] == (
        f"busy machine: the verdict uses the corrected ratio, {comparison.ratio:.3f}x "
        f"[{comparison.low:.3f}x .. {comparison.high:.3f}x]; as recorded (--no-correction): "
        f"{raw.ratio:.3f}x [{raw.low:.3f}x .. {raw.high:.3f}x], {raw.verdict}"
    )
    assert comparison.ratio == pytest.approx(1.0, abs=0.005) and raw.verdict == compare.SMALL_CHANGE
    assert lines[1] == (
        "busy machine: 1 of 20 processes of a.json and 0 of 20 of b.json lost the CPU to other processes; "
        "their time off the CPU is left out"
    )
    assert lines[2].startswith(
        "busy machine: the machine ran 6.0% slower while b.json was recorded (speed probe: 1.060x ["
    )
    assert lines[2].endswith(
        "]); 100% of that is taken out, as far as the probe is sure, "
        "and as far as this benchmark followed it within the recordings (slope 0.95 +- 0.05)"
    )
    assert format_adjustment(compare_benchmarks(recording(), recording(seed=5)), "a", "b") == []


def test_stats_report_the_interference():
    from perf.analysis.summaries import benchmark_stats
    from perf.render.stats import format_process_stats

    busy = recording(hit={3: 0.7, 4: 0.9})
    lines = format_process_stats(busy, benchmark_stats(busy))
    assert lines[-2] == (
        "CPU share of the values: median 99.9%, lowest 70.0%; 80 involuntary context switches; "
        "2 of 20 processes lost more than 5% to other processes"
    )
    assert lines[-1].startswith("Speed probe: the slowest process saw the machine ")
    quiet = recording(evidence=False)
    assert not any("CPU share" in line for line in format_process_stats(quiet, benchmark_stats(quiet)))


def test_a_change_that_makes_the_code_wait_stays_visible():
    # B sleeps 40 % of its time: every share of B is low, and that time is B's
    waiting = {process: 0.6 for process in range(20)}
    comparison = compare_benchmarks(recording(), recording(hit=waiting, seed=5, switches=0))
    assert comparison.verdict == compare.SLOWER
    assert comparison.ratio == pytest.approx(0.999 / 0.6, rel=0.01)
    assert comparison.adjustment is not None and comparison.adjustment.cpu_time  # A's side only


def test_an_inconclusive_corrected_comparison_points_to_an_interleaved_run():
    from perf.render.compare import format_adjustment

    # a small real change hidden by a machine that ran slower, on few processes
    comparison = compare_benchmarks(recording(4), recording(4, speed=1.004, machine=1.05, seed=5))
    assert comparison.adjustment is not None and comparison.adjustment.machine_corrected
    assert comparison.verdict == compare.INCONCLUSIVE
    assert format_adjustment(comparison, "a", "b")[-1] == (
        "busy machine: an interleaved run settles it: --compare-to runs both sides in alternation, so the load hits both"
    )


def test_probe_shifts_measure_the_machine_against_the_timeline():
    from perf.analysis.interference import probe_shifts

    quiet = [1.00, 1.01, 0.99, 1.00]
    slow = [1.05, 1.06, 1.04, 1.05]
    shifts = probe_shifts([quiet, quiet, slow, quiet, [], quiet])
    assert shifts[0] == shifts[1] == pytest.approx(0.0, abs=1e-12)
    assert shifts[2] == pytest.approx(math.log(1.05), rel=0.02)
    assert shifts[4] == 0.0  # not recorded: no correction
    # a shift within the probe's own noise is hardly corrected
    noisy = [0.8, 1.25, 0.9, 1.1]
    assert abs(probe_shifts([quiet, quiet, [value * 1.01 for value in noisy], quiet])[2]) < 0.005
    # fewer than two recordings with probes: nothing to compare with
    assert probe_shifts([quiet, [], []]) == [0.0, 0.0, 0.0]


# -- which probe made the figures (issue 21) -------------------------------------------------

PY311 = {"python_implementation": "cpython", "python_version": "3.11.7 (64-bit)", "python_executable": "/py311"}
PY312 = {"python_implementation": "cpython", "python_version": "3.12.1 (64-bit)", "python_executable": "/py312"}
NATIVE = "zlib"


def test_runs_without_a_kind_carry_perfs_first_probe():
    from perf.analysis.interference import INTERPRETER_PROBE, ProbeSource, probe_kind, probe_sources

    old, new = recording(**PY311), recording(speed_probe=NATIVE, **PY311)
    assert {probe_kind(run) for run in old.get_runs()} == {INTERPRETER_PROBE}
    assert probe_sources(old) == {
        ProbeSource(INTERPRETER_PROBE, ("cpython", "3.11.7 (64-bit)", "/py311") + (None,) * 3)
    }
    assert probe_sources(new) == {ProbeSource(NATIVE)}  # the interpreter does not matter
    assert probe_sources(recording(evidence=False)) == set()
    assert ProbeSource(NATIVE).key() == NATIVE
    assert ProbeSource("python", ("cpython", None)).key() == "python\ncpython\n"


def test_a_native_probe_corrects_two_interpreters():
    # 3.12 is 25 % slower; the machine ran 6 % slower while it was recorded
    reference = recording(speed_probe=NATIVE, **PY311)
    changed = recording(speed=1.25, machine=1.06, seed=5, speed_probe=NATIVE, **PY312)
    comparison = compare_benchmarks(reference, changed)
    adjustment = comparison.adjustment
    assert adjustment is not None and adjustment.machine_corrected and adjustment.machine_skipped is None
    assert adjustment.probes == (NATIVE, NATIVE)
    assert comparison.ratio == pytest.approx(1.25, rel=0.005)
    assert adjustment.raw.ratio == pytest.approx(1.25 * 1.06, rel=0.005)
    assert comparison.corrected


def test_perfs_first_probe_corrects_one_interpreter():
    reference, changed = recording(**PY311), recording(machine=1.06, seed=5, **PY311)
    comparison = compare_benchmarks(reference, changed)
    assert comparison.adjustment is not None and comparison.adjustment.machine_corrected
    assert comparison.ratio == pytest.approx(1.0, abs=0.005)


def test_perfs_first_probe_of_two_interpreters_is_not_compared():
    from perf.render.compare import format_adjustment

    # the case: 3.12 runs the code 25 % slower and the old probe 10 %
    # faster; correcting with the probe made 1.25x into 1.38x
    reference, changed = recording(**PY311), recording(speed=1.25, probe=0.9, seed=5, **PY312)
    comparison = compare_benchmarks(reference, changed)
    adjustment = comparison.adjustment
    assert adjustment is not None and adjustment.machine is None and not adjustment.machine_corrected
    assert adjustment.machine_skipped == compare.INTERPRETER_PROBES
    assert adjustment.interpreters == ("python_version", "3.11.7 (64-bit)", "3.12.1 (64-bit)")
    assert comparison.ratio == pytest.approx(1.25, rel=0.005)
    assert format_adjustment(comparison, "s311", "s312") == [
        "busy machine: the machine's speed is not corrected for: s311 and s312 carry perf's first speed probe, "
        "which timed the interpreter under test, and they ran different interpreters "
        "(python_version: 3.11.7 (64-bit) vs 3.12.1 (64-bit))"
    ]


def test_a_patched_build_of_one_version_is_another_interpreter():
    # seed 002: the same version, built again with a patch, at another path
    patched = dict(PY311, python_executable="/patched/python")
    comparison = compare_benchmarks(recording(**PY311), recording(machine=1.06, seed=5, **patched))
    assert comparison.adjustment is not None and comparison.adjustment.machine_skipped == compare.INTERPRETER_PROBES
    assert comparison.adjustment.interpreters == ("python_executable", "/py311", "/patched/python")
    assert comparison.ratio == pytest.approx(1.06, rel=0.005)  # nothing taken out


def test_probes_of_different_kinds_are_never_compared():
    from perf.render.compare import format_adjustment

    reference, changed = recording(**PY311), recording(machine=1.06, seed=5, speed_probe=NATIVE, **PY311)
    comparison = compare_benchmarks(reference, changed)
    adjustment = comparison.adjustment
    assert adjustment is not None and adjustment.machine is None
    assert adjustment.machine_skipped == compare.DIFFERENT_PROBES
    assert adjustment.probes == ("python", NATIVE)
    assert format_adjustment(comparison, "a", "b") == [
        "busy machine: the machine's speed is not corrected for: the speed probes of a and b are of different "
        "kinds (python vs zlib), whose times do not compare"
    ]


def test_a_recording_that_mixes_probe_kinds_is_not_compared():
    # a file of perf's first probe, appended to with a newer perf
    mixed = Benchmark(
        [*recording(10, **PY311).get_runs(), *recording(10, seed=3, speed_probe=NATIVE, **PY311).get_runs()]
    )
    comparison = compare_benchmarks(recording(speed_probe=NATIVE), mixed)
    assert comparison.adjustment is not None
    assert comparison.adjustment.machine_skipped == compare.DIFFERENT_PROBES
    assert comparison.adjustment.probes == (NATIVE, "python+zlib")


def test_the_time_off_the_cpu_is_left_out_whatever_the_probes():
    reference = recording(hit={2: 0.7, 9: 0.75}, **PY311)
    changed = recording(speed=1.25, probe=0.9, seed=5, **PY312)
    comparison = compare_benchmarks(reference, changed)
    assert comparison.adjustment is not None and comparison.adjustment.cpu_time
    assert comparison.adjustment.marked == (2, 0)
    assert comparison.ratio == pytest.approx(1.25, rel=0.005)
    assert comparison.adjustment.raw.ratio < 1.23  # the lost time made the reference look slower


def test_no_correction_compares_the_times_as_recorded():
    reference, changed = recording(hit={3: 0.7}), recording(machine=1.06, seed=5)
    plain = compare.compare_process_means(reference.get_process_means(), changed.get_process_means())
    assert compare_benchmarks(reference, changed, correct=False) == plain
    assert compare_benchmarks(reference, changed).ratio != pytest.approx(plain.ratio, rel=0.01)


def test_a_correction_that_changes_nothing_is_not_one():
    comparison = compare_benchmarks(recording(), recording(seed=5))
    assert comparison.adjustment is not None and not comparison.corrected
    assert not compare.compare_process_means([1.0, 1.1], [1.0, 1.1]).corrected  # no adjustment at all


def test_suite_comparisons_remember_the_choice():
    from perf.analysis.suites import compare_suites

    files = [[recording()], [recording(machine=1.06, seed=5)]]
    assert compare_suites(files).correct and compare_suites(files).entries[0].comparisons[0].corrected
    uncorrected = compare_suites(files, correct=False)
    assert not uncorrected.correct and uncorrected.entries[0].comparisons[0].adjustment is None


def test_probe_shifts_compare_only_probes_of_one_source():
    from perf.analysis.interference import probe_shifts

    # perf's first probe, 10 % faster in the second interpreter: two
    # groups, each against its own median, so no shift at all
    fast, slow = [0.9, 0.91, 0.89, 0.9], [1.0, 1.01, 0.99, 1.0]
    sources = ["python\n3.11"] * 3 + ["python\n3.12"] * 2
    assert probe_shifts([slow, slow, slow, fast, fast], sources) == pytest.approx([0.0] * 5, abs=1e-12)
    assert probe_shifts([slow, slow, slow, fast, fast])[3] == pytest.approx(math.log(0.9), rel=0.02)  # one source
    # a lone recording of its source has nothing to compare with
    assert probe_shifts([slow, slow, fast], ["a", "a", "b"])[2] == 0.0


def test_cpu_time_means_of_code_that_keeps_the_cpu():
    from perf.analysis.interference import cpu_time_means

    assert cpu_time_means([1.0, 2.0], [0.99, 0.5]) == [0.99, 1.0]
    assert cpu_time_means([1.0, 2.0], [0.6, 0.5]) == [1.0, 2.0]  # code that waits by itself: kept
    # a timeline knows better: this recording lost the CPU in every process
    assert cpu_time_means([1.0, 2.0], [0.6, 0.5], keeps_cpu=True) == [0.6, 1.0]
    assert cpu_time_means([1.0, 2.0], [0.99], keeps_cpu=True) == [1.0, 2.0]  # a share missing


# -- issue 29: a saturated machine, a probe the benchmark does not follow ----------


def test_a_saturated_machine_leaves_out_the_time_preemption_took():
    # no process kept 95 % of the CPU: every one was preempted (100 involuntary
    # switches for 1.8 s off the CPU: 18 ms a switch, a scheduler's slice)
    saturated = {process: 0.4 for process in range(20)}
    reference, changed = recording(), recording(hit=saturated, seed=5, switches=100)
    assert summarize(changed).applies
    assert marked(process_evidence(changed)) == [True] * 20
    comparison = compare_benchmarks(reference, changed)
    assert comparison.ratio == pytest.approx(1.0, abs=0.01)  # not 2.5x
    assert comparison.adjustment is not None and comparison.adjustment.cpu_time


def test_waiting_is_told_from_preemption_by_the_switches():
    waiting = {process: 0.4 for process in range(20)}
    benchmark = recording(hit=waiting, switches=1)  # 1.8 s off the CPU for one switch
    assert not summarize(benchmark).applies
    assert marked(process_evidence(benchmark)) == [False] * 20


def test_a_benchmark_that_follows_the_probe_is_corrected_with_its_tracking_error():
    reference, changed = recording(), recording(machine=1.06, seed=5)
    comparison = compare_benchmarks(reference, changed)
    adjustment = comparison.adjustment
    assert adjustment is not None and adjustment.machine_corrected and not adjustment.untracked
    slope, error = adjustment.tracking
    assert slope == pytest.approx(1.0, abs=0.1) and 0 < error < 0.1
    assert comparison.ratio == pytest.approx(1.0, abs=0.003)
    # the correction's own error widens the interval beyond the probe's
    # noise: at least half the shift (TRACKING_FLOOR) either way
    assert comparison.low < 1 / 1.03 and comparison.high > 1.03
    # more processes would not narrow that part: no count is suggested
    assert comparison.verdict == compare.INCONCLUSIVE and comparison.needed_processes is None


def test_a_benchmark_that_does_not_follow_the_probe_keeps_its_ratio_in_a_wider_interval():
    from perf.render.compare import format_adjustment

    # the machine ran 6 % slower by the probe, the benchmark only felt it
    # as a whole (its processes do not follow the probe's)
    reference, changed = recording(follows=0.0), recording(machine=1.06, seed=5, follows=0.0)
    comparison = compare_benchmarks(reference, changed)
    adjustment = comparison.adjustment
    assert adjustment is not None and adjustment.untracked and not adjustment.machine_corrected
    assert comparison.ratio == pytest.approx(adjustment.raw.ratio, rel=1e-3)  # as recorded
    assert comparison.low < 1.0 and comparison.high > 1.06  # either reading
    assert comparison.verdict == compare.INCONCLUSIVE
    lines = format_adjustment(comparison, "a", "b")
    assert lines[0].startswith("busy machine: the verdict uses the ratio as recorded, in a wider interval, 1.060x [")
    assert "but this benchmark did not follow the probe within the recordings (slope " in lines[1]
    assert lines[1].endswith("nothing is taken out, and the interval is widened by what the probe's shift could change")
