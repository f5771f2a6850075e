"""python -m perf slowest: the same lines as pyperf 2.10.0."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from perf.cli.main import main

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"


def test_slowest_of_a_suite(capsys):
    assert main(["slowest", str(DATA / "suite_tags.json")]) == 0
    # recorded with pyperf 2.10.0: python -m pyperf slowest suite_tags.json
    assert capsys.readouterr().out == "#1: join_str (542 ms)\n#2: sort_list (451 ms)\n#3: build_dict (306 ms)\n"


def test_slowest_n(capsys):
    assert main(["slowest", "-n", "1", str(DATA / "suite_tags.json")]) == 0
    assert capsys.readouterr().out == "#1: join_str (542 ms)\n"


def test_slowest_of_several_files_has_titles(capsys):
    assert main(["slowest", "-n", "1", str(DATA / "suite_tags.json"), str(DATA / "timeit.json")]) == 0
    # recorded with pyperf 2.10.0
    assert capsys.readouterr().out == (
        "suite_tags\n==========\n\n#1: join_str (542 ms)\ntimeit\n======\n\n#1: timeit (619 ms)\n"
    )


def test_slowest_bad_n(capsys):
    assert main(["slowest", "-n", "0", str(DATA / "timeit.json")]) == 2
    assert capsys.readouterr().err == "ERROR: -n must be >= 1, got 0\n"


@pytest.mark.pyperf
def test_slowest_matches_pyperf():
    pyperf = subprocess.run(
        [sys.executable, "-m", "pyperf", "slowest", str(DATA / "suite_tags.json"), str(DATA / "timeit.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    if pyperf.returncode != 0:
        pytest.skip("pyperf is not installed")
    perf = subprocess.run(
        [sys.executable, "-m", "perf", "slowest", str(DATA / "suite_tags.json"), str(DATA / "timeit.json")],
        capture_output=True,
        text=True,
        check=False,
        cwd=DATA.parent.parent,
    )
    assert perf.stdout == pyperf.stdout
