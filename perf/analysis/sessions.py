"""Commits measured together: the drift they share, taken out.

``history record`` measures its revisions in one session, in rounds: each
round runs one process of every commit, in a new order (issue 22).  A load
that comes and goes then slows the processes of one round alike, whatever
their commit.  For one benchmark, the recordings of a session are its
commits' process means, each with its round:

* :func:`round_effects` takes that shared part out: a round's effect is the
  mean, over the commits it measured, of their processes' deviation from
  their commit's mean (log scale; two passes, for rounds that miss a
  commit).  What remains of each process is its own noise: the spread of a
  commit's adjusted values is scaled by n / (n - 1), n the commits per
  round, since each residual lost the share of it that its round's mean
  held.  A round that measured a single commit has no effect to take out.
* :func:`align_sessions` ties sessions that share commits (the batches of
  ``history record --max-worktrees``, a commit recorded twice): the
  offset of a session against the one it was reached from is the mean
  difference of their shared commits' levels.
* :func:`commit_groups`: the commits of linked sessions form a group whose
  members share their drift; a commit recorded alone (a CI job, ``history
  add``) is a group of its own, with the drift between recordings of
  :mod:`perf.analysis.changepoints`, and its recordings are pooled as
  they are (their drifts average out).

Must not: read the store, format text or print.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from perf.analysis.statistics import mean, median

#: passes of the round effects (the second one corrects the commits' means
#: for the rounds they missed)
ROUND_PASSES = 2


class Recorded(NamedTuple):
    """One recording of one benchmark, as the sessions see it."""

    commit: str
    #: its session (the seed its runs share; empty: a recording of its own)
    session: str
    #: the log of each process mean
    logs: tuple[float, ...]
    #: the round of each process (empty: none)
    rounds: tuple[int, ...] = ()


class Adjusted(NamedTuple):
    """A recording with the drift of its session taken out."""

    #: the logs, round effects and session offset taken out
    logs: tuple[float, ...]
    #: what its spread is multiplied by (n / (n - 1) after round effects)
    spread_factor: float = 1.0


def round_effects(recordings: Sequence[Recorded]) -> list[Adjusted]:
    """The recordings of one session with their rounds' effects taken out
    (see the module documentation); recordings without rounds, or alone in
    their round, keep their values."""
    usable = [index for index, item in enumerate(recordings) if item.rounds and len(item.rounds) == len(item.logs)]
    adjusted = [Adjusted(item.logs) for item in recordings]
    if len(usable) < 2:
        return adjusted
    effects: dict[int, float] = {}
    for _ in range(ROUND_PASSES):
        centres = {index: mean(_minus(recordings[index], effects)) for index in usable}
        deviations: dict[int, list[float]] = {}
        for index in usable:
            item = recordings[index]
            for round_, value in zip(item.rounds, item.logs):
                deviations.setdefault(round_, []).append(value - centres[index])
        effects = {round_: mean(values) for round_, values in deviations.items() if len(values) >= 2}
    counts = [len(values) for values in deviations.values() if len(values) >= 2]
    typical = median(counts) if counts else 1
    factor = typical / (typical - 1) if typical > 1 else 1.0
    for index in usable:
        adjusted[index] = Adjusted(tuple(_minus(recordings[index], effects)), factor)
    return adjusted


def _minus(item: Recorded, effects: dict[int, float]) -> list[float]:
    return [value - effects.get(round_, 0.0) for round_, value in zip(item.rounds, item.logs)]


def _sessions(recordings: Sequence[Recorded], logs: Sequence[Sequence[float]]) -> dict[str, dict[str, list[float]]]:
    """session -> commit -> logs, of the sessions of several commits (a
    recording made alone has a drift of its own: it is linked to nothing,
    and two of one commit are pooled as they are)."""
    levels: dict[str, dict[str, list[float]]] = {}
    for item, values in zip(recordings, logs):
        if item.session:
            levels.setdefault(item.session, {}).setdefault(item.commit, []).extend(values)
    return {session: commits for session, commits in levels.items() if len(commits) > 1}


def align_sessions(recordings: Sequence[Recorded], adjusted: Sequence[Adjusted]) -> list[Adjusted]:
    """*adjusted* with each session of several commits moved onto the level
    of the sessions it shares commits with (breadth first from the session
    with the most commits of its linked set)."""
    levels = _sessions(recordings, [values.logs for values in adjusted])
    if len(levels) < 2:
        return list(adjusted)
    offsets: dict[str, float] = {}
    for component in _components(levels):
        start = max(component, key=lambda session: len(levels[session]))
        offsets[start] = 0.0
        pending = [start]
        while pending:
            current = pending.pop(0)
            for other in component:
                shared = set(levels[current]) & set(levels[other])
                if other in offsets or not shared:
                    continue
                differences = [mean(levels[other][c]) - mean(levels[current][c]) for c in sorted(shared)]
                offsets[other] = offsets[current] + mean(differences)
                pending.append(other)
    return [
        values._replace(logs=tuple(value - offsets.get(item.session, 0.0) for value in values.logs))
        for item, values in zip(recordings, adjusted)
    ]


def _components(levels: dict[str, dict[str, list[float]]]) -> list[list[str]]:
    """The sets of sessions linked by shared commits (in order of first appearance)."""
    parent = {session: session for session in levels}

    def root(session: str) -> str:
        while parent[session] != session:
            parent[session] = parent[parent[session]]
            session = parent[session]
        return session

    first_session: dict[str, str] = {}
    for session, commits in levels.items():
        for commit in commits:
            if commit in first_session:
                parent[root(session)] = root(first_session[commit])
            else:
                first_session[commit] = session
    found: dict[str, list[str]] = {}
    for session in levels:
        found.setdefault(root(session), []).append(session)
    return list(found.values())


def commit_groups(recordings: Sequence[Recorded]) -> dict[str, int]:
    """commit -> its group: the linked sessions of several commits it was
    recorded in.  The commits of one group share their drift; a commit
    recorded only alone is a group of its own."""
    levels = _sessions(recordings, [item.logs for item in recordings])
    groups: dict[str, int] = {}
    for number, component in enumerate(_components(levels)):
        for session in component:
            for commit in levels[session]:
                groups[commit] = number
    for item in recordings:
        if item.commit not in groups:
            groups[item.commit] = len(groups) + len(levels)
    return groups


def adjust(recordings: Sequence[Recorded]) -> list[Adjusted]:
    """Every recording with its session's round effects and offset taken
    out (:func:`round_effects` per session, then :func:`align_sessions`)."""
    adjusted = [Adjusted(item.logs) for item in recordings]
    by_session: dict[str, list[int]] = {}
    for index, item in enumerate(recordings):
        if item.session:
            by_session.setdefault(item.session, []).append(index)
    for indexes in by_session.values():
        if len(indexes) > 1:
            for index, values in zip(indexes, round_effects([recordings[i] for i in indexes])):
                adjusted[index] = values
    return align_sessions(recordings, adjusted)
