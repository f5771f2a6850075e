"""The progress lines of perf bisect, from constructed events: what each
session measures, what the step waits for and about how long it likely
takes, on one line (the other lines of bisect: tests/cli/test_cli_bisect.py)."""

from __future__ import annotations

import math

import pytest

from perf.analysis.compare import Comparison
from perf.analysis.outlook import Outlook
from perf.history.bisect import SessionStart
from perf.history.rounds import Waiting
from perf.render.bisect import format_session

GOOD, BAD, FIRST, SECOND = (
    prefix + "0" * (40 - len(prefix)) for prefix in ("e2042b96db", "7d05275dc4", "355c8d51a0", "e55f10cb41")
)


def waiting(subject, interval, undecided=1, outlook=None):
    """What a session waits for: *interval* needs a half-width under its distance from 1."""
    half_width = math.log(interval.high / interval.low) / 2
    return Waiting(subject, interval, half_width, abs(math.log(interval.ratio)), undecided, outlook)


#: a candidate's position at 99 % after 10 rounds, and BAD against GOOD
POSITION = Comparison(0.957, 0.903, 1.014, 0.99, "inconclusive", 10, 10, 36.0)
REFERENCES = Comparison(1.04, 0.99, 1.092, 0.99, "inconclusive", 10, 10, 36.0)


@pytest.mark.parametrize(
    ("start", "line"),
    [
        (
            SessionStart(1, 1, (GOOD, BAD, FIRST, SECOND), 10, 0.0, 1200.0),
            "Step 1, session 1: GOOD, BAD and 2 commits, 10 rounds (0 sec of 20 min spent)",
        ),
        (
            # a later step's first session: its candidates have no rounds yet, but a round's time is known
            SessionStart(2, 1, (GOOD, BAD, FIRST), 10, 55.1, 1200.0, None, 24.8),
            "Step 2, session 1: GOOD, BAD and 1 commit, 10 rounds (55.1 sec of 20 min spent); this session: about 25 s",
        ),
        (
            SessionStart(
                1,
                2,
                (GOOD, BAD, FIRST, SECOND),
                10,
                24.7,
                1200.0,
                waiting(FIRST, POSITION, 2, Outlook(20, 50.0, True)),
                25.0,
            ),
            "Step 1, session 2: GOOD, BAD and 2 commits, 10 rounds (24.7 sec of 20 min spent); waiting for 355c8d51a0 "
            "(the nearest of 2) vs their midpoint: 0.957x [0.903x .. 1.014x] at 99%, +-6.0 %, needs under +-4.5 %; "
            "this step: about 50 s",
        ),
        (
            SessionStart(
                1, 2, (GOOD, BAD, FIRST), 10, 40.2, 1200.0, waiting(FIRST, POSITION, 1, Outlook(30, 75.0, True)), 25.0
            ),
            "Step 1, session 2: GOOD, BAD and 1 commit, 10 rounds (40.2 sec of 20 min spent); waiting for 355c8d51a0 "
            "vs their midpoint: 0.957x [0.903x .. 1.014x] at 99%, +-6.0 %, needs under +-4.5 %; this step: about 1 min",
        ),
        (
            SessionStart(
                1,
                2,
                (GOOD, BAD, FIRST, SECOND),
                10,
                25.0,
                300.0,
                waiting(None, REFERENCES, 1, Outlook(30, 150.0, False)),
                25.0,
            ),
            "Step 1, session 2: GOOD, BAD and 2 commits, 10 rounds (25.0 sec of 5 min spent); waiting for BAD vs GOOD: "
            "1.04x slower [0.990x .. 1.092x] at 99%, +-5.0 %, needs under +-4.0 %; the budget likely ends this step "
            "first, in about 3 min",
        ),
        (
            # an interval without an estimate (no round timed): nothing is guessed
            SessionStart(1, 2, (GOOD, BAD, FIRST), 3, 25.0, 300.0, waiting(FIRST, POSITION)),
            "Step 1, session 2: GOOD, BAD and 1 commit, 3 rounds (25.0 sec of 5 min spent); waiting for 355c8d51a0 "
            "vs their midpoint: 0.957x [0.903x .. 1.014x] at 99%, +-6.0 %, needs under +-4.5 %",
        ),
    ],
)
def test_format_session(start, line):
    text = format_session(start)
    assert text == line
    assert "\n" not in text
