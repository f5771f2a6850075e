"""The text of ``perf bisect``: the benchmark followed, each step, the answer.

The bisection's types come from :mod:`perf.history.bisect` (imported for
type checking only: this module runs nothing).

Must not: compute statistics, run anything, or print.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from perf.analysis.compare import Comparison
from perf.render.compare import format_bracket, format_factor
from perf.render.units import count_of, format_about, format_seconds, format_widths

if TYPE_CHECKING:
    from perf.history.bisect import BisectResult, Choice, Estimate, Judgement, SessionStart, Step
    from perf.history.rounds import Waiting

#: characters of a commit id in the steps
SHORT = 10


def format_ratio(comparison: Comparison) -> str:
    """``1.05x slower [1.042x .. 1.058x]``."""
    return f"{format_factor(comparison.ratio)} {format_bracket(comparison)}"


def format_duration(seconds: float) -> str:
    """A duration as ``--budget`` reads it, rounded up: ``90s``, ``26m``, ``1h30m``."""
    if seconds < 120:
        return f"{math.ceil(seconds)}s"
    minutes = math.ceil(seconds / 60)
    hours, minutes = divmod(minutes, 60)
    if not hours:
        return f"{minutes}m"
    return f"{hours}h{minutes}m" if minutes else f"{hours}h"


def _rounds(count: int) -> str:
    return f"{count} round{'' if count == 1 else 's'}"


def format_session(start: SessionStart) -> str:
    """The line before a session: what it measures, the time spent, what
    the step waits for and about how long that likely takes (one line)::

        Step 1, session 2: GOOD, BAD and 1 commit, 10 rounds (24.7 sec of 20 min spent); waiting for
        355c8d51a0 vs their midpoint: 0.957x [0.903x .. 1.014x] at 99%, +-6.0 %, needs under +-4.5 %;
        this step: about 1 min

    (here folded: it is one line).  The interval decides when its
    half-width is under the distance that places it (BAD against GOOD:
    excludes 1, or fits in the 1 % band)."""
    candidates = len(start.commits) - 2
    what = "GOOD and BAD" if not candidates else f"GOOD, BAD and {candidates} commit{'s' if candidates > 1 else ''}"
    text = (
        f"Step {start.step}, session {start.session}: {what}, {_rounds(start.rounds)} "
        f"({format_seconds(start.spent)} of {format_seconds(start.budget)} spent)"
    )
    waiting = start.waiting
    if waiting is None:
        return text if start.seconds is None else f"{text}; this session: {format_about(start.seconds)}"
    text += f"; waiting for {_waited(waiting)}, {format_widths(waiting.half_width, waiting.needed)}"
    outlook = waiting.outlook
    if outlook is None:
        return text
    if not outlook.decided:
        return f"{text}; the budget likely ends this step first, in {format_about(outlook.seconds)}"
    return f"{text}; this step: {format_about(outlook.seconds)}"


def _waited(waiting: Waiting) -> str:
    """What a session waits for, and its interval: BAD against GOOD, or a
    candidate's position (the nearest to a verdict when several are
    undecided)."""
    interval = waiting.interval
    confidence = f"at {interval.confidence:.0%}"
    if waiting.subject is None:
        return f"BAD vs GOOD: {format_ratio(interval)} {confidence}"
    nearest = f" (the nearest of {waiting.undecided})" if waiting.undecided > 1 else ""
    position = f"{interval.ratio:.3f}x {format_interval(interval)} {confidence}"
    return f"{waiting.subject[:SHORT]}{nearest} vs their midpoint: {position}"


def format_choice(choice: Choice) -> str:
    """Which benchmark the bisection follows, and why."""
    from perf.history.bisect import CLEAREST, GIVEN

    if choice.reason == GIVEN:
        return f"Benchmark: {choice.benchmark} (-b)"
    if choice.reason != CLEAREST:
        return f"Benchmark: {choice.benchmark} (the script's only one)"
    comparisons = dict(choice.comparisons)
    others = "; ".join(
        f"{name} {format_ratio(comparison)}" for name, comparison in comparisons.items() if name != choice.benchmark
    )
    return (
        f"Following {choice.benchmark}, the benchmark whose interval of BAD against GOOD lies furthest from 1 "
        f"({format_ratio(comparisons[choice.benchmark])}); the others: {others}"
    )


def _judgement(judgement: Judgement) -> list[str]:
    position = judgement.position
    return [
        f"    {judgement.commit[:SHORT]} {judgement.subject}",
        f"        vs GOOD: {format_ratio(judgement.good)}, vs BAD: {format_ratio(judgement.bad)}",
        f"        vs their midpoint: {position.ratio:.3f}x {format_interval(position)} at {position.confidence:.0%}"
        f" ({_rounds(judgement.rounds)}) => {judgement.verdict}",
    ]


def format_interval(comparison: Comparison) -> str:
    """``[0.962x .. 1.004x]``: a position's interval as ratios (not factors:
    below 1 is GOOD's side when BAD is slower)."""
    return f"[{comparison.low:.3f}x .. {comparison.high:.3f}x]"


def format_step(step: Step) -> list[str]:
    """The lines of a step: BAD against GOOD, then each candidate."""
    sessions = f"{step.sessions} session{'s' if step.sessions != 1 else ''}"
    lines = [
        f"Step {step.number}: {sessions}, {_rounds(step.rounds)}, {format_seconds(step.seconds)}",
        f"    BAD vs GOOD: {format_ratio(step.references)}: {step.reference_verdict}",
    ]
    for judgement in step.candidates:
        lines += _judgement(judgement)
    left = len(step.remaining)
    if left > 1:
        lines.append(f"    {left} commits left: {step.remaining[0][:SHORT]}..{step.remaining[-1][:SHORT]}")
    return lines


def format_summary(result: BisectResult) -> str:
    """Commits measured, the time spent, and how much the rounds moved."""
    text = (
        f"Measured {result.measured} commits in {format_seconds(result.spent)} (budget {format_seconds(result.budget)})"
    )
    used, as_timed = result.spread
    if used is not None and as_timed is not None:
        if result.cpu_time:
            text += f"; with the time off the CPU left out, BAD/GOOD moved {used * 100:.1f} % from round to round"
            text += f" ({as_timed * 100:.1f} % as timed)"
        else:
            text += f"; BAD/GOOD moved {used * 100:.1f} % from round to round"
    return text + "."


def format_more(more: Estimate, spent: float) -> str:
    """About how much more time would likely decide a bisection."""
    return (
        f"About {format_seconds(more.seconds)} more would likely decide it ({count_of(more.rounds, 'more round')} of "
        f"{more.commits} commits, {format_seconds(more.seconds_per_round)} each): try --budget "
        f"{format_duration(spent + more.seconds)}."
    )


def format_answer(first_bad: str | None, subject: str | None, reason: str | None, remaining: Sequence[str]) -> str:
    """``First bad commit: SHA SUBJECT``, or why it cannot decide."""
    if first_bad is not None:
        return f"First bad commit: {first_bad} {subject or ''}".rstrip()
    text = f"cannot decide: {reason}"
    if len(remaining) > 1:
        text += f"; the first bad commit is one of {len(remaining)}: {remaining[0][:SHORT]}..{remaining[-1][:SHORT]}"
    return text
