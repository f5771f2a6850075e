"""A contrast of commits measured in the same rounds, its noise from all of them."""

from __future__ import annotations

import math
import random

import pytest

from perf.analysis.compare import compare_paired_process_means
from perf.analysis.contrasts import contrast


def test_two_commits_are_the_paired_comparison():
    rng = random.Random(1)
    reference = [1.0 + rng.random() for _ in range(12)]
    changed = [value * 1.05 * math.exp(rng.gauss(0, 0.02)) for value in reference]
    logs = [[math.log(value) for value in reference], [math.log(value) for value in changed]]
    mine, paired = contrast(logs, [-1.0, 1.0]), compare_paired_process_means(reference, changed)
    for field in ("ratio", "low", "high", "df", "standard_error", "verdict", "reference_processes"):
        assert getattr(mine, field) == pytest.approx(getattr(paired, field)), field


def test_round_effects_cancel_and_every_commit_estimates_the_noise():
    rng = random.Random(2)
    rounds = 10
    drift = [rng.gauss(0, 0.3) for _ in range(rounds)]  # the load of each round: large, shared
    levels = [0.0, math.log(1.05), math.log(1.05), 0.0, math.log(1.05)]
    logs = [[level + drift[r] + rng.gauss(0, 0.01) for r in range(rounds)] for level in levels]
    position = contrast(logs, [-0.5, -0.5, 1.0, 0.0, 0.0])  # commit 2 against the midpoint of 0 and 1
    assert position.df == (rounds - 1) * (len(levels) - 1) == 36
    assert position.ratio == pytest.approx(math.sqrt(1.05), abs=0.01)
    assert position.low > 1.0  # like commit 1
    alone = contrast(logs[:3], [-0.5, -0.5, 1.0])
    assert alone.ratio == pytest.approx(position.ratio) and alone.df == 18


@pytest.mark.parametrize(
    ("logs", "weights", "message"),
    [
        ([[0.0, 0.1]], [1.0], "2 commits or more"),
        ([[0.0], [0.1]], [-1.0, 1.0], "2 rounds or more"),
        ([[0.0, 0.1], [0.1]], [-1.0, 1.0], "every one in every round"),
        ([[0.0, 0.1], [0.1, 0.2]], [1.0, 1.0], "must sum to 0"),
    ],
)
def test_bad_contrasts(logs, weights, message):
    with pytest.raises(ValueError, match=message):
        contrast(logs, weights)
