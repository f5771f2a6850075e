"""``python -m perf COMMAND``: parse, run one command, map errors to exit codes.

This is the only place that turns exceptions into messages and exit codes:
a :class:`~perf.errors.PerfError` becomes one ``ERROR: ...`` line on stderr
and exit status 2 for a :class:`~perf.errors.UsageError` (the command line
cannot be used as given: argparse's and pyperf's convention), 1 for any
other error; Ctrl-C exits with 1; a closed stdout (``| head``) is silent.
"""

from __future__ import annotations

import argparse
import os
import sys
from types import ModuleType
from typing import Any, NoReturn, Sequence

from perf.errors import PerfError, UsageError

#: command name -> module (imported lazily: each brings only what it needs)
COMMANDS = {
    "show": "perf.cli.show",
    "stats": "perf.cli.stats",
    "dump": "perf.cli.dump",
    "hist": "perf.cli.hist",
    "check": "perf.cli.check",
    "metadata": "perf.cli.metadata",
    "slowest": "perf.cli.slowest",
    "collect_metadata": "perf.cli.collect_metadata",
    "compare_to": "perf.cli.compare_to",
    "convert": "perf.cli.convert",
    "plot": "perf.cli.plot",
    "timeit": "perf.cli.timeit",
    "command": "perf.cli.command",
    "system": "perf.cli.system",
    "report": "perf.cli.report",
    "history": "perf.cli.history",
    "bisect": "perf.cli.bisect",
}

#: commands that parse their own options (a Runner's): ``main(argv) -> int``
RUNNER_COMMANDS = ("timeit", "command")


#: commands whose command line may end with ``-- ARGS...``: the command
#: they measure (its options are not perf's)
TRAILING_COMMANDS = ("history", "bisect")


#: exit status of a usage error (argparse's), and of any other error
USAGE_EXIT_STATUS = 2
ERROR_EXIT_STATUS = 1


#: exit status of a run stopped by --timeout (pyperformance relies on it)
TIMEOUT_EXIT_STATUS = 124
#: exit status of a command stopped by Ctrl-C (128 + SIGINT, as a shell
#: reports a process killed by it)
INTERRUPTED_EXIT_STATUS = 130


def exit_status(error: PerfError) -> int:
    """The exit status of a command stopped by *error*."""
    return USAGE_EXIT_STATUS if isinstance(error, UsageError) else ERROR_EXIT_STATUS


def fail(message: str, status: int = ERROR_EXIT_STATUS) -> NoReturn:
    """One ``ERROR:`` line on stderr, then exit with *status* (the Runner,
    which stops where no command's main() can catch)."""
    sys.stdout.flush()
    print(f"ERROR: {message}", file=sys.stderr)
    sys.exit(status)


def fail_on(error: PerfError) -> NoReturn:
    fail(str(error), exit_status(error))


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose errors are :class:`~perf.errors.UsageError`
    exceptions (one ``ERROR:`` line, exit status 2), not usage + exit, and
    whose unknown options come with the closest known one."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        parsed, unknown = self.parse_known_args(args, namespace)
        if unknown:
            hint = _suggestion(unknown, self._known_options(parsed))
            self.error(f"unrecognized arguments: {' '.join(unknown)}{hint}")
        return parsed

    def _known_options(self, parsed: argparse.Namespace) -> list[str]:
        """The option strings of this parser and of the subcommand chosen."""
        options: list[str] = []
        for action in self._actions:
            options += action.option_strings
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
                if isinstance(chosen, ArgumentParser):
                    options += chosen._known_options(parsed)
        return options


def _suggestion(unknown: Sequence[str], known: Sequence[str]) -> str:
    """`` (did you mean --processes?)`` for the first unknown option that
    looks like a known one (``--proceses``, ``--proceses=3``)."""
    import difflib

    for word in unknown:
        if not word.startswith("-") or word == "-":
            continue
        option = word.partition("=")[0] if word.startswith("--") else word
        matches = difflib.get_close_matches(option, [name for name in known if name.startswith("--")], n=1)
        if matches:
            return f" (did you mean {matches[0]}?)"
    return ""


def _load(name: str) -> ModuleType:
    import importlib

    return importlib.import_module(COMMANDS[name])


def build_parser(only: str | None = None) -> ArgumentParser:
    """The parser of every command, or with *only*, of that one command
    (the others are listed but their modules are not imported: a command
    imports what it needs and nothing else)."""
    parser = ArgumentParser(prog="python -m perf", description="Run benchmarks you can trust and analyse results.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    for name in COMMANDS:
        if only is not None and name != only:
            subparsers.add_parser(name, add_help=False)
            continue
        module = _load(name)
        if name in RUNNER_COMMANDS:
            subparsers.add_parser(name, help=module.HELP, add_help=False)
            continue
        command_parser = subparsers.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command_parser)
    return parser


def _run(argv: Sequence[str]) -> int:
    if argv and argv[0] in RUNNER_COMMANDS:
        status: int = _load(argv[0]).main(argv[1:])
        return status
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    argv, trailing = _split_trailing(argv)
    args = parser.parse_args(list(argv))
    args.trailing = trailing
    if not args.command:
        raise UsageError("missing command: choose one of " + ", ".join(COMMANDS) + " (see python -m perf --help)")
    result: int = _load(args.command).run(args)
    return result


def _split_trailing(argv: Sequence[str]) -> tuple[Sequence[str], list[str] | None]:
    """``(options, ARGS)`` of a command that measures another command
    given after ``--`` (``history record``, ``bisect``): argparse would
    mix that command's options with perf's own.  Other commands keep
    ``--`` (None: no trailing command)."""
    if not argv or argv[0] not in TRAILING_COMMANDS or "--" not in argv:
        return argv, None
    index = list(argv).index("--")
    return argv[:index], list(argv[index + 1 :])


def _silence_stdout() -> None:
    # stdout is closed (``perf show | head``): point it at /dev/null so the
    # interpreter's final flush does not complain either.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one perf command; return its exit status."""
    try:
        return _run(sys.argv[1:] if argv is None else argv)
    except PerfError as exc:
        sys.stdout.flush()
        from perf.cli.common import missing_file_hint

        print(f"ERROR: {missing_file_hint(exc) or exc}", file=sys.stderr)
        return exit_status(exc)
    except KeyboardInterrupt:
        print("Interrupted: exit", file=sys.stderr)
        return INTERRUPTED_EXIT_STATUS
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
