"""python -m perf hist: text histograms, as pyperf's hist."""

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


@pytest.mark.parametrize("name", [name for name in FIXTURES if name != "calibration_only.json"])
def test_hist_matches_pyperf(name, capsys):
    status, out, err = run(capsys, "hist", str(DATA / name))
    assert (status, err) == (pyperf_status(name, "hist"), "")
    assert without(out.splitlines(), perf_additions(name)) == summarised_pyperf_output(name, "hist").splitlines()


def test_hist_calibration_only_is_one_error_line(capsys):
    assert pyperf_status("calibration_only.json", "hist") == 1  # pyperf: ValueError
    path = DATA / "calibration_only.json"
    status, out, err = run(capsys, "hist", str(path))
    assert (status, out) == (1, "")
    assert err == f"ERROR: {path}: benchmark 'timeit' has no values (only calibration runs)\n"


def test_hist_quiet_and_bins(capsys):
    status, out, _err = run(capsys, "hist", "-q", "-n", "5", str(DATA / "timeit.json"))
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == 6  # 5 bins, the last value opening a sixth bucket
    assert "WARNING" not in out
    assert sum(int(line.split(": ")[1].split()[0]) for line in lines) == 12


def test_hist_extend_uses_the_terminal(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("LINES", "60")
    status, out, _err = run(capsys, "hist", "-q", "--extend", str(DATA / "timeit.json"))
    assert status == 0
    lines = out.splitlines()
    assert len(lines) > 25
    assert max(len(line) for line in lines) > 100


def test_hist_several_files_share_a_scale(capsys):
    status, out, _err = run(capsys, "hist", "-q", str(DATA / "timeit.json"), str(DATA / "format_v5_synthetic.json"))
    assert status == 0
    first, second = out.split("\n\n")
    assert first.startswith("[ timeit ]\n") and second.startswith("[ format_v5_synthetic ]\n")
    assert [line.split(":")[0] for line in first.splitlines()[1:]] == [
        line.split(":")[0] for line in second.splitlines()[1:]
    ]


def test_hist_benchmark_missing_from_a_file_comes_last(capsys):
    status, out, _err = run(capsys, "hist", "-q", str(DATA / "suite_tags.json"), str(DATA / "timeit.json"))
    assert status == 0
    titles = [line for line in out.splitlines() if line.startswith("[ ")]
    assert titles == ["[ sort_list ]", "[ build_dict ]", "[ join_str ]", "[ timeit ]"]


def test_hist_unknown_benchmark(capsys):
    status, out, err = run(capsys, "hist", "-b", "nope", str(DATA / "timeit.json"))
    assert (status, out, err) == (1, "", f"ERROR: {DATA}/timeit.json: no benchmark named 'nope'\n")


def test_a_selected_benchmark_is_named_in_the_check_it_points_to(capsys):
    # the file has several benchmarks: check without -b would show them all
    path = DATA / "compare" / "ref.json"
    status, out, _err = run(capsys, "hist", "-b", "call_slower", str(path))
    assert status == 0
    (warning,) = [line for line in out.splitlines() if line.startswith("WARNING")]
    assert warning.endswith(f'run "python -m perf check -b call_slower {path}" for details')
