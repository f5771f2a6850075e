"""``history publish`` in a real browser: headless Chromium opens the site
of two machines' 30-commit histories from disk and runs its script.

* the overview lists every benchmark on both machines;
* its filters work: an address with ``#machine=m2`` hides m1's rows, and
  ``#name=b2`` every other benchmark's;
* the page of b1 draws both machines' 30 points, and the change at the
  planted commit;
* the changes page lists the planted change on both machines;
* the compare page shows the pair of commits picked (in the address);
* no page logs a console error.

``bash .ci/run`` installs Chromium (Debian's ``chromium``) when it is
missing, so these run in CI; they are skipped where there is none.
"""

from __future__ import annotations

import re
import shutil
import sys

import pytest
from helpers import FLEET_CHANGE_AT, chromium, fleet_commit, fleet_store

from perf.cli.main import main
from perf.render.html.site import page_name

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="needs a chromium executable"),
    pytest.mark.skipif(sys.platform != "linux", reason="Chromium's headless flags are checked on Linux"),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("publish")
    store = fleet_store(tmp_path)
    assert main(["history", "publish", str(store), str(tmp_path / "site")]) == 0
    return tmp_path / "site"


def rendered(site, page, tmp_path):
    """The DOM of *page* (relative to the site, maybe with #...) once its
    script ran, and the console errors it logged."""
    result, errors = chromium(tmp_path, site.as_uri() + "/" + page, "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout, errors


def shown_rows(dom):
    """(benchmark, machine) of the overview's rows the filters leave shown."""
    rows = re.findall(r'<tr data-name="(\w+)" data-machine="(\w+)" data-branches="[^"]*"( style="[^"]*")?', dom)
    return [(name, machine) for name, machine, style in rows if "none" not in style]


def test_the_overview_lists_every_benchmark_on_both_machines(site, tmp_path):
    dom, errors = rendered(site, "index.html", tmp_path)
    assert errors == []
    assert shown_rows(dom) == [(name, machine) for name in ("b1", "b2", "b3") for machine in ("m1", "m2")]
    assert "1.200x slower at " + fleet_commit(FLEET_CHANGE_AT)[:8] in dom


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("#machine=m2", [("b1", "m2"), ("b2", "m2"), ("b3", "m2")]),
        ("#name=b2", [("b2", "m1"), ("b2", "m2")]),
        ("#name=b&machine=m1&branch=main", [("b1", "m1"), ("b2", "m1"), ("b3", "m1")]),
        ("#name=nothing", []),
        ("#machine=unknown", [(name, machine) for name in ("b1", "b2", "b3") for machine in ("m1", "m2")]),
    ],
)
def test_the_overview_filters(site, tmp_path, address, expected):
    dom, errors = rendered(site, "index.html" + address, tmp_path)
    assert errors == []
    assert shown_rows(dom) == expected


def test_a_benchmark_page_draws_each_machine_and_its_change(site, tmp_path):
    dom, errors = rendered(site, page_name("b1"), tmp_path)
    assert errors == []
    figures = re.findall(r'<svg class="timeline".*?</svg>', dom, flags=re.S)
    assert len(figures) == 2
    for figure in figures:
        assert figure.count("<circle") == 30
        assert 'class="change slower" x1=' in figure and fleet_commit(FLEET_CHANGE_AT) in figure


def test_the_changes_page_lists_the_planted_change_on_both_machines(site, tmp_path):
    dom, errors = rendered(site, "changes.html", tmp_path)
    assert errors == []
    keys = re.findall(r'<tr data-change="([^"]*)"', dom)
    assert keys == [f"m2|b1|{fleet_commit(FLEET_CHANGE_AT)}", f"m1|b1|{fleet_commit(FLEET_CHANGE_AT)}"]
    assert dom.count(">hide</button>") == 2  # the script labelled the buttons


@pytest.mark.parametrize(("address", "shown"), [("", "pair-0"), ("#pair=1", "pair-1")])
def test_the_compare_page_shows_the_pair_picked(site, tmp_path, address, shown):
    dom, errors = rendered(site, "compare.html" + address, tmp_path)
    assert errors == []
    sections = re.findall(r'<section class="comparison" id="(pair-\d+)"( hidden="[^"]*")?>', dom)
    assert [name for name, hidden in sections if not hidden] == [shown]
    assert len(sections) == 4  # each machine: the change, the first and the latest commit
    planted = re.search(rf'id="{shown}".*?</pre>', dom, flags=re.S).group(0)
    assert "1.20x slower" in planted  # b1, on either pair
