"""python -m perf compare_to --json: the finished comparison as a JSON
document, the same figures as the text (doc/json_format.rst)."""

from __future__ import annotations

import json
import math

import pytest
from golden import DATA, deterministic, run  # noqa: F401 (deterministic: an autouse fixture)
from helpers import busy_recording

from perf.cli.compare_to import EXIT_SLOWDOWN

COMPARE = DATA / "compare"
REF = str(COMPARE / "ref.json")
CHANGED = str(COMPARE / "changed.json")
SAME_HOST = str(COMPARE / "same_host.json")


def _no_constant(name):
    raise AssertionError(f"{name} is not JSON")


def document(capsys, *argv, status=0):
    status_, out, err = run(capsys, "compare_to", "--json", *argv)
    assert (status_, err if status == 0 else "") == (status, "")
    return json.loads(out, parse_constant=_no_constant)


def text(capsys, *argv):
    status, out, err = run(capsys, "compare_to", *argv)
    assert (status, err) == (0, "")
    return out


def factor(ratio):
    """The text's factor of a ratio (perf.render.compare.format_factor)."""
    return f"{1 / ratio:.2f}x faster" if ratio < 1 else f"{ratio:.2f}x slower"


def test_the_document_holds_what_the_table_shows(capsys):
    found = document(capsys, REF, SAME_HOST)
    assert (found["format"], found["version"]) == ("perf compare_to", 1)
    assert [file["title"] for file in found["files"]] == ["ref", "same_host"]
    assert found["margin"] == 0.01 and found["correction"] is True
    # the section of every benchmark (the tags' sections come first)
    table = text(capsys, "--table", "-v", REF, SAME_HOST).split("All benchmarks:")[1]
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in table.splitlines() if line.startswith("| ")]
    names = [row[0] for row in rows[1:-1]]
    assert [benchmark["name"] for benchmark in found["benchmarks"]] == names
    for benchmark in found["benchmarks"]:
        (changed,) = benchmark["changed"]
        assert set(changed) >= {"mean", "std_dev", "ratio", "low", "high", "verdict", "significant", "change"}
        assert changed["change"].startswith(factor(changed["ratio"]))
        assert changed["low"] <= changed["ratio"] <= changed["high"]
        assert benchmark["reference"]["mean"] > 0 and benchmark["reference"]["unit"] == "second"
        row = next(row for row in rows if row[0] == benchmark["name"])
        cell = changed["change"] if changed["significant"] else "not significant"
        assert row[2].endswith(cell)
    (mean,) = found["geometric_mean"]
    assert rows[-1] == ["Geometric mean", "(ref)", mean["change"]]
    assert found["notes"] == []


def test_the_notes_are_data_and_the_text_words_them(capsys):
    found = document(capsys, REF, CHANGED)
    assert [note["kind"] for note in found["notes"]] == ["machines", "far apart"]
    machines = found["notes"][0]
    assert (machines["changed"], machines["key"], machines["reference"], machines["other"]) == (
        1,
        "hostname",
        ["bench1"],
        ["bench2"],
    )
    words = text(capsys, REF, CHANGED)
    assert "WARNING: ref and changed come from different hosts: bench1 vs bench2" in words
    assert found["chance"]["total"] == 6 and f"{found['chance']['total']} comparisons, " in words
    assert [tag["tag"] for tag in found["tags"]] == ["calls", "containers"]


def test_each_changed_file_has_its_comparison(capsys):
    found = document(capsys, REF, SAME_HOST, CHANGED)
    for benchmark in found["benchmarks"]:
        assert [changed["file"] for changed in benchmark["changed"]] == [1, 2]
    assert [mean["file"] for mean in found["geometric_mean"]] == [1, 2]


def test_a_ratio_without_interval_has_an_infinite_bound_as_null(capsys, tmp_path):
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run
    from perf.storage.files import dump

    paths = []
    for name, value in (("a", 1.0), ("b", 1.1)):
        runs = [Run([value, value * 1.01], metadata={"name": "one"}, collect_metadata=False)]
        paths.append(str(tmp_path / f"{name}.json"))
        dump(Benchmark(runs), paths[-1])
    (changed,) = document(capsys, *paths)["benchmarks"][0]["changed"]
    assert (changed["low"], changed["high"], changed["verdict"]) == (0.0, None, "inconclusive")
    assert math.isclose(changed["ratio"], 1.1)


def test_the_busy_machine_figures_are_there(capsys, tmp_path):
    files = [busy_recording(tmp_path / "a.json", 1.0), busy_recording(tmp_path / "b.json", 1.06, speed=1.2)]
    found = document(capsys, *files)
    (changed,) = found["benchmarks"][0]["changed"]
    busy = changed["busy_machine"]
    assert changed["corrected"] is True and found["corrected_comparisons"] == 1
    assert busy["as_recorded"]["ratio"] != changed["ratio"]
    assert busy["machine"]["ratio"] > 1 and busy["machine_weight"] > 0
    assert f"as recorded (--no-correction): {busy['as_recorded']['ratio']:.3f}x" in text(capsys, *files)


def test_win_rates_and_the_gate_keep_working(capsys):
    status, out, err = run(capsys, "compare_to", "--json", "--win-rate", "--fail-on-slowdown", "5", REF, SAME_HOST)
    assert status == EXIT_SLOWDOWN and err.startswith("SLOWDOWN: call_slower: ")
    rate = json.loads(out)["benchmarks"][0]["changed"][0]["win_rate"]
    assert 0 <= rate["low"] <= rate["rate"] <= rate["high"] <= 1


@pytest.mark.parametrize(
    ("options", "option"),
    [
        (["--table"], "--table"),
        (["--table-format", "rest"], "--table-format"),
        (["-G"], "--group-by-speed"),
        (["-q"], "--quiet"),
        (["-v"], "--verbose"),
    ],
)
def test_an_option_of_the_text_is_a_usage_error(capsys, options, option):
    status, out, err = run(capsys, "compare_to", "--json", *options, REF, SAME_HOST)
    assert (status, out) == (2, "")
    assert err == f"ERROR: --json writes every figure: {option} only shapes the text\n"


def same(documented, real):
    """*documented* is *real*, its floats to 12 digits (the page keeps
    what one machine printed)."""
    if isinstance(real, float) and isinstance(documented, float):
        return math.isclose(documented, real, rel_tol=1e-12)
    if isinstance(real, dict) and isinstance(documented, dict):
        return documented.keys() == real.keys() and all(same(documented[key], real[key]) for key in real)
    if isinstance(real, list) and isinstance(documented, list):
        return len(documented) == len(real) and all(map(same, documented, real))
    return documented == real


def test_the_documented_example_is_a_real_run(capsys, monkeypatch):
    page = (DATA.parent.parent / "doc" / "json_format.rst").read_text()
    command = "$ python3 -m perf compare_to --json "
    block = page[page.index(command) :].split("\n\n")[0].splitlines()
    argv = block[0][len(command) :].split()
    documented = json.loads("\n".join(block[1:]))
    monkeypatch.chdir(COMPARE)
    assert same(documented, document(capsys, *argv))
