"""Two separate recordings compared with what their workers saw of a busy
machine (:mod:`perf.analysis.interference`): the time off the CPU left
out, and the machine's speed by the probe taken out as far as the
benchmark followed the probe within the recordings, with the correction's
own error in the interval (issue 29).

Must not: format text or print.
"""

from __future__ import annotations

import math
from typing import Sequence

from perf.analysis.compare import Comparison
from perf.analysis.distributions import normal_ppf
from perf.analysis.interference import (
    NEGLIGIBLE_CORRECTION,
    ProcessEvidence,
    cpu_means,
    keeps_cpu,
    machine_comparison,
    machine_weight,
    marked,
    probe_kinds,
    probe_sources,
    process_evidence,
    unlike_probes,
)
from perf.analysis.statistics import within_slope
from perf.model.benchmark import Benchmark


def tracking(
    means: Sequence[Sequence[float]], sides: Sequence[Sequence[ProcessEvidence]]
) -> tuple[float, float] | None:
    """How far the benchmark followed the speed probe within the
    recordings: the slope of its log process *means* (one sequence per
    recording, the time off the CPU left out where it applies) on the log
    probes of the same processes (*sides*), each recording's own level
    taken out, and the slope's standard error; None when the probe did not
    vary within them."""
    groups = [
        ([math.log(mean) for mean in side_means], [math.log(item.probe or 1.0) for item in side])
        for side_means, side in zip(means, sides)
    ]
    return within_slope(groups)


#: a slope of the benchmark on the probe this many standard errors above
#: 0 says the benchmark follows the probe (tracking)
TRACKING_Z = 2.0


#: the least tracking error: between two recordings a benchmark follows
#: the probe less closely than its processes do within one (a mix of jobs
#: loads memory and caches unlike the probe's CRC-32); calibrated on 48
#: pairs of 3.12 vs 3.11 under three loads (bench/busy/correction_study.py):
#: with the within-recording error alone, the interval held the
#: interleaved ratio in 41 of 48 pairs, with this floor in 44 (0.75: 46,
#: with intervals 15 % wider)
TRACKING_FLOOR = 0.5


def tracking_error(slope: tuple[float, float] | None) -> float | None:
    """How far the benchmark may move unlike the probe, per unit of the
    probe's shift (log scale): the distance of the within-recording *slope*
    from 1 and its standard error, in quadrature, and at least
    :data:`TRACKING_FLOOR`; None when the slope is not clearly above 0 (the
    probe's evidence is weak)."""
    if slope is None or slope[0] - TRACKING_Z * slope[1] <= 0:
        return None
    return max(TRACKING_FLOOR, math.hypot(slope[1], 1.0 - slope[0]))


def compare_recordings(reference: Benchmark, changed: Benchmark, margin: float) -> Comparison | None:
    """Compare two separate recordings with the evidence their workers
    left of a busy machine, or None when either lacks it (pyperf files,
    older perf files: the plain comparison applies).

    * Time off the CPU: on each side where the benchmark keeps the CPU
      (:func:`keeps_cpu`: its least disturbed process spent >= 95 % of its
      values' time on it, or preemption accounts for its time off it) and
      was timed with the wall clock, each process mean is multiplied by its
      CPU share: the time other processes took is left out (what ``--clock
      cpu`` measures directly).  A side whose code waits by itself (I/O,
      sleep, a child program) keeps its wall times: a change that makes the
      code wait stays visible.
    * The machine's speed: when both recordings' probes have one
      :func:`probe_source`, they are compared as values are.  How far the
      benchmark followed the probe within the recordings (:func:`tracking`)
      decides what the probe's shift may do (issue 29: a probe that tracks
      the machine under a CPU load tracks a mix of memory-heavy jobs less):

      - followed (slope clearly above 0): the log ratio is corrected by the
        probe's log ratio times :func:`machine_weight` (how clearly the
        probe moved); the probe's standard error times the same weight, and
        the tracking error (:func:`tracking_error` times the shift), add in
        quadrature;
      - not followed: the ratio stays as recorded, and the shift the probe
        could have taken out (times the weight) adds in quadrature, so the
        interval holds both readings.

      Degrees of freedom: the smaller of the two comparisons'.  Probes of
      different sources are never compared: the adjustment says why
      (``machine_skipped``).

    The returned Comparison carries an :class:`~perf.analysis.compare.Adjustment`,
    with the comparison of the times as recorded.
    """
    from perf.analysis import compare

    sides = [process_evidence(benchmark) for benchmark in (reference, changed)]
    if any(len(side) < 2 or any(item.cpu_share is None or item.probe is None for item in side) for side in sides):
        return None
    cpu_clock = reference.get_clock() == "cpu"
    # each side on its own: a change that makes the code wait (I/O, a
    # sleep) lowers every share of its side, and that time is the code's
    keeps = [keeps_cpu(side, cpu_clock) for side in sides]
    raw = compare.compare_process_means([item.mean for item in sides[0]], [item.mean for item in sides[1]], margin)
    means = [cpu_means(side, keep) for side, keep in zip(sides, keeps)]
    comparison = compare.compare_process_means(means[0], means[1], margin)
    sources = [probe_sources(benchmark) for benchmark in (reference, changed)]
    skipped, interpreters = unlike_probes(*sources)
    machine = None if skipped else machine_comparison(*sides)
    weight, slope, followed = 0.0, None, True
    if machine is not None:
        shift = math.log(machine.ratio)
        weight = machine_weight(shift, machine.standard_error)
        if weight * abs(shift) >= NEGLIGIBLE_CORRECTION:
            slope = tracking(means, sides)
            error_per_shift = tracking_error(slope)
            followed = error_per_shift is not None
            comparison = _corrected(comparison, machine, weight, error_per_shift, margin)
        if not followed or weight * abs(shift) < NEGLIGIBLE_CORRECTION:
            weight = 0.0
    adjustment = compare.Adjustment(
        marked=(sum(marked(sides[0], cpu_clock)), sum(marked(sides[1], cpu_clock))),
        processes=(len(sides[0]), len(sides[1])),
        cpu_time=any(keeps),
        machine=None if machine is None else (machine.ratio, machine.low, machine.high),
        machine_weight=weight,
        raw=raw,
        probes=(probe_kinds(sources[0]), probe_kinds(sources[1])),
        machine_skipped=skipped,
        interpreters=interpreters,
        tracking=slope,
        untracked=not followed,
    )
    return comparison._replace(adjustment=adjustment)


def _corrected(
    comparison: Comparison, machine: Comparison, weight: float, error_per_shift: float | None, margin: float
) -> Comparison:
    """*comparison* with the probe's shift taken out (*weight* of it) when
    the benchmark followed the probe (*error_per_shift* not None), or left
    in an interval widened by it.  Part of the added error does not shrink
    with more processes (the shift times the tracking error): the
    suggestion of an inconclusive verdict counts processes for the rest of
    the band, and makes none when that part alone fills it."""
    from perf.analysis import compare

    shift = math.log(machine.ratio)
    if error_per_shift is not None:
        difference = math.log(comparison.ratio) - weight * shift
        # the probe's noise in the part taken out; how far the benchmark's
        # own shift may stray from the probe's
        shrinking, fixed = (
            math.hypot(comparison.standard_error, weight * machine.standard_error),
            abs(shift) * error_per_shift,
        )
    else:
        difference = math.log(comparison.ratio)
        shrinking, fixed = comparison.standard_error, weight * abs(shift)
    error = math.hypot(shrinking, fixed)
    counts = (comparison.reference_processes, comparison.changed_processes)
    corrected = compare.t_comparison(
        difference,
        error,
        min(comparison.df, machine.df),
        variances=error**2 * counts[0],
        counts=counts,
        levels=(margin, comparison.confidence),
        method=comparison.method,
    )
    if corrected.needed_processes is None:
        return corrected
    left = math.log1p(margin) ** 2 - (normal_ppf(1 - (1 - comparison.confidence) / 2) * fixed) ** 2
    if left <= 0:
        return corrected._replace(needed_processes=None)
    needed = compare.needed_processes(shrinking**2 * counts[0], math.sqrt(left), comparison.confidence)
    return corrected._replace(needed_processes=needed)
