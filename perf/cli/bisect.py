"""``python -m perf bisect GOOD BAD [options] -- ARGS...``: find the first
commit between GOOD and BAD that performs like BAD.

Everything is checked before anything is measured: the repository, both
revisions, that GOOD is an ancestor of BAD, the measured command ``ARGS``
(a bench script or ``-m perf timeit ...``, with runner options for one
session), ``--budget``, the ``--json`` output, and ``-b NAME`` (against
the benchmarks a worker lists).  The benchmark followed, each session
(with what its step waits for and about how long that likely takes) and
each step are printed as they come; the command ends with ``First bad
commit: SHA SUBJECT`` (exit status 0) or ``cannot decide: ...`` and, when
it can tell, about how much more time would likely decide it (exit
status 1).
"""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING

from perf.errors import UsageError

if TYPE_CHECKING:
    from perf.analysis.compare import Comparison
    from perf.history.bisect import BisectEvents, BisectResult, Choice, Judgement, SessionStart, Step

HELP = "Find the first commit between GOOD and BAD that performs like BAD."

#: one part of a duration: a number and its unit (none: seconds)
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(hours?|h|minutes?|mins?|m|seconds?|secs?|s)?\s*")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0}


def parse_duration(text: str) -> float:
    """Seconds of a duration: ``20m``, ``900s``, ``1h30m``, ``1.5h``, ``20
    min`` or a number of seconds; ArgumentTypeError otherwise."""
    rest, total, units = text.strip().lower(), 0.0, []
    while rest:
        match = _PART.match(rest)
        if match is None:
            raise argparse.ArgumentTypeError(f"expected a duration such as 20m, 900s or 1h30m, got {text!r}")
        unit = (match.group(2) or "s")[0]
        units.append(unit)
        total += float(match.group(1)) * _UNITS[unit]
        rest = rest[match.end() :]
    if not units or len(set(units)) != len(units):
        raise argparse.ArgumentTypeError(f"expected a duration such as 20m, 900s or 1h30m, got {text!r}")
    if total <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text!r}")
    return total


def add_budget_argument(parser: argparse.ArgumentParser, what: str, default: float | None = None) -> None:
    """``--budget DURATION``: ``args.budget`` in seconds (*default*: None
    tells a budget given from none; the default shown is the one used)."""
    from perf.history.rounds import DEFAULT_BUDGET
    from perf.render.bisect import format_duration

    parser.add_argument(
        "--budget",
        type=parse_duration,
        default=default,
        metavar="DURATION",
        help=f"wall time {what} at most, such as 20m, 900s or 1h (default: {format_duration(DEFAULT_BUDGET)})",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from perf.history.rounds import DEFAULT_BUDGET

    parser.usage = "%(prog)s GOOD BAD [options] -- ARGS..."
    parser.add_argument("good", metavar="GOOD", help="a revision that performs well")
    parser.add_argument("bad", metavar="BAD", help="a later revision that performs badly")
    add_measure_arguments(parser)
    parser.add_argument(
        "-b",
        "--benchmark",
        dest="benchmarks",
        metavar="NAME",
        action="append",
        help="the benchmark to follow (default: the one whose BAD/GOOD interval lies furthest from 1)",
    )
    add_budget_argument(parser, "the bisection measures", DEFAULT_BUDGET)
    parser.add_argument("--json", metavar="FILE", help='write {"first_bad": SHA or null, "steps": [...]} to FILE')
    parser.add_argument("--replace", action="store_true", help="replace the --json FILE if it exists")
    parser.epilog = (
        "ARGS: a bench script and its options, or -m perf timeit ...; its runner options (-p, -n...) are the "
        "size of one session: -p rounds of one worker per commit (default: -p 10 -n 3).  A script with several "
        "benchmarks: -b NAME follows NAME; without it, bisect follows the one whose BAD/GOOD interval lies "
        "furthest from 1."
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


def _benchmark(args: argparse.Namespace) -> str | None:
    names = args.benchmarks or []
    if len(names) > 1:
        raise UsageError(f"bisect follows one benchmark: -b was given {len(names)} times ({', '.join(names)})")
    return names[0] if names else None


def run(args: argparse.Namespace) -> int:
    from perf.history import bisect_run as bisect
    from perf.history.git import Repository
    from perf.history.worktrees import parse_command
    from perf.render import bisect as render

    if args.trailing is None:
        raise UsageError("missing the command to measure: add -- and a bench script or -m perf timeit ...")
    benchmark = _benchmark(args)
    if args.json:
        from perf.cli.plot import check_output

        check_output(args.json, args.replace)
    repository = Repository(args.repo)
    good, bad = repository.resolve(args.good), repository.resolve(args.bad)
    repository.commits_between(good, bad)
    command = parse_command(args.trailing, args.python)
    if command.plan.options.processes < 2:
        raise UsageError("after --: -p must be at least 2: a session needs 2 rounds or more to pair its commits")
    result = bisect.bisect(
        repository, good, bad, command, build_command=args.build, budget=args.budget, benchmark=benchmark,
        events=_printer(),
    )  # fmt: skip
    subject = repository.subject(result.first_bad) if result.first_bad else None
    if args.json:
        write_json(args.json, result, args.replace)
    print(render.format_summary(result))
    print(render.format_answer(result.first_bad, subject, result.reason, result.remaining))
    if result.more is not None:
        print(render.format_more(result.more, result.spent))
    return 0 if result.first_bad else 1


def _printer() -> BisectEvents:
    """Events that print what a bisection does as it goes."""
    from perf.history.bisect import BisectEvents
    from perf.render import bisect as render

    class Printer(BisectEvents):
        def building(self, commit: str) -> None:
            print(f"Building {commit[:10]}...", flush=True)

        def measuring(self, start: SessionStart) -> None:
            print(render.format_session(start), flush=True)

        def chosen(self, choice: Choice) -> None:
            print(render.format_choice(choice), flush=True)

        def step(self, step: Step) -> None:
            print("\n".join(render.format_step(step)), flush=True)

    return Printer()


def _comparison(comparison: Comparison) -> dict[str, object]:
    return {"ratio": comparison.ratio, "ci": [comparison.low, comparison.high], "verdict": comparison.verdict}


def _candidate(judgement: Judgement) -> dict[str, object]:
    return {
        "commit": judgement.commit,
        "subject": judgement.subject,
        "ratio_good": judgement.good.ratio,
        "ci_good": [judgement.good.low, judgement.good.high],
        "ratio_bad": judgement.bad.ratio,
        "ci_bad": [judgement.bad.low, judgement.bad.high],
        "position": judgement.position.ratio,
        "ci_position": [judgement.position.low, judgement.position.high],
        "verdict": judgement.verdict,
        "rounds": judgement.rounds,
    }


def _step(step: Step) -> dict[str, object]:
    return {
        "number": step.number,
        "sessions": step.sessions,
        "rounds": step.rounds,
        "seconds": step.seconds,
        "references": _comparison(step.references),
        "remaining": list(step.remaining),
        "candidates": [_candidate(judgement) for judgement in step.candidates],
    }


def json_document(result: BisectResult) -> dict[str, object]:
    """The --json document of a bisection."""
    choice, more = result.choice, result.more
    return {
        "first_bad": result.first_bad,
        "reason": result.reason,
        "remaining": list(result.remaining),
        "benchmark": None if choice is None else choice.benchmark,
        "benchmarks": {} if choice is None else {name: _comparison(c) for name, c in choice.comparisons},
        "references": None if result.references is None else _comparison(result.references),
        "spread": result.spread[0],
        "spread_as_timed": result.spread[1],
        "cpu_time": result.cpu_time,
        "measured": result.measured,
        "seconds": result.spent,
        "budget": result.budget,
        "more": None if more is None else {"rounds": more.rounds, "commits": more.commits, "seconds": more.seconds},
        "steps": [_step(step) for step in result.steps],
    }


def write_json(path: str, result: BisectResult, replace: bool) -> None:
    import json

    from perf.storage.files import write_atomic

    data = json.dumps(json_document(result), indent=2) + "\n"
    write_atomic(path, data.encode("utf-8"), replace=replace)
