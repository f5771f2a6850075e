"""python -m perf collect_metadata."""

from __future__ import annotations

import os

import pytest

from perf.cli.main import main
from perf.storage.files import load_benchmark


def test_prints_metadata(capsys):
    assert main(["collect_metadata"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Metadata:"
    assert any(line.startswith("- python_implementation: ") for line in lines)
    assert not any(line.startswith("- name:") for line in lines)


def test_writes_a_one_run_benchmark(tmp_path, capsys):
    output = tmp_path / "metadata.json"
    assert main(["collect_metadata", "-o", str(output)]) == 0
    benchmark = load_benchmark(str(output))
    assert benchmark.get_name() == "metadata"
    assert benchmark.get_values() == (1.0,)
    assert "python_version" in benchmark.get_metadata()


def test_refuses_an_existing_file(tmp_path, capsys):
    output = tmp_path / "metadata.json"
    output.write_text("keep")
    assert main(["collect_metadata", "-o", str(output)]) == 1
    assert capsys.readouterr().err == f"ERROR: {output}: the file already exists\n"
    assert output.read_text() == "keep"


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="needs os.sched_getaffinity")
def test_affinity(capsys):
    cpu = sorted(os.sched_getaffinity(0))[0]
    before = os.sched_getaffinity(0)
    try:
        assert main(["collect_metadata", "--affinity", str(cpu)]) == 0
    finally:
        os.sched_setaffinity(0, before)
    assert "Metadata:" in capsys.readouterr().out


def test_bad_affinity(capsys):
    assert main(["collect_metadata", "--affinity", "x"]) == 2
    assert capsys.readouterr().err.startswith("ERROR: argument --affinity: invalid CPU list 'x'")
