"""Golden-output helpers of the analysis command tests: pyperf 2.10.0's
recorded output of each fixture in tests/data, with perf's tool names.

The recorded files stay pyperf's output; what perf prints differently on
purpose is applied here, so each test still checks everything else line
for line:

* tool names (``python -m perf``) and pyperf's typo "95% certainly"
  (perf: "95% certainty"): :func:`pyperf_output`;
* perf's own check bullets and information lines: removed from perf's
  output with :func:`without` and :func:`perf_additions`;
* ``show``, ``stats``, ``hist``, ``metadata`` and ``dump`` print one line
  instead of pyperf's warning block (the block is ``check``'s and the
  runner's): :func:`summarised_pyperf_output` replaces each block of
  pyperf's output with that line, its count being pyperf's bullets plus
  perf's own warnings of the benchmark.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

from perf.analysis.checks import PYPERF_CODES, Level, check_benchmark
from perf.cli.main import main
from perf.render.checks import WARNING_TITLE, format_check, warning_summary_line
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
    text = text.replace("(95% certainly of", "(95% certainty of")
    return text.replace(
        "Use pyperf stats, pyperf dump and pyperf hist",
        "Use python -m perf stats, python -m perf dump and python -m perf hist",
    )


#: the last line of pyperf's warning block
BLOCK_END = "Use --quiet option to hide these warnings."


def summarised_pyperf_output(name, command):
    """:func:`pyperf_output` with each warning block replaced by the one
    line perf prints instead (for the file as the tests pass it:
    ``DATA / name``).  The blocks follow the benchmarks' order; every
    benchmark with a warning must have pyperf's block."""
    path = str(DATA / name)
    suite = files.load(path)
    warned = []
    for benchmark in suite:
        warnings = [check for check in check_benchmark(benchmark) if check.level is Level.WARNING]
        if warnings:
            warned.append((benchmark, warnings))
    lines = pyperf_output(name, command).splitlines()
    output = []
    index = found = 0
    while index < len(lines):
        if lines[index] != WARNING_TITLE:
            output.append(lines[index])
            index += 1
            continue
        end = lines.index(BLOCK_END, index)
        bullets = sum(1 for line in lines[index:end] if line.startswith("* "))
        benchmark, warnings = warned[found]
        found += 1
        count = bullets + sum(1 for check in warnings if check.code not in PYPERF_CODES)
        benchmark_name = benchmark.get_name() if len(suite) > 1 else None
        output.append(warning_summary_line(count, path, benchmark_name))
        index = end + 1
    assert found == len(warned), f"{len(warned)} benchmarks with warnings, {found} pyperf blocks"
    return "".join(line + "\n" for line in output)


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


def cpu_clock_copy(folder: pathlib.Path, name: str = "timeit.json") -> pathlib.Path:
    """A copy of the fixture *name* whose runs say ``clock: cpu``."""
    suite = files.load(str(DATA / name))
    for benchmark in suite:
        benchmark.update_metadata({"clock": "cpu"})
    path = folder / "cpu.json"
    files.dump(suite, str(path))
    return path
