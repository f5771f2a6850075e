"""The progress lines of history record and history changes --confirm,
from constructed events: what they wait for and about how long it likely
takes, one line each (the tables: tests/cli/test_cli_history_store.py)."""

from __future__ import annotations

import math

import pytest

from perf.analysis.compare import Comparison
from perf.analysis.outlook import Outlook
from perf.history.confirm import ConfirmSession
from perf.history.record import RecordProgress
from perf.history.rounds import Waiting
from perf.render.history import format_confirm_session, format_record_progress

BEFORE, AFTER = "94b8317318" + "0" * 30, "bd5047ed89" + "0" * 30
#: a benchmark still inconclusive after 10 pairs: 1.012x +-2.1 %, decided under +-1.2 % (excluding 1)
NOISY = Comparison(1.012, 0.991, 1.034, 0.95, "inconclusive", 10, 10, 9.0)


def waiting(name, undecided=1, outlook=None):
    half_width = math.log(NOISY.high / NOISY.low) / 2
    return Waiting(name, NOISY, half_width, math.log(NOISY.ratio), undecided, outlook)


@pytest.mark.parametrize(
    ("progress", "line"),
    [
        # fewer than 2 rounds done: no estimate
        (RecordProgress(BEFORE, 1, 6, 1, 1, 2, 24, 0.0, None), "round 1/6 (94b8317318): 2/24 processes"),
        (
            RecordProgress(AFTER, 3, 6, 1, 1, 9, 24, 6.8, 11.3),
            "round 3/6 (bd5047ed89): 9/24 processes, about 10 s left",
        ),
        (
            RecordProgress(AFTER, 3, 6, 2, 3, 45, 72, 150.0, 95.0),
            "batch 2/3, round 3/6 (bd5047ed89): 45/72 processes, about 2 min left",
        ),
        (RecordProgress(AFTER, 6, 6, 1, 1, 24, 24, 20.0, 0.0), "round 6/6 (bd5047ed89): 24/24 processes"),
    ],
)
def test_format_record_progress(progress, line):
    assert format_record_progress(progress) == line


@pytest.mark.parametrize(
    ("start", "line"),
    [
        (ConfirmSession(1, 3, ("checksum",), 10), "Measuring 94b8317318 and bd5047ed89 together..."),
        (
            # an earlier pair timed the workers
            ConfirmSession(1, 3, ("checksum",), 10, None, 19.6),
            "Measuring 94b8317318 and bd5047ed89 together (this session: about 20 s)...",
        ),
        (
            ConfirmSession(2, 3, ("noisy",), 10, waiting("noisy", 1, Outlook(10, 40.0, True)), 40.0),
            "    session 2: noisy still inconclusive at 1.012x [0.991x .. 1.034x], +-2.1 %, needs under +-1.2 %; "
            "10 more pairs; this pair: about 40 s",
        ),
        (
            ConfirmSession(2, 3, ("noisy", "other"), 10, waiting("noisy", 2, Outlook(20, 160.0, False)), 80.0),
            "    session 2: noisy, other still inconclusive, the furthest noisy at 1.012x [0.991x .. 1.034x], +-2.1 %, "
            "needs under +-1.2 %; 10 more pairs; likely still inconclusive at its last session, in about 3 min",
        ),
        (
            # no worker timed: nothing guessed
            ConfirmSession(3, 3, ("noisy",), 4, waiting("noisy")),
            "    session 3: noisy still inconclusive at 1.012x [0.991x .. 1.034x], +-2.1 %, needs under +-1.2 %; "
            "4 more pairs...",
        ),
    ],
)
def test_format_confirm_session(start, line):
    text = format_confirm_session((BEFORE, AFTER), start)
    assert text == line
    assert "\n" not in text
