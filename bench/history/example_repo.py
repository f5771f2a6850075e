"""Build an example git repository: a pure-Python module, ~30 commits, and
a planted regression at a chosen commit.

The module ``checksum.py`` computes an Adler-32 style checksum in pure
Python, and ``bench.py`` benchmarks it with perf.  Every commit changes
something that does not touch the hot loop (docstrings, helpers, another
module, the README), except the planted one, "checksum: cover the trailer
block", which makes the loop run over *slowdown* more bytes (5 %: a 5 %
regression).  Commit dates are one day apart from 2026-10-01, so the
repository is the same each time it is built (but for the commit ids'
dependence on git's version, which is stable).

Used by bench/history/bisect_accuracy.py and by the walk-through of doc/history.rst::

    python bench/history/example_repo.py FOLDER [--commits 30] [--regression 17]
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
from typing import NamedTuple

#: the date of the first commit (the next ones follow a day apart)
START = datetime.datetime(2026, 10, 1, 12, 0, tzinfo=datetime.timezone.utc)
#: bytes of the checksummed data
DATA_SIZE = 2048

BENCH = """\
import perf

import checksum

runner = perf.Runner()
runner.bench_func("checksum", checksum.checksum, checksum.DATA)
"""

MODULE = '''\
"""checksum: an Adler-32 style checksum of bytes, in pure Python{note}."""

DATA = bytes(range(256)) * {blocks}
#: padding checksummed after the data
TRAILER = {trailer}

{helpers}
def checksum(data):
    """The checksum of *data* (and of the trailer)."""
    a, b = 1, 0
    for byte in data + TRAILER:
        a = (a + byte) % 65521
        b = (b + a) % 65521
    return (b << 16) | a
'''

#: subjects of the commits that do not change the speed, in turn
SUBJECTS = [
    "docs: say what the checksum is for",
    "helpers: add to_hex",
    "readme: usage example",
    "tests: cover empty data",
    "helpers: add from_hex",
    "docs: note the modulus",
    "readme: mention the benchmark",
    "tests: cover one byte",
    "helpers: add chunks",
    "style: wrap long lines",
]

REGRESSION_SUBJECT = "checksum: cover the trailer block"


class ExampleRepo(NamedTuple):
    path: str
    #: full commit ids, oldest first: commits[0] is a good commit, commits[-1] a bad one
    commits: list[str]
    #: the first commit with the regression (an index of commits)
    regression: int

    @property
    def first_bad(self) -> str:
        return self.commits[self.regression]


def _git(path: str, *args: str, env: dict[str, str] | None = None) -> str:
    completed = subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True, text=True)
    return completed.stdout.strip()


def _module(index: int, regressed: bool, slowdown: float) -> str:
    helpers = "".join(f"def helper_{number}(value):\n    return value + {number}\n\n\n" for number in range(index // 3))
    trailer = f"bytes({round(DATA_SIZE * slowdown)})" if regressed else 'b""'
    note = f" (revision {index})" if index % 2 else ""
    return MODULE.format(note=note, blocks=DATA_SIZE // 256, trailer=trailer, helpers=helpers)


def build_example_repo(path: str, commits: int = 30, regression: int = 17, slowdown: float = 0.05) -> ExampleRepo:
    """Create the repository in the folder *path* (created; must not
    exist or be empty): *commits* commits, the one at index *regression*
    (1 .. commits - 1) making ``checksum()`` *slowdown* slower."""
    if not 1 <= regression < commits:
        raise ValueError(f"regression must be between 1 and {commits - 1}")
    os.makedirs(path, exist_ok=True)
    _git(path, "init", "-q", "-b", "main")
    _git(path, "config", "user.name", "Example Author")
    _git(path, "config", "user.email", "author@example.org")
    _git(path, "config", "commit.gpgsign", "false")
    ids = []
    for index in range(commits):
        regressed = index >= regression
        with open(os.path.join(path, "checksum.py"), "w") as file:
            file.write(_module(index, regressed, slowdown))
        if index == 0:
            with open(os.path.join(path, "bench.py"), "w") as file:
                file.write(BENCH)
        with open(os.path.join(path, "README"), "a") as file:
            file.write(f"revision {index}\n")
        if index == 0:
            subject = "checksum: first version, with its benchmark"
        elif index == regression:
            subject = REGRESSION_SUBJECT
        else:
            subject = SUBJECTS[(index - 1) % len(SUBJECTS)]
        day = (START + datetime.timedelta(days=index)).isoformat()
        env = {**os.environ, "GIT_AUTHOR_DATE": day, "GIT_COMMITTER_DATE": day, "LC_ALL": "C"}
        _git(path, "add", "-A", env=env)
        _git(path, "commit", "-q", "-m", subject, env=env)
        ids.append(_git(path, "rev-parse", "HEAD"))
    return ExampleRepo(os.path.abspath(path), ids, regression)


def main() -> None:
    parser = argparse.ArgumentParser(description="Build the example repository of perf bisect.")
    parser.add_argument("folder")
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--regression", type=int, default=17, help="index of the first slow commit")
    parser.add_argument("--slowdown", type=float, default=0.05)
    args = parser.parse_args()
    repo = build_example_repo(args.folder, args.commits, args.regression, args.slowdown)
    print(f"{repo.path}: {len(repo.commits)} commits")
    print(f"good: {repo.commits[0]}")
    print(f"bad:  {repo.commits[-1]}")
    print(f"first bad commit: {repo.first_bad}")


if __name__ == "__main__":
    sys.exit(main())
