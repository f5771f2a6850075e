"""The display commands on instruction counts (--metric instructions):
show, stats, dump, hist, metadata, check and slowest print counts with
their unit (``183,002 instructions``) and no seconds anywhere.

The file is tests/data/counts/main.json (make_count_files.py); golden
outputs are tests/data/counts/COMMAND.txt (``PERF_UPDATE_GOLDEN=1``
rewrites them: review the diff).
"""

from __future__ import annotations

import os
import re

import pytest
from counts import COUNTS, count_benchmark, count_suite
from golden import deterministic, run  # noqa: F401 (deterministic: an autouse fixture)

MAIN = str(COUNTS / "main.json")

COMMANDS = {
    "show": ["show", MAIN],
    "stats": ["stats", MAIN],
    "dump": ["dump", "-b", "sorted", MAIN],
    "hist": ["hist", "-b", "dict_strings", MAIN],
    "metadata": ["metadata", MAIN],
    "check": ["check", MAIN],
    "slowest": ["slowest", MAIN],
}

#: a duration as perf writes one
SECONDS = re.compile(r"[0-9] (sec|ms|us|ns)\b")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_golden_output(name, capsys, monkeypatch):
    monkeypatch.chdir(COUNTS)
    argv = [os.path.basename(arg) if arg == MAIN else arg for arg in COMMANDS[name]]
    status, out, err = run(capsys, *argv)
    assert (status, err) == (0, "")
    path = COUNTS / f"{name}.txt"
    if os.environ.get("PERF_UPDATE_GOLDEN"):
        path.write_text(out)
    assert out == path.read_text()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_seconds_anywhere(name, capsys):
    status, out, _err = run(capsys, *COMMANDS[name])
    assert status == 0
    assert SECONDS.search(out) is None, out
    assert "Total duration" not in out


def test_stats_tells_the_counter_and_the_mean_counts(capsys):
    status, out, _err = run(capsys, "stats", "-b", "sum_list", MAIN)
    assert status == 0
    lines = out.splitlines()
    assert "Counter: cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 8388608,16,64 (--metric instructions)" in lines
    index = lines.index("Counts per loop, means of 10 processes (10 hash seeds):")
    assert lines[index + 1] == (
        "53,001,118 instructions, 0 I1 misses, 627,051 D1 misses, 627,049 LL misses, 121,976,528 estimated cycles"
    )


def test_check_gives_no_advice_to_count_fewer_seeds(capsys):
    # zero spread across hash seeds is the finding, not a waste of processes
    status, out, _err = run(capsys, "check", "-b", "sorted", MAIN)
    assert status == 0
    assert "more times than necessary" not in out


def test_slowest_ranks_counts_by_instructions_after_the_timed(capsys, tmp_path):
    from perf.model.suite import BenchmarkSuite
    from perf.storage import files

    timed = files.load(str(COUNTS.parent / "timeit.json"))
    path = tmp_path / "mixed.json"
    files.dump(BenchmarkSuite([*timed, count_benchmark("a", 10.0), count_benchmark("b", 20.5)]), str(path))
    status, out, _err = run(capsys, "slowest", str(path))
    assert status == 0
    assert out == (
        "#1: timeit (619 ms)\nMost instructions per loop:\n#1: b (20.5 instructions)\n#2: a (10 instructions)\n"
    )
    only = count_suite(tmp_path / "counts.json", count_benchmark("a", 10.0))
    assert run(capsys, "slowest", only)[1] == "#1: a (10 instructions)\n"
