"""``python -m perf history ACTION``: a store of results per commit.

* ``add STORE FILE...``: put result files in the store (``--commit``,
  ``--date``, ``--branch``, ``--machine``; by default the files' own
  ``commit_id``, ``commit_date`` and ``commit_branch`` metadata and their
  hostname);
* ``reindex STORE``: rebuild the index from the files;
* ``show STORE``: the timeline of each benchmark;
* ``changes STORE [--json] [--confirm]``: the detected changes;
* ``record STORE REV... -- ARGS...``: measure git revisions and add them;
* ``plot STORE -o OUT.png|svg``: the timelines as a figure;
* ``publish STORE OUTDIR``: a static site of every machine's timelines.

Each action lives in its own module (imported when it runs); this one only
declares the sub-commands and hands the parsed arguments over.
"""

from __future__ import annotations

import argparse
import importlib

HELP = "A performance history: store results per commit, show timelines, detect changes."

#: action -> the module that declares its arguments and runs it:
#: ``add_arguments(action, parser)`` and ``run(args) -> int``
ACTIONS = {
    "add": "perf.cli.history_store",
    "reindex": "perf.cli.history_store",
    "show": "perf.cli.history_store",
    "changes": "perf.cli.history_store",
    "record": "perf.cli.history_record",
    "plot": "perf.cli.history_plot",
    "publish": "perf.cli.history_publish",
}

#: what ``python -m perf history --help`` says of each action
ACTION_HELP = {
    "add": "add result files to a store",
    "reindex": "rebuild a store's index from its files",
    "show": "print the timeline of each benchmark",
    "changes": "print the changes detected in the timelines",
    "record": "measure git revisions and add their results",
    "plot": "draw the timelines (png or svg)",
    "publish": "write a static site of every machine's timelines and changes",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    subparsers = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    subparsers.required = True
    for action, module_name in ACTIONS.items():
        action_parser = subparsers.add_parser(action, help=ACTION_HELP[action], description=ACTION_HELP[action])
        importlib.import_module(module_name).add_arguments(action, action_parser)


def run(args: argparse.Namespace) -> int:
    # changes --confirm and record measure the command given after --
    if args.action not in ("changes", "record") and getattr(args, "trailing", None) is not None:
        from perf.errors import UsageError

        raise UsageError(f"history {args.action} takes no command after --: {' '.join(args.trailing)}")
    status: int = importlib.import_module(ACTIONS[args.action]).run(args)
    return status
