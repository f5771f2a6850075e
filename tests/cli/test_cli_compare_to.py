"""python -m perf compare_to: verdicts, layouts, the CI gate and bad input.

Golden outputs live in tests/data/compare/*.txt; the constructed files
ref.json / changed.json / same_host.json are written by
tests/data/compare/make_compare_fixtures.py (each benchmark built for one
verdict).  Regenerate the golden texts after an intended change of the
output with ``PERF_UPDATE_GOLDEN=1 python -m pytest tests/cli/test_cli_compare_to.py``
and review the diff.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys

import pytest
from golden import DATA, deterministic, run  # noqa: F401 (deterministic: an autouse fixture)

from perf.cli.compare_to import EXIT_SLOWDOWN
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.storage import files

#: the real interpreter (the autouse fixture renames sys.executable)
PYTHON = sys.executable
COMPARE = DATA / "compare"
REF = str(COMPARE / "ref.json")
CHANGED = str(COMPARE / "changed.json")
SAME_HOST = str(COMPARE / "same_host.json")

GOLDEN = {
    "default": [REF, CHANGED],
    "verbose": ["-v", REF, SAME_HOST],
    "quiet": ["-q", REF, CHANGED],
    "table": ["--table", REF, SAME_HOST],
    "table_md": ["--table", "--table-format", "md", REF, SAME_HOST],
    "table_grouped_quiet": ["--table", "-G", "-q", REF, SAME_HOST],
    "group_by_speed": ["-G", REF, SAME_HOST],
    "robust": ["--robust", REF, SAME_HOST],
    "win_rate": ["--win-rate", "-b", "call_slower", "-b", "noisy_inconclusive", REF, SAME_HOST],
    "min_speed_5": ["--min-speed", "5", REF, SAME_HOST],
    "three_files": [REF, SAME_HOST, CHANGED],
    "three_files_table": ["--table", REF, SAME_HOST, CHANGED],
    "pyperf_suite_itself": [str(DATA / "suite_tags.json"), str(DATA / "suite_tags.json")],
    "pyperf_timeit_gz": [str(DATA / "timeit.json"), str(DATA / "timeit.json.gz")],
    "pyperf_track_memory": [str(DATA / "track_memory.json"), str(DATA / "track_memory.json")],
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_output(name, capsys):
    status, out, err = run(capsys, "compare_to", *GOLDEN[name])
    assert (status, err) == (0, "")
    path = COMPARE / f"{name}.txt"
    if os.environ.get("PERF_UPDATE_GOLDEN"):
        path.write_text(out)
    assert out == path.read_text()


def lines_of(capsys, *argv):
    status, out, err = run(capsys, "compare_to", *argv)
    assert (status, err) == (0, "")
    return out.splitlines()


def test_each_constructed_benchmark_gets_its_verdict(capsys):
    lines = lines_of(capsys, "-v", REF, SAME_HOST)
    verdicts = {}
    name = None
    for line in lines:
        if line and set(line) == {"="}:
            continue
        if line.startswith(("Significant (", "Not significant! (")):
            verdicts[name] = line.split("(", 1)[1].split(":", 1)[0]
        elif line and " " not in line:
            name = line
    assert verdicts == {
        "call_slower": "slower",
        "call_faster": "faster",
        "dict_no_change": "no change",
        "list_small_change": "small change",
        "noisy_inconclusive": "inconclusive",
        "unequal_counts": "slower",
    }


def test_unequal_counts_are_compared_not_flagged(capsys):
    lines = lines_of(capsys, "-v", "-b", "unequal_counts", REF, SAME_HOST)
    assert any("20 vs 8 processes" in line for line in lines)


def test_the_pyperf_grep_line_keeps_its_shape(capsys):
    lines = lines_of(capsys, "-q", "-b", "call_slower", REF, SAME_HOST)
    assert lines[-1].startswith(
        "Mean +- std dev: [ref] 1.99 us +- 0.03 us -> [same_host] 2.21 us +- 0.03 us: 1.11x slower ["
    )


def test_inconclusive_says_how_many_processes_would_decide(capsys):
    lines = lines_of(capsys, "-b", "noisy_inconclusive", REF, SAME_HOST)
    assert lines[0] == "Benchmark hidden because not significant (1): noisy_inconclusive"
    assert lines[1].startswith("- inconclusive: noisy_inconclusive: ")
    assert lines[1].endswith(" processes per file would narrow it to +-1%")


def test_identical_files_never_differ(capsys):
    lines = lines_of(capsys, "-v", REF, REF)
    assert not any(line.startswith("Significant") for line in lines)
    # 6 benchmarks, 4 of them once more in their tag's section
    assert sum(line.startswith("Not significant!") for line in lines) == 10


def test_drift_warnings_only_for_separate_machines_or_times(capsys):
    far = lines_of(capsys, REF, CHANGED)
    assert "WARNING: ref and changed come from different hosts: bench1 vs bench2" in far
    assert "WARNING: ref and changed were recorded 3 days apart" in far
    near = lines_of(capsys, REF, SAME_HOST)
    assert not any(line.startswith("WARNING") for line in near)
    quiet = lines_of(capsys, "-q", REF, CHANGED)
    assert not any(line.startswith("WARNING") for line in quiet)


def other_build(tmp_path, source, version="3.13.0 (64-bit)", name="py313.json"):
    """*source* as recorded by another Python build (*version*)."""
    data = json.loads(pathlib.Path(source).read_text())
    data["metadata"]["python_version"] = version
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("layout", [[], ["-v"], ["-G"], ["--table"], ["--table", "--table-format", "md"]])
def test_other_python_builds_are_named_not_warned_about(tmp_path, capsys, layout):
    """Comparing builds is usually the point: one line names them, in every
    layout, and no drift warning follows it."""
    lines = lines_of(capsys, *layout, REF, other_build(tmp_path, SAME_HOST))
    assert lines[-2:] == ["", "Python builds: ref 3.12.1 (64-bit), py313 3.13.0 (64-bit)"]
    assert not any(line.startswith("WARNING") or "drifts" in line for line in lines)
    assert not any("Python builds" in line for line in lines_of(capsys, "-q", *layout, REF, other_build(tmp_path, REF)))


def test_other_builds_leave_the_warnings_of_other_hosts(tmp_path, capsys):
    lines = lines_of(capsys, REF, other_build(tmp_path, CHANGED))
    notes = lines[lines.index("Python builds: ref 3.12.1 (64-bit), py313 3.13.0 (64-bit)") :]
    assert notes[1:] == [
        "",
        "WARNING: ref and py313 come from different hosts: bench1 vs bench2",
        "WARNING: ref and py313 were recorded 3 days apart",
        "The machine drifts between separate recordings and the comparison cannot cancel it; an interleaved run "
        "(--compare-to) measures both sides in alternation.",
    ]


def test_chance_line_counts_comparisons(capsys):
    lines = lines_of(capsys, REF, SAME_HOST)
    (chance,) = [line for line in lines if "chance alone" in line]
    assert chance.startswith("6 comparisons, ")
    assert "about 0.3 (5% each)" in chance


def test_ignored_benchmarks_are_listed(tmp_path, capsys):
    reduced = tmp_path / "reduced.json"
    data = json.loads((COMPARE / "same_host.json").read_text())
    data["benchmarks"] = [b for b in data["benchmarks"] if b["metadata"]["name"] != "call_slower"]
    reduced.write_text(json.dumps(data))
    lines = lines_of(capsys, REF, str(reduced))
    assert lines[-1] == "Ignored benchmarks (1) of " + REF + ": call_slower"


def test_gzip_input(capsys, tmp_path):
    gz = tmp_path / "same.json.gz"
    gz.write_bytes(gzip.compress((COMPARE / "same_host.json").read_bytes()))
    expected = lines_of(capsys, "-q", REF, SAME_HOST)
    assert lines_of(capsys, "-q", REF, str(gz)) == [line.replace("same_host", "same") for line in expected]


# --- the CI gate ---------------------------------------------------------------------


def test_fail_on_slowdown_exits_with_its_own_status(capsys):
    status, out, err = run(capsys, "compare_to", "--fail-on-slowdown", "5", REF, SAME_HOST)
    assert status == EXIT_SLOWDOWN == 3
    assert err.splitlines() == [line for line in err.splitlines() if line.startswith("SLOWDOWN: ")]
    assert [line.split(":")[1].strip() for line in err.splitlines()] == ["call_slower"]
    assert "Geometric mean" in out


def test_fail_on_slowdown_needs_the_whole_interval_beyond_the_threshold(capsys):
    # unequal_counts is about 5 % slower: its interval reaches below +5 %... but above +3 %
    status, _out, err = run(capsys, "compare_to", "-b", "unequal_counts", "--fail-on-slowdown", "3", REF, SAME_HOST)
    assert status == EXIT_SLOWDOWN
    assert err.startswith("SLOWDOWN: unequal_counts: 1.05x slower [")
    status, _out, err = run(capsys, "compare_to", "-b", "unequal_counts", "--fail-on-slowdown", "5", REF, SAME_HOST)
    assert (status, err) == (0, "")


def test_fail_on_slowdown_ignores_inconclusive_and_faster(capsys):
    argv = ["-b", "noisy_inconclusive", "-b", "call_faster", "--fail-on-slowdown", "0", REF, SAME_HOST]
    status, _out, err = run(capsys, "compare_to", *argv)
    assert (status, err) == (0, "")


def noisy_suite(path, factor, seed):
    """8 noisy benchmarks of 6 processes: alone, none can be decided."""
    rng = random.Random(seed)
    benchmarks = []
    for index in range(8):
        runs = []
        for _ in range(6):
            level = factor * math.exp(rng.gauss(0, 0.04))
            values = [level * 0.999, level * 1.001]
            runs.append(Run(values, metadata={"name": f"bench{index}", "loops": 1}, collect_metadata=False))
        benchmarks.append(Benchmark(runs))
    files.dump(BenchmarkSuite(benchmarks), str(path))
    return str(path)


def test_fail_on_slowdown_checks_the_geometric_mean(tmp_path, capsys):
    reference = noisy_suite(tmp_path / "a.json", 1.0, 1)
    changed = noisy_suite(tmp_path / "b.json", 1.06, 2)
    status, out, err = run(capsys, "compare_to", "--fail-on-slowdown", "2", reference, changed)
    assert "SLOWDOWN: geometric mean: " in err
    assert err.count("SLOWDOWN") == 1  # no benchmark alone
    assert status == EXIT_SLOWDOWN
    assert "Geometric mean: 1.04x slower [" in out


# --- bad input ------------------------------------------------------------------------


def error_of(capsys, *argv, status=1):
    """The one ERROR line; exit status 1, or 2 for a usage error."""
    status_, _out, err = run(capsys, "compare_to", *argv)
    assert status_ == status
    assert err.count("\n") == 1 and err.startswith("ERROR: ")
    return err[len("ERROR: ") : -1]


def test_needs_two_files(capsys):
    assert error_of(capsys, REF, status=2) == "compare_to needs a reference file and at least one changed file"


def test_group_by_speed_needs_two_files(capsys):
    assert error_of(capsys, "-G", REF, REF, REF, status=2) == "--group-by-speed needs exactly 2 files"


@pytest.mark.parametrize("value", ["-1", "100", "nan"])
def test_bad_min_speed(capsys, value):
    assert error_of(capsys, "--min-speed", value, REF, REF, status=2).startswith(
        "--min-speed must be between 0 and 100"
    )


def test_bad_fail_on_slowdown(capsys):
    assert (
        error_of(capsys, "--fail-on-slowdown", "-2", REF, REF, status=2)
        == "--fail-on-slowdown must be a percentage >= 0, got -2"
    )


def test_missing_and_invalid_files(capsys, tmp_path):
    missing = str(tmp_path / "missing.json")
    assert "missing.json" in error_of(capsys, REF, missing)
    (tmp_path / "bad.json").write_text("{not json")
    assert "bad.json" in error_of(capsys, REF, str(tmp_path / "bad.json"))
    (tmp_path / "empty.json").write_text("")
    assert "empty.json" in error_of(capsys, REF, str(tmp_path / "empty.json"))


def test_unknown_benchmark_name(capsys):
    assert error_of(capsys, "-b", "nope", REF, REF) == f"{REF}: no benchmark named 'nope'"


def test_no_benchmark_in_common(capsys):
    message = error_of(capsys, REF, str(DATA / "timeit.json"))
    assert message == f"the files have no benchmark in common: {REF}, {DATA / 'timeit.json'}"


def test_calibration_only_file(capsys, tmp_path):
    copy = tmp_path / "calibration_only.json"
    shutil.copy(DATA / "calibration_only.json", copy)
    message = error_of(capsys, str(DATA / "timeit.json"), str(copy))
    assert message == f"{copy}: benchmark 'timeit' has no values (only calibration runs)"


def test_unequal_units(capsys, tmp_path):
    data = json.loads((DATA / "timeit.json").read_text())
    data.setdefault("metadata", {})["unit"] = "byte"
    data["metadata"].pop("timer", None)
    path = tmp_path / "bytes.json"
    path.write_text(json.dumps(data))
    message = error_of(capsys, str(DATA / "timeit.json"), str(path))
    assert message == f"benchmark 'timeit' has different units: second in {DATA / 'timeit.json'}, byte in {path}"


def test_broken_pipe_is_silent():
    command = [PYTHON, "-m", "perf", "compare_to", "-v", REF, SAME_HOST]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=DATA.parent.parent)
    process.stdout.readline()
    process.stdout.close()
    _, err = process.communicate()
    assert err == b""


@pytest.mark.parametrize("table", [False, True])
def test_clear_cases_keep_pyperfs_layout(capsys, table):
    """Where pyperf's verdict is right, perf's output is pyperf's plus the
    intervals (recorded with pyperf 2.10.0: python -m pyperf compare_to -q
    [--table] -b call_slower -b call_faster ref.json same_host.json)."""
    argv = ["-q", *(["--table"] if table else []), "-b", "call_slower", "-b", "call_faster", REF, SAME_HOST]
    lines = lines_of(capsys, *argv)
    name = "pyperf_clear_cases_table.txt" if table else "pyperf_clear_cases.txt"
    expected = (COMPARE / name).read_text().splitlines()
    stripped = [re.sub(r" \[[0-9.x ]+\]", "", line) for line in lines]
    if table:  # the intervals widen the columns: compare the cells
        stripped = [re.sub(r"[ =+-]*\|?$", "", "|".join(cell.strip() for cell in line.split("|"))) for line in stripped]
        expected = [re.sub(r"[ =+-]*\|?$", "", "|".join(cell.strip() for cell in line.split("|"))) for line in expected]
    assert stripped == expected


@pytest.mark.pyperf
def test_pyperf_reads_the_same_files_and_agrees_on_clear_cases():
    pyperf = subprocess.run(
        [PYTHON, "-m", "pyperf", "compare_to", "-q", "-b", "call_slower", "-b", "call_faster", REF, SAME_HOST],
        capture_output=True,
        text=True,
        check=False,
    )
    if pyperf.returncode != 0 and "No module named pyperf" in pyperf.stderr:
        pytest.skip("pyperf is not installed")
    assert pyperf.returncode == 0
    assert "1.11x slower" in pyperf.stdout
    assert "1.25x faster" in pyperf.stdout


def cpu_clock_copy(path, tmp_path):
    """*path* as if every benchmark had been timed with --clock cpu."""
    suite = files.load(path)
    for benchmark in suite:
        benchmark.update_metadata({"clock": "cpu"})
    copy = tmp_path / "cpu.json"
    files.dump(suite, str(copy))
    return str(copy)


def test_wall_and_cpu_clock_files_are_not_compared(capsys, tmp_path):
    cpu = cpu_clock_copy(REF, tmp_path)
    name = files.load(REF).get_benchmark_names()[0]
    assert error_of(capsys, REF, cpu) == (
        f"benchmark {name!r} was timed with different clocks (--clock): wall in {REF}, cpu in {cpu}"
    )
    assert error_of(capsys, cpu, REF) == (
        f"benchmark {name!r} was timed with different clocks (--clock): cpu in {cpu}, wall in {REF}"
    )


def test_cpu_clock_files_are_compared(capsys, tmp_path):
    cpu = cpu_clock_copy(REF, tmp_path)
    status, _out, err = run(capsys, "compare_to", cpu, cpu)
    assert (status, err) == (0, "")
