"""python -m perf: command dispatch and the translation of errors."""

from __future__ import annotations

import pytest

from perf.cli.main import main


def test_missing_command_is_a_usage_error(capsys):
    assert main([]) == 1
    assert capsys.readouterr().err == "ERROR: missing command: choose one of show (see python -m perf --help)\n"


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
