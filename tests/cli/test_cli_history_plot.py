"""python -m perf history plot: a store's timelines to PNG and SVG, the
output checked before the store is opened (plot's checks), one-line errors
for a folder that is not a store, an unknown benchmark or machine, and no
partial output file."""

from __future__ import annotations

import importlib.util
import xml.etree.ElementTree as ET

import pytest

from perf.cli import history_plot
from perf.cli.main import main
from perf.model.benchmark import Benchmark
from perf.model.run import Run
from perf.model.suite import BenchmarkSuite
from perf.render.plots import canvas
from perf.render.units import format_filesize
from perf.storage import files

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

requires_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed (the plot extra)"
)


def commit_id(number):
    return f"{number:08x}" + "cd" * 16


def benchmark(name, mean, commit, machine):
    """5 processes x 3 values around *mean* (no randomness)."""
    runs = []
    for process in range(5):
        base = mean * (1 + 0.004 * (process - 2))
        values = [base * (1 + 0.001 * value) for value in range(3)]
        metadata = {"name": name, "loops": 1, "commit_id": commit, "hostname": machine}
        runs.append(Run(values, metadata=metadata, collect_metadata=False))
    return Benchmark(runs)


def make_store(tmp_path, commits=12, machines=("m1",)):
    """A store of *commits* commits per machine: call_method 1.5x slower
    from commit 6 on, other flat."""
    from perf.history.store import HistoryStore

    root = tmp_path / "store"
    store = HistoryStore.open_or_create(str(root))
    for machine in machines:
        for number in range(commits):
            path = tmp_path / f"{machine}-{number}.json"
            slow = 1.5 if number >= commits // 2 else 1.0
            suite = [
                benchmark("call_method", 1e-3 * slow, commit_id(number), machine),
                benchmark("other", 2e-6, commit_id(number), machine),
            ]
            files.dump(BenchmarkSuite(suite), str(path))
            store.add(
                [str(path)], commit=commit_id(number), date=f"2024-01-{number + 1:02d}T12:00:00+00:00", machine=machine
            )
    return root


def run(capsys, *argv):
    status = main(["history", "plot", *map(str, argv)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def wrote(path):
    return f"Wrote {path} ({format_filesize(path.stat().st_size)})\n"


def one_error(capsys, *argv, status):
    status_, out, err = run(capsys, *argv)
    assert (status_, out) == (status, "")
    assert err.startswith("ERROR: ") and err.count("\n") == 1, err
    return err[len("ERROR: ") : -1]


def folder_files(folder):
    return sorted(path.name for path in folder.iterdir())


# --- checked before the store is opened ------------------------------------------------


@pytest.fixture
def no_store(monkeypatch):
    """The store must not be opened."""

    def opened(args):
        raise AssertionError("the store was opened")

    monkeypatch.setattr(history_plot, "load_timelines", opened)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-o", "{tmp}/figure.pdf"], "{tmp}/figure.pdf: the output must end with .png or .svg"),
        (["-o", "{tmp}/figure"], "{tmp}/figure: the output must end with .png or .svg"),
        (["-o", "{tmp}/missing/figure.png"], "{tmp}/missing/figure.png: the folder {tmp}/missing does not exist"),
        (["-o", "{tmp}/folder.svg"], "{tmp}/folder.svg: is a folder"),
        (["-o", "{tmp}/figure.png", "--", "x.py"], "history plot takes no command after --: x.py"),
        ([], "the following arguments are required: -o/--output"),
    ],
)
def test_options_are_checked_before_the_store_is_opened(tmp_path, capsys, no_store, arguments, message):
    (tmp_path / "folder.svg").mkdir()
    (tmp_path / "old.png").write_bytes(b"previous")
    arguments = [argument.replace("{tmp}", str(tmp_path)) for argument in arguments]
    err = one_error(capsys, tmp_path / "no-store", *arguments, status=2)
    assert err == message.replace("{tmp}", str(tmp_path))
    assert folder_files(tmp_path) == ["folder.svg", "old.png"]
    assert (tmp_path / "old.png").read_bytes() == b"previous"


def test_an_existing_output_is_kept(tmp_path, capsys, no_store):
    (tmp_path / "old.png").write_bytes(b"previous")
    err = one_error(capsys, tmp_path / "no-store", "-o", str(tmp_path / "old.png"), status=1)  # as pyperf's -o
    assert err == f"{tmp_path}/old.png: the file already exists (use --replace to overwrite it)"
    assert (tmp_path / "old.png").read_bytes() == b"previous"


def test_missing_matplotlib_is_one_line_and_no_file(tmp_path, capsys, monkeypatch, no_store):
    monkeypatch.setattr(canvas, "MATPLOTLIB_MODULE", "perf_tests_no_such_module")
    output = tmp_path / "figure.png"
    assert one_error(capsys, tmp_path / "store", "-o", output, status=1) == canvas.INSTALL_HINT
    assert folder_files(tmp_path) == []


def test_help_lists_the_options(capsys):
    assert main(["history", "plot", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("STORE", "-o OUTPUT", "-b NAME", "--machine M", "--replace"):
        assert option in out
    assert "The figure needs matplotlib" in out


# --- the store -------------------------------------------------------------------------


@requires_matplotlib
@pytest.mark.parametrize("extension", ["png", "svg"])
def test_a_store_to_an_image(tmp_path, capsys, extension):
    root = make_store(tmp_path)
    output = tmp_path / f"history.{extension}"
    assert run(capsys, root, "-o", output) == (0, wrote(output), "")
    data = output.read_bytes()
    if extension == "png":
        assert data.startswith(PNG_SIGNATURE)
    else:
        assert ET.fromstring(data).tag == "{http://www.w3.org/2000/svg}svg"
        svg = data.decode("utf-8")
        assert "<!-- call_method -->" in svg and "<!-- other -->" in svg
        assert f"<!-- {commit_id(0)[:8]} -->" in svg
        # the step of call_method (its panel comes first): one change, after / before 1.5
        assert svg.count('id="history-change-') == 1 and 'id="history-change-0-0"' in svg
        assert "<!--  1.500x -->" in svg
    assert "history.svg.tmp" not in folder_files(tmp_path)


@requires_matplotlib
def test_selection_by_benchmark_and_machine(tmp_path, capsys):
    root = make_store(tmp_path, machines=("m1", "m2"))
    output = tmp_path / "history.svg"
    assert run(capsys, root, "-o", output, "-b", "other", "--machine", "m2")[0] == 0
    svg = output.read_text(encoding="utf-8")
    assert "<!-- other -->" in svg and "<!-- call_method -->" not in svg
    assert "<!-- Performance history on m2 -->" in svg


@requires_matplotlib
def test_existing_output_is_replaced_with_replace(tmp_path, capsys):
    root = make_store(tmp_path, commits=4)
    output = tmp_path / "history.png"
    output.write_bytes(b"previous")
    assert run(capsys, root, "-o", output, "--replace") == (0, wrote(output), "")
    assert output.read_bytes().startswith(PNG_SIGNATURE)


@requires_matplotlib
def test_a_folder_that_is_not_a_store(tmp_path, capsys):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "a.json").write_text("{}")
    output = tmp_path / "history.png"
    err = one_error(capsys, folder, "-o", output, status=1)
    assert str(folder) in err and "not a perf history store" in err
    assert folder_files(folder) == ["a.json"]
    assert not output.exists()


@requires_matplotlib
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-b", "nope"], "unknown benchmark: nope (benchmarks: call_method, other)"),
        (["-b", "other", "-b", "call_metod"], "unknown benchmark: call_metod (did you mean call_method?)"),
        (["--machine", "m9"], "unknown machine: m9 (machines: m1)"),
    ],
)
def test_unknown_benchmark_or_machine(tmp_path, capsys, arguments, message):
    root = make_store(tmp_path, commits=3)
    output = tmp_path / "history.png"
    assert one_error(capsys, root, "-o", output, *arguments, status=2) == message
    assert not output.exists()


@requires_matplotlib
def test_an_empty_store(tmp_path, capsys):
    from perf.history.store import HistoryStore

    root = tmp_path / "store"
    HistoryStore.open_or_create(str(root))
    output = tmp_path / "history.png"
    err = one_error(capsys, root, "-o", output, status=1)
    assert err == f"{root}: the store has no results yet (add some with python -m perf history add)"
    assert not output.exists()


@requires_matplotlib
def test_a_failed_drawing_leaves_no_file(tmp_path, capsys, monkeypatch):
    root = make_store(tmp_path, commits=3)

    def broken(figure, fmt):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(canvas, "figure_bytes", broken)
    output = tmp_path / "history.png"
    with pytest.raises(OSError, match="No space left"):
        main(["history", "plot", str(root), "-o", str(output)])
    assert not output.exists()
