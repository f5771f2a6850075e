"""git, run from one place: history's repositories and worktrees, the pytest plugin's commit_info.

:func:`run_git` runs ``git ARGS`` in a folder: no input, its output captured
as text, ``LC_ALL=C``, and the repository found from the folder
(``GIT_DIR`` and ``GIT_WORK_TREE`` dropped); :func:`git` returns its
standard output, or raises :exc:`GitError` when it fails.  A git that cannot
start, or runs longer than its *timeout*, is a
:exc:`~perf.errors.PerfError` whose ``__cause__`` is the OSError or the
timeout.  On top of it, the state of a checkout, read only:
:func:`in_checkout`, :func:`origin_url` and :func:`head`.

Must not: print, exit, or decide what to run (history's worktree commands
pass through :func:`run_git` too).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import NamedTuple

from perf.errors import PerfError


class GitError(PerfError):
    """A git command that ran and failed (the message says which); its exit
    status and output (standard output, then standard error) are kept."""

    def __init__(self, message: str, returncode: int, output: str = "") -> None:
        super().__init__(message)
        self.returncode = returncode
        self.output = output


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    return env


def run_git(cwd: str, *args: str, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` run in *cwd*, whatever its exit status."""
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=_git_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except OSError as exc:
        raise PerfError(f"cannot run git: {exc.strerror or exc}") from exc
    except subprocess.TimeoutExpired as exc:
        raise PerfError(f"git {args[0]} ran longer than {timeout:g} s") from exc


def git(cwd: str, *args: str, timeout: float | None = None) -> str:
    """The standard output of ``git ARGS`` run in *cwd*; GitError when it fails."""
    completed = run_git(cwd, *args, timeout=timeout)
    if completed.returncode != 0:
        message = completed.stderr.strip().splitlines()
        detail = message[-1] if message else f"exit status {completed.returncode}"
        raise GitError(f"git {args[0]} failed: {detail}", completed.returncode, completed.stdout + completed.stderr)
    return completed.stdout


def in_checkout(folder: str) -> bool:
    """Whether *folder* or a folder above it has a ``.git`` (a folder, or
    the file of a worktree), without running git."""
    try:
        path = Path(folder).resolve()
        return any((parent / ".git").exists() for parent in (path, *path.parents))
    except (OSError, RuntimeError):
        # an unreadable parent or a symbolic link loop: not a checkout we can use
        return False


def origin_url(folder: str, timeout: float | None = None) -> str:
    """The URL of the checkout's ``origin`` remote; empty without one."""
    try:
        return git(folder, "config", "--local", "remote.origin.url", timeout=timeout).strip()
    except PerfError:
        return ""


class Head(NamedTuple):
    """The commit a checkout has checked out."""

    #: its full id
    commit: str
    #: tracked files have uncommitted changes
    dirty: bool
    #: its commit and author dates, ISO 8601 with the offset
    time: str
    author_time: str
    #: the branch; ``HEAD`` for a detached head
    branch: str


def head(folder: str, timeout: float | None = None) -> Head:
    """The head of the checkout around *folder*; PerfError (GitError when
    a command ran and failed, as without any commit yet)."""
    parts = git(folder, "describe", "--dirty", "--always", "--long", "--abbrev=40", timeout=timeout).strip()
    words = parts.split("-")
    dirty = words[-1] == "dirty"
    if dirty:
        words.pop()
    # "<tag>-<count>-g<hash>" after a tag, the bare hash otherwise
    commit = words[-1].removeprefix("g")
    dates = [git(folder, "show", "-s", f"--pretty=format:{field}", timeout=timeout).strip() for field in ("%cI", "%aI")]
    branch = git(folder, "rev-parse", "--abbrev-ref", "HEAD", timeout=timeout).strip()
    return Head(commit, dirty, dates[0], dates[1], branch)
