"""``python -m perf bisect GOOD BAD [options] -- ARGS...``: find the first
commit between GOOD and BAD that performs like BAD.

Everything is checked before anything is measured: the repository, both
revisions, that GOOD is an ancestor of BAD, the measured command ``ARGS``
(a bench script or ``-m perf timeit ...``, with runner options for one
round) and the ``--json`` output.  Each step is printed as it is decided;
the command ends with ``First bad commit: SHA SUBJECT`` (exit status 0)
or ``cannot decide: ...`` (exit status 1).
"""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perf.history.bisect import BisectResult

HELP = "Find the first commit between GOOD and BAD that performs like BAD."

#: ``20m``, ``900s``, ``1h30m``, ``1.5h``, ``600`` (seconds)
_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?")


def parse_duration(text: str) -> float:
    """Seconds of a duration: ``20m``, ``900s``, ``1h30m``, ``1.5h`` or a
    number of seconds; ArgumentTypeError otherwise."""
    match = _DURATION.fullmatch(text.strip().lower())
    if not text.strip() or match is None or not any(match.groups()):
        raise argparse.ArgumentTypeError(f"expected a duration such as 20m, 900s or 1h30m, got {text!r}")
    hours, minutes, seconds = (float(group or 0) for group in match.groups())
    total = hours * 3600 + minutes * 60 + seconds
    if total <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text!r}")
    return total


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from perf.history.bisect import DEFAULT_MAX_ROUNDS

    parser.usage = "%(prog)s GOOD BAD [options] -- ARGS..."
    parser.add_argument("good", metavar="GOOD", help="a revision that performs well")
    parser.add_argument("bad", metavar="BAD", help="a later revision that performs badly")
    add_measure_arguments(parser)
    parser.add_argument("--json", metavar="FILE", help='write {"first_bad": SHA or null, "steps": [...]} to FILE')
    parser.add_argument("--replace", action="store_true", help="replace the --json FILE if it exists")
    parser.add_argument(
        "--max-rounds",
        type=_rounds,
        default=DEFAULT_MAX_ROUNDS,
        metavar="N",
        help="rounds measured at most before a step is called undecided (default: %(default)s)",
    )
    parser.epilog = (
        "ARGS: a bench script and its options, or -m perf timeit ...; its runner options (-p, -n...) are the "
        "budget of one round (default: -p 10 -n 3)."
    )


def add_measure_arguments(parser: argparse.ArgumentParser) -> None:
    """--repo, --build and --python (bisect and history record)."""
    parser.add_argument("--repo", default=".", metavar="PATH", help="the git repository (default: .)")
    parser.add_argument("--build", metavar="CMD", help="shell command run in each worktree before measuring")
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="interpreter of the workers: a path in the worktree (./python) or anywhere (default: this one)",
    )


def _rounds(text: str) -> int:
    from perf.measure.arguments import strictly_positive

    return strictly_positive(text)


def run(args: argparse.Namespace) -> int:
    from perf.history import bisect
    from perf.history.git import Repository
    from perf.history.worktrees import parse_command

    if args.trailing is None:
        from perf.errors import UsageError

        raise UsageError("missing the command to measure: add -- and a bench script or -m perf timeit ...")
    if args.json:
        from perf.cli.plot import check_output

        check_output(args.json, args.replace)
    repository = Repository(args.repo)
    good, bad = repository.resolve(args.good), repository.resolve(args.bad)
    repository.commits_between(good, bad)
    command = parse_command(args.trailing, args.python)

    class Events(bisect.BisectEvents):
        number = 0

        def building(self, commit: str) -> None:
            print(f"Building {commit[:10]}...", flush=True)

        def step(self, step: bisect.Step) -> None:
            from perf.render.bisect import format_step

            print("\n".join(format_step(self.number, step)), flush=True)
            self.number += 1

    result = bisect.bisect(
        repository, good, bad, command, build_command=args.build, max_rounds=args.max_rounds, events=Events()
    )
    from perf.render.bisect import format_answer

    subject = repository.subject(result.first_bad) if result.first_bad else None
    if args.json:
        write_json(args.json, result, args.replace)
    print(format_answer(result.first_bad, subject, result.reason, result.remaining))
    return 0 if result.first_bad else 1


def json_document(result: BisectResult) -> dict[str, object]:
    """The --json document of a bisection."""
    steps = [
        {
            "commit": step.commit,
            "subject": step.subject,
            "ratio_good": step.good.ratio,
            "ci_good": [step.good.low, step.good.high],
            "ratio_bad": None if step.bad is None else step.bad.ratio,
            "ci_bad": None if step.bad is None else [step.bad.low, step.bad.high],
            "verdict": step.verdict,
            "processes": step.processes,
            "rounds": step.rounds,
        }
        for step in result.steps
    ]
    return {"first_bad": result.first_bad, "reason": result.reason, "remaining": list(result.remaining), "steps": steps}


def write_json(path: str, result: BisectResult, replace: bool) -> None:
    import json

    from perf.storage.files import write_atomic

    data = json.dumps(json_document(result), indent=2) + "\n"
    write_atomic(path, data.encode("utf-8"), replace=replace)
