"""python -m perf convert: the files pyperf 2.10.0 writes, the order of the
steps, and one-line errors that leave every file as it was."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import sys

import pytest
from golden import DATA, run

from perf.storage import files

CONVERT = DATA / "convert"


def recorded_cases():
    """(name, arguments) of the pyperf runs recorded in tests/data/convert."""
    cases = []
    for line in (CONVERT / "cases.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, *args = line.split()
            cases.append((name, args))
    return cases


CASES = recorded_cases()


def copy_data(tmp_path, *names):
    """Copies of tests/data files in tmp_path (the tests may damage them)."""
    paths = []
    for name in names:
        shutil.copyfile(DATA / name, tmp_path / name)
        paths.append(tmp_path / name)
    return paths[0] if len(paths) == 1 else paths


def convert_to_suite(capsys, *args):
    """Run convert with --stdout; return the suite it wrote."""
    status, out, err = run(capsys, "convert", *args, "--stdout")
    assert (status, err) == (0, "")
    return files.loads(out)


def run_numbers(benchmark, original):
    """The 1-based positions in *original* of the runs of *benchmark*."""
    positions = {id(run): number for number, run in enumerate(original.get_runs(), 1)}
    return [positions[id(run)] for run in benchmark.get_runs()]


def same_runs(converted, original):
    """The numbers of the runs of *original* equal to those of *converted*."""
    runs = [(run.values, run.warmups, run.get_metadata()) for run in original.get_runs()]
    return [runs.index((run.values, run.warmups, run.get_metadata())) + 1 for run in converted.get_runs()]


# --- byte for byte what pyperf 2.10.0 writes --------------------------------


def test_every_recorded_case_has_its_file():
    assert len(CASES) >= 13
    recorded = {path.stem for path in CONVERT.glob("*.json")}
    assert recorded == {name for name, _ in CASES}


@pytest.mark.parametrize(("name", "args"), CASES, ids=[name for name, _ in CASES])
def test_convert_writes_what_pyperf_writes(name, args, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(DATA)  # the cases name the files of tests/data
    output = tmp_path / "out.json"
    assert run(capsys, "convert", *args, "-o", str(output)) == (0, "", "")
    assert output.read_bytes() == (CONVERT / f"{name}.json").read_bytes()


def test_include_runs_1_is_pyperf_calibration_only_fixture(tmp_path, capsys):
    # tests/data/calibration_only.json is pyperf's "convert timeit.json --include-runs 1"
    output = tmp_path / "calibration.json"
    assert run(capsys, "convert", str(DATA / "timeit.json"), "--include-runs", "1", "-o", str(output))[0] == 0
    assert output.read_bytes() == (DATA / "calibration_only.json").read_bytes()


@pytest.mark.parametrize("name", ["include_runs", "exclude_benchmark_indent"])
def test_stdout_writes_the_same_json(name, monkeypatch, capsys):
    monkeypatch.chdir(DATA)
    args = dict(CASES)[name]
    assert run(capsys, "convert", *args, "--stdout") == (0, (CONVERT / f"{name}.json").read_text(), "")


def test_gz_output_is_compressed(tmp_path, capsys):
    output = tmp_path / "out.json.gz"
    status = run(capsys, "convert", str(DATA / "timeit.json"), "--include-runs", "2-3,5", "-o", str(output))[0]
    assert status == 0
    assert gzip.decompress(output.read_bytes()) == (CONVERT / "include_runs.json").read_bytes()


def test_stdin_input(monkeypatch, capsys):
    stdin = io.TextIOWrapper(io.BytesIO((DATA / "timeit.json").read_bytes()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    status, out, err = run(capsys, "convert", "-", "--include-runs", "2-3,5", "--stdout")
    assert (status, err) == (0, "")
    assert out == (CONVERT / "include_runs.json").read_text()


def test_no_option_rewrites_the_file_as_it_was(tmp_path, capsys):
    output = tmp_path / "out.json"
    assert run(capsys, "convert", str(DATA / "suite_tags.json"), "-o", str(output))[0] == 0
    assert output.read_bytes() == (DATA / "suite_tags.json.redump.json").read_bytes()


def test_indent_is_four_spaces(capsys):
    status, out, _err = run(capsys, "convert", str(DATA / "timeit.json"), "--indent", "--stdout")
    assert status == 0
    assert out.startswith('{\n    "benchmarks": [\n        {\n')
    assert json.loads(out) == json.loads((DATA / "timeit.json").read_text())


# --- what each option does ----------------------------------------------------


def test_include_and_exclude_benchmark_combine(capsys):
    suite = convert_to_suite(
        capsys,
        str(DATA / "suite_tags.json"),
        "--include-benchmark",
        "join_str",
        "--include-benchmark",
        "sort_list",
        "--exclude-benchmark",
        "sort_list",
    )
    assert suite.get_benchmark_names() == ["join_str"]


def test_runs_keep_the_file_order_and_count_calibration_runs(capsys):
    original = files.load(str(DATA / "timeit.json")).get_benchmarks()[0]
    # pyperf reorders (and duplicates) the runs in the order of the list
    suite = convert_to_suite(capsys, str(DATA / "timeit.json"), "--include-runs", "5,1,5,2")
    benchmark = suite.get_benchmarks()[0]
    assert same_runs(benchmark, original) == [1, 2, 5]
    assert benchmark.get_runs()[0].is_calibration()


def test_exclude_runs_in_any_order(capsys):
    # pyperf deletes the wrong runs when the list is not sorted
    original = files.load(str(DATA / "timeit.json")).get_benchmarks()[0]
    suite = convert_to_suite(capsys, str(DATA / "timeit.json"), "--exclude-runs", "4,1 , 2-2")
    assert same_runs(suite.get_benchmarks()[0], original) == [3, 5]


def test_include_and_exclude_runs_use_the_input_numbers(capsys):
    original = files.load(str(DATA / "timeit.json")).get_benchmarks()[0]
    suite = convert_to_suite(capsys, str(DATA / "timeit.json"), "--include-runs", "2-5", "--exclude-runs", "3")
    assert same_runs(suite.get_benchmarks()[0], original) == [2, 4, 5]


def test_run_numbers_beyond_a_benchmark_runs_are_ignored_for_it(capsys):
    # suite_tags.json: 3 benchmarks of 3 runs; timeit.json adds one of 5 runs
    suite = convert_to_suite(
        capsys, str(DATA / "suite_tags.json"), "--add", str(DATA / "timeit.json"), "--exclude-runs", "3-5"
    )
    assert {benchmark.get_name(): benchmark.get_nrun() for benchmark in suite} == {
        "sort_list": 2,
        "build_dict": 2,
        "join_str": 2,
        "timeit": 2,
    }


def test_remove_warmups_keeps_calibration_runs(capsys):
    original = files.load(str(DATA / "timeit.json")).get_benchmarks()[0]
    benchmark = convert_to_suite(capsys, str(DATA / "timeit.json"), "--remove-warmups").get_benchmarks()[0]
    calibration, *value_runs = benchmark.get_runs()
    # a calibration run is made of warmups only: it keeps them (pyperf crashes)
    assert calibration.warmups == original.get_runs()[0].warmups
    assert len(calibration.warmups) == 19
    assert [run.warmups for run in value_runs] == [(), (), (), ()]
    assert [run.values for run in value_runs] == [run.values for run in original.get_runs()[1:]]


def test_add_is_repeatable(capsys):
    suite = convert_to_suite(
        capsys,
        str(DATA / "timeit.json"),
        "--add",
        str(DATA / "timeit.json.gz"),
        "--add",
        str(DATA / "timeit.json"),
    )
    assert suite.get_benchmarks()[0].get_nrun() == 5 + 4 + 5


def test_update_metadata_types(capsys):
    suite = convert_to_suite(
        capsys,
        str(DATA / "timeit.json"),
        "--update-metadata",
        " owner = ci team, count=3,load_avg_1min=0.5, mem_max_rss=1000,duration=2,",
    )
    metadata = suite.get_benchmarks()[0].get_metadata()
    # unknown keys stay strings, as with pyperf; known numeric keys are numbers
    assert metadata["owner"] == "ci team"
    assert metadata["count"] == "3"
    assert metadata["load_avg_1min"] == 0.5
    assert metadata["mem_max_rss"] == 1000
    assert type(metadata["duration"]) is int
    assert all(run.get_metadata()["count"] == "3" for run in suite.get_benchmarks()[0].get_runs())


def test_update_metadata_renames_a_single_benchmark(capsys):
    suite = convert_to_suite(
        capsys,
        str(DATA / "suite_tags.json"),
        "--include-benchmark",
        "join_str",
        "--update-metadata",
        "name=join",
    )
    assert suite.get_benchmark_names() == ["join"]


def test_extract_metadata_sets_the_unit_of_known_keys(capsys):
    benchmark = convert_to_suite(
        capsys, str(DATA / "timeit.json"), "--extract-metadata", "mem_max_rss"
    ).get_benchmarks()[0]
    original = files.load(str(DATA / "timeit.json")).get_benchmarks()[0]
    assert benchmark.get_unit() == "byte"
    assert [run.values for run in benchmark.get_runs()] == [
        (run.get_metadata()["mem_max_rss"],) for run in original.get_runs()
    ]
    assert all(not run.warmups for run in benchmark.get_runs())


def test_extract_metadata_keeps_the_unit_of_unknown_keys(capsys):
    benchmark = convert_to_suite(capsys, str(DATA / "track_memory.json"), "--extract-metadata", "runnable_threads")
    assert benchmark.get_benchmarks()[0].get_unit() == "byte"


def test_remove_all_metadata_keeps_name_and_unit(capsys):
    suite = convert_to_suite(capsys, str(DATA / "track_memory.json"), "--remove-all-metadata")
    assert [run.get_metadata() for run in suite.get_benchmarks()[0].get_runs()] == [
        {"name": "timeit", "unit": "byte"}
    ] * 3


# --- the order of the steps, whatever the order of the options -----------------


def test_add_comes_before_the_benchmark_selection(capsys):
    suite = convert_to_suite(
        capsys, str(DATA / "suite_tags.json"), "--include-benchmark", "timeit", "--add", str(DATA / "timeit.json")
    )
    assert suite.get_benchmark_names() == ["timeit"]


def test_add_comes_before_the_run_selection(capsys):
    added = files.load(str(DATA / "timeit.json.gz")).get_benchmarks()[0]
    suite = convert_to_suite(
        capsys, str(DATA / "timeit.json"), "--include-runs", "6-9", "--add", str(DATA / "timeit.json.gz")
    )
    assert same_runs(suite.get_benchmarks()[0], added) == [1, 2, 3, 4]


def test_benchmark_selection_comes_before_the_run_selection(capsys):
    # without timeit (5 runs), no benchmark has a run 5
    status, out, err = run(
        capsys,
        "convert",
        str(DATA / "suite_tags.json"),
        "--include-runs",
        "5",
        "--exclude-benchmark",
        "timeit",
        "--add",
        str(DATA / "timeit.json"),
        "--stdout",
    )
    assert (status, out) == (1, "")
    assert err == "ERROR: --include-runs 5: there is no run 5: no benchmark has more than 3 runs\n"


def test_update_comes_before_extract(capsys):
    suite = convert_to_suite(
        capsys, str(DATA / "timeit.json"), "--extract-metadata", "mem_max_rss", "--update-metadata", "mem_max_rss=1000"
    )
    assert suite.get_benchmarks()[0].get_values() == (1000,) * 5


def test_update_and_extract_come_before_remove_all_metadata(capsys):
    suite = convert_to_suite(
        capsys,
        str(DATA / "timeit.json"),
        "--remove-all-metadata",
        "--update-metadata",
        "owner=ci",
        "--extract-metadata",
        "mem_max_rss",
    )
    # extracted before the metadata went away: the values and their unit stay
    assert suite.get_metadata() == {"name": "timeit", "unit": "byte"}
    assert len(suite.get_benchmarks()[0].get_values()) == 5


# --- -o: refuse, replace, never damage ------------------------------------------


def test_output_exists_is_refused(tmp_path, capsys):
    source = copy_data(tmp_path, "timeit.json")
    output = tmp_path / "out.json"
    output.write_text("precious\n")
    status, out, err = run(capsys, "convert", str(source), "-o", str(output))
    assert (status, out) == (1, "")  # as pyperf: the file is in the way
    assert err == f"ERROR: {output}: the file already exists (use --replace to overwrite it)\n"
    assert output.read_text() == "precious\n"


def test_replace_overwrites_the_output(tmp_path, capsys):
    output = tmp_path / "out.json"
    output.write_text("old\n")
    output.chmod(0o640)
    args = ["convert", str(DATA / "timeit.json"), "--include-runs", "2-3,5", "-o", str(output), "--replace"]
    assert run(capsys, *args) == (0, "", "")
    assert output.read_bytes() == (CONVERT / "include_runs.json").read_bytes()
    assert output.stat().st_mode & 0o777 == 0o640
    assert [path.name for path in tmp_path.iterdir()] == ["out.json"]  # no temporary file left


def test_replace_can_convert_the_input_in_place(tmp_path, capsys):
    source = copy_data(tmp_path, "timeit.json")
    args = ["convert", str(source), "--include-runs", "2-3,5", "-o", str(source), "--replace"]
    assert run(capsys, *args) == (0, "", "")
    assert source.read_bytes() == (CONVERT / "include_runs.json").read_bytes()


def test_write_error_is_one_line(tmp_path, capsys):
    output = tmp_path / "missing-folder" / "out.json"
    status, out, err = run(capsys, "convert", str(DATA / "timeit.json"), "-o", str(output))
    assert (status, out) == (1, "")
    assert err == f"ERROR: {output}: cannot write: No such file or directory\n"


# --- errors: one line, exit status 2 (usage) or 1, every file intact ------------

#: errors that depend on the input files, not on the command line alone: exit
#: status 1 (the others are usage errors: 2)
FILE_ERRORS = (
    "no benchmark named",
    "no benchmark left",
    "there is no run",
    "no run left",
    "would give",
    "--extract-metadata",
    "incompatible run",
    "cannot read",
)


def expected_status(message):
    return 1 if any(marker in message for marker in FILE_ERRORS) else 2


#: (arguments after INPUT, expected message); INPUT is a copy of
#: suite_tags.json (3 benchmarks of 3 runs) unless the arguments start with
#: "timeit.json" (1 benchmark of 5 runs, the first a calibration run)
ERRORS = [
    (
        ["--include-benchmark", "nope", "--include-benchmark", "sort_list"],
        "--include-benchmark: no benchmark named 'nope' in {input}",
    ),
    (
        ["--exclude-benchmark", "nope", "--exclude-benchmark", "no2"],
        "--exclude-benchmark: no benchmark named 'nope', 'no2' in {input}",
    ),
    (
        ["--exclude-benchmark", "json", "--add", "{data}/timeit.json"],
        "--exclude-benchmark: no benchmark named 'json' in {input} or the --add files",
    ),
    (
        ["--exclude-benchmark", "sort_list", "--exclude-benchmark", "build_dict", "--exclude-benchmark", "join_str"],
        "no benchmark left after --exclude-benchmark (a result file needs at least one)",
    ),
    (
        ["--include-benchmark", "join_str", "--exclude-benchmark", "join_str"],
        "no benchmark left after --include-benchmark and --exclude-benchmark (a result file needs at least one)",
    ),
    (["--include-runs", "abc"], "--include-runs abc: 'abc' is neither a run number nor a range FIRST-LAST"),
    (["--include-runs", "1,,2"], "--include-runs 1,,2: '' is neither a run number nor a range FIRST-LAST"),
    (["--exclude-runs", "-1"], "--exclude-runs -1: '-1' is neither a run number nor a range FIRST-LAST"),
    (["--include-runs", "3-1"], "--include-runs 3-1: the range 3-1 is empty (3 > 1)"),
    (["--include-runs", "0"], "--include-runs 0: run numbers start at 1"),
    (["--include-runs", " "], "--include-runs: the list of runs is empty (expected run numbers such as 1-3,7)"),
    (["--exclude-runs", "2,4"], "--exclude-runs 2,4: there is no run 4: no benchmark has more than 3 runs"),
    (
        ["--include-runs", "1-99999999999999999999"],
        "--include-runs 1-99999999999999999999: there is no run 99999999999999999999: no benchmark has more than 3 runs",
    ),
    (
        ["--exclude-runs", "1-3"],
        "benchmark 'sort_list': no run left after --exclude-runs 1-3 (a benchmark needs at least one)",
    ),
    (
        ["--include-runs", "1-2", "--exclude-runs", "2,1"],
        "benchmark 'sort_list': no run left after --include-runs 1-2 and --exclude-runs 2,1 (a benchmark needs at least one)",
    ),
    (["--update-metadata", "owner"], "--update-metadata: 'owner' is not KEY=VALUE"),
    (["--update-metadata", "=3"], "--update-metadata: '=3' is not KEY=VALUE"),
    (["--update-metadata", " , "], "--update-metadata: no KEY=VALUE given"),
    (["--update-metadata", "a=1,a=2"], "--update-metadata: 'a' is given twice"),
    (["--update-metadata", "owner="], "--update-metadata: metadata 'owner': value is empty"),
    (
        ["--update-metadata", "loops=3"],
        "--update-metadata: 'loops' cannot be changed (it describes how the values were measured)",
    ),
    (
        ["--update-metadata", "inner_loops=1"],
        "--update-metadata: 'inner_loops' cannot be changed (it describes how the values were measured)",
    ),
    (["--update-metadata", "duration=long"], "--update-metadata: duration=long: 'duration' must be a number"),
    (["--update-metadata", "mem_max_rss=1.5"], "--update-metadata: mem_max_rss=1.5: 'mem_max_rss' must be an integer"),
    (["--update-metadata", "duration=-1"], "--update-metadata: metadata 'duration': must be >= 0, got -1"),
    (["--update-metadata", "duration=nan"], "--update-metadata: metadata 'duration': value must be finite, got nan"),
    (
        ["--update-metadata", "unit=meter"],
        "--update-metadata: metadata 'unit': must be one of second, byte, integer, got 'meter'",
    ),
    (["--update-metadata", "tags=fast"], "--update-metadata: 'tags' is a list and cannot be set here"),
    (
        ["--update-metadata", "date=yesterday"],
        "--update-metadata: metadata 'date': must be a date 'YYYY-MM-DD HH:MM:SS[.ffffff]', got 'yesterday'",
    ),
    (
        ["--update-metadata", "name=all"],
        "--update-metadata: name=all would give 3 benchmarks the same name (keep one with --include-benchmark)",
    ),
    (["--extract-metadata", "nope"], "--extract-metadata nope: benchmark 'sort_list', run 1: no metadata 'nope'"),
    (
        ["timeit.json", "--extract-metadata", "calibrate_loops"],
        "--extract-metadata calibrate_loops: benchmark 'timeit', run 2: no metadata 'calibrate_loops'",
    ),
    (
        ["timeit.json", "--extract-metadata", "timeit_stmt"],
        "--extract-metadata timeit_stmt: benchmark 'timeit', run 1: 'timeit_stmt' is not a number: \"'sorted(range(100))'\"",
    ),
    (
        ["timeit.json", "--extract-metadata", "load_avg_1min", "--update-metadata", "load_avg_1min=0"],
        "--extract-metadata load_avg_1min: benchmark 'timeit', run 1: 'load_avg_1min' is 0, and a value must be > 0",
    ),
    (
        ["timeit.json", "--add", "{data}/track_memory.json"],
        "--add {data}/track_memory.json: benchmark 'timeit': incompatible run: metadata 'unit' is 'byte' in the run "
        "but 'second' in the benchmark",
    ),
    (["--add", "{tmp}/missing.json"], "{tmp}/missing.json: cannot read: No such file or directory"),
    (["--stdout", "--replace"], "--replace only applies to -o/--output"),
]


@pytest.mark.parametrize(("args", "message"), ERRORS, ids=[" ".join(args) for args, _ in ERRORS])
def test_error_leaves_every_file_intact(args, message, tmp_path, capsys):
    name = "suite_tags.json"
    if args[0] == "timeit.json":
        name, *args = args
    source = copy_data(tmp_path, name)
    output = tmp_path / "out.json"
    output.write_text("precious\n")
    names = {"input": source, "data": DATA, "tmp": tmp_path}
    args = [arg.format(**names) for arg in args]
    target = [] if "--stdout" in args else ["-o", str(output), "--replace"]
    status, out, err = run(capsys, "convert", str(source), *args, *target)
    assert (status, out) == (expected_status(message), "")
    assert err == f"ERROR: {message.format(**names)}\n"
    assert source.read_bytes() == (DATA / name).read_bytes()
    assert output.read_text() == "precious\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(["out.json", name])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "one of the arguments -o/--output --stdout is required"),
        (["--stdout", "-o", "out.json"], "argument -o/--output: not allowed with argument --stdout"),
        (["-o", "-"], "-o -: use --stdout to write to standard output"),
    ],
)
def test_output_options_errors(args, message, capsys):
    assert run(capsys, "convert", str(DATA / "timeit.json"), *args) == (2, "", f"ERROR: {message}\n")


def test_missing_input(tmp_path, capsys):
    path = tmp_path / "missing.json"
    status, out, err = run(capsys, "convert", str(path), "--stdout")
    assert (status, out, err) == (1, "", f"ERROR: {path}: cannot read: No such file or directory\n")


def test_stdin_can_be_read_once(capsys):
    assert run(capsys, "convert", "-", "--add", "-", "--stdout") == (
        2,
        "",
        "ERROR: standard input (-) can be read only once\n",
    )
