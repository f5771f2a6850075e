"""python -m perf report: the page it writes, and bad options that are one
ERROR line, exit status 1 and no file.

The figures come from a fake source (perf.cli.report.default_figures is
replaced): these tests need neither matplotlib nor the plots; the last
ones run the real figures when they are there.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys
import xml.etree.ElementTree as ET

import pytest
from golden import DATA, run
from helpers import busy_recording

from perf.cli import report
from perf.render.plots import canvas
from perf.render.units import format_filesize

COMPARE = DATA / "compare"
REF = str(COMPARE / "ref.json")
CHANGED = str(COMPARE / "changed.json")
SAME_HOST = str(COMPARE / "same_host.json")


def wrote(path):
    """What report prints once *path* is written."""
    return f"Wrote {path} ({format_filesize(path.stat().st_size)})\n"


def fake_svg(request):
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40">'
        f'<text x="5" y="25">{request.kind} {len(request.files)}</text></svg>'
    )


@pytest.fixture
def fake_figures(monkeypatch):
    """Replace the figures of perf.render.plots by a fake; return the
    requests they get."""
    requests = []

    def figures(request):
        requests.append(request)
        return fake_svg(request)

    monkeypatch.setattr(report, "default_figures", lambda: figures)
    return requests


def parse(path):
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>\n")
    assert "http" not in page.lower()
    return ET.fromstring(page.split("\n", 1)[1])


def texts(tree, path):
    return [" ".join(" ".join(element.itertext()).split()) for element in tree.iterfind(path)]


def test_two_files(tmp_path, capsys, fake_figures):
    output = tmp_path / "report.html"
    assert run(capsys, "report", REF, CHANGED, "-o", str(output)) == (0, wrote(output), "")
    tree = parse(output)
    names = texts(tree, ".//table[@class='summary']/tbody/tr/td[1]")
    assert names == [
        "call_slower",
        "call_faster",
        "dict_no_change",
        "list_small_change",
        "noisy_inconclusive",
        "unequal_counts",
    ]
    verdicts = texts(tree, ".//table[@class='summary']/tbody/tr/td[5]/span")
    assert verdicts == ["slower", "faster", "no change", "small change", "inconclusive", "slower"]
    notes = texts(tree, ".//section[@id='comparison']//li")
    # compare_to's notes and warnings
    assert "WARNING: ref and changed were recorded 3 days apart" in notes
    assert any(note.startswith("6 comparisons, 4 differ from 1x") for note in notes)
    assert [request.kind for request in fake_figures] == ["compare", "distribution", "timeline"]
    # atomic: no temporary file left
    assert os.listdir(tmp_path) == ["report.html"]


def test_other_python_builds_are_a_note(tmp_path, capsys, fake_figures):
    data = json.loads(pathlib.Path(SAME_HOST).read_text())
    data["metadata"]["python_version"] = "3.13.0 (64-bit)"
    changed = tmp_path / "py313.json"
    changed.write_text(json.dumps(data))
    output = tmp_path / "report.html"
    assert run(capsys, "report", REF, str(changed), "-o", str(output))[0] == 0
    tree = parse(output)
    notes = texts(tree, ".//section[@id='comparison']//ul[@class='notes']/li")
    assert notes[-1] == "Python builds: ref 3.12.1 (64-bit), py313 3.13.0 (64-bit)"
    assert texts(tree, ".//section[@id='comparison']//ul[@class='notes warning']/li") == []


def test_one_file_and_benchmark_selection(tmp_path, capsys, fake_figures):
    output = tmp_path / "report.htm"
    assert run(capsys, "report", REF, "-b", "call_faster", "-b", "dict_no_change", "-o", str(output))[0] == 0
    tree = parse(output)
    assert texts(tree, ".//table[@class='results']/tbody/tr/td[1]") == ["call_faster", "dict_no_change"]
    (request, _timeline) = fake_figures
    assert request.files[0][1].get_benchmark_names() == ["call_faster", "dict_no_change"]


def test_options_reach_the_comparison(tmp_path, capsys, fake_figures):
    output = tmp_path / "report.html"
    status = run(capsys, "report", REF, SAME_HOST, "--min-speed", "5", "--robust", "-o", str(output))[0]
    assert status == 0
    tree = parse(output)
    notes = texts(tree, ".//section[@id='comparison']//li")
    assert "Equivalence margin: +-5%: a change inside it does not matter (--min-speed)." in notes
    assert any("Mann-Whitney" in note and "(--robust)" in note for note in notes)
    assert (fake_figures[0].margin, fake_figures[0].robust) == (0.05, True)


def test_three_files_and_ignored_benchmarks(tmp_path, capsys, fake_figures):
    output = tmp_path / "report.html"
    assert run(capsys, "report", REF, SAME_HOST, CHANGED, "-o", str(output))[0] == 0
    tree = parse(output)
    assert len(texts(tree, ".//table[@class='summary']/tbody/tr")) == 12
    # the metadata: hostname differs between the three files
    rows = tree.findall(".//table[@class='metadata-differences']/tbody/tr")
    assert [[cell.text for cell in row] for row in rows] == [["hostname", "bench1", "bench1", "bench2"]]


def test_replace(tmp_path, capsys, fake_figures):
    output = tmp_path / "report.html"
    output.write_text("old")
    assert run(capsys, "report", REF, "-o", str(output), "--replace") == (0, wrote(output), "")
    parse(output)


def test_help_lists_the_options(capsys):
    status, out, _err = run(capsys, "report", "--help")
    assert status == 0
    for option in ("-o REPORT", "-b NAME", "--min-speed PCT", "--robust", "--replace"):
        assert option in out


# --- bad options ---------------------------------------------------------------------


def one_error(capsys, *argv, status=2):
    """One ERROR line; exit status 2 for a usage error, 1 for the others."""
    status_, out, err = run(capsys, "report", *argv)
    assert (status_, out) == (status, "")
    assert err.startswith("ERROR: ") and err.endswith("\n") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-o", "{tmp}/report.txt"], "must end in .html or .htm"),
        (["-o", "{tmp}/report"], "must end in .html or .htm"),
        (["-o", "{tmp}/missing/report.html"], "does not exist"),
        (["-o", "{tmp}/report.html", "--min-speed", "100"], "--min-speed must be between 0 and 100"),
        (["-o", "{tmp}/report.html", "--min-speed", "-1"], "--min-speed must be between 0 and 100"),
        ([], "required: -o/--output"),
        (["-o", "{tmp}/report.html", "--nope"], "unrecognized arguments: --nope"),
    ],
)
def test_bad_options_are_checked_before_any_work(argv, message, tmp_path, capsys, monkeypatch):
    def no_figures():
        raise AssertionError("the figures were asked for")

    monkeypatch.setattr(report, "default_figures", no_figures)
    # a missing input: the options are checked before it is read
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    err = one_error(capsys, str(tmp_path / "missing.json"), *args)
    assert message in err
    assert os.listdir(tmp_path) == []


def test_existing_output_is_refused(tmp_path, capsys, fake_figures):
    output = tmp_path / "report.html"
    output.write_text("old")
    err = one_error(capsys, REF, "-o", str(output), status=1)
    assert "already exists (use --replace to overwrite it)" in err
    assert output.read_text() == "old"
    assert fake_figures == []


def test_output_folder_is_refused(tmp_path, capsys, fake_figures):
    folder = tmp_path / "folder.html"
    folder.mkdir()
    assert "is a folder" in one_error(capsys, REF, "-o", str(folder), "--replace")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([REF, "-b", "nope"], "no benchmark named 'nope'"),
        ([REF, str(DATA / "timeit.json")], "the files have no benchmark in common"),
        ([REF, "{tmp}/missing.json"], "missing.json"),
    ],
)
def test_bad_input_leaves_the_old_report(argv, message, tmp_path, capsys, fake_figures):
    output = tmp_path / "report.html"
    output.write_text("old")
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    assert message in one_error(capsys, *args, "-o", str(output), "--replace", status=1)
    assert output.read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["report.html"]


# --- matplotlib ----------------------------------------------------------------------


def test_missing_matplotlib_is_one_line_with_the_install_hint(tmp_path, capsys, monkeypatch):
    for name in [name for name in sys.modules if name == "matplotlib" or name.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    output = tmp_path / "report.html"
    try:
        status, out, err = run(capsys, "report", REF, "-o", str(output))
    except NotImplementedError:
        pytest.skip("perf.render.plots is not implemented yet")
    assert (status, out, err) == (1, "", f"ERROR: {canvas.INSTALL_HINT}\n")
    assert not output.exists()


def test_real_report(tmp_path, capsys):
    try:
        canvas.require_matplotlib()
    except NotImplementedError:
        pytest.skip("perf.render.plots is not implemented yet")
    except Exception as exc:  # UsageError: no matplotlib
        pytest.skip(str(exc))
    output = tmp_path / "report.html"
    try:
        result = run(capsys, "report", REF, CHANGED, "-o", str(output))
    except NotImplementedError:
        pytest.skip("perf.render.plots is not implemented yet")
    assert result == (0, wrote(output), "")
    tree = parse(output)
    assert len(list(tree.iter("img"))) == 3


def test_report_says_what_a_busy_machine_corrected(tmp_path, capsys, fake_figures):
    reference = busy_recording(tmp_path / "a.json", 1.0, hit=(2,))
    changed = busy_recording(tmp_path / "b.json", 1.06)
    output = tmp_path / "report.html"
    assert run(capsys, "report", reference, changed, "-o", str(output))[0] == 0
    tree = parse(output)
    notes = [item.text for item in tree.iter("li")]
    assert (
        "loop: busy machine: 1 of 10 processes of a and 0 of 10 of b lost the CPU to other processes; "
        "their time off the CPU is left out" in notes
    )
    assert any(
        note.startswith("loop: busy machine: the machine ran 6.0% slower while b was recorded") for note in notes
    )
    # which ratio the table shows, and the ratio as recorded under the corrected one
    assert any(note.startswith("1 of 1 ratios (marked 'corrected') are corrected for a busy machine") for note in notes)
    change = [cell for cell in tree.iter("td") if cell.get("class") == "num" and cell.find("div") is not None]
    assert len(change) == 1 and change[0].find("div").text.startswith("corrected; as recorded: 1.0")
    assert fake_figures[-1].correct


def test_report_without_correction_says_so(tmp_path, capsys, fake_figures):
    reference = busy_recording(tmp_path / "a.json", 1.0, hit=(2,))
    changed = busy_recording(tmp_path / "b.json", 1.06)
    output = tmp_path / "report.html"
    assert run(capsys, "report", reference, changed, "-o", str(output), "--no-correction")[0] == 0
    tree = parse(output)
    notes = [item.text for item in tree.iter("li")]
    assert "The ratios are those of the times as recorded: no correction for a busy machine (--no-correction)." in notes
    assert not any("busy machine:" in note for note in notes)
    assert not fake_figures[-1].correct  # the figure draws the same ratios
    captions = [caption.text for caption in tree.iter("figcaption")]
    assert any(caption.endswith("; ratios as recorded (--no-correction).") for caption in captions)


# --- --history STORE -------------------------------------------------------------------


def _history_store(tmp_path, names=("call_slower", "call_faster"), commits=8):
    """A history store of *names* on machine m1: call_slower 1.2x slower
    from the middle commit on, the others flat."""
    from perf.history.store import HistoryStore
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run
    from perf.model.suite import BenchmarkSuite
    from perf.storage.files import dump

    store = HistoryStore.open_or_create(str(tmp_path / "store"))
    for number in range(commits):
        commit = f"{number:08x}" + "12" * 16
        benchmarks = []
        for name in names:
            slow = 1.2 if name == "call_slower" and number >= commits // 2 else 1.0
            runs = [
                Run(
                    [1e-3 * slow * (1 + 0.003 * process + 0.001 * value) for value in range(3)],
                    metadata={"name": name, "loops": 1, "commit_id": commit},
                    collect_metadata=False,
                )
                for process in range(6)
            ]
            benchmarks.append(Benchmark(runs))
        path = tmp_path / f"commit{number}.json"
        dump(BenchmarkSuite(benchmarks), str(path))
        store.add([str(path)], commit=commit, date=f"2024-02-{number + 1:02d}T00:00:00+00:00", machine="m1")
    return str(tmp_path / "store")


@pytest.fixture
def fake_history_figure(monkeypatch):
    """Replace the history figure by a fake; return the timelines it gets."""
    calls = []

    def figure(timelines):
        calls.append(timelines)
        return '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"></svg>'

    monkeypatch.setattr(report, "history_figures", lambda: figure)
    return calls


def test_history_adds_a_timeline_section(tmp_path, capsys, fake_figures, fake_history_figure):
    store = _history_store(tmp_path)
    output = tmp_path / "report.html"
    assert run(capsys, "report", REF, CHANGED, "--history", store, "-o", str(output)) == (0, wrote(output), "")
    tree = parse(output)
    sections = [section.get("id") for section in tree.find(".//main").iter("section")]
    assert sections[-1] == "history"
    # the report's benchmarks that the store has, in the report's order
    (timelines,) = fake_history_figure
    assert [timeline.benchmark for timeline in timelines] == ["call_slower", "call_faster"]
    assert len(list(tree.find(".//section[@id='history']").iter("img"))) == 1
    changes = [
        [" ".join("".join(cell.itertext()).split()) for cell in row]
        for row in tree.iterfind(".//table[@class='history-changes']/tbody/tr")
    ]
    assert len(changes) == 1
    benchmark, machine, before, after, ratio, _interval, direction = changes[0]
    assert (benchmark, machine, before, after, direction) == ("call_slower", "m1", "00000003", "00000004", "slower")
    assert ratio == "1.200x"


def test_history_follows_the_benchmark_selection(tmp_path, capsys, fake_figures, fake_history_figure):
    store = _history_store(tmp_path)
    output = tmp_path / "report.html"
    assert run(capsys, "report", REF, "-b", "call_faster", "--history", store, "-o", str(output))[0] == 0
    (timelines,) = fake_history_figure
    assert [timeline.benchmark for timeline in timelines] == ["call_faster"]
    assert texts(parse(output), ".//section[@id='history']/p")[-1] == "No change detected."


def test_history_without_the_report_benchmarks(tmp_path, capsys, fake_figures, fake_history_figure):
    store = _history_store(tmp_path, names=("other",), commits=2)
    output = tmp_path / "report.html"
    assert run(capsys, "report", REF, "--history", store, "-o", str(output))[0] == 0
    assert fake_history_figure == []
    (line,) = texts(parse(output), ".//section[@id='history']/p")
    assert line == f"{store}: the history store has no results of the benchmarks of this report."


def test_history_that_is_not_a_store_is_refused_before_reading_the_files(tmp_path, capsys, fake_figures):
    folder = tmp_path / "results"
    folder.mkdir()
    output = tmp_path / "report.html"
    err = one_error(capsys, str(tmp_path / "missing.json"), "--history", str(folder), "-o", str(output), status=1)
    assert "not a perf history store" in err and str(folder) in err
    assert sorted(os.listdir(tmp_path)) == ["results"]
    assert os.listdir(folder) == []


def test_history_with_the_real_figure(tmp_path, capsys):
    try:
        canvas.require_matplotlib()
    except Exception as exc:  # MissingDependencyError: no matplotlib
        pytest.skip(str(exc))
    store = _history_store(tmp_path)
    output = tmp_path / "report.html"
    assert run(capsys, "report", REF, "--history", store, "-o", str(output))[0] == 0
    tree = parse(output)
    assert len(list(tree.iter("img"))) == 3  # distribution, timeline, history
    assert tree.find(".//figure[@id='figure-history']") is not None


def test_instruction_counts_have_their_section(tmp_path, capsys, fake_figures):
    from counts import COUNTS

    output = tmp_path / "report.html"
    main, branch = str(COUNTS / "main.json"), str(COUNTS / "branch.json")
    assert run(capsys, "report", main, branch, "-o", str(output)) == (0, wrote(output), "")
    tree = parse(output)
    readings = texts(tree, ".//table[@class='counts-changes']/tbody/tr/td[7]")
    assert readings == [
        "1.0 % more instructions",
        "same instructions (+0.0 %), D1 misses 2.6x, LL misses 2.2x: memory layout, not more work",
        "same instructions and misses",
        "same instructions (+0.0 %), I1 misses 70x: code placement, not more work",
    ]
    means = texts(tree, ".//table[@class='summary']/tbody/tr/td[2]")
    assert means[0] == "183,002 instructions +- 0 instructions"
    # no time anywhere in the tables of a count file
    cells = " ".join(texts(tree, ".//td"))
    assert not any(unit in cells for unit in (" sec", " ms", " us", " ns"))
