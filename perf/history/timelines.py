"""A store's timelines: each benchmark on each machine, commit by commit,
with the changes found in it.

A timeline's commits are in the store's order (commit date, then the time
of the add); the recordings of one commit are pooled into one point.  The
changes come from :mod:`perf.analysis.changepoints`: first the drift that
a recording shares across its benchmarks (the machine that day) is
estimated, over every benchmark of the machine, and taken out, as is the
machine's speed that the workers' speed probe measured (files that
recorded it; probes of different sources, such as perf's first probe in two
interpreters, are not compared); then each benchmark's commits are segmented.  The points shown (:class:`CommitPoint`)
are the measurements as recorded, drift included.

Must not: print, or compute statistics (perf.analysis does).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple, Sequence

from perf.analysis.changepoints import CommitSummary, find_changes, recording_drift, summarize_logs
from perf.analysis.interference import CPU_BOUND_SHARE, cpu_time_means, probe_shifts
from perf.analysis.intervals import mean_interval
from perf.analysis.sessions import Recorded, adjust, commit_groups

if TYPE_CHECKING:
    from perf.history.store import HistoryStore, StoredPoint

SLOWER = "slower"
FASTER = "faster"


class CommitPoint(NamedTuple):
    """One commit of one benchmark on one machine."""

    commit: str
    date: str | None
    #: mean of the process means, and its 95 % interval (the benchmark's unit)
    mean: float
    low: float
    high: float
    processes: int
    recordings: int


class Change(NamedTuple):
    benchmark: str
    machine: str
    #: full commit ids: the last commit before the change, the first after
    before: str
    after: str
    #: index of ``after`` in :attr:`Timeline.commits`
    index: int  # type: ignore[assignment]  # (tuple.index: the field reads better)
    #: after / before (> 1: slower) and its 95 % interval
    ratio: float
    ci_low: float
    ci_high: float
    #: "slower" or "faster"
    direction: str


class Spike(NamedTuple):
    """One commit far from the commits on both sides: one bad recording, or
    a change reverted at once (re-measure it to know)."""

    benchmark: str
    machine: str
    commit: str
    index: int  # type: ignore[assignment]
    ratio: float


class Timeline(NamedTuple):
    benchmark: str
    machine: str
    unit: str
    commits: tuple[CommitPoint, ...]
    changes: tuple[Change, ...]
    spikes: tuple[Spike, ...]


class Entry(NamedTuple):
    """One recording of one benchmark: the input of :func:`build_timeline`."""

    commit: str
    date: str | None
    recording: str
    process_means: tuple[float, ...]
    #: the speed probe of each process (empty: not recorded)
    probes: tuple[float, ...] = ()
    #: how much slower the machine ran, from the probes (log scale)
    machine: float = 0.0
    #: what made the probes: only probes of one source are compared
    probe_source: str = ""
    #: the session it was recorded in (empty: alone) and each process's round
    session: str = ""
    rounds: tuple[int, ...] = ()
    #: each process's CPU share (empty: not recorded)
    shares: tuple[float, ...] = ()
    #: what detection reads (:func:`prepare`): the logs of the process means
    #: with the machine taken out, their spread factor, the commit's group
    logs: tuple[float, ...] = ()
    spread_factor: float = 1.0
    group: int | None = None

    def levels(self) -> tuple[float, ...]:
        """The logs detection reads (the process means' own, with the
        machine's speed taken out, when not prepared)."""
        return self.logs or tuple(math.log(value) - self.machine for value in self.process_means)


def _commit_groups(entries: Sequence[Entry]) -> list[list[Entry]]:
    """The entries of each commit, commits in order of first appearance."""
    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        groups.setdefault(entry.commit, []).append(entry)
    return list(groups.values())


def _point(group: Sequence[Entry]) -> CommitPoint:
    values = [value for entry in group for value in entry.process_means]
    if len(values) >= 2:
        estimate, low, high = mean_interval(values)[:3]
    else:
        estimate = values[0]
        low, high = -math.inf, math.inf
    first = group[0]
    return CommitPoint(first.commit, first.date, estimate, low, high, len(values), len(group))


def _summary(group: Sequence[Entry], drift: Mapping[str, float]) -> CommitSummary:
    """The commit's summary: its recordings' logs (:meth:`Entry.levels`),
    each recording's drift across benchmarks taken out, pooled."""
    logs = [value - drift.get(entry.recording, 0.0) for entry in group for value in entry.levels()]
    return summarize_logs(logs, max(entry.spread_factor for entry in group))


def prepare(entries: Sequence[Entry]) -> list[Entry]:
    """*entries* (one benchmark on one machine) as detection reads them:

    * the time off the CPU left out of each process mean
      (:func:`perf.analysis.interference.cpu_time_means`), when some
      process of some recording kept the CPU (code that waits by itself
      keeps its wall times);
    * the machine's speed of each recording made alone, from its processes'
      speed probes (:func:`perf.analysis.interference.probe_shifts`): the
      recordings of a session of several commits share their machine,
      which their rounds carry;
    * the round effects and offsets of sessions taken out, and each
      commit's group of commits measured together
      (:mod:`perf.analysis.sessions`)."""
    shifts = probe_shifts([entry.probes for entry in entries], [entry.probe_source for entry in entries])
    commits: dict[str, set[str]] = {}
    for entry in entries:
        if entry.session:
            commits.setdefault(entry.session, set()).add(entry.commit)
    # the benchmark keeps the CPU when some process of some recording did
    keeps_cpu = max((share for entry in entries for share in entry.shares), default=0.0) >= CPU_BOUND_SHARE
    recorded = []
    prepared = []
    for entry, shift in zip(entries, shifts):
        machine = 0.0 if len(commits.get(entry.session, ())) > 1 else shift
        means = cpu_time_means(entry.process_means, entry.shares, keeps_cpu)
        logs = tuple(math.log(value) - machine for value in means)
        recorded.append(Recorded(entry.commit, entry.session, logs, entry.rounds))
        prepared.append(entry._replace(machine=machine))
    groups = commit_groups(recorded)
    return [
        entry._replace(logs=values.logs, spread_factor=values.spread_factor, group=groups[entry.commit])
        for entry, values in zip(prepared, adjust(recorded))
    ]


def build_timeline(
    benchmark: str, machine: str, unit: str, entries: Sequence[Entry], drift: Mapping[str, float]
) -> Timeline:
    """One benchmark's timeline on one machine, its changes found."""
    groups = [group for group in _commit_groups(entries) if any(entry.process_means for entry in group)]
    points = tuple(_point(group) for group in groups)
    labels = [group[0].group for group in groups]
    together = None if None in labels else [label for label in labels if label is not None]
    found = find_changes([_summary(group, drift) for group in groups], groups=together)
    changes = tuple(
        Change(
            benchmark,
            machine,
            points[change.position - 1].commit,
            points[change.position].commit,
            change.position,
            change.comparison.ratio,
            change.comparison.low,
            change.comparison.high,
            SLOWER if change.comparison.ratio > 1 else FASTER,
        )
        for change in found.changes
    )
    spikes = tuple(
        Spike(benchmark, machine, points[spike.position].commit, spike.position, spike.ratio) for spike in found.spikes
    )
    return Timeline(benchmark, machine, unit, points, changes, spikes)


def machine_drift(table: Mapping[str, Sequence[Entry]], order: Sequence[str]) -> dict[str, float]:
    """recording -> the drift its benchmarks share (see
    :func:`perf.analysis.changepoints.recording_drift`); *table*:
    benchmark -> its entries on one machine, *order*: the recordings in
    time order."""
    series = {
        name: [
            (entry.recording, summarize_logs(entry.levels(), entry.spread_factor))
            for entry in entries
            if entry.process_means
        ]
        for name, entries in table.items()
    }
    return recording_drift(series, order)


def _by_machine(points: Iterable[StoredPoint]) -> dict[str, dict[tuple[str, str], list[Entry]]]:
    """machine -> (benchmark, unit) -> its entries, in the store's order."""
    machines: dict[str, dict[tuple[str, str], list[Entry]]] = {}
    for point in points:
        recording = point.recording
        entry = Entry(
            recording.commit,
            recording.date,
            recording.path,
            point.process_means,
            point.probes,
            probe_source=point.probe_source,
            session=point.session,
            rounds=point.rounds,
            shares=point.shares,
        )
        machines.setdefault(recording.machine, {}).setdefault((point.benchmark, point.unit), []).append(entry)
    return machines


def timelines(
    store: HistoryStore,
    benchmarks: Sequence[str] | None = None,
    machine: str | None = None,
    detect: bool = True,
) -> list[Timeline]:
    """The timelines of *store* (every benchmark, or *benchmarks*; every
    machine, or *machine*), sorted by benchmark then machine; with
    *detect* false, without changes or spikes (faster)."""
    order = [recording.path for recording in store.recordings(machine)]
    result = []
    for machine_name, found in _by_machine(store.points(None if detect else benchmarks, machine)).items():
        table = {key: prepare(entries) for key, entries in found.items()} if detect else found
        drift = machine_drift({name: entries for (name, _), entries in table.items()}, order) if detect else {}
        for (name, unit), entries in table.items():
            if benchmarks is not None and name not in benchmarks:
                continue
            if detect:
                result.append(build_timeline(name, machine_name, unit, entries, drift))
            else:
                points = tuple(_point(group) for group in _commit_groups(entries))
                result.append(Timeline(name, machine_name, unit, points, (), ()))
    return sorted(result, key=lambda timeline: (timeline.benchmark, timeline.machine))
