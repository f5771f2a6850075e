"""python -m perf show with -d, -m, -g, -t, and its stability warnings."""

from __future__ import annotations

import pytest
from golden import (  # noqa: F401 (deterministic: an autouse fixture)
    DATA,
    FIXTURES,
    deterministic,
    perf_additions,
    pyperf_output,
    pyperf_status,
    run,
    summarised_pyperf_output,
    without,
)

from perf.analysis.summaries import benchmark_stats
from perf.render.stats import format_process_stats
from perf.storage import files


@pytest.mark.parametrize("name", FIXTURES)
def test_show_matches_pyperf(name, capsys):
    status, out, err = run(capsys, "show", str(DATA / name))
    assert (status, err) == (pyperf_status(name, "show"), "")
    assert without(out.splitlines(), perf_additions(name)) == summarised_pyperf_output(name, "show").splitlines()


def test_show_quiet_has_no_warnings(capsys):
    assert run(capsys, "show", "-q", str(DATA / "timeit.json")) == (0, "Mean +- std dev: 842 ns +- 12 ns\n", "")


def test_show_stats_then_warnings_then_result(capsys):
    status, out, _err = run(capsys, "show", "-t", str(DATA / "timeit.json"))
    assert status == 0
    stats = pyperf_output("timeit.json", "stats")
    pyperf_stats = stats.split("\n\nWARNING")[0]
    benchmark = files.load(str(DATA / "timeit.json")).get_benchmarks()[0]
    process = "\n".join(format_process_stats(benchmark, benchmark_stats(benchmark)))
    warning = (
        "WARNING: the benchmark result may be unstable (1 warning): "
        f'run "python -m perf check {DATA}/timeit.json" for details'
    )
    assert out == f"{pyperf_stats}\n\n{process}\n\n{warning}\n\nMean +- std dev: 842 ns +- 12 ns\n"


def test_show_dump_is_dump_plus_result(capsys):
    status, out, _err = run(capsys, "show", "-d", str(DATA / "command.json"))
    assert status == 0
    assert out == summarised_pyperf_output("command.json", "dump") + "\nMean +- std dev: 10.8 ms +- 0.5 ms\n"


def test_show_hist_is_hist_plus_result(capsys):
    status, out, _err = run(capsys, "show", "-g", "-q", str(DATA / "timeit.json"))
    assert status == 0
    hist = pyperf_output("timeit.json", "hist").split("\n\nWARNING")[0]
    assert out == hist + "\n\nMean +- std dev: 842 ns +- 12 ns\n"


def test_show_metadata_is_metadata_plus_result(capsys):
    status, out, _err = run(capsys, "show", "-m", str(DATA / "suite_tags.json"))
    assert status == 0
    metadata = summarised_pyperf_output("suite_tags.json", "metadata")
    results = ["983 ns +- 27 ns", "5.47 us +- 0.39 us", "314 ns +- 27 ns"]
    blocks = metadata.split(" for details\n")
    assert len(blocks) == len(results) + 1
    expected = "".join(f"{block} for details\n\nMean +- std dev: {result}\n" for block, result in zip(blocks, results))
    assert out == expected + blocks[-1]
    assert out.count('WARNING: the benchmark result may be unstable (1 warning): run "python -m perf check -b ') == 3
    assert f' -b build_dict {DATA}/suite_tags.json" for details\n' in out


def test_show_several_files_with_warnings_titles(capsys):
    status, out, _err = run(capsys, "show", str(DATA / "timeit.json"), str(DATA / "command.json"))
    assert status == 0
    assert out == (
        "timeit\n======\n\ntimeit\n------\n\n"
        "WARNING: the benchmark result may be unstable (1 warning): "
        f'run "python -m perf check {DATA}/timeit.json" for details\n'
        "\nMean +- std dev: 842 ns +- 12 ns\n"
        "\ncommand\n=======\n\ncommand\n-------\n\n"
        "WARNING: the benchmark result may be unstable (1 warning): "
        f'run "python -m perf check {DATA}/command.json" for details\n'
        "\nMean +- std dev: 10.8 ms +- 0.5 ms\n"
    )


def test_show_warning_line_names_the_file_to_check(capsys, monkeypatch, tmp_path):
    # the full block is check's: show prints one line that says how to see it
    (tmp_path / "my bench.json").write_bytes((DATA / "timeit_inner_loops.json").read_bytes())
    monkeypatch.chdir(tmp_path)
    status, out, _err = run(capsys, "show", "my bench.json")
    assert status == 0
    assert out == (
        "WARNING: the benchmark result may be unstable (2 warnings): "
        "run \"python -m perf check 'my bench.json'\" for details\n"
        "\n"
        "Mean +- std dev: 3.73 ns +- 0.39 ns\n"
    )
    status, out, _err = run(capsys, "check", "my bench.json")
    assert out.splitlines()[:3] == [
        "WARNING: the benchmark result may be unstable",
        "* the standard deviation (0.39 ns) is 10% of the mean (3.73 ns)",
        "* 1 of 9 values (11%) is a severe outlier (more than 3 IQR beyond the quartiles)",
    ]


def test_show_warning_line_from_stdin(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((DATA / "timeit.json").read_bytes())))
    status, out, _err = run(capsys, "show", "-")
    assert status == 0
    assert out.splitlines()[0] == (
        'WARNING: the benchmark result may be unstable (1 warning): run "python -m perf check FILE" for details'
    )


def test_show_calibration_only_has_no_warnings(capsys):
    assert run(capsys, "show", str(DATA / "calibration_only.json")) == (0, "Calibration: 2^15 loops\n", "")


# --- a file saved from a run that stopped early (the incomplete check) --------

NOTE = "interrupted after 10 of 24 processes"
#: the check's text, show's first line for a file of one benchmark
TIMEIT_NOTICE = f"incomplete: all processes come from a run that stopped early ({NOTE}): fewer processes than planned"


def incomplete_copy(folder, name, marked=None):
    """A copy of the fixture *name* whose benchmarks named in *marked*
    (all when None) carry the ``incomplete`` metadata of an interrupted run."""
    suite = files.load(str(DATA / name))
    for benchmark in suite:
        if marked is None or benchmark.get_name() in marked:
            benchmark.update_metadata({"incomplete": NOTE})
    path = folder / name
    files.dump(suite, str(path))
    return path


def test_show_flags_an_incomplete_file_in_its_first_line(capsys, tmp_path):
    path = incomplete_copy(tmp_path, "timeit.json")
    status, out, err = run(capsys, "show", str(path))
    assert (status, err) == (0, "")
    assert out == (
        f"{TIMEIT_NOTICE}\n"
        "\n"
        "WARNING: the benchmark result may be unstable (2 warnings): "
        f'run "python -m perf check {path}" for details\n'
        "\n"
        "Mean +- std dev: 842 ns +- 12 ns\n"
    )


def test_show_quiet_prints_only_the_result_of_an_incomplete_file(capsys, tmp_path):
    # -q: the result line only, as pyperf prints it (scripts read it)
    path = incomplete_copy(tmp_path, "timeit.json")
    assert run(capsys, "show", "-q", str(path)) == (0, "Mean +- std dev: 842 ns +- 12 ns\n", "")


def test_the_incomplete_notice_comes_before_the_other_blocks(capsys, tmp_path):
    path = incomplete_copy(tmp_path, "timeit.json")
    status, out, _err = run(capsys, "show", "-t", str(path))
    assert status == 0
    lines = out.splitlines()
    assert lines[:3] == [TIMEIT_NOTICE, "", pyperf_output("timeit.json", "stats").splitlines()[0]]
    assert lines.count(TIMEIT_NOTICE) == 1


def test_show_names_the_incomplete_benchmarks_of_a_suite(capsys, tmp_path):
    # one benchmark of three was interrupted: the first line names it, and
    # its block starts with the check's text
    path = incomplete_copy(tmp_path, "suite_tags.json", marked={"build_dict"})
    status, out, _err = run(capsys, "show", str(path))
    assert status == 0

    def warning(count, name):
        plural = "warning" if count == 1 else "warnings"
        return (
            f"WARNING: the benchmark result may be unstable ({count} {plural}): "
            f'run "python -m perf check -b {name} {path}" for details'
        )

    assert out.splitlines() == [
        "incomplete: 1 of 3 benchmarks comes from a run that stopped early: build_dict",
        "",
        "sort_list",
        "---------",
        "",
        warning(1, "sort_list"),
        "",
        "Mean +- std dev: 983 ns +- 27 ns",
        "",
        "build_dict",
        "----------",
        "",
        f"incomplete: all processes come from a run that stopped early ({NOTE}): fewer processes than planned",
        "",
        warning(2, "build_dict"),
        "",
        "Mean +- std dev: 5.47 us +- 0.39 us",
        "",
        "join_str",
        "--------",
        "",
        warning(1, "join_str"),
        "",
        "Mean +- std dev: 314 ns +- 27 ns",
    ]


def test_one_benchmark_selected_from_an_incomplete_suite(capsys, tmp_path):
    path = incomplete_copy(tmp_path, "suite_tags.json")
    status, out, _err = run(capsys, "show", "-b", "join_str", str(path))
    assert status == 0
    assert out.splitlines()[0] == TIMEIT_NOTICE
    status, out, _err = run(capsys, "show", "-b", "join_str", "-b", "sort_list", str(path))
    assert out.splitlines()[0] == "incomplete: all 2 benchmarks come from a run that stopped early: sort_list, join_str"


def test_with_several_files_each_notice_names_its_file(capsys, tmp_path):
    path = incomplete_copy(tmp_path, "command.json")
    status, out, _err = run(capsys, "show", str(DATA / "timeit.json"), str(path))
    assert status == 0
    lines = out.splitlines()
    assert lines[:3] == [TIMEIT_NOTICE.replace("incomplete: ", "incomplete: command: ", 1), "", "timeit"]
    assert sum(line.startswith("incomplete:") for line in lines) == 1
