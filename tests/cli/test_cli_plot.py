"""python -m perf plot: every kind to PNG and SVG, every option checked
before any work, one-line errors, and no partial output file."""

from __future__ import annotations

import importlib.util
import pathlib
import shutil
import xml.etree.ElementTree as ET

import pytest

from perf.cli import plot
from perf.cli.main import main
from perf.render.plots import canvas
from perf.render.units import format_filesize

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"
TIMEIT = str(DATA / "timeit.json")
REF = str(DATA / "compare" / "ref.json")
CHANGED = str(DATA / "compare" / "changed.json")
SAME_HOST = str(DATA / "compare" / "same_host.json")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

requires_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed (the plot extra)"
)


def wrote(path):
    """What plot prints once *path* is written."""
    return f"Wrote {path} ({format_filesize(path.stat().st_size)})\n"


def test_wrote_line_names_the_file_and_its_size():
    assert plot.wrote_line("timeline.svg", 49357) == "Wrote timeline.svg (48.2 KiB)"
    assert plot.wrote_line("out/a b.png", 900) == "Wrote out/a b.png (900 bytes)"


def run(capsys, *argv):
    status = main(["plot", *map(str, argv)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def check_image(path):
    data = path.read_bytes()
    if path.suffix == ".png":
        assert data.startswith(PNG_SIGNATURE)
    else:
        assert ET.fromstring(data).tag == "{http://www.w3.org/2000/svg}svg"
    return data


def folder_files(folder):
    return sorted(path.name for path in folder.iterdir())


@requires_matplotlib
@pytest.mark.parametrize("extension", ["png", "svg"])
@pytest.mark.parametrize(
    ("kind", "inputs"),
    [
        ("distribution", [TIMEIT]),
        ("distribution", [REF, CHANGED]),
        ("timeline", [TIMEIT]),
        ("timeline", [str(DATA / "track_memory.json")]),
        ("compare", [REF, CHANGED]),
        ("compare", [REF, CHANGED, SAME_HOST]),
    ],
)
def test_every_kind_writes_an_image(tmp_path, capsys, kind, inputs, extension):
    output = tmp_path / f"figure.{extension}"
    assert run(capsys, *inputs, "--kind", kind, "-o", output, "-b", "call_slower" if REF in inputs else "timeit") == (
        0,
        wrote(output),
        "",
    )
    check_image(output)
    assert folder_files(tmp_path) == [output.name]  # no temporary file left


@requires_matplotlib
def test_distribution_is_the_default_and_svg_is_reproducible(tmp_path, capsys):
    first, second = tmp_path / "a.svg", tmp_path / "b.svg"
    assert run(capsys, TIMEIT, "-o", first)[0] == 0
    assert run(capsys, TIMEIT, "--kind", "distribution", "-o", second)[0] == 0
    assert check_image(first) == check_image(second)
    assert b"<!-- Distribution of the values and of the process means -->" in first.read_bytes()


@requires_matplotlib
def test_calibration_only_files_still_plot(tmp_path, capsys):
    calibration = str(DATA / "calibration_only.json")
    for kind in ("distribution", "timeline"):
        output = tmp_path / f"{kind}.png"
        assert run(capsys, calibration, "--kind", kind, "-o", output) == (0, wrote(output), "")
        check_image(output)


@requires_matplotlib
def test_compare_options(tmp_path, capsys):
    output = tmp_path / "compare.svg"
    assert run(capsys, REF, CHANGED, "--kind", "compare", "--min-speed", "5", "--robust", "-o", output)[0] == 0
    svg = check_image(output)
    assert "<!-- within ±5% -->".encode() in svg
    assert b"<!-- Ratio of the geometric means" in svg


@requires_matplotlib
def test_existing_output_needs_replace(tmp_path, capsys):
    output = tmp_path / "figure.png"
    output.write_bytes(b"previous")
    status, out, err = run(capsys, TIMEIT, "-o", output)
    assert (status, out) == (1, "")
    assert err == f"ERROR: {output}: the file already exists (use --replace to overwrite it)\n"
    assert output.read_bytes() == b"previous"
    assert run(capsys, TIMEIT, "-o", output, "--replace") == (0, wrote(output), "")
    check_image(output)
    assert folder_files(tmp_path) == ["figure.png"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([TIMEIT, "-o", "{tmp}/figure.pdf"], "{tmp}/figure.pdf: the output must end with .png or .svg"),
        ([TIMEIT, "-o", "{tmp}/figure"], "{tmp}/figure: the output must end with .png or .svg"),
        (
            [TIMEIT, "-o", "{tmp}/missing/figure.png"],
            "{tmp}/missing/figure.png: the folder {tmp}/missing does not exist",
        ),
        ([TIMEIT, "-o", "{tmp}/folder.png"], "{tmp}/folder.png: is a folder"),
        (
            [TIMEIT, "--kind", "compare", "-o", "{tmp}/figure.png"],
            "--kind compare needs a reference file and at least one changed file",
        ),
        ([TIMEIT, "--robust", "-o", "{tmp}/figure.png"], "--robust only applies to --kind compare"),
        ([TIMEIT, "--no-correction", "-o", "{tmp}/figure.png"], "--no-correction only applies to --kind compare"),
        ([TIMEIT, "--min-speed", "2", "-o", "{tmp}/figure.png"], "--min-speed only applies to --kind compare"),
        (
            [REF, CHANGED, "--kind", "compare", "--min-speed", "100", "-o", "{tmp}/figure.png"],
            "--min-speed must be between 0 and 100 (percent), got 100",
        ),
        ([TIMEIT, "--kind", "bars", "-o", "{tmp}/figure.png"], "argument --kind: invalid choice: 'bars'"),
        ([TIMEIT], "the following arguments are required: -o/--output"),
    ],
)
def test_options_are_checked_before_any_work(tmp_path, capsys, arguments, message):
    (tmp_path / "folder.png").mkdir()
    arguments = [argument.replace("{tmp}", str(tmp_path)) for argument in arguments]
    status, out, err = run(capsys, *arguments)
    assert (status, out) == (2, "")  # usage errors
    assert err.startswith("ERROR: " + message.replace("{tmp}", str(tmp_path)))
    assert err.count("\n") == 1
    assert folder_files(tmp_path) == ["folder.png"]


@requires_matplotlib
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param([TIMEIT, "-b", "nope"], "no benchmark named 'nope' (benchmarks: timeit)"),
        pytest.param(
            [REF, CHANGED, "-b", "call_slower", "-b", "nope"],
            "no benchmark named 'nope' (benchmarks: call_faster, ",
        ),
        pytest.param(
            [REF, TIMEIT, "--kind", "compare", "-b", "timeit"],
            f"benchmark 'timeit' is missing from {REF}",
        ),
        pytest.param(
            [REF, TIMEIT, "--kind", "compare"],
            f"the files have no benchmark in common: {REF}, {TIMEIT}",
        ),
        pytest.param(
            [str(DATA / "calibration_only.json"), TIMEIT, "--kind", "compare"],
            "no benchmark has values in every file: ",
        ),
        ([str(DATA / "missing.json")], f"{DATA / 'missing.json'}: cannot read: No such file or directory"),
    ],
)
def test_input_errors_leave_no_file(tmp_path, capsys, arguments, message):
    output = tmp_path / "figure.png"
    status, out, err = run(capsys, *arguments, "-o", output)
    assert (status, out) == (1, "")
    assert err.startswith(f"ERROR: {message}")
    assert err.count("\n") == 1
    assert folder_files(tmp_path) == []


@requires_matplotlib
def test_benchmark_names_in_some_files_are_enough_for_distributions(tmp_path, capsys):
    other = tmp_path / "other.json"
    shutil.copyfile(TIMEIT, other)
    output = tmp_path / "figure.svg"
    assert run(capsys, REF, other, "-b", "timeit", "-b", "call_slower", "-o", output)[0] == 0
    svg = check_image(output)
    assert b"<!-- call_slower -->" in svg and b"<!-- timeit -->" in svg and b"<!-- call_faster -->" not in svg


def test_missing_matplotlib_is_one_line_and_no_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(canvas, "MATPLOTLIB_MODULE", "perf_tests_no_such_module")
    output = tmp_path / "figure.png"
    status, out, err = run(capsys, TIMEIT, "-o", output)
    assert (status, out) == (1, "")
    assert err == f"ERROR: {canvas.INSTALL_HINT}\n"
    assert folder_files(tmp_path) == []


@requires_matplotlib
def test_a_failed_drawing_leaves_no_file(tmp_path, capsys, monkeypatch):
    def broken(figure, fmt):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(canvas, "figure_bytes", broken)
    output = tmp_path / "figure.png"
    with pytest.raises(OSError, match="No space left"):
        main(["plot", TIMEIT, "-o", str(output)])
    assert folder_files(tmp_path) == []


def test_plot_is_listed_in_the_help(capsys):
    assert main(["plot", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--kind {distribution,timeline,compare}" in out
    assert (
        'The figures need matplotlib: pip install matplotlib (or pip install ".[plot]" in a clone of perf).'
        in " ".join(out.split())
    )
