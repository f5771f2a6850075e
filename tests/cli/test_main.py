"""python -m perf: command dispatch and the translation of errors."""

from __future__ import annotations

import pathlib

import pytest

from perf.cli.main import main

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"


def test_missing_command_is_a_usage_error(capsys):
    assert main([]) == 2
    assert (
        capsys.readouterr().err
        == "ERROR: missing command: choose one of show, stats, dump, hist, check, metadata, slowest, collect_metadata, compare_to, convert, plot, timeit, command, system, report, history, bisect (see python -m perf --help)\n"
    )


def test_unknown_command_is_one_error_line(capsys):
    assert main(["frobnicate"]) == 2
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


def test_keyboard_interrupt_exits_130(monkeypatch, capsys):
    import perf.cli.show

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(perf.cli.show, "run", interrupted)
    assert main(["show", "x.json"]) == 130  # 128 + SIGINT, as a shell reports it
    assert capsys.readouterr().err == "Interrupted: exit\n"


@pytest.mark.parametrize("argv", [["show"], ["show", "--bad-option", "x.json"], ["stats", "-b"]])
def test_bad_arguments_exit_two(argv, capsys):
    """Usage errors exit with status 2, as argparse and pyperf do."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ERROR: ")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["show", "--quite", "x.json"], "unrecognized arguments: --quite (did you mean --quiet?)"),
        (["compare_to", "--tabel", "a.json", "b.json"], "unrecognized arguments: --tabel (did you mean --table?)"),
        (["hist", "--benchmrk=x", "x.json"], "unrecognized arguments: --benchmrk=x (did you mean --benchmark?)"),
        (["show", "--zzz", "x.json"], "unrecognized arguments: --zzz"),
        (["--hepl"], "unrecognized arguments: --hepl (did you mean --help?)"),
    ],
)
def test_unknown_option_suggests_the_closest_one(argv, message, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err == f"ERROR: {message}\n"


def test_an_error_that_is_not_a_usage_error_exits_one(capsys):
    assert main(["show", f"{DATA}/timeit.json", "-b", "nope"]) == 1


def test_missing_file_names_the_files_of_a_compare_to_run(tmp_path, capsys):
    """``-o ab.json`` with --compare-to wrote a file per side: show says so."""
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run
    from perf.storage.files import dump

    for label, position in (("3.11", 1), ("3.12", 2)):
        metadata = {"name": "timeit", "ab_seed": 7, "ab_pair": 1, "ab_position": position}
        dump(
            Benchmark([Run([1.0, 2.0], metadata=metadata, collect_metadata=False)]), str(tmp_path / f"ab-{label}.json")
        )
    (tmp_path / "ab-notes.json").write_text("not a result")
    path = tmp_path / "ab.json"
    assert main(["show", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"ERROR: {path}: no such file; the --compare-to run saved {tmp_path}/ab-3.11.json and {tmp_path}/ab-3.12.json\n"
    )
    # files of one benchmark each, not of a comparison: the plain message
    assert main(["show", str(tmp_path / "ab-3.json")]) == 1
    assert capsys.readouterr().err == f"ERROR: {tmp_path}/ab-3.json: cannot read: No such file or directory\n"


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


def test_a_measuring_command_takes_the_command_after_double_dash():
    from perf.cli.main import _split_trailing

    assert _split_trailing(["bisect", "a", "b", "--", "bench.py", "--", "-p", "3"]) == (
        ["bisect", "a", "b"],
        ["bench.py", "--", "-p", "3"],
    )
    assert _split_trailing(["bisect", "a", "b"]) == (["bisect", "a", "b"], None)
    # other commands keep their "--"
    assert _split_trailing(["show", "--", "-file.json"]) == (["show", "--", "-file.json"], None)
