"""The console examples of doc/analyze.rst and doc/cli.rst are real output: each block
that runs one ``python3 -m perf`` command on the files of
tests/data/compare, tests/data/counts or doc/examples is re-run in-process and compared, ``...`` standing
for omitted lines as in doctest."""

from __future__ import annotations

import doctest
import shlex
import sys
from pathlib import Path

import pytest

from perf.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
COMPARE = ROOT / "tests" / "data" / "compare"
EXAMPLES = ROOT / "doc" / "examples"
COUNTS = ROOT / "tests" / "data" / "counts"
PREFIX = "$ python3 -m perf "


def console_blocks(page: Path) -> list[tuple[str, str]]:
    """(command, expected output) of each one-command console block."""
    blocks = []
    lines = page.read_text().splitlines()
    index = 0
    while index < len(lines):
        if lines[index].strip() != ".. code-block:: console":
            index += 1
            continue
        indent = None
        body: list[str] = []
        index += 1
        while index < len(lines) and (not lines[index].strip() or indent is None or lines[index].startswith(indent)):
            line = lines[index]
            if line.strip() and indent is None:
                indent = line[: len(line) - len(line.lstrip())]
            body.append(line[len(indent) :] if indent and line.startswith(indent) else "")
            index += 1
        while body and not body[-1]:
            body.pop()
        while body and not body[0]:
            body.pop(0)
        commands = [line for line in body if line.startswith("$ ")]
        if len(commands) == 1 and body[0].startswith(PREFIX):
            blocks.append((body[0][len(PREFIX) :], "\n".join(body[1:]) + "\n"))
    return blocks


#: page -> the folders its examples run in
FOLDERS = {"analyze.rst": (COMPARE, EXAMPLES, COUNTS), "cli.rst": (COMPARE,)}


def folder_of(command: str, page: str = "analyze.rst") -> Path | None:
    """The folder holding every file the command reads, if there is one."""
    if "|" in command:
        return None
    files = [arg for arg in shlex.split(command) if arg.endswith(".json")]
    for folder in FOLDERS[page]:
        if files and all((folder / name).exists() for name in files):
            return folder
    return None


BLOCKS = [
    (folder, command, expected)
    for page in FOLDERS
    for command, expected in console_blocks(ROOT / "doc" / page)
    if (folder := folder_of(command, page)) is not None
]


def test_the_page_has_examples():
    assert len(BLOCKS) >= 7


@pytest.mark.parametrize("folder, command, expected", BLOCKS, ids=[command for _, command, _ in BLOCKS])
def test_example_output(folder, command, expected, capsys, monkeypatch):
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "executable", "/usr/bin/python3")
    main(shlex.split(command))
    captured = capsys.readouterr()
    output = captured.out + captured.err
    checker = doctest.OutputChecker()
    assert checker.check_output(expected, output, doctest.ELLIPSIS), f"\nexpected:\n{expected}\ngot:\n{output}"
