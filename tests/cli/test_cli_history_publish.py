"""``python -m perf history publish STORE OUTDIR``: a store of two machines'
30-commit histories with a planted change, published, published again,
and the folders it refuses."""

from __future__ import annotations

import json
import re

import pytest
from helpers import FLEET_CHANGE_AT, fleet_commit, fleet_result, fleet_store
from helpers import history_cli as run

from perf.render.html.site import page_name

NAMES = ("b1", "b2", "b3")
MACHINES = ("m1", "m2")


@pytest.fixture
def store(tmp_path, capsys):
    path = fleet_store(tmp_path, machines=MACHINES)
    capsys.readouterr()
    return path


def test_publish_writes_the_overview_the_changes_and_a_page_per_benchmark(store, tmp_path, capsys):
    site = tmp_path / "site"
    status, out, err = run(capsys, "publish", store, site)
    assert (status, err) == (0, "")
    assert out == f"Published 9 files to {site} (9 written, 0 unchanged, 0 removed): open {site / 'index.html'}\n"
    index = (site / "index.html").read_text()
    assert re.findall(r'<tr data-name="(\w+)" data-machine="(\w+)"', index) == [
        (name, machine) for name in NAMES for machine in MACHINES
    ]
    changes = (site / "changes.html").read_text()
    # newest first; changes of one date by benchmark and machine, in reverse too
    assert re.findall(r'<tr data-change="(\w+)\|(\w+)\|(\w+)">', changes) == [
        ("m2", "b1", fleet_commit(FLEET_CHANGE_AT)),
        ("m1", "b1", fleet_commit(FLEET_CHANGE_AT)),
    ]
    assert fleet_commit(FLEET_CHANGE_AT) in (site / "changes.atom").read_text()
    page = (site / page_name("b1")).read_text()
    assert page.count("<svg") == 2 and page.count("<circle") == 60
    assert json.loads((site / "perf-site.json").read_text())["files"] == sorted(
        ["index.html", "changes.html", "changes.atom", "compare.html", "site.css", "site.js"]
        + [page_name(name) for name in NAMES]
    )


def test_publish_again_rewrites_only_what_changed(store, tmp_path, capsys):
    site = tmp_path / "site"
    assert run(capsys, "publish", store, site)[0] == 0
    assert "(0 written, 9 unchanged, 0 removed)" in run(capsys, "publish", store, site)[1]
    # one more commit of b2 and b3 only on m1; a page a benchmark no longer has
    assert run(capsys, "add", store, fleet_result(tmp_path / "new.json", 30, "m1", names=("b2", "b3")))[0] == 0
    (site / "b" / "gone-00000000.html").write_text("old")
    listed = json.loads((site / "perf-site.json").read_text())
    listed["files"].append("b/gone-00000000.html")
    (site / "perf-site.json").write_text(json.dumps(listed))
    out = run(capsys, "publish", store, site)[1]
    # the overview, b2's and b3's pages and the compare page (m1's latest commit); b1's page,
    # the changes and the static files are unchanged
    assert "(4 written, 5 unchanged, 1 removed)" in out
    assert not (site / "b" / "gone-00000000.html").exists()


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_publish_refuses_what_it_did_not_publish(store, tmp_path, capsys, kind):
    target = tmp_path / "mine"
    if kind == "file":
        target.write_text("keep me")
    else:
        target.mkdir()
        (target / "notes.txt").write_text("keep me")
    status, out, err = run(capsys, "publish", store, target)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and ("not a folder" in err or "not a site published by perf" in err)
    assert (target if kind == "file" else target / "notes.txt").read_text() == "keep me"


def test_publish_a_missing_store(tmp_path, capsys):
    status, _, err = run(capsys, "publish", tmp_path / "nothing", tmp_path / "site")
    assert status != 0 and err.count("\n") == 1
    assert not (tmp_path / "site").exists()
