"""How long until an interval decides: the rounds and seconds a search likely still needs.

A search that measures in rounds (``perf bisect``, ``history changes
--confirm``) decides when an interval is narrow enough: it must lie on one
side of 1, or within the band of ratios that do not matter.  The
half-width of an interval of a mean of *n* rounds shrinks as
``1 / sqrt(n)`` (doc/design.rst, R3), so an interval of half-width *w*
after *n* rounds reaches a half-width *target* after about
``n x (w / target)^2`` rounds in all (:func:`rounds_to_narrow`).
Decisions are made after whole sessions, so the rounds still needed are
counted in sessions, at least the one about to run; a limit (the budget,
the most sessions) may end the search first (:func:`outlook`).

Fewer than 2 rounds give no interval, hence no estimate: a guess would be
wild.  Half-widths are on the log scale (log of a ratio).

Must not: format text or print.
"""

from __future__ import annotations

import math
from typing import NamedTuple


class Outlook(NamedTuple):
    """What a decision likely still costs."""

    #: more rounds likely measured (whole sessions, the next one included)
    rounds: int
    #: their wall time, seconds
    seconds: float
    #: False when a limit (the budget, the most sessions) likely ends the
    #: search before the interval is narrow enough: *rounds* are what the
    #: limit leaves
    decided: bool


def decisive_half_width(ratio: float, band: float = 0.0) -> float:
    """The half-width (log scale) under which an interval centred on
    *ratio* decides as it stands: it lies on one side of 1 when narrower
    than the distance ``|log ratio|``; with *band* (``log(1 + margin)``),
    it also decides when it fits within the band, narrower than ``band -
    |log ratio|``.  The larger of the two (0: undecidable there)."""
    if not ratio > 0 or not math.isfinite(ratio):
        return 0.0
    distance = abs(math.log(ratio))
    return max(distance, band - distance)


def rounds_to_narrow(half_width: float, rounds: int, target: float) -> int | None:
    """The rounds in all after which an interval of *half_width* over
    *rounds* rounds would likely be no wider than +-*target*: *rounds* x
    (*half_width* / *target*) squared, never fewer than *rounds*.  None
    when it cannot be estimated: fewer than 2 rounds, a half-width that
    is not a finite number >= 0, or a target that is not > 0."""
    if rounds < 2 or not 0 <= half_width < math.inf or not target > 0:
        return None
    return max(rounds, math.ceil(rounds * (half_width / target) ** 2))


def outlook(
    half_width: float,
    rounds: int,
    target: float,
    *,
    sessions: tuple[int, int],
    seconds_per_round: float | None,
    most: int | None = None,
) -> Outlook | None:
    """The rounds and seconds a decision likely still takes: an interval
    of *half_width* after *rounds* rounds must narrow to +-*target*.
    *sessions*: the rounds of the session about to run (always measured)
    and of a full session (the later ones); *seconds_per_round*: the wall
    time of a round so far; *most*: the most rounds the limits leave
    (None: no limit).  None when there is nothing to estimate from (see
    :func:`rounds_to_narrow`, or no round timed yet)."""
    total = rounds_to_narrow(half_width, rounds, target)
    if total is None or seconds_per_round is None or not seconds_per_round >= 0:
        return None
    following, full = sessions
    more = max(total - rounds, following)
    if more > following:
        more = following + math.ceil((more - following) / max(1, full)) * max(1, full)
    decided = True
    if most is not None and more > most:
        more, decided = max(most, 0), False
    return Outlook(more, more * seconds_per_round, decided)
