"""Several commits measured in the same rounds: a contrast of their process
means, with the noise estimated from all of them.

A round runs one worker of every commit (``perf bisect``, ``history
changes --confirm``); the load of that moment hits all of them.  On the
log scale, process mean = round effect + commit effect + noise.  A
contrast (weights that sum to 0: ``[-1, 1]`` for B against A, ``[-0.5,
-0.5, 1]`` for C against the midpoint of A and B) cancels the round
effects, as a paired comparison does (doc/design.rst, R6).  Its standard
error comes from the residual variance of that additive model over every
commit of the rounds, ``(rounds - 1) x (commits - 1)`` degrees of freedom:
with 5 commits in 10 rounds, 36 instead of the 9 of one pair of them, so
the interval is narrower (the t quantile) and far less often too narrow
by chance (a spread that happens to look small in 10 rounds).  With two
commits it is exactly :func:`perf.analysis.compare.compare_paired_process_means`.

It assumes the noise of a process (log scale) is alike for every commit
of the rounds: true of commits of one code base on one machine, not of
two different interpreters.

Must not: format text or print.
"""

from __future__ import annotations

import math
from typing import Sequence

from perf.analysis.compare import DEFAULT_MARGIN, PAIRED, Comparison, check_levels, t_comparison


def contrast(
    logs: Sequence[Sequence[float]],
    weights: Sequence[float],
    margin: float = DEFAULT_MARGIN,
    confidence: float = 0.95,
) -> Comparison:
    """The ratio ``exp(sum of weight x mean log)`` of *logs* (one row per
    commit, one column per round: every commit in every round, at least 2
    rounds and 2 commits) and its t interval; *weights* sum to 0.  The
    comparison counts rounds as pairs; its verdict is compare_to's."""
    check_levels(margin, confidence)
    commits, rounds = len(logs), len(logs[0]) if logs else 0
    if commits < 2 or rounds < 2 or any(len(row) != rounds for row in logs) or len(weights) != commits:
        raise ValueError("a contrast needs 2 commits or more in 2 rounds or more, every one in every round")
    if abs(math.fsum(weights)) > 1e-9:
        raise ValueError(f"the weights of a contrast must sum to 0, got {list(weights)}")
    commit_means = [math.fsum(row) / rounds for row in logs]
    round_means = [math.fsum(logs[c][r] for c in range(commits)) / commits for r in range(rounds)]
    grand = math.fsum(commit_means) / commits
    squares = math.fsum(
        (logs[c][r] - commit_means[c] - round_means[r] + grand) ** 2 for c in range(commits) for r in range(rounds)
    )
    df = (rounds - 1) * (commits - 1)
    residual = squares / df
    scale = math.fsum(weight * weight for weight in weights)
    estimate = math.fsum(weight * mean for weight, mean in zip(weights, commit_means))
    return t_comparison(
        estimate,
        math.sqrt(residual * scale / rounds),
        float(df),
        variances=residual * scale,
        counts=(rounds, rounds),
        levels=(margin, confidence),
        method=PAIRED,
    )
