"""git for history recording and bisection: revisions, commits, worktrees, builds.

:class:`Repository` runs ``git`` in one repository, through
:mod:`perf.collect.git` (the one module that runs it): it resolves
revisions to full commit ids (:exc:`~perf.errors.RevisionError`, a usage
error, for one that names no commit), reads a commit's date (ISO 8601,
``%cI``) and subject, lists the commits between two revisions on the
first-parent path, and checks out a commit in a temporary worktree
(:meth:`Repository.worktree`: ``git worktree add --detach``, always
removed, also on an error or Ctrl-C).  :func:`build` runs a ``--build``
command in a worktree (:exc:`~perf.errors.BuildError` when it fails).

Must not: print, exit, or measure anything.
"""

from __future__ import annotations

import os
import subprocess
from typing import Sequence

from perf.collect.git import GitError, git, run_git
from perf.errors import BuildError, RevisionError, UsageError

#: lines of a failed build's output quoted in its error
BUILD_TAIL_LINES = 10
#: characters of a commit id in messages and labels
SHORT = 10


def short(commit: str) -> str:
    """The short form of a full commit id, for messages and labels."""
    return commit[:SHORT]


class Repository:
    """A git repository on disk: *path* is its work tree (or any folder
    in it).  Raises UsageError ``not a git repository: PATH``."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        if not os.path.isdir(self.path):
            raise UsageError(f"not a git repository: {path}")
        try:
            top = git(self.path, "rev-parse", "--show-toplevel").strip()
        except GitError:
            raise UsageError(f"not a git repository: {path}") from None
        self.root = top or self.path

    def resolve(self, revision: str) -> str:
        """The full id of the commit *revision* names (a branch, a tag, a
        short id, ``HEAD~3``...); RevisionError when it names none."""
        if not revision or revision.startswith("-"):
            raise RevisionError(f"unknown revision: {revision}")
        completed = run_git(self.path, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")
        commit = completed.stdout.strip()
        if completed.returncode != 0 or not commit:
            raise RevisionError(f"unknown revision: {revision}")
        return commit

    def resolve_all(self, revisions: Sequence[str]) -> list[str]:
        """:meth:`resolve` of each revision, in order."""
        return [self.resolve(revision) for revision in revisions]

    def _show(self, commit: str, placeholder: str) -> str:
        return git(self.path, "show", "-s", f"--format={placeholder}", commit, "--").rstrip("\n")

    def date(self, commit: str) -> str:
        """The commit date of *commit*, ISO 8601 with its offset (``%cI``)."""
        return self._show(commit, "%cI")

    def subject(self, commit: str) -> str:
        """The first line of *commit*'s message."""
        return self._show(commit, "%s")

    def is_ancestor(self, ancestor: str, commit: str) -> bool:
        completed = run_git(self.path, "merge-base", "--is-ancestor", ancestor, commit)
        if completed.returncode not in (0, 1):
            raise GitError(f"git merge-base failed: {completed.stderr.strip()}", completed.returncode)
        return completed.returncode == 0

    def commits_between(self, good: str, bad: str) -> list[str]:
        """The full ids of the commits after *good* up to and including
        *bad*, oldest first, on *bad*'s first-parent path back to *good*.
        UsageError when *good* is not an ancestor of *bad* (or is *bad*)."""
        good, bad = self.resolve(good), self.resolve(bad)
        if good == bad:
            raise UsageError(f"GOOD and BAD are the same commit ({short(good)})")
        if not self.is_ancestor(good, bad):
            raise UsageError(f"{short(good)} (GOOD) is not an ancestor of {short(bad)} (BAD)")
        listed = git(self.path, "rev-list", "--first-parent", "--ancestry-path", "--reverse", f"{good}..{bad}").split()
        if not listed or listed[-1] != bad:
            raise UsageError(f"no first-parent path from {short(good)} (GOOD) to {short(bad)} (BAD)")
        # with --first-parent, --ancestry-path keeps the commits that descend
        # from GOOD; one reached only through a merge's second parent is cut
        parents = dict(zip(listed, [good, *listed[:-1]]))
        for commit in listed:
            first_parent = git(self.path, "rev-parse", f"{commit}^1").strip()
            if first_parent != parents[commit]:
                raise UsageError(
                    f"{short(good)} (GOOD) is not on the first-parent path of {short(bad)} (BAD): "
                    "choose a GOOD commit of that path"
                )
        return listed

    def worktree(self, commit: str) -> Worktree:
        """A context manager: a temporary worktree of *commit* (detached)."""
        return Worktree(self, commit)


class Worktree:
    """``with repository.worktree(commit) as path:`` a checkout of *commit*
    in a temporary folder, removed on exit (``git worktree remove
    --force``, then ``git worktree prune``), whatever stopped the block."""

    def __init__(self, repository: Repository, commit: str) -> None:
        self.repository = repository
        self.commit = commit
        self.path: str | None = None
        self._parent: str | None = None

    def __enter__(self) -> str:
        import tempfile

        self._parent = tempfile.mkdtemp(prefix=f"perf-{short(self.commit)}-")
        path = os.path.join(self._parent, "worktree")
        try:
            git(self.repository.path, "worktree", "add", "--detach", path, self.commit)
        except BaseException:
            self._remove(path)
            raise
        self.path = path
        return path

    def __exit__(self, *exc_info: object) -> None:
        self._remove(self.path or os.path.join(self._parent or "", "worktree"))

    def _remove(self, path: str) -> None:
        import shutil

        repository = self.repository
        if os.path.exists(path):
            run_git(repository.path, "worktree", "remove", "--force", path)
        run_git(repository.path, "worktree", "prune")
        if self._parent is not None:
            shutil.rmtree(self._parent, ignore_errors=True)
            self._parent = None
        self.path = None


def run_in(worktree: str, command: str | Sequence[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    """(exit status, output) of *command* run in *worktree* (a string: a
    shell command), standard error with standard output, no input;
    OSError when it cannot start."""
    completed = subprocess.run(
        command,
        shell=isinstance(command, str),
        cwd=worktree,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        check=False,
    )
    return completed.returncode, completed.stdout


def output_tail(output: str, count: int) -> str:
    """``; last lines of its output:`` and the last *count* lines of
    *output*, indented (empty without output): the end of an error."""
    lines = output.rstrip().splitlines()[-count:]
    return "; last lines of its output:\n" + "\n".join("    " + line for line in lines) if lines else ""


def build(worktree: str, command: str, commit: str) -> None:
    """Run the shell *command* in *worktree* (the checkout of *commit*);
    BuildError naming the commit, the command, its exit status and the
    last lines of its output when it fails."""
    try:
        status, output = run_in(worktree, command)
    except OSError as exc:
        raise BuildError(f"{short(commit)}: cannot run the build {command!r}: {exc.strerror or exc}") from None
    if status != 0:
        tail = output_tail(output, BUILD_TAIL_LINES)
        raise BuildError(f"{short(commit)}: the build {command!r} failed with exit status {status}{tail}")
