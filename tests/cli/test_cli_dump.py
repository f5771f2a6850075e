"""python -m perf dump: every run, as pyperf's dump."""

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


@pytest.mark.parametrize("name", FIXTURES)
def test_dump_matches_pyperf(name, capsys):
    status, out, err = run(capsys, "dump", str(DATA / name))
    assert (status, err) == (pyperf_status(name, "dump"), "")
    assert without(out.splitlines(), perf_additions(name)) == summarised_pyperf_output(name, "dump").splitlines()


def test_dump_quiet_hides_calibration_warmups_and_warnings(capsys):
    status, out, _err = run(capsys, "dump", "-q", str(DATA / "timeit.json"))
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "Run 2:"
    assert not any("calibrate" in line or "warmup" in line or "WARNING" in line for line in lines)
    assert sum(line.startswith("- value ") for line in lines) == 12


def test_dump_verbose_starts_with_metadata(capsys):
    status, out, _err = run(capsys, "dump", "-v", str(DATA / "timeit.json"))
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "Metadata:"
    assert "  name: timeit" in lines
    assert "- Metadata:" in lines
    assert lines[lines.index("Run 1: calibrate the number of loops: 2^15") - 1] == ""


def test_dump_raw_values(capsys):
    status, out, _err = run(capsys, "dump", "--raw", "-q", str(DATA / "timeit.json"))
    assert status == 0
    assert out.splitlines()[1].startswith("- raw value 1: ")
    assert " ms" in out.splitlines()[1]


def test_dump_suite_titles(capsys):
    status, out, _err = run(capsys, "dump", "-q", str(DATA / "suite_tags.json"))
    assert status == 0
    assert out.startswith("sort_list\n---------\n\nRun 2:\n")
    assert "\n\nbuild_dict\n----------\n\nRun 2:\n" in out


def test_dump_missing_file(tmp_path, capsys):
    path = tmp_path / "missing.json"
    assert run(capsys, "dump", str(path)) == (1, "", f"ERROR: {path}: cannot read: No such file or directory\n")
