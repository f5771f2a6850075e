"""Golden-output helpers of the analysis command tests: pyperf 2.10.0's
recorded output of each fixture in tests/data, with perf's tool names."""

from __future__ import annotations

import pathlib
import sys

import pytest

from perf.analysis.checks import PYPERF_CODES, check_benchmark
from perf.cli.main import main
from perf.render.checks import format_check
from perf.storage import files

DATA = pathlib.Path(__file__).resolve().parent / "data"


def fixtures_with(command: str) -> list[str]:
    """The fixtures that have pyperf's recorded output of *command*."""
    return sorted(path.name.removesuffix(f".{command}.txt") for path in DATA.glob(f"*.{command}.txt"))


FIXTURES = fixtures_with("show")


def consecutive_groups(text: str, is_member) -> list[list[str]]:
    """The runs of consecutive lines of *text* for which *is_member* is true."""
    groups: list[list[str]] = []
    previous = False
    for line in text.splitlines():
        member = bool(is_member(line))
        if member and not previous:
            groups.append([])
        if member:
            groups[-1].append(line)
        previous = member
    return groups


@pytest.fixture(autouse=True)
def deterministic(monkeypatch):
    # the advice names the interpreter (base name of sys.executable), and
    # hist sizes itself on the terminal: pyperf's fixtures used python, 80x25
    monkeypatch.setattr(sys, "executable", "/venv/bin/python")
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "25")


def pyperf_output(name, command):
    """pyperf's stdout for a fixture, with perf's tool names."""
    text = (DATA / f"{name}.{command}.txt").read_text()
    lines = text.splitlines()
    assert lines[-1].startswith("# exit status: ")
    text = "".join(line + "\n" for line in lines[:-1])
    text = text.replace("python -m pyperf", "python -m perf")
    return text.replace(
        "Use pyperf stats, pyperf dump and pyperf hist",
        "Use python -m perf stats, python -m perf dump and python -m perf hist",
    )


def pyperf_status(name, command):
    return int((DATA / f"{name}.{command}.txt").read_text().splitlines()[-1].split(":")[1])


def perf_additions(name):
    """The lines perf adds to pyperf's: its own check bullets."""
    suite = files.load(str(DATA / name))
    extra = set()
    for benchmark in suite:
        for check in check_benchmark(benchmark, check_too_many_processes=True):
            if check.code not in PYPERF_CODES:
                text = format_check(check, benchmark)
                extra.add(f"* {text}")
                extra.add(text)
    return extra


def without(lines, removed):
    """*lines* minus the *removed* ones, and minus the blank line that
    introduced a removed block (perf's information lines)."""
    kept = []
    for line in lines:
        if line in removed:
            if kept and kept[-1] == "":
                kept.pop()
            continue
        kept.append(line)
    return kept


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err
