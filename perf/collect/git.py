"""git, run from one place: history's repositories and worktrees, the pytest plugin's commit_info.

:func:`run_git` runs ``git ARGS`` in a folder (no input, output captured,
``LC_ALL=C``, without ``GIT_DIR`` and ``GIT_WORK_TREE``).  A git that cannot
start or outlives its *timeout* is a :exc:`~perf.errors.PerfError` whose
``__cause__`` is the OSError or the timeout; :func:`git` also raises
:exc:`GitError` for a command that failed.

Must not: print, exit, or decide what to run.
"""

from __future__ import annotations

import os
import subprocess

from perf.errors import PerfError


class GitError(PerfError):
    """A git command that ran and failed (the message says which); its exit
    status and output (standard output, then standard error) are kept."""

    def __init__(self, message: str, returncode: int, output: str = "") -> None:
        super().__init__(message)
        self.returncode = returncode
        self.output = output


def run_git(cwd: str, *args: str, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` run in *cwd*, whatever its exit status."""
    env = {name: value for name, value in os.environ.items() if name not in ("GIT_DIR", "GIT_WORK_TREE")}
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            env={**env, "LC_ALL": "C"},
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
