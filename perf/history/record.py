"""``history record``: measure git revisions after the fact and add them to a store.

For each revision, in the order given: a temporary worktree of its commit
(:class:`perf.history.git.Repository.worktree`), the optional ``--build``
command run in it, then ``PYTHON ARGS... -o FILE`` run in the worktree
with the worktree first on ``PYTHONPATH`` (ARGS: a bench script, a path
relative to the worktree or absolute, or ``-m perf timeit ...``), and the
result file added to the store with the commit's full id and date.  Each
revision is added as soon as it is measured: when a later one fails, those
before it stay recorded.

Must not: print or exit (each revision is reported through
:class:`RecordEvents`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple, Sequence

from perf.errors import PerfError, UsageError
from perf.history.git import Repository, build, output_tail, run_in, short
from perf.history.worktrees import worktree_python

if TYPE_CHECKING:
    from perf.history.store import HistoryStore, Recording

#: lines of a failed run's output quoted in its error
RUN_TAIL_LINES = 10
#: options of ARGS that the recording sets itself
REFUSED_OPTIONS = ("-o", "--output", "--append", "--compare-to")


class RecordOptions(NamedTuple):
    """--python, --build, --machine and --branch of a recording."""

    python: str | None = None
    build: str | None = None
    machine: str | None = None
    branch: str | None = None


class RecordEvents:
    """What a recording reports; the defaults ignore it."""

    def building(self, commit: str) -> None:
        """The worktree of *commit* is checked out and its build starts."""

    def measuring(self, commit: str) -> None:
        """The command starts in the worktree of *commit*."""

    def recorded(self, commit: str, recordings: list[Recording]) -> None:
        """*commit* was measured and added to the store."""


def check_args(args: Sequence[str] | None) -> list[str]:
    """ARGS after ``--``: present, without the options the recording sets."""
    if not args:
        raise UsageError("missing the command to measure after --: a bench script and its options, or -m perf timeit")
    if args[0].startswith("-") and list(args[:3]) != ["-m", "perf", "timeit"]:
        raise UsageError(f"the command after -- must be a bench script or -m perf timeit, not {args[0]}")
    for arg in args:
        option = arg.split("=", 1)[0]
        if option in REFUSED_OPTIONS:
            raise UsageError(f"{option} cannot be given after --: history record sets it")
    return list(args)


def run_command(worktree: str, command: list[str], commit: str) -> None:
    """Run a recording's *command* in *worktree*, the worktree first on
    ``PYTHONPATH``; PerfError naming the commit when it fails."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([worktree, *filter(None, [env.get("PYTHONPATH")])])
    try:
        status, output = run_in(worktree, command, env)
    except OSError as exc:
        raise PerfError(f"{short(commit)}: cannot run {command[0]}: {exc.strerror or exc}") from None
    if status != 0:
        import shlex

        tail = output_tail(output, RUN_TAIL_LINES)
        raise PerfError(f"{short(commit)}: {shlex.join(command[1:])} failed with exit status {status}{tail}")


def record_commit(
    store: HistoryStore,
    repository: Repository,
    commit: str,
    args: Sequence[str],
    *,
    options: RecordOptions | None = None,
    events: RecordEvents | None = None,
) -> list[Recording]:
    """Measure the full commit id *commit* in its worktree and add the
    result to *store* (with its date; *options*: --python, --build...)."""
    import tempfile

    options = options or RecordOptions()
    events = events or RecordEvents()
    with repository.worktree(commit) as worktree, tempfile.TemporaryDirectory(prefix="perf-record-") as folder:
        if options.build:
            events.building(commit)
            build(worktree, options.build, commit)
        python = worktree_python(worktree, options.python, commit)
        output = os.path.join(folder, f"{short(commit)}.json")
        events.measuring(commit)
        run_command(worktree, [python, *args, "-o", output], commit)
        recordings = store.add(
            [output], commit=commit, date=repository.date(commit), branch=options.branch, machine=options.machine
        )
    events.recorded(commit, recordings)
    return recordings


def record(
    store: HistoryStore,
    repository: Repository,
    commits: Sequence[str],
    args: Sequence[str],
    *,
    options: RecordOptions | None = None,
    events: RecordEvents | None = None,
) -> list[Recording]:
    """:func:`record_commit` of each commit in turn (full ids, resolved
    beforehand); stops at the first failure, keeping what was added."""
    recorded: list[Recording] = []
    for commit in commits:
        recorded += record_commit(store, repository, commit, args, options=options, events=events)
    return recorded
