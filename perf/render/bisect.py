"""The text of ``perf bisect``: each step, and the answer.

A step is anything with the fields of :class:`StepFields` (the named
tuple of :mod:`perf.history.bisect`), so that this module needs nothing
from :mod:`perf.history`.

Must not: compute statistics, run anything, or print.
"""

from __future__ import annotations

from typing import Protocol, Sequence

from perf.analysis.compare import Comparison
from perf.render.compare import format_bracket, format_factor

#: characters of a commit id in the steps
SHORT = 10


class StepFields(Protocol):
    """What a step of a bisection says (perf.history.bisect.Step)."""

    @property
    def commit(self) -> str: ...
    @property
    def subject(self) -> str: ...
    @property
    def good(self) -> Comparison: ...
    @property
    def bad(self) -> Comparison | None: ...
    @property
    def verdict(self) -> str: ...
    @property
    def processes(self) -> int: ...
    @property
    def rounds(self) -> int: ...


def format_ratio(comparison: Comparison) -> str:
    """``1.05x slower [1.042x .. 1.058x]``."""
    return f"{format_factor(comparison.ratio)} {format_bracket(comparison)}"


def _measured(step: StepFields) -> str:
    return f"{step.processes} pairs, {step.rounds} round{'s' if step.rounds != 1 else ''}"


def format_step(number: int, step: StepFields) -> list[str]:
    """The lines of a step: number 0 is the first one, BAD against GOOD;
    the next ones are candidates against GOOD and against BAD."""
    if step.bad is None:
        return [
            f"BAD {step.commit[:SHORT]} {step.subject}",
            f"    vs GOOD: {format_ratio(step.good)} ({_measured(step)}): {step.verdict}",
        ]
    return [
        f"Step {number}: {step.commit[:SHORT]} {step.subject}",
        f"    vs GOOD: {format_ratio(step.good)}",
        f"    vs BAD:  {format_ratio(step.bad)}",
        f"    => {step.verdict} ({_measured(step)})",
    ]


def format_answer(first_bad: str | None, subject: str | None, reason: str | None, remaining: Sequence[str]) -> str:
    """``First bad commit: SHA SUBJECT``, or why it cannot decide."""
    if first_bad is not None:
        return f"First bad commit: {first_bad} {subject or ''}".rstrip()
    text = f"cannot decide: {reason}"
    if len(remaining) > 1:
        text += f"; the first bad commit is one of {len(remaining)}: {remaining[0][:SHORT]}..{remaining[-1][:SHORT]}"
    return text
