"""python -m perf show with -d, -m, -g, -t, and its stability warnings."""

from __future__ import annotations

import pytest
from golden import DATA, FIXTURES, deterministic, perf_additions, pyperf_output, pyperf_status, run, without  # noqa: F401 (deterministic: an autouse fixture)

from perf.render.stats import format_process_stats
from perf.storage import files


@pytest.mark.parametrize("name", FIXTURES)
def test_show_matches_pyperf(name, capsys):
    status, out, err = run(capsys, "show", str(DATA / name))
    assert (status, err) == (pyperf_status(name, "show"), "")
    assert without(out.splitlines(), perf_additions(name)) == pyperf_output(name, "show").splitlines()


def test_show_quiet_has_no_warnings(capsys):
    assert run(capsys, "show", "-q", str(DATA / "timeit.json")) == (0, "Mean +- std dev: 842 ns +- 12 ns\n", "")


def test_show_stats_then_warnings_then_result(capsys):
    status, out, _err = run(capsys, "show", "-t", str(DATA / "timeit.json"))
    assert status == 0
    stats = pyperf_output("timeit.json", "stats")
    pyperf_stats, warnings = stats.split("\n\nWARNING")
    benchmark = files.load(str(DATA / "timeit.json")).get_benchmarks()[0]
    process = "\n".join(format_process_stats(benchmark))
    assert out == f"{pyperf_stats}\n\n{process}\n\nWARNING{warnings}\nMean +- std dev: 842 ns +- 12 ns\n"


def test_show_dump_is_dump_plus_result(capsys):
    status, out, _err = run(capsys, "show", "-d", str(DATA / "command.json"))
    assert status == 0
    assert out == pyperf_output("command.json", "dump") + "\nMean +- std dev: 10.8 ms +- 0.5 ms\n"


def test_show_hist_is_hist_plus_result(capsys):
    status, out, _err = run(capsys, "show", "-g", "-q", str(DATA / "timeit.json"))
    assert status == 0
    hist = pyperf_output("timeit.json", "hist").split("\n\nWARNING")[0]
    assert out == hist + "\n\nMean +- std dev: 842 ns +- 12 ns\n"


def test_show_metadata_is_metadata_plus_result(capsys):
    status, out, _err = run(capsys, "show", "-m", str(DATA / "suite_tags.json"))
    assert status == 0
    metadata = pyperf_output("suite_tags.json", "metadata")
    results = ["983 ns +- 27 ns", "5.47 us +- 0.39 us", "314 ns +- 27 ns"]
    marker = "Use --quiet option to hide these warnings.\n"
    blocks = metadata.split(marker)
    assert len(blocks) == len(results) + 1
    expected = "".join(f"{block}{marker}\nMean +- std dev: {result}\n" for block, result in zip(blocks, results))
    assert out == expected + blocks[-1]


def test_show_several_files_with_warnings_titles(capsys):
    status, out, _err = run(capsys, "show", str(DATA / "timeit.json"), str(DATA / "command.json"))
    assert status == 0
    assert out.startswith("timeit\n======\n\ntimeit\n------\n\nWARNING: ")
    assert "\n\ncommand\n=======\n\ncommand\n-------\n\nWARNING: " in out
    assert out.endswith("\nMean +- std dev: 10.8 ms +- 0.5 ms\n")


def test_show_calibration_only_has_no_warnings(capsys):
    assert run(capsys, "show", str(DATA / "calibration_only.json")) == (0, "Calibration: 2^15 loops\n", "")
