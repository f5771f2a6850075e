"""The repository of doc/history.rst: seed 000's story in small.

bench/history/example_repo.py's module (a pure-Python checksum and its benchmark),
24 commits a day apart from 2026-10-01; commit 14 makes the checksum 8 %
slower ("checksum: cover the trailer block"), and 6 commits later the
slowdown is reverted, followed by 5 more commits: a timeline that is fast,
then slow for a while, then fast again.

Usage::

    python doc/examples/history_repo.py FOLDER
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "history"))

import example_repo

COMMITS = 24
REGRESSION = 14
SLOWDOWN = 0.08
REVERT_AFTER = 6
AFTER_REVERT = ["docs: how to verify a download", "helpers: add from_text", "readme: link the changelog"]


def _commit(path: str, day: int, *args: str) -> None:
    date = (example_repo.START + datetime.timedelta(days=day)).isoformat()
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "LC_ALL": "C"}
    subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True)


def build(path: str) -> None:
    repo = example_repo.build_example_repo(
        path, commits=COMMITS - 1 - len(AFTER_REVERT), regression=REGRESSION, slowdown=SLOWDOWN
    )
    day = len(repo.commits)
    module = os.path.join(path, "checksum.py")
    with open(module) as file:
        lines = [line if not line.startswith("TRAILER = ") else 'TRAILER = b""\n' for line in file]
    with open(module, "w") as file:
        file.writelines(lines)
    _commit(path, day, "commit", "-q", "-a", "-m", f'Revert "{example_repo.REGRESSION_SUBJECT}"')
    for subject in AFTER_REVERT:
        day += 1
        with open(os.path.join(path, "README"), "a") as file:
            file.write(f"{subject}\n")
        _commit(path, day, "commit", "-q", "-a", "-m", subject)


if __name__ == "__main__":
    build(sys.argv[1])
