"""What the runner prints after a run: the warnings, the comparison and the
--target-precision note agree with the rule that stopped the run."""

from __future__ import annotations

import argparse
import sys

import pytest

from perf.cli import display
from perf.model.benchmark import Benchmark
from perf.model.run import Run


@pytest.fixture(autouse=True)
def python_name(monkeypatch):
    monkeypatch.setattr(sys, "executable", "/venv/bin/python")


def namespace(**options):
    defaults = dict(
        target_precision=None,
        max_processes=None,
        compare_to=None,
        quiet=False,
        metadata=False,
        dump=False,
        hist=False,
        stats=False,
        verbose=False,
    )
    defaults.update(options)
    return argparse.Namespace(**defaults)


def benchmark(means, name="bench", pairs=False, spread=0.0):
    runs = []
    for index, mean in enumerate(means):
        metadata = {"name": name, "loops": 1000}
        if pairs:
            metadata.update(ab_pair=index, ab_seed=7)
        runs.append(Run([mean - spread, mean + spread], metadata=metadata, collect_metadata=False))
    return Benchmark(runs)


# a noisy benchmark: pyperf's "Not enough samples" fires
NOISY = [1.0e-3, 1.05e-3, 0.97e-3, 1.02e-3, 0.99e-3]


def test_result_keeps_the_full_block(capsys):
    display.print_result(benchmark(NOISY), namespace(), show_name=False, checks=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        "WARNING: the benchmark result may be unstable",
        "* Not enough samples to get a stable result (95% certainty of less than 1% variation)",
    ]
    assert lines[-3] == "Use --quiet option to hide these warnings."


def test_target_precision_result_has_no_1_percent_advice(capsys):
    display.print_result(benchmark(NOISY), namespace(target_precision=0.05), show_name=False, checks=True)
    out = capsys.readouterr().out
    assert "Not enough samples" not in out
    assert out.startswith("Mean +- std dev: ")


def rule(target, maximum, seconds=None):
    from perf.measure.parent.stopping import StoppingRule

    return StoppingRule(target, min(10, maximum), maximum, seconds=seconds)


def test_precision_note_when_reached_says_how_precise(capsys):
    display.print_precision_note(namespace(target_precision=0.05, max_processes=60), rule(0.05, 60), 0.04, 12)
    assert capsys.readouterr().out == "Stopped on precision: +-4.0% after 12 processes (target +-5%)\n"


def test_precision_note_when_reached_is_quiet_with_quiet(capsys):
    args = namespace(target_precision=0.05, max_processes=60, quiet=True)
    display.print_precision_note(args, rule(0.05, 60), 0.04, 12)
    assert capsys.readouterr().out == ""


def test_precision_note_counts_processes_at_the_target(capsys):
    display.print_precision_note(namespace(target_precision=0.01, max_processes=60), rule(0.01, 60), 0.02, 60)
    assert capsys.readouterr().out == (
        "Target precision not reached: +-2.0% after 60 processes (target +-1%, stopped by the --max-processes); "
        "about 240 processes would reach it\n"
    )


def test_precision_note_of_a_default_run(capsys):
    args = namespace(target_precision=None, precision_default=True)
    display.print_precision_note(args, rule(0.01, 24, 60.0), 0.008, 11)
    display.print_precision_note(args, rule(0.01, 24, 60.0), 0.05, 24)
    display.print_precision_note(args, rule(0.01, 24, 60.0), 0.05, 14)
    assert capsys.readouterr().out.splitlines() == [
        "Stopped on precision: +-0.8% after 11 processes (target +-1%)",
        "Target precision not reached: +-5.0% after 24 processes (target +-1%, stopped by the most processes "
        "of the default budget); about 600 processes would reach it",
        "Target precision not reached: +-5.0% after 14 processes (target +-1%, stopped by the time limit, "
        "60 s of workers); about 350 processes would reach it",
    ]


def test_precision_note_of_a_fixed_budget_is_silent(capsys):
    display.print_precision_note(namespace(target_precision=None), rule(0.001, 2), 0.0, 2)  # counts
    assert capsys.readouterr().out == ""


def test_precision_note_counts_pairs_with_compare_to(capsys):
    args = namespace(target_precision=0.05, max_processes=30, compare_to="/usr/bin/python3.11")
    display.print_precision_note(args, rule(0.05, 30), 0.1, 30)
    assert capsys.readouterr().out == (
        "Target precision not reached: +-10.0% after 30 interleaved pairs (target +-5%, stopped by the "
        "--max-processes); about 115 pairs would reach it\n"
    )


def test_precision_note_caps_its_advice(capsys):
    display.print_precision_note(namespace(target_precision=1e-6, max_processes=5), rule(1e-6, 5), 0.01, 5)
    assert capsys.readouterr().out == (
        "Target precision not reached: +-1.0% after 5 processes (target +-0.0001%, stopped by the "
        "--max-processes); more than 100000 processes would reach it\n"
    )


REFERENCE = [1.00e-3, 1.04e-3, 0.97e-3, 1.03e-3, 0.99e-3, 1.01e-3]
CHANGED = [1.01e-3, 1.02e-3, 0.99e-3, 1.05e-3, 0.98e-3, 1.03e-3]


def comparison_lines(capsys, **options):
    benchmarks = [benchmark(REFERENCE, pairs=True), benchmark(CHANGED, pairs=True)]
    display.print_comparison(None, ["ref", "new"], benchmarks, namespace(**options))
    return capsys.readouterr().out.splitlines()


def test_comparison_says_what_the_verdict_means(capsys):
    lines = comparison_lines(capsys)
    assert lines[3].endswith(": 1.01x slower [0.989x .. 1.025x] (inconclusive)")
    assert lines[4] == (
        "inconclusive: maybe no change, maybe more than 1%, since the 95% interval contains 1x and reaches "
        "beyond +-1%; 6 interleaved pairs; p = 0.39; about 15 interleaved pairs would narrow it to +-1%"
    )


def test_target_precision_comparison_does_not_ask_for_1_percent(capsys):
    lines = comparison_lines(capsys, target_precision=0.05, max_processes=60, compare_to="python3.11")
    assert lines[4] == (
        "inconclusive: maybe no change, maybe more than 1%, since the 95% interval contains 1x and reaches "
        "beyond +-1%; 6 interleaved pairs; p = 0.39"
    )
