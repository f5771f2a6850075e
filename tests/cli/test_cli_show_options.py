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
