"""The history of an interpreter (issue 21): each commit of a repository
brings its own interpreter (``--python ./python``, as a CPython checkout
builds one), the first commits CPython 3.10, the last ones 3.11, whose
faster calls run the benchmark much faster.  Recorded with real workers,
the difference must survive change detection: the workers' speed probe
measures the machine, not the interpreter (perf's first probe ran in the
interpreter under test, and two interpreters ran it up to 19 % apart)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from perf.history.store import HistoryStore
from perf.measure.child.interference import PROBE_KIND

pytestmark = pytest.mark.integration

ROOT = pathlib.Path(__file__).resolve().parents[2]
COMMITS = 8
#: calibrated loops, CPU time (a shared machine), enough processes for a
#: timeline of 8 commits
ARGS = ["-m", "perf", "timeit", "-p", "4", "-n", "2", "--min-time", "0.01", "--clock", "cpu", "--name", "fib"]
STATEMENT = ["-s", "def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)", "fib(15)"]


def _pyenv(version):
    try:
        root = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    found = sorted(pathlib.Path(root, "versions").glob(f"{version}.*"))
    pythons = [path / "bin" / "python" for path in found if (path / "bin" / "python").exists()]
    return str(pythons[-1]) if pythons else None


def _git(repo, *args, date="2026-10-01T12:00:00+00:00"):
    environment = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    for role in ("AUTHOR", "COMMITTER"):
        environment.update({f"GIT_{role}_NAME": "perf", f"GIT_{role}_EMAIL": "perf@example.org"})
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=environment)


def _interpreter_repo(path, older, newer):
    """A repository whose commit i has ``python`` -> *older* for i < 4,
    *newer* after (the build of that commit)."""
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    link = path / "python"
    for index in range(COMMITS):
        if link.is_symlink():
            link.unlink()
        link.symlink_to(older if index < COMMITS // 2 else newer)
        (path / "VERSION").write_text(f"{index}\n")
        _git(path, "add", "-A")
        _git(path, "commit", "-q", "-m", f"commit {index}", date=f"2026-10-{index + 1:02d}T12:00:00+00:00")
    log = subprocess.run(["git", "rev-list", "--reverse", "HEAD"], cwd=path, capture_output=True, text=True, check=True)
    return log.stdout.split()


def _perf(tmp_path, cwd, *args):
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PERF_LOCK_DIR": str(tmp_path / "locks")}
    command = [sys.executable, "-m", "perf", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env=environment)


def test_the_history_of_an_interpreter_keeps_its_real_difference(tmp_path):
    older, newer = _pyenv("3.10"), _pyenv("3.11")
    if older is None or newer is None:
        pytest.skip("needs CPython 3.10 and 3.11 installed with pyenv")
    repo = tmp_path / "cpython"
    commits = _interpreter_repo(repo, older, newer)
    store = tmp_path / "store"
    recorded = _perf(
        tmp_path, repo, "history", "record", str(store), *commits, "--python", "./python", "--machine", "m1",
        "--", *ARGS, *STATEMENT,
    )  # fmt: skip
    assert recorded.returncode == 0, recorded.stderr
    with HistoryStore(str(store)) as opened:
        points = opened.points(["fib"])
        assert [point.recording.commit for point in points] == commits  # in the commits' order
        assert points[-1].recording.date == "2026-10-08T12:00:00+00:00"
        # every worker of both interpreters recorded the machine's probe
        assert {point.probe_source for point in points} == {PROBE_KIND}
    found = _perf(tmp_path, tmp_path, "history", "changes", str(store), "--json")
    assert found.returncode == 0, found.stderr
    (change,) = json.loads(found.stdout)
    assert change["after"] == commits[COMMITS // 2]
    assert change["direction"] == "faster"
    assert change["ratio"] < 0.85  # 3.11's calls: about 1.5x faster here
