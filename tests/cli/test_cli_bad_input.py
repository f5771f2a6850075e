"""Every analysis command on bad input: one ``ERROR: ...`` line on stderr,
nothing on stdout, exit status 1, and the files left as they were."""

from __future__ import annotations

import pytest
from golden import DATA, deterministic, run  # noqa: F401 (deterministic: an autouse fixture)

GOOD = str(DATA / "timeit.json")

#: command -> how to run it on FILE (a list with the placeholder "FILE")
COMMANDS = {
    "show": ["show", "FILE"],
    "stats": ["stats", "FILE"],
    "dump": ["dump", "FILE"],
    "hist": ["hist", "FILE"],
    "check": ["check", "FILE"],
    "metadata": ["metadata", "FILE"],
    "slowest": ["slowest", "FILE"],
    "compare_to (reference)": ["compare_to", "FILE", GOOD],
    "compare_to (changed)": ["compare_to", GOOD, "FILE"],
    "convert": ["convert", "FILE", "--stdout"],
}

#: the commands that select benchmarks by name, and how
SELECTORS = {
    "show": ["-b", "nope"],
    "stats": ["-b", "nope"],
    "dump": ["-b", "nope"],
    "hist": ["-b", "nope"],
    "check": ["-b", "nope"],
    "metadata": ["-b", "nope"],
    "compare_to (reference)": ["-b", "nope"],
    "compare_to (changed)": ["-b", "nope"],
    "convert": ["--include-benchmark", "nope"],
}


def bad_files(tmp_path):
    (tmp_path / "not_json.json").write_text("{this is not json")
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "no_benchmark.json").write_text('{"version": "1.0", "benchmarks": []}')
    return {
        "missing": (str(tmp_path / "missing.json"), "missing.json"),
        "not JSON": (str(tmp_path / "not_json.json"), "not_json.json"),
        "empty file": (str(tmp_path / "empty.json"), "empty.json"),
        "no benchmark": (str(tmp_path / "no_benchmark.json"), "no_benchmark.json"),
    }


def check_one_error_line(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert status == 1, (argv, out, err)
    assert out == ""
    assert err.startswith("ERROR: ") and err.count("\n") == 1 and err.endswith("\n"), err
    return err


@pytest.mark.parametrize("case", ["missing", "not JSON", "empty file", "no benchmark"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_bad_file(command, case, tmp_path, capsys):
    path, name = bad_files(tmp_path)[case]
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    argv = [path if arg == "FILE" else arg for arg in COMMANDS[command]]
    err = check_one_error_line(capsys, argv)
    assert name in err  # the message names the file
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("command", sorted(SELECTORS))
def test_unknown_benchmark_name(command, capsys):
    argv = [GOOD if arg == "FILE" else arg for arg in COMMANDS[command]]
    err = check_one_error_line(capsys, [argv[0], *SELECTORS[command], *argv[1:]])
    assert "'nope'" in err


def test_unequal_units_when_comparing(tmp_path, capsys):
    err = check_one_error_line(capsys, ["compare_to", GOOD, str(DATA / "track_memory.json")])
    # both files hold a benchmark named timeit: one in seconds, one in bytes
    assert "different units" in err


@pytest.mark.parametrize(
    "argv",
    [["compare_to", GOOD, "FILE"], ["compare_to", "FILE", GOOD], ["stats", "FILE"], ["hist", "FILE"]],
    ids=["compare_to (changed)", "compare_to (reference)", "stats", "hist"],
)
def test_calibration_only_where_values_are_needed(capsys, argv):
    path = str(DATA / "calibration_only.json")
    err = check_one_error_line(capsys, [path if arg == "FILE" else arg for arg in argv])
    assert err == f"ERROR: {path}: benchmark 'timeit' has no values (only calibration runs)\n"


@pytest.mark.parametrize("command", ["show", "dump", "metadata", "check", "slowest"])
def test_calibration_only_is_shown_where_it_makes_sense(capsys, command):
    # as pyperf: these commands describe the runs, calibration runs included
    status, out, err = run(capsys, command, str(DATA / "calibration_only.json"))
    assert (status, err) == (0, "")
    assert out
