"""perf.history.git against small real repositories (git, no worker)."""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

from perf.errors import BuildError, RevisionError, UsageError
from perf.history.git import Repository, build, short


def git(path, *args):
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2026-10-01T12:00:00+02:00",
        "GIT_COMMITTER_DATE": "2026-10-01T12:00:00+02:00",
    }
    completed = subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True, text=True)
    return completed.stdout.strip()


def commit(path, name, text, subject):
    (path / name).write_text(text)
    git(path, "add", name)
    git(path, "commit", "-q", "-m", subject)
    return git(path, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test")
    git(path, "config", "user.email", "test@example.org")
    git(path, "config", "commit.gpgsign", "false")
    commits = [commit(path, "module.py", f"VERSION = {index}\n", f"version {index}") for index in range(5)]
    return path, commits


def test_resolve_gives_full_ids(repo):
    path, commits = repo
    repository = Repository(str(path))
    assert repository.resolve("HEAD") == commits[-1]
    assert repository.resolve("HEAD~4") == commits[0]
    assert repository.resolve(commits[2][:8]) == commits[2]
    assert repository.resolve("main") == commits[-1]
    assert repository.resolve_all(["HEAD~1", "HEAD"]) == commits[-2:]


@pytest.mark.parametrize("revision", ["nope", "HEAD~10", "", "--all", "0" * 40])
def test_an_unknown_revision_is_a_usage_error(repo, revision):
    repository = Repository(str(repo[0]))
    with pytest.raises(RevisionError, match=f"^unknown revision: {revision}$") as info:
        repository.resolve(revision)
    assert isinstance(info.value, UsageError)


def test_a_tree_is_not_a_commit(repo):
    repository = Repository(str(repo[0]))
    with pytest.raises(RevisionError):
        repository.resolve("HEAD^{tree}")


def test_not_a_git_repository(tmp_path):
    with pytest.raises(UsageError, match=r"^not a git repository: "):
        Repository(str(tmp_path))
    with pytest.raises(UsageError, match=r"^not a git repository: "):
        Repository(str(tmp_path / "missing"))


def test_a_folder_inside_the_repository_is_accepted(repo):
    path, commits = repo
    (path / "sub").mkdir()
    repository = Repository(str(path / "sub"))
    assert repository.root == str(path)
    assert repository.resolve("HEAD") == commits[-1]


def test_date_and_subject(repo):
    path, commits = repo
    repository = Repository(str(path))
    assert repository.date(commits[1]) == "2026-10-01T12:00:00+02:00"
    assert repository.subject(commits[1]) == "version 1"


def test_commits_between_lists_after_good_up_to_bad(repo):
    path, commits = repo
    repository = Repository(str(path))
    assert repository.commits_between(commits[0], commits[-1]) == commits[1:]
    assert repository.commits_between(commits[1], commits[2]) == [commits[2]]


def test_good_must_be_an_ancestor_of_bad(repo):
    path, commits = repo
    repository = Repository(str(path))
    with pytest.raises(UsageError, match=r"\(GOOD\) is not an ancestor of .* \(BAD\)"):
        repository.commits_between(commits[3], commits[1])
    with pytest.raises(UsageError, match="the same commit"):
        repository.commits_between(commits[1], commits[1])
    git(path, "checkout", "-q", "-b", "side", commits[1])
    side = commit(path, "other.py", "x = 1\n", "side branch")
    with pytest.raises(UsageError, match="not an ancestor"):
        repository.commits_between(side, commits[-1])


def test_commits_between_follows_the_first_parent_path(repo):
    path, commits = repo
    git(path, "checkout", "-q", "-b", "feature", commits[1])
    feature = commit(path, "feature.py", "x = 1\n", "feature")
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    merge = git(path, "rev-parse", "HEAD")
    repository = Repository(str(path))
    # the feature commit is on the merge's second parent: not a step of the path
    assert repository.commits_between(commits[0], merge) == [*commits[1:], merge]
    assert feature not in repository.commits_between(commits[0], merge)
    # GOOD on the side branch only: no first-parent path from it
    with pytest.raises(UsageError, match="first-parent path"):
        repository.commits_between(feature, merge)


def test_worktree_checks_out_the_commit_and_is_removed(repo):
    path, commits = repo
    repository = Repository(str(path))
    with repository.worktree(commits[1]) as worktree:
        assert pathlib.Path(worktree, "module.py").read_text() == "VERSION = 1\n"
        assert git(worktree, "rev-parse", "HEAD") == commits[1]
    assert not os.path.exists(worktree)
    assert not os.path.exists(os.path.dirname(worktree))
    assert git(path, "worktree", "list").count("\n") == 0  # the main one only
    assert (path / "module.py").read_text() == "VERSION = 4\n"  # the repository's own checkout is untouched


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_worktree_is_removed_on_error_and_ctrl_c(repo, error):
    path, commits = repo
    repository = Repository(str(path))
    with pytest.raises(error), repository.worktree(commits[2]) as worktree:
        pathlib.Path(worktree, "scratch").write_text("")  # untracked files do not keep it
        raise error
    assert not os.path.exists(worktree)
    assert "\n" not in git(path, "worktree", "list")


def test_build_runs_in_the_worktree(repo, tmp_path):
    path, commits = repo
    build(str(path), "echo built > built.txt", commits[0])
    assert (path / "built.txt").read_text() == "built\n"


def test_a_failed_build_names_commit_command_status_and_output(repo):
    path, commits = repo
    command = "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo line $i; done; echo oops >&2; exit 3"
    with pytest.raises(BuildError) as info:
        build(str(path), command, commits[0])
    message = str(info.value)
    assert message.startswith(f"{short(commits[0])}: the build {command!r} failed with exit status 3")
    assert "line 12" in message and "oops" in message
    assert "line 1\n" not in message  # only the last lines
