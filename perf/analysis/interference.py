"""What the machine did to a recording, from the workers' own evidence.

Each worker records (perf.measure.child.interference) the share of its values'
wall time it spent on the CPU (``cpu_share``), the involuntary context
switches during its values, and a small reference workload timed before
and after its values (``speed_probe_before``/``speed_probe_after``).
Files without these keys (pyperf's, older perf's) give no evidence, which
is never read as "clean".

* :func:`summarize` counts the processes that lost the CPU: a process is
  *marked* when its share is more than :data:`LOST_SHARE` below the
  highest share of the benchmark's processes (the least disturbed one).
  This only applies when the benchmark keeps the CPU (:func:`keeps_cpu`:
  highest share >= :data:`CPU_BOUND_SHARE`, or time off the CPU that
  preemption accounts for): code that sleeps, does I/O or waits for a
  child program has a low share by nature.  With
  ``--clock cpu`` the values already leave out the time off the CPU.
* :func:`probe_ratio` compares the speed probe of two recordings: how much
  slower or faster the machine itself ran while each was made
  (:mod:`perf.analysis.recordings` corrects a comparison with it).

Which probe made the figures (``speed_probe``, issue 21): perf's first
probe (files without the key: :data:`INTERPRETER_PROBE`) timed interpreter
work in the interpreter under test, so it measured the interpreter as well
as the machine; later probes time native code of shared system libraries,
the same whatever the interpreter.  Two recordings' probes are compared
only when they have the same :func:`probe_source`: the same kind, and for
an interpreter-dependent kind the same interpreter build.

Must not: format text or print.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

from perf.analysis.compare import Comparison
from perf.analysis.statistics import median
from perf.analysis.statistics import variance as _variance
from perf.model.benchmark import Benchmark
from perf.model.run import Run

#: the kind of speed probe of runs that do not say (perf before issue 21):
#: interpreter work, timed in the interpreter under test
INTERPRETER_PROBE = "python"
#: kinds whose workload runs in the interpreter under test: their figures
#: compare only between runs of one interpreter build
INTERPRETER_DEPENDENT_PROBES = frozenset({INTERPRETER_PROBE})
#: the metadata that tells interpreter builds apart (seed 002: a patched
#: build of one version differs by its executable or its build flags)
INTERPRETER_KEYS = (
    "python_implementation",
    "python_version",
    "python_executable",
    "python_compiler",
    "python_cflags",
    "python_config_args",
)

#: a process that spent this much less of its values' time on the CPU than
#: the least disturbed process lost the CPU to something else
LOST_SHARE = 0.05
#: below this highest share, the benchmark gives the CPU away by itself
#: (sleeps, I/O, a child program): its time off the CPU is its own, unless
#: preemption accounts for it (PREEMPTION_SLICE)
CPU_BOUND_SHARE = 0.95
#: time off the CPU of at most this many seconds per involuntary context
#: switch is preemption (the scheduler gave the CPU to another process for
#: a slice: 0.3-10 ms each, measured under a saturating load), not the
#: code waiting (a benchmark that sleeps loses ~0.4 s per switch and more:
#: it is hardly ever preempted).  On a saturated machine no process keeps
#: 95 % of the CPU, and without this rule the time off the CPU was counted
#: as the code's (issue 29: a 3.12/3.11 ratio 2.3x the interleaved one).
PREEMPTION_SLICE = 0.05


class ProcessEvidence(NamedTuple):
    """One worker process: its mean value and what it saw of the machine."""

    mean: float
    #: share of the values' wall time on the CPU (None: not recorded)
    cpu_share: float | None
    #: involuntary context switches during the values (None: not recorded)
    switches: int | None
    #: geometric mean of the speed probe before and after the values, seconds
    probe: float | None
    #: wall time of the values, seconds (None: not a time)
    seconds: float | None = None


class Interference(NamedTuple):
    """How much of a recording was disturbed."""

    processes: int
    #: processes with a cpu_share (0: no evidence in the file)
    measured: int
    #: processes that lost more than LOST_SHARE of the CPU
    marked: int
    median_share: float | None
    lowest_share: float | None
    switches: int
    #: the spread of the speed probe between processes: highest / lowest
    probe_spread: float | None
    #: the values are CPU time (--clock cpu): the lost time is not in them
    cpu_clock: bool
    #: the code keeps the CPU when it can (:func:`keeps_cpu`)
    keeps_cpu: bool = False

    @property
    def applies(self) -> bool:
        """Whether marking means anything: evidence, wall clock, and code
        that keeps the CPU when it can."""
        return self.measured > 0 and not self.cpu_clock and self.keeps_cpu


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class ProbeSource(NamedTuple):
    """What made a run's speed probe: figures of two runs compare only
    when their sources are equal."""

    kind: str
    #: for an interpreter-dependent kind, the run's INTERPRETER_KEYS values
    #: (None for a missing key); () for a kind that does not depend on it
    interpreter: tuple[str | None, ...] = ()

    def key(self) -> str:
        """One line of text per source (a history index stores it): the kind,
        then the interpreter's values (metadata has no line breaks)."""
        return "\n".join([self.kind, *(value or "" for value in self.interpreter)])


def probe_kind(run: Run) -> str:
    """The kind of speed probe of *run* (:data:`INTERPRETER_PROBE` when it
    does not say)."""
    kind = run._get("speed_probe")
    return kind if isinstance(kind, str) and kind else INTERPRETER_PROBE


def probe_source(run: Run) -> ProbeSource:
    kind = probe_kind(run)
    if kind not in INTERPRETER_DEPENDENT_PROBES:
        return ProbeSource(kind)
    values = (run._get(key) for key in INTERPRETER_KEYS)
    return ProbeSource(kind, tuple(None if value is None else str(value) for value in values))


def probe_sources(benchmark: Benchmark) -> set[ProbeSource]:
    """The probe sources of the runs of *benchmark* that have values and a
    speed probe (one, unless files were appended to each other)."""
    return {
        probe_source(run) for run in benchmark.get_runs() if run.values and run._get("speed_probe_before") is not None
    }


def process_evidence(benchmark: Benchmark) -> list[ProcessEvidence]:
    """The evidence of each run with values, in the order of the runs."""
    evidence = []
    for run in benchmark.get_runs():
        if not run.values:
            continue
        share = _number(run._get("cpu_share"))
        switches = _number(run._get("involuntary_switches"))
        before, after = _number(run._get("speed_probe_before")), _number(run._get("speed_probe_after"))
        probe = math.sqrt(before * after) if before and after and before > 0 and after > 0 else None
        total = math.fsum(run.values)
        seconds = total * run.get_total_loops() if run._get("unit", "second") == "second" else None
        switches_count = None if switches is None else int(switches)
        evidence.append(ProcessEvidence(total / len(run.values), share, switches_count, probe, seconds))
    return evidence


def preempted(evidence: Sequence[ProcessEvidence]) -> bool:
    """True when the processes' time off the CPU is preemption: at most
    :data:`PREEMPTION_SLICE` seconds per involuntary context switch, over
    them all (each must record its share, switches and seconds)."""
    lost, switches = 0.0, 0
    for item in evidence:
        if item.cpu_share is None or item.switches is None or item.seconds is None:
            return False
        lost += item.seconds * (1.0 - item.cpu_share)
        switches += item.switches
    return bool(evidence) and lost <= PREEMPTION_SLICE * switches


def keeps_cpu(evidence: Sequence[ProcessEvidence], cpu_clock: bool = False) -> bool:
    """Whether the benchmark of one recording keeps the CPU when it can,
    so that its time off the CPU is the machine's: timed with the wall
    clock, and its least disturbed process had >= :data:`CPU_BOUND_SHARE`
    of the CPU, or preemption accounts for the time off it
    (:func:`preempted`: on a saturated machine no process keeps 95 %)."""
    shares = [item.cpu_share for item in evidence if item.cpu_share is not None]
    if cpu_clock or not shares:
        return False
    return max(shares) >= CPU_BOUND_SHARE or preempted(evidence)


def marked(evidence: Sequence[ProcessEvidence], cpu_clock: bool = False) -> list[bool]:
    """For each process, whether it lost the CPU (see the module doc):
    more than :data:`LOST_SHARE` below the least disturbed process, or
    below all of the CPU when preemption took it from every process."""
    shares = [item.cpu_share for item in evidence if item.cpu_share is not None]
    if not keeps_cpu(evidence, cpu_clock):
        return [False] * len(evidence)
    best = max(shares) if max(shares) >= CPU_BOUND_SHARE else 1.0
    limit = best - LOST_SHARE
    return [item.cpu_share is not None and item.cpu_share < limit for item in evidence]


def summarize(benchmark: Benchmark) -> Interference:
    """How many processes lost the CPU, and how the speed probe varied."""
    evidence = process_evidence(benchmark)
    cpu_clock = benchmark.get_clock() == "cpu"
    shares = [item.cpu_share for item in evidence if item.cpu_share is not None]
    probes = [item.probe for item in evidence if item.probe is not None]
    return Interference(
        processes=len(evidence),
        measured=len(shares),
        marked=sum(marked(evidence, cpu_clock)),
        median_share=median(shares) if shares else None,
        lowest_share=min(shares) if shares else None,
        switches=sum(item.switches or 0 for item in evidence),
        # probes of several sources (files appended to each other) do not compare
        probe_spread=max(probes) / min(probes)
        if len(probes) >= 2 and min(probes) > 0 and len(probe_sources(benchmark)) == 1
        else None,
        cpu_clock=cpu_clock,
        keeps_cpu=keeps_cpu(evidence, cpu_clock),
    )


def probe_ratio(reference: Benchmark, changed: Benchmark) -> Comparison | None:
    """The speed probe of *changed* against *reference*, as compare_to
    compares values (ratio above 1: the machine ran slower while *changed*
    was recorded), or None when either recording has fewer than 2 probes
    or their probes cannot be compared (:func:`probe_source`)."""
    if unlike_probes(probe_sources(reference), probe_sources(changed))[0] is not None:
        return None
    return machine_comparison(process_evidence(reference), process_evidence(changed))


def machine_comparison(reference: Sequence[ProcessEvidence], changed: Sequence[ProcessEvidence]) -> Comparison | None:
    from perf.analysis.compare import compare_process_means

    ref, new = ([item.probe for item in side if item.probe] for side in (reference, changed))
    if len(ref) < 2 or len(new) < 2:
        return None
    return compare_process_means(ref, new)


#: a machine correction smaller than this (log ratio) is not reported
NEGLIGIBLE_CORRECTION = 0.001


def machine_weight(shift: float, standard_error: float) -> float:
    """How much of the probe's shift (a log ratio) to correct for: its
    signal-to-noise share ``shift^2 / (shift^2 + se^2)``.  A shift well
    beyond the probe's noise is corrected in full; one within its noise
    hardly at all, so a quiet machine keeps its precision (empirical-Bayes
    shrinkage; bench/busy/busy_compare.py compared it with always and with only
    when the probe's interval excludes 1)."""
    if standard_error <= 0:
        return 1.0 if shift else 0.0
    return shift * shift / (shift * shift + standard_error * standard_error)


def cpu_means(evidence: Sequence[ProcessEvidence], cpu_time: bool) -> list[float]:
    if not cpu_time:
        return [item.mean for item in evidence]
    return [item.mean * item.cpu_share if item.cpu_share else item.mean for item in evidence]


def cpu_time_means(means: Sequence[float], shares: Sequence[float], keeps_cpu: bool | None = None) -> list[float]:
    """The process means of one recording with the time off the CPU left
    out (each times its CPU share) when the benchmark keeps the CPU, as
    :func:`compare_recordings` does; unchanged without a share for every
    process, or for code that gives the CPU away by itself.  *keeps_cpu*
    None: decided from these shares (the highest >= :data:`CPU_BOUND_SHARE`);
    a timeline decides it over all its recordings (a recording that lost the
    CPU in every process still belongs to code that keeps it)."""
    if keeps_cpu is None:
        keeps_cpu = bool(shares) and max(shares) >= CPU_BOUND_SHARE
    if len(shares) != len(means) or not shares or not keeps_cpu:
        return list(means)
    return [value * share if share > 0 else value for value, share in zip(means, shares)]


def probe_kinds(sources: set[ProbeSource]) -> str:
    return "+".join(sorted({source.kind for source in sources}))


def unlike_probes(
    reference: set[ProbeSource], changed: set[ProbeSource]
) -> tuple[str | None, tuple[str, str, str] | None]:
    """Why the probes of two recordings cannot be compared (DIFFERENT_PROBES
    or INTERPRETER_PROBES, with the first interpreter key that differs), or
    (None, None) when they can: one source, the same on both sides."""
    from perf.analysis import compare

    if len(reference) == 1 and reference == changed:
        return None, None
    if len(reference) == len(changed) == 1:
        (first,), (second,) = reference, changed
        if first.kind == second.kind:  # then their interpreters differ
            key, one, other = next(
                (key, one, other)
                for key, one, other in zip(INTERPRETER_KEYS, first.interpreter, second.interpreter)
                if one != other
            )
            return compare.INTERPRETER_PROBES, (key, one or "(unknown)", other or "(unknown)")
    return compare.DIFFERENT_PROBES, None


def probe_shifts(probes: Sequence[Sequence[float]], sources: Sequence[str] | None = None) -> list[float]:
    """How much slower (log scale) the machine ran during each recording of
    one benchmark in a timeline, from the speed probes of its processes
    (*probes*: one sequence per recording, empty when not recorded; 0 for
    those): the mean log probe against the median of the recordings whose
    probes have the same source (*sources*: :meth:`ProbeSource.key` of each
    recording; one source when None), times :func:`machine_weight`, so that
    a shift within the probe's own noise is hardly corrected (as
    :func:`compare_recordings` does for two).  Probes of different sources
    (kinds, or interpreters for perf's first probe) are never compared."""
    groups: dict[str, dict[int, tuple[float, float]]] = {}  # source -> recording -> (mean log, squared error)
    for index, values in enumerate(probes):
        logs = [math.log(value) for value in values if value > 0]
        if len(logs) >= 2:
            source = sources[index] if sources is not None else ""
            groups.setdefault(source, {})[index] = (math.fsum(logs) / len(logs), _variance(logs) / len(logs))
    shifts = [0.0] * len(probes)
    for levels in groups.values():
        if len(levels) < 2:
            continue
        reference = median([level for level, _ in levels.values()])
        for index, (level, error) in levels.items():
            shifts[index] = machine_weight(level - reference, math.sqrt(error)) * (level - reference)
    return shifts
