"""python -m perf stats: pyperf's text, then perf's process-level block."""

from __future__ import annotations

import pytest
from golden import (  # noqa: F401 (deterministic: an autouse fixture)
    DATA,
    FIXTURES,
    deterministic,
    perf_additions,
    pyperf_output,
    pyperf_status,
    run,
    summarised_pyperf_output,
    without,
)

from perf.analysis.summaries import benchmark_stats
from perf.render.stats import format_process_stats
from perf.storage import files


def remove_process_blocks(lines, name):
    """Remove perf's process-level block (and its empty line) of each benchmark."""
    for benchmark in files.load(str(DATA / name)):
        block = ["", *format_process_stats(benchmark, benchmark_stats(benchmark))]
        for start in range(len(lines) - len(block) + 1):
            if lines[start : start + len(block)] == block:
                del lines[start : start + len(block)]
                break
        else:
            raise AssertionError(f"process block of {benchmark.get_name()} not found")
    return lines


@pytest.mark.parametrize("name", [name for name in FIXTURES if name != "calibration_only.json"])
def test_stats_matches_pyperf_plus_process_block(name, capsys):
    status, out, err = run(capsys, "stats", str(DATA / name))
    assert (status, err) == (pyperf_status(name, "stats"), "")
    lines = remove_process_blocks(out.splitlines(), name)
    assert without(lines, perf_additions(name)) == summarised_pyperf_output(name, "stats").splitlines()


def test_stats_process_block_follows_pyperf_text(capsys):
    status, out, _err = run(capsys, "stats", "-q", str(DATA / "timeit.json"))
    assert status == 0
    benchmark = files.load(str(DATA / "timeit.json")).get_benchmarks()[0]
    pyperf_part = pyperf_output("timeit.json", "stats").split("\n\nWARNING")[0]
    assert out == pyperf_part + "\n\n" + "\n".join(format_process_stats(benchmark, benchmark_stats(benchmark))) + "\n"
    assert "Number of processes with values: 4" in out


def test_stats_calibration_only_is_one_error_line(capsys):
    # pyperf 2.10.0 crashes with a traceback here
    assert pyperf_status("calibration_only.json", "stats") == 1
    path = DATA / "calibration_only.json"
    status, out, err = run(capsys, "stats", str(path))
    assert (status, out) == (1, "")
    assert err == f"ERROR: {path}: benchmark 'timeit' has no values (only calibration runs)\n"


def test_stats_one_benchmark_of_a_suite_has_no_suite_title(capsys):
    status, out, _err = run(capsys, "stats", "-q", "-b", "join_str", str(DATA / "suite_tags.json"))
    assert status == 0
    assert out.startswith("Total duration: 542 ms\n")


def test_stats_suite_totals_of_the_selected_benchmarks(capsys):
    status, out, _err = run(capsys, "stats", "-q", "-b", "join_str", "-b", "sort_list", str(DATA / "suite_tags.json"))
    assert status == 0
    assert out.startswith("suite_tags\n==========\n\nNumber of benchmarks: 2\n")
    assert "\nsort_list\n---------\n" in out and "\njoin_str\n--------\n" in out
    assert "build_dict" not in out


def test_stats_several_files_titles(capsys):
    status, out, _err = run(capsys, "stats", "-q", str(DATA / "timeit.json"), str(DATA / "command.json"))
    assert status == 0
    assert out.startswith("timeit\n======\n\ntimeit\n------\n\nTotal duration: 619 ms\n")
    assert "\n\ncommand\n=======\n\ncommand\n-------\n\nTotal duration: 693 ms\n" in out


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["missing.json"], "missing.json: cannot read: No such file or directory"),
        (["-b", "nope", str(DATA / "timeit.json")], f"{DATA}/timeit.json: no benchmark named 'nope'"),
    ],
)
def test_stats_errors_are_one_line(argv, error, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "stats", *argv)
    assert (status, out, err) == (1, "", f"ERROR: {error}\n")


def test_stats_not_json_is_one_error_line(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text("not json")
    status, out, err = run(capsys, "stats", str(path))
    assert (status, out) == (1, "")
    assert err.startswith(f"ERROR: {path}") and err.count("\n") == 1


def test_stats_names_the_cpu_clock(tmp_path, capsys):
    from golden import cpu_clock_copy

    path = cpu_clock_copy(tmp_path)
    status, out, _err = run(capsys, "stats", "-q", str(path))
    assert status == 0
    assert "\n\nClock: CPU time of the worker thread (--clock cpu)\nNumber of processes with values: 4\n" in out
    status, out, _err = run(capsys, "stats", "-q", str(DATA / "timeit.json"))
    assert "Clock:" not in out
