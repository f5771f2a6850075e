"""valgrind's cachegrind: the command line, reading its files, counts per loop."""

from __future__ import annotations

import pytest

from perf.errors import UsageError, WorkerError
from perf.measure import cachegrind


def write(path, summary, events="Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw"):
    path.write_text(
        f"desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: python\nevents: {events}\nsummary: {summary}\n"
    )


def test_the_command_pins_the_caches_and_traces_children():
    command = cachegrind.cachegrind_command(["python", "bench.py"])
    assert command[:3] == ["valgrind", "--tool=cachegrind", "--cache-sim=yes"]
    assert {"--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64", "--trace-children=yes"} <= set(command)
    assert "--cachegrind-out-file=%q{PERF_COUNT_FILE}.%p" in command
    assert command[-3:] == ["-q", "python", "bench.py"]


def test_totals_add_every_process_of_a_prefix_by_perf_names(tmp_path):
    write(tmp_path / "a.100", "1000 10 1 500 20 2 300 5 3")
    write(tmp_path / "a.101", "10 1 0 0 0 0 0 0 0")  # a child process (python -m perf command)
    write(tmp_path / "b.102", "999999 0 0 0 0 0 0 0 0")  # another prefix
    totals = cachegrind.read_totals(str(tmp_path / "a"))
    assert totals == {"instructions": 1010, "i1_misses": 11, "d1_misses": 25, "ll_misses": 6}


def test_totals_follow_the_events_line_not_a_fixed_order(tmp_path):
    write(tmp_path / "a.1", "7 3", events="D1mr Ir")
    assert cachegrind.read_totals(str(tmp_path / "a")) == {
        "instructions": 3,
        "i1_misses": 0,
        "d1_misses": 7,
        "ll_misses": 0,
    }


def test_no_file_or_a_file_without_summary_is_a_worker_error(tmp_path):
    with pytest.raises(WorkerError, match="wrote no counts"):
        cachegrind.read_totals(str(tmp_path / "a"))
    (tmp_path / "a.1").write_text("events: Ir\n")
    with pytest.raises(WorkerError, match="has no summary"):
        cachegrind.read_totals(str(tmp_path / "a"))


def test_per_loop_is_the_difference_over_the_extra_loops_with_the_cycle_estimate():
    low = {"instructions": 5000, "i1_misses": 10, "d1_misses": 100, "ll_misses": 1}
    high = {"instructions": 5000 + 1000 * 4, "i1_misses": 10 + 4, "d1_misses": 100 + 8, "ll_misses": 1 + 4}
    counts = cachegrind.per_loop(low, high, 4)
    assert counts == {
        "instructions": 1000.0,
        "i1_misses": 1.0,
        "d1_misses": 2.0,
        "ll_misses": 1.0,
        "cycles_estimate": 1000.0 + 10 * (1 + 2) + 100 * 1,
    }


def test_the_source_names_the_tool_its_version_and_the_geometry():
    source = cachegrind.counter_source("3.19.0")
    assert source == "cachegrind 3.19.0; I1 32768,8,64; D1 32768,8,64; LL 8388608,16,64"


def test_a_missing_valgrind_says_how_to_install_it(no_valgrind):
    with pytest.raises(UsageError) as caught:
        cachegrind.valgrind_version()
    assert "not installed" in str(caught.value)
    assert "apt-get install valgrind" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_version_comes_from_valgrind(fake_valgrind):
    assert cachegrind.valgrind_version() == "3.99.0"
