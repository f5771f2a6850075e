"""The report of ``python -m perf system``: sections Actions, System
state, Advices, Warnings, Errors (pyperf's layout), then the verdict of
``show``.

Must not: read the system, print.
"""

from __future__ import annotations

from typing import Any

TITLES = {
    "show": "Show the system configuration",
    "tune": "Tune the system configuration to run benchmarks",
    "reset": "Reset the system configuration",
}
READY = "OK! System ready for benchmarking"


def _section(title: str, lines: list[str]) -> list[str]:
    if not lines:
        return []
    return ["", title, "=" * len(title), "", *lines]


def format_report(report: Any, program: str, dry_run: bool = False) -> list[str]:
    """*report*: a :class:`perf.system.tuning.SystemReport`; *program*: how
    to run perf again (``python3 -m perf``)."""
    messages = report.messages
    title = TITLES[report.action] + (" (dry run: nothing is written)" if dry_run else "")
    lines = [title]
    if not report.operations:
        return [*lines, "", "No operation is available on this platform: nothing to show or change"]
    lines += _section("Actions", messages.actions)
    lines += _section("System state", messages.states)
    if report.action != "reset":  # advices are about tuning
        lines += _section("Advices", messages.advices)
    lines += _section("Warnings", messages.warnings)
    lines += _section("Errors", messages.errors)
    if report.action == "show":
        lines.append("")
        if report.tuned and not messages.errors:
            lines.append(READY)
        else:
            lines.append(f'Run "{program} system tune" to tune the system configuration to run benchmarks')
    return lines
