"""How long until an interval decides: the half-width a decision needs, the
rounds an interval needs to narrow to it (1 / sqrt(rounds)), and the
rounds and seconds left in whole sessions, within a limit."""

from __future__ import annotations

import math

import pytest

from perf.analysis.outlook import Outlook, decisive_half_width, outlook, rounds_to_narrow

BAND = math.log1p(0.01)


@pytest.mark.parametrize(
    ("ratio", "band", "expected"),
    [
        (1.05, 0.0, math.log(1.05)),  # lies on one side of 1 when narrower than its distance
        (1 / 1.05, 0.0, math.log(1.05)),  # the same below 1
        (1.0, 0.0, 0.0),  # right on 1: no width decides it
        (1.002, BAND, BAND - math.log(1.002)),  # near 1: fitting in the band is nearer
        (1.0, BAND, BAND),
        (1.03, BAND, math.log(1.03)),  # far from 1: excluding 1 is nearer
        (0.0, BAND, 0.0),  # no ratio: nothing decides
        (math.inf, BAND, 0.0),
    ],
)
def test_decisive_half_width(ratio, band, expected):
    assert decisive_half_width(ratio, band) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("half_width", "rounds", "target", "expected"),
    [
        (0.04, 10, 0.02, 40),  # half as wide: 4 times the rounds
        (0.04, 10, 0.04, 10),  # narrow enough already
        (0.04, 10, 0.08, 10),  # never fewer rounds than so far
        (0.03, 10, 0.02, 23),  # 22.5, rounded up
        (0.0, 10, 0.02, 10),  # no noise
        (0.04, 1, 0.02, None),  # one round: no interval, no estimate
        (0.04, 0, 0.02, None),
        (math.inf, 10, 0.02, None),  # an interval that cannot be estimated
        (math.nan, 10, 0.02, None),
        (0.04, 10, 0.0, None),  # a decision no width reaches
    ],
)
def test_rounds_to_narrow_scale_as_the_square_of_the_half_width(half_width, rounds, target, expected):
    assert rounds_to_narrow(half_width, rounds, target) == expected


@pytest.mark.parametrize(
    ("half_width", "rounds", "target", "sessions", "per_round", "most", "expected"),
    [
        # 40 rounds in all after 10: 30 more, three sessions of 10
        (0.04, 10, 0.02, (10, 10), 2.5, None, Outlook(30, 75.0, True)),
        # 23 in all after 10: 13 more, in whole sessions: 20
        (0.03, 10, 0.02, (10, 10), 1.0, None, Outlook(20, 20.0, True)),
        # narrow enough already (an estimate right on 1): the next session still runs
        (0.01, 10, 0.02, (10, 10), 2.0, None, Outlook(10, 20.0, True)),
        # a short next session (what the budget left), then full ones
        (0.04, 10, 0.02, (4, 10), 1.0, None, Outlook(34, 34.0, True)),
        # the limit ends it first: what it leaves, undecided
        (0.04, 10, 0.02, (10, 10), 2.5, 20, Outlook(20, 50.0, False)),
        (0.04, 10, 0.02, (10, 10), 2.5, 30, Outlook(30, 75.0, True)),
        # nothing to estimate from
        (0.04, 1, 0.02, (10, 10), 2.5, None, None),
        (0.04, 10, 0.02, (10, 10), None, None, None),
        (math.inf, 10, 0.02, (10, 10), 2.5, None, None),
    ],
)
def test_outlook_counts_whole_sessions_within_the_limit(  # noqa: PLR0917
    half_width, rounds, target, sessions, per_round, most, expected
):
    found = outlook(half_width, rounds, target, sessions=sessions, seconds_per_round=per_round, most=most)
    assert found == expected
