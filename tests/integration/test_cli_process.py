"""python -m perf in real subprocesses: exit codes, stdin, broken pipes."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
DATA = ROOT / "tests" / "data"

pytestmark = pytest.mark.integration


def perf(*args, **kwargs):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "perf", *args]
    return subprocess.run(command, check=False, capture_output=True, env=env, cwd=ROOT, **kwargs)


def test_show_example_file_of_the_readme():
    result = perf("show", "doc/examples/timeit.json")
    assert result.returncode == 0
    assert result.stdout.decode().splitlines()[-1].startswith("Mean +- std dev: ")
    assert result.stderr == b""


def test_show_reads_gzip_from_stdin():
    result = perf("show", "-", input=(DATA / "timeit.json.gz").read_bytes())
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().splitlines()[-1].startswith("Mean +- std dev: ")


def test_bad_input_is_one_line_and_exit_one(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    result = perf("show", str(bad))
    assert result.returncode == 1
    assert result.stdout == b""
    assert (
        result.stderr.decode()
        == f"ERROR: {bad}: not a valid JSON document: Expecting ',' delimiter: line 1 column 6 (char 5)\n"
    )


def test_broken_pipe_is_silent():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    files = [str(DATA / "suite_tags.json")] * 200
    process = subprocess.Popen(
        [sys.executable, "-m", "perf", "show", *files], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    with process:
        process.stdout.read(10)
        process.stdout.close()  # like "| head -c 10"
        stderr = process.stderr.read()
    assert stderr == b""
    assert process.returncode == 1


SUITE = "tests/data/suite_tags.json"
ANALYSIS_COMMANDS = [
    ["show", SUITE],
    ["stats", SUITE],
    ["hist", SUITE],
    ["check", SUITE],
    ["dump", SUITE],
    ["metadata", SUITE],
    ["slowest", SUITE],
    ["compare_to", "--robust", "--win-rate", SUITE, SUITE],
    ["convert", "--stdout", SUITE],
]


@pytest.mark.parametrize("argv", ANALYSIS_COMMANDS, ids=[argv[0] for argv in ANALYSIS_COMMANDS])
def test_analysis_commands_do_not_import_the_runner_or_psutil(argv):
    code = (
        "import sys\n"
        "from perf.cli.main import main\n"
        f"main({argv!r})\n"
        "loaded = [name for name in sys.modules if name.startswith(('perf.measure', 'perf.cli.runner', 'psutil'))]\n"
        "print('LOADED', loaded, file=sys.stderr)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=env, cwd=ROOT, check=False, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().splitlines()[-1] == "LOADED []"
