"""python -m perf convert --csv / --csv-summary: CSV that reads back
through csv.reader to the exact values and statistics of the fixtures,
after the other convert steps; bad options are one ERROR line and no file."""

from __future__ import annotations

import csv
import io
import os

import pytest
from golden import DATA, run

from perf.analysis.intervals import benchmark_mean_interval
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.render.csv import SUMMARY_COLUMNS, VALUE_COLUMNS
from perf.storage import files

TIMEIT = str(DATA / "timeit.json")


def csv_rows(capsys, *args):
    status, out, err = run(capsys, "convert", *args, "--stdout")
    assert (status, err) == (0, "")
    assert out.endswith("\r\n")
    return list(csv.reader(io.StringIO(out, newline="")))


def expected_value_rows(suite):
    """(benchmark, run, process, kind, index, loops, value, unit) from the model."""
    rows = []
    for benchmark in suite:
        process = 0
        for number, run_ in enumerate(benchmark.get_runs(), 1):
            if run_.values:
                process += 1
            label = str(process) if run_.values else ""
            inner = run_.get_inner_loops()
            for index, (loops, value) in enumerate(run_.warmups, 1):
                rows.append((benchmark.get_name(), number, label, "warmup", index, loops * inner, value))
            for index, value in enumerate(run_.values, 1):
                rows.append((benchmark.get_name(), number, label, "value", index, run_.get_total_loops(), value))
    return rows


def parsed_value_rows(rows, unit, kind=float):
    parsed = []
    for row in rows:
        assert row[7] == unit
        parsed.append((row[0], int(row[1]), row[2], row[3], int(row[4]), int(row[5]), kind(row[6])))
    return parsed


# --- --csv ---------------------------------------------------------------------------


def test_values_table_of_timeit(capsys):
    rows = csv_rows(capsys, TIMEIT, "--csv")
    assert tuple(rows[0]) == VALUE_COLUMNS
    suite = files.load(TIMEIT)
    # exact floats: repr() reads back to the same double
    assert parsed_value_rows(rows[1:], "second") == expected_value_rows(suite)
    # the calibration run: 19 warmups, no process number; the runs after it are processes 1-4
    assert [row[1:5] for row in rows[1:3]] == [["1", "", "warmup", "1"], ["1", "", "warmup", "2"]]
    assert rows[20][1:6] == ["2", "1", "warmup", "1", "32768"]
    assert rows[21][1:6] == ["2", "1", "value", "1", "32768"]
    assert rows[-1][1:5] == ["5", "4", "value", "3"]
    values = [float(row[6]) for row in rows[1:] if row[3] == "value"]
    assert tuple(values) == suite.get_benchmarks()[0].get_values()


def test_loops_count_inner_loops(capsys):
    path = str(DATA / "timeit_inner_loops.json")
    rows = csv_rows(capsys, path, "--csv")
    assert parsed_value_rows(rows[1:], "second") == expected_value_rows(files.load(path))
    first_value = next(row for row in rows[1:] if row[3] == "value")
    assert first_value[5] == str(1048576 * 10)


def test_bytes_are_integers(capsys):
    path = str(DATA / "track_memory.json")
    rows = csv_rows(capsys, path, "--csv")
    assert parsed_value_rows(rows[1:], "byte", int) == expected_value_rows(files.load(path))


def test_every_benchmark_of_a_suite(capsys):
    path = str(DATA / "suite_tags.json")
    rows = csv_rows(capsys, path, "--csv")
    suite = files.load(path)
    assert parsed_value_rows(rows[1:], "second") == expected_value_rows(suite)
    assert list(dict.fromkeys(row[0] for row in rows[1:])) == suite.get_benchmark_names()


def test_the_other_steps_apply_first(capsys):
    rows = csv_rows(capsys, TIMEIT, "--csv", "--include-runs", "2-3", "--remove-warmups")
    assert {row[3] for row in rows[1:]} == {"value"}
    # the runs are numbered in the converted result
    assert [(row[1], row[2]) for row in rows[1:]] == [("1", "1")] * 3 + [("2", "2")] * 3
    suite = files.load(TIMEIT)
    original = suite.get_benchmarks()[0].get_runs()
    assert [float(row[6]) for row in rows[1:]] == [*original[1].values, *original[2].values]


def test_quoting_follows_rfc_4180(tmp_path, capsys):
    name = 'say "hi", then bye'  # metadata has no newline
    runs = [Run([1.5, 2.5], metadata={"name": name}, collect_metadata=False)]
    path = tmp_path / "odd.json"
    files.dump(BenchmarkSuite([Benchmark(runs)]), str(path))
    status, out, _err = run(capsys, "convert", str(path), "--csv", "--stdout")
    assert status == 0
    assert out.splitlines(keepends=True)[1].startswith('"say ""hi"", then bye",1,1,value,')
    rows = list(csv.reader(io.StringIO(out, newline="")))
    assert rows[1:] == [
        [name, "1", "1", "value", "1", "1", "1.5", "second"],
        [name, "1", "1", "value", "2", "1", "2.5", "second"],
    ]


def test_output_file_is_the_same_text(tmp_path, capsys):
    output = tmp_path / "values.csv"
    assert run(capsys, "convert", TIMEIT, "--csv", "-o", str(output)) == (0, "", "")
    _status, out, _err = run(capsys, "convert", TIMEIT, "--csv", "--stdout")
    assert output.read_bytes() == out.encode("utf-8")
    assert output.read_bytes().count(b"\r\n") == len(out.splitlines())
    assert os.listdir(tmp_path) == ["values.csv"]
    # --replace overwrites
    assert run(capsys, "convert", TIMEIT, "--csv-summary", "-o", str(output), "--replace")[0] == 0
    assert output.read_text().startswith("benchmark,unit,processes,")


# --- --csv-summary -------------------------------------------------------------------


def number(cell):
    return float(cell) if cell else None


@pytest.mark.parametrize("name", ["timeit.json", "suite_tags.json", "command.json", "track_memory.json"])
def test_summary_is_exact(name, capsys):
    path = str(DATA / name)
    rows = csv_rows(capsys, path, "--csv-summary")
    assert tuple(rows[0]) == SUMMARY_COLUMNS
    suite = files.load(path)
    assert len(rows) == len(suite) + 1
    for row, benchmark in zip(rows[1:], suite):
        values = benchmark.get_values()
        interval = benchmark_mean_interval(benchmark)
        assert row[:4] == [
            benchmark.get_name(),
            benchmark.get_unit(),
            str(len(benchmark.get_process_means())),
            str(len(values)),
        ]
        assert [number(cell) for cell in row[4:]] == [
            benchmark.mean(),
            benchmark.stdev(),
            benchmark.median(),
            min(values),
            max(values),
            interval.low if interval else None,
            interval.high if interval else None,
        ]


def test_summary_of_timeit_by_hand(capsys):
    rows = csv_rows(capsys, TIMEIT, "--csv-summary")
    assert rows[1][:4] == ["timeit", "second", "4", "12"]


def test_summary_leaves_unknown_figures_empty(tmp_path, capsys):
    rows = csv_rows(capsys, str(DATA / "calibration_only.json"), "--csv-summary")
    assert rows[1] == ["timeit", "second", "0", "0", "", "", "", "", "", "", ""]
    # one value: a mean, no standard deviation, no interval
    path = tmp_path / "one.json"
    files.dump(BenchmarkSuite([Benchmark([Run([0.25], metadata={"name": "one"}, collect_metadata=False)])]), str(path))
    rows = csv_rows(capsys, str(path), "--csv-summary")
    assert rows[1] == ["one", "second", "1", "1", "0.25", "", "0.25", "0.25", "0.25", "", ""]


def test_help_documents_the_columns(capsys):
    status, out, _err = run(capsys, "convert", "--help")
    assert status == 0
    flat = " ".join(out.split())
    assert "--csv " in flat and "--csv-summary" in flat
    assert "benchmark, run, process, kind, index, loops, value, unit" in flat
    assert "benchmark, unit, processes, values, mean, std_dev, median, min, max, ci95_low, ci95_high" in flat


# --- bad options ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--csv", "-o", "{tmp}/out.json"], "--csv writes CSV: the name must end in .csv"),
        (["--csv-summary", "-o", "{tmp}/out.txt"], "--csv-summary writes CSV: the name must end in .csv"),
        (["--csv", "--indent", "-o", "{tmp}/out.csv"], "--indent applies to JSON, not to --csv"),
        (["--csv", "--csv-summary", "-o", "{tmp}/out.csv"], "not allowed with argument"),
        (["--csv", "--include-runs", "9", "-o", "{tmp}/out.csv"], "there is no run 9"),
        (["--csv", "-o", "-"], "use --stdout"),
    ],
)
def test_bad_options_are_one_error_line_and_no_file(argv, message, tmp_path, capsys):
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    status, out, err = run(capsys, "convert", TIMEIT, *args)
    assert (status, out) == (1 if "there is no run" in message else 2, "")  # 2: usage errors
    assert err.startswith("ERROR: ") and err.count("\n") == 1 and message in err, err
    assert os.listdir(tmp_path) == []


def test_existing_output_is_kept(tmp_path, capsys):
    output = tmp_path / "out.csv"
    output.write_text("old")
    status, _out, err = run(capsys, "convert", TIMEIT, "--csv", "-o", str(output))
    assert status == 1 and "already exists" in err  # pyperf: 1
    assert output.read_text() == "old"
