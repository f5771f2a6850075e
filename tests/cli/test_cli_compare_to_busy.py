"""python -m perf compare_to on separate recordings that carry the workers'
evidence of a busy machine: the corrected ratio and the ratio as recorded,
which one the verdict uses, --no-correction, and why a correction is left
out (issue 21)."""

from __future__ import annotations

import pytest
from golden import run
from helpers import busy_recording

PY311 = {"python_version": "3.11.7 (64-bit)", "python_executable": "/py311"}
PY312 = {"python_version": "3.12.1 (64-bit)", "python_executable": "/py312"}


@pytest.fixture
def recordings(tmp_path):
    """a: a process that kept 70 % of the CPU; b: the machine 6 % slower;
    c: the machine 6 % slower and the code 20 % slower."""
    return (
        busy_recording(tmp_path / "a.json", 1.0, hit=(2,)),
        busy_recording(tmp_path / "b.json", 1.06),
        busy_recording(tmp_path / "c.json", 1.06, speed=1.2),
    )


def test_a_corrected_comparison_shows_both_ratios(recordings, capsys):
    reference, _b, changed = recordings
    status, out, err = run(capsys, "compare_to", reference, changed)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].endswith(": 1.20x slower [1.13x .. 1.28x]")
    assert lines[1] == (
        "busy machine: the verdict uses the corrected ratio, 1.200x [1.129x .. 1.276x]; "
        "as recorded (--no-correction): 1.228x [1.132x .. 1.331x], slower"
    )
    assert lines[2].startswith("busy machine: 1 of 10 processes of a and 0 of 10 of c lost the CPU")
    assert lines[3].startswith("busy machine: the machine ran 6.0% slower while c was recorded")


def test_a_hidden_corrected_comparison_says_it_too(recordings, capsys):
    reference, changed, _c = recordings
    out = run(capsys, "compare_to", reference, changed)[1]
    assert out.splitlines()[:3] == [
        "Benchmark hidden because not significant (1): loop",
        "- inconclusive: loop: 1.00x slower [0.941x .. 1.063x]",
        "- loop: busy machine: the verdict uses the corrected ratio, 1.000x [0.941x .. 1.063x]; "
        "as recorded (--no-correction): 1.023x [0.943x .. 1.109x], inconclusive",
    ]


def test_no_correction_compares_the_times_as_recorded(recordings, capsys):
    reference, changed, _c = recordings
    status, out, _err = run(capsys, "compare_to", "--no-correction", reference, changed)
    assert status == 0
    assert out.splitlines() == [
        "Benchmark hidden because not significant (1): loop",
        "- inconclusive: loop: 1.02x slower [0.94x .. 1.11x], about 500 processes per file would narrow it to +-1%",
    ]


@pytest.mark.parametrize("layout", [["--table"], ["-G"], ["--table", "-G"]])
def test_tables_and_groups_say_what_was_corrected(recordings, capsys, layout):
    reference, _b, changed = recordings
    status, out, _err = run(capsys, "compare_to", *layout, reference, changed)
    assert status == 0
    assert "\nloop: busy machine: the verdict uses the corrected ratio, 1.200x [1.129x .. 1.276x]; " in out


def test_perfs_first_probe_of_two_interpreters_is_not_compared(tmp_path, capsys):
    reference = busy_recording(tmp_path / "s311.json", 1.0, **PY311)
    changed = busy_recording(tmp_path / "s312.json", 1.06, **PY312)
    status, out, _err = run(capsys, "compare_to", reference, changed)
    assert status == 0
    lines = out.splitlines()
    assert lines[0].endswith(": 1.06x slower [1.058x .. 1.062x]")  # nothing taken out
    assert lines[1] == (
        "busy machine: the machine's speed is not corrected for: s311 and s312 carry perf's first speed probe, "
        "which timed the interpreter under test, and they ran different interpreters "
        "(python_version: 3.11.7 (64-bit) vs 3.12.1 (64-bit))"
    )


def test_a_native_probe_of_two_interpreters_is_compared(tmp_path, capsys):
    reference = busy_recording(tmp_path / "s311.json", 1.0, speed_probe="zlib", **PY311)
    changed = busy_recording(tmp_path / "s312.json", 1.06, speed=1.2, speed_probe="zlib", **PY312)
    status, out, _err = run(capsys, "compare_to", reference, changed)
    assert status == 0
    lines = out.splitlines()
    assert lines[0].endswith(": 1.20x slower [1.13x .. 1.28x]")
    assert lines[2].startswith("busy machine: the machine ran 6.0% slower while s312 was recorded")
    assert "not corrected" not in out
