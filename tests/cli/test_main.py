"""python -m perf: command dispatch and the translation of errors."""

from __future__ import annotations

import pathlib

import pytest

from perf.cli.main import main

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"


def test_missing_command_is_a_usage_error(capsys):
    assert main([]) == 1
    assert (
        capsys.readouterr().err
        == "ERROR: missing command: choose one of show, stats, dump, hist, check, metadata, slowest, collect_metadata, compare_to, convert, plot, timeit, command, system, report (see python -m perf --help)\n"
    )


def test_unknown_command_is_one_error_line(capsys):
    assert main(["frobnicate"]) == 1
    assert capsys.readouterr().err.startswith("ERROR: argument COMMAND: invalid choice: 'frobnicate'")


def test_help_exits_zero(capsys):
    assert main(["--help"]) == 0
    assert "show" in capsys.readouterr().out


def test_missing_file_is_one_error_line(tmp_path, capsys):
    path = tmp_path / "missing.json"
    assert main(["show", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"ERROR: {path}: cannot read: No such file or directory\n"


def test_malformed_file_is_one_error_line(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text('{"version": "1.0", "benchmarks": []}')
    assert main(["show", str(path)]) == 1
    assert capsys.readouterr().err == f"ERROR: {path}: benchmarks: the array is empty\n"


def test_keyboard_interrupt_exits_one(monkeypatch, capsys):
    import perf.cli.show

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(perf.cli.show, "run", interrupted)
    assert main(["show", "x.json"]) == 1
    assert capsys.readouterr().err == "Interrupted: exit\n"


@pytest.mark.parametrize("argv", [["show"], ["show", "--bad-option", "x.json"]])
def test_bad_arguments_exit_one(argv, capsys):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("ERROR: ")
    assert err.count("\n") == 1


def test_show_matches_pyperf_for_single_benchmark_files(capsys):
    for name in ("timeit.json", "calibration_only.json", "track_memory.json", "command.json"):
        assert main(["show", "-q", f"{DATA}/{name}"]) == 0
        pyperf_output = (DATA / f"{name}.show.txt").read_text().splitlines()
        assert capsys.readouterr().out.splitlines()[-1] == pyperf_output[-2]  # before "# exit status"


def pyperf_results(name):
    """The 'Mean +- std dev' lines pyperf printed for a fixture, in order."""
    return [line for line in (DATA / f"{name}.show.txt").read_text().splitlines() if line.startswith("Mean +- ")]


def test_show_several_files_and_benchmarks(capsys):
    assert main(["show", "-q", f"{DATA}/suite_tags.json", f"{DATA}/timeit.json", "-b", "join_str", "-b", "timeit"]) == 0
    # pyperf 2.10.0 prints the same
    assert capsys.readouterr().out == (
        "suite_tags\n==========\n\n"
        f"join_str: {pyperf_results('suite_tags.json')[2]}\n\n"
        "timeit\n======\n\n"
        f"timeit: {pyperf_results('timeit.json')[0]}\n"
    )


def test_show_prefixes_names_when_a_file_has_several_benchmarks(capsys):
    assert main(["show", "-q", f"{DATA}/suite_tags.json"]) == 0
    expected = [
        f"{name}: {line}"
        for name, line in zip(["sort_list", "build_dict", "join_str"], pyperf_results("suite_tags.json"))
    ]
    assert capsys.readouterr().out.splitlines() == expected


def test_show_unknown_benchmark_is_an_error(capsys):
    assert main(["show", f"{DATA}/timeit.json", "-b", "nope"]) == 1
    assert capsys.readouterr().err == f"ERROR: {DATA}/timeit.json: no benchmark named 'nope'\n"
