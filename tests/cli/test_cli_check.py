"""python -m perf check: stability warnings, exit status 0 as pyperf."""

from __future__ import annotations

import pytest
from golden import DATA, FIXTURES, deterministic, perf_additions, pyperf_output, pyperf_status, run, without  # noqa: F401 (deterministic: an autouse fixture)


@pytest.mark.parametrize("name", FIXTURES)
def test_check_matches_pyperf(name, capsys):
    status, out, err = run(capsys, "check", str(DATA / name))
    assert (status, err) == (pyperf_status(name, "check"), "")
    assert status == 0
    assert without(out.splitlines(), perf_additions(name)) == pyperf_output(name, "check").splitlines()


def test_check_adds_perf_bullets(capsys):
    status, out, _err = run(capsys, "check", str(DATA / "timeit_inner_loops.json"))
    assert status == 0
    assert "* 1 of 9 values (11%) is a severe outlier (more than 3 IQR beyond the quartiles)\n" in out


def test_check_advises_fewer_processes(capsys):
    status, out, _err = run(capsys, "check", str(DATA / "track_memory.json"))
    assert status == 0
    assert out == (
        "Benchmark was run more times than necessary to get a stable result.\n"
        "Consider passing processes=1 to the Runner constructor to save time.\n"
        "\n"
        # pyperf's advice uses a normal quantile; with 2 processes the t
        # quantile (12.7) says otherwise
        "precision: the 95% confidence interval of the mean is +-2.3% with 2 processes; "
        "about 3 processes would make it +-1%\n"
        "The benchmark seems to be stable\n"
    )


def test_check_says_how_many_processes_a_1_percent_interval_needs(capsys):
    status, out, _err = run(capsys, "check", "-b", "noisy_inconclusive", str(DATA / "compare" / "ref.json"))
    assert status == 0
    assert out.splitlines()[-1] == (
        "precision: the 95% confidence interval of the mean is +-2.2% with 20 processes; "
        "about 85 processes would make it +-1%"
    )


def test_check_several_stable_benchmarks(capsys):
    status, out, _err = run(capsys, "check", str(DATA / "calibration_only.json"), str(DATA / "calibration_only.json"))
    assert (status, out) == (0, "All benchmarks seem to be stable\n")


def test_check_quiet_is_accepted(capsys):
    status, out, _err = run(capsys, "check", "-q", str(DATA / "timeit.json"))
    assert status == 0
    assert out.startswith("WARNING: the benchmark result may be unstable\n")


def test_check_missing_file(tmp_path, capsys):
    path = tmp_path / "missing.json"
    assert run(capsys, "check", str(path)) == (1, "", f"ERROR: {path}: cannot read: No such file or directory\n")
