"""The report in a real browser: headless Chromium loads the page, logs no
console error and takes a screenshot of it.

Runs only where a ``chromium`` executable is installed (Debian: ``apt-get
install chromium``); skipped elsewhere.  The figures are the real ones
when matplotlib and perf.render.plots are there, else a small fake SVG
(the page around them is what is checked here).
"""

from __future__ import annotations

import shutil
import struct
import sys

import pytest
from golden import DATA, run
from helpers import chromium

from perf.cli import report
from perf.render.plots import canvas as plots

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="needs a chromium executable"),
]

COMPARE = DATA / "compare"
WIDTH, HEIGHT = 1280, 2000


def fake_svg(request):
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="120">'
        '<rect width="600" height="120" fill="#4a78b0"/>'
        f'<text x="20" y="70" font-size="30" fill="#fff">{request.kind}</text></svg>'
    )


def real_figures_available():
    try:
        plots.require_matplotlib()
    except NotImplementedError:
        return False
    except Exception:  # UsageError: no matplotlib
        return False
    return True


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.mark.skipif(sys.platform != "linux", reason="Chromium's headless flags are checked on Linux")
def test_chromium_renders_the_report(tmp_path, capsys, monkeypatch):
    if not real_figures_available():
        monkeypatch.setattr(report, "default_figures", lambda: fake_svg)
    page = tmp_path / "report.html"
    argv = ["report", str(COMPARE / "ref.json"), str(COMPARE / "changed.json"), "-o", str(page)]
    try:
        status = run(capsys, *argv)[0]
    except NotImplementedError:  # plots half done: draw fakes
        monkeypatch.setattr(report, "default_figures", lambda: fake_svg)
        status = run(capsys, *argv)[0]
    assert status == 0

    screenshot = tmp_path / "report.png"
    result, console_errors = chromium(
        tmp_path, page.as_uri(), f"--screenshot={screenshot}", f"--window-size={WIDTH},{HEIGHT}"
    )
    log = result.stdout + result.stderr
    assert console_errors == []
    assert result.returncode == 0, log[-2000:]
    data = screenshot.read_bytes()
    assert png_size(data) == (WIDTH, HEIGHT)
    # a blank page compresses to a few KB; tables, text and figures do not
    assert len(data) > 30_000
