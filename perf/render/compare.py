"""Text of comparisons: factors, intervals and verdicts (``compare_to``'s
sections and notes are :mod:`perf.render.compare_to` and
:mod:`perf.render.compare_notes`, its tables :mod:`perf.render.tables`).

The factor keeps pyperf's wording (``1.10x slower``, ``1.25x faster``,
``no change`` for a ratio of exactly 1) because users grep it; perf adds
the confidence interval in brackets, expressed in the same direction as
the factor (``1.25x faster [1.20x .. 1.31x]``: between 1.20 and 1.31
times faster; a bound below 1x means the other direction), and names the
verdicts that the factor alone does not say, with what they mean::

    1.10x slower [1.06x .. 1.14x]
    1.07x faster [1.009x .. 1.14x] (small change: real, but maybe less than 1%)
    1.00x faster [0.992x .. 1.003x] (no change: less than 1% either way)
    1.02x faster [0.95x .. 1.09x] (inconclusive: maybe no change, maybe more than 1%)

An interval of no width (no process varies on either side: instruction
counts of deterministic code) is *exact*, and says so::

    1.01x slower [exactly +1.01%]
    no change [exact] (same: equal in every process)

Brackets get three decimals when both bounds are under 1.1x or one of them
would print as 1.00x (``[1.00x .. 1.01x]`` says too little), and a bound
gets more (up to :data:`MAX_DECIMALS`) until it is printed on the same side
of 1x and of the margin's band as it lies: the verdict is read from the
bounds, so ``[1.01x .. 1.14x] (small change)`` must show its low bound as
``1.009x``, under the 1 % margin, and a *faster* bound of 1.0104 as
``1.0104x``, not ``1.01x``.

Must not: compute statistics, read files, or print.
"""

from __future__ import annotations

import math
from typing import Sequence

from perf.analysis.compare import Adjustment, Comparison, Verdict
from perf.analysis.finished import Section
from perf.analysis.suites import BenchmarkComparison
from perf.analysis.win_rate import WinRate
from perf.render.benchmark import format_result_value

__all__ = [
    "EXACT",
    "SAME",
    "SAME_MEANING",
    "format_bracket",
    "format_change",
    "format_factor",
    "format_mean_line",
    "format_needed",
    "format_ratio_interval",
    "format_verdict",
    "format_win_rate",
    "identical",
    "verdict_meaning",
]

#: the most decimals a bound of a bracket gets
MAX_DECIMALS = 6


def format_factor(ratio: float) -> str:
    """pyperf's factor of a ratio changed / reference."""
    if ratio == 1.0:
        return "no change"
    if ratio < 1.0:
        return f"{1.0 / ratio:.2f}x faster"
    return f"{ratio:.2f}x slower"


def _bound(value: float, decimals: int) -> str:
    if math.isinf(value):
        return "inf"
    return f"{value:.{decimals}f}x"


def _decimals(value: float, decimals: int, thresholds: Sequence[float]) -> int:
    """*decimals*, or more until *value* printed lies on the same side of
    each threshold as *value* itself."""
    if not math.isfinite(value):
        return decimals
    while decimals < MAX_DECIMALS:
        shown = float(f"{value:.{decimals}f}")
        if all((shown > limit) == (value > limit) and (shown < limit) == (value < limit) for limit in thresholds):
            break
        decimals += 1
    return decimals


#: the bracket of a comparison without an interval
NO_INTERVAL = "[no interval: fewer than 2 processes]"
#: the bracket of an exact ratio of 1
EXACT = "[exact]"


def _no_interval(comparison: Comparison) -> bool:
    return comparison.low == 0.0 and math.isinf(comparison.high)


def _exact(comparison: Comparison) -> bool:
    """An interval of no width: no process varies on either side."""
    return comparison.low == comparison.high


def _exact_percent(ratio: float) -> str:
    """``+1.01%``: an exact change, with the decimals that show it (up to
    MAX_DECIMALS: ``+0.0005%``, never ``+0.00%``)."""
    change = (ratio - 1) * 100
    decimals = 2
    while decimals < MAX_DECIMALS and float(f"{change:.{decimals}f}") == 0:
        decimals += 1
    return f"{change:+.{decimals}f}%"


def identical(comparison: Comparison) -> bool:
    """An exact ratio of 1 (no process varies, the means are equal): the
    same values in every process."""
    return _exact(comparison) and comparison.ratio == 1.0


def _base_decimals(low: float, high: float) -> int:
    """2, or 3 when both bounds are under 1.1x (either way) or one of them
    would print as 1.00x."""
    if max(high, 1.0 / low if low > 0 else math.inf) < 1.1 or "1.00" in (f"{low:.2f}", f"{high:.2f}"):
        return 3
    return 2


def _bracket(low: float, high: float, margin: float) -> str:
    decimals = _base_decimals(low, high)
    # the band [1 / (1 + margin), 1 + margin] is the same in both directions
    thresholds = (1.0, 1.0 + margin, 1.0 / (1.0 + margin))
    low_text = _bound(low, _decimals(low, decimals, thresholds))
    high_text = _bound(high, _decimals(high, decimals, thresholds))
    return f"[{low_text} .. {high_text}]"


def format_bracket(comparison: Comparison, margin: float = Verdict.DEFAULT_MARGIN) -> str:
    """``'[1.06x .. 1.14x]'``: the interval in the factor's direction, each
    bound printed on its side of 1x and of the band of +-*margin*."""
    if _no_interval(comparison):
        return NO_INTERVAL
    if _exact(comparison):
        return EXACT if comparison.ratio == 1.0 else f"[exactly {_exact_percent(comparison.ratio)}]"
    if comparison.ratio < 1.0:
        low = 1.0 / comparison.high if comparison.high > 0 else math.inf
        high = 1.0 / comparison.low if comparison.low > 0 else math.inf
    else:
        low, high = comparison.low, comparison.high
    return _bracket(low, high, margin)


def format_ratio_interval(comparison: Comparison, margin: float = Verdict.DEFAULT_MARGIN) -> str:
    """``'0.91x [0.88x .. 0.95x]'``: the ratio changed / reference (under
    1x: faster) and its interval in the same direction, with the decimals
    of :func:`format_bracket`."""
    if _no_interval(comparison) or _exact(comparison):
        return f"{comparison.ratio:.2f}x {format_bracket(comparison, margin)}"
    decimals = _base_decimals(comparison.low, comparison.high)
    return f"{comparison.ratio:.{decimals}f}x {_bracket(comparison.low, comparison.high, margin)}"


#: what an exact ratio of 1 says (its verdict is no change)
SAME = "same"
SAME_MEANING = "equal in every process"


def verdict_meaning(verdict: str, margin: float = Verdict.DEFAULT_MARGIN) -> str:
    """What a verdict says about the change, in a few words:
    ``'real, but maybe less than 1%'`` for a small change."""
    band = f"{margin * 100:g}%"
    return {
        Verdict.SLOWER: f"by more than {band}",
        Verdict.FASTER: f"by more than {band}",
        Verdict.SMALL_CHANGE: f"real, but maybe less than {band}",
        Verdict.NO_CHANGE: f"less than {band} either way",
        Verdict.INCONCLUSIVE: f"maybe no change, maybe more than {band}",
    }[verdict]


def format_change(comparison: Comparison, margin: float = Verdict.DEFAULT_MARGIN, meaning: bool = True) -> str:
    """``'1.10x slower [1.06x .. 1.14x]'`` and, when the factor does not
    say it, the verdict: with *meaning*, what it means
    (``'(small change: real, but maybe less than 1%)'``), else its name
    only (tables, figures, and lines followed by :func:`format_verdict`)."""
    text = f"{format_factor(comparison.ratio)} {format_bracket(comparison, margin)}"
    if identical(comparison):
        text += f" ({SAME}: {SAME_MEANING})" if meaning else f" ({SAME})"
    elif comparison.verdict in (Verdict.SMALL_CHANGE, Verdict.NO_CHANGE, Verdict.INCONCLUSIVE):
        if meaning:
            text += f" ({comparison.verdict}: {verdict_meaning(comparison.verdict, margin)})"
        else:
            text += f" ({comparison.verdict})"
    return text


def format_mean_line(
    titles: tuple[str, str],
    entry: BenchmarkComparison,
    index: int,
    *,
    margin: float = Verdict.DEFAULT_MARGIN,
    meaning: bool = True,
) -> str:
    """pyperf's line, ``Mean +- std dev: [ref] A +- a -> [changed] B +- b:``
    followed by :func:`format_change`, for the changed file *index* of
    *entry* (*titles*: the reference's and that file's)."""
    reference = format_result_value(entry.reference, entry.figures[0])
    changed = format_result_value(entry.changed[index], entry.figures[index + 1])
    change = format_change(entry.comparisons[index], margin, meaning=meaning)
    return f"Mean +- std dev: [{titles[0]}] {reference} -> [{titles[1]}] {changed}: {change}"


def format_needed(comparison: Comparison, margin: float) -> str:
    """``'about 60 processes per file would narrow it to +-1%'`` (or ``''``)."""
    if comparison.needed_processes is None:
        if _no_interval(comparison):
            return "needs at least 2 processes per file"
        return ""
    count = comparison.needed_processes
    about = f"more than {count}" if comparison.needed_capped else f"about {count}"
    unit = "interleaved pairs" if comparison.paired else "processes per file"
    return f"{about} {unit} would narrow it to +-{margin * 100:g}%"


def format_verdict(comparison: Comparison, margin: float, needed: bool = True) -> str:
    """One sentence: the verdict, what it means, why, the process counts,
    and with *needed* how many processes would narrow an inconclusive
    interval to +-*margin*::

        small change: real, but maybe less than 1%, since the 95% interval
        excludes 1x but reaches inside +-1%; 20 vs 20 processes; p = 2e-09
    """
    band = f"{margin * 100:g}%"
    level = f"{comparison.confidence * 100:g}%"
    if comparison.paired:
        counts = f"{comparison.reference_processes} interleaved pairs"
    else:
        counts = f"{comparison.reference_processes} vs {comparison.changed_processes} processes"
    reasons = {
        Verdict.SLOWER: f"the whole {level} interval is beyond +{band}",
        Verdict.FASTER: f"the whole {level} interval is beyond -{band}",
        Verdict.SMALL_CHANGE: f"the {level} interval excludes 1x but reaches inside +-{band}",
        Verdict.NO_CHANGE: f"the whole {level} interval is inside +-{band}",
        Verdict.INCONCLUSIVE: f"the {level} interval contains 1x and reaches beyond +-{band}",
    }
    if _exact(comparison):
        reasons = {
            Verdict.SLOWER: f"the exact ratio (no process varies) is beyond +{band}",
            Verdict.FASTER: f"the exact ratio (no process varies) is beyond -{band}",
            Verdict.SMALL_CHANGE: f"the exact ratio (no process varies) is at the edge of +-{band}",
            Verdict.NO_CHANGE: f"the exact ratio (no process varies) is inside +-{band}",
        }
    verdict = comparison.verdict
    text = f"{verdict}: {verdict_meaning(verdict, margin)}, since {reasons[verdict]}; {counts}"
    if identical(comparison):
        text = f"{SAME}: {SAME_MEANING}; {counts}"
    if math.isfinite(comparison.standard_error):
        text += f"; p = {comparison.p_value:.2g}"
    advice = format_needed(comparison, margin) if needed else ""
    if advice:
        text += f"; {advice}"
    return text


def _percent_change(ratio: float) -> str:
    return f"{abs(ratio - 1) * 100:.1f}% {'slower' if ratio >= 1 else 'faster'}"


def format_adjustment(comparison: Comparison, reference_title: str, changed_title: str) -> list[str]:
    """What a comparison of separate recordings corrected for a busy
    machine, one line each (``[]`` when nothing was corrected or skipped)::

        busy machine: the verdict uses the corrected ratio, 1.037x [1.016x .. 1.059x];
        as recorded (--no-correction): 0.950x [0.905x .. 0.997x], small change
        busy machine: 3 of 20 processes of a.json and 0 of 20 of b.json lost
        the CPU to other processes; their time off the CPU is left out
        busy machine: the machine ran 5.2% slower while b.json was recorded
        (speed probe: 1.052x [1.021x .. 1.084x]); 89% of that is taken out,
        as far as the probe is sure, and as far as this benchmark followed
        it within the recordings (slope 0.93 +- 0.05)

    When the benchmark did not follow the probe within the recordings, the
    first line says the verdict uses the ratio without the time off the CPU
    (or as recorded), in a wider interval, and the last one that nothing is
    taken out.
    """
    adjustment = comparison.adjustment
    if adjustment is None:
        return []
    lines = []
    if comparison.corrected:
        raw = adjustment.raw
        which = "the corrected ratio"
        if adjustment.untracked:
            lost = adjustment.cpu_time and any(adjustment.marked)
            which = "the ratio without the time off the CPU" if lost else "the ratio as recorded"
            which += ", in a wider interval"
        lines.append(
            f"busy machine: the verdict uses {which}, {_ratio_interval(comparison)}; "
            f"as recorded (--no-correction): {_ratio_interval(raw)}, {raw.verdict}"
        )
    if adjustment.cpu_time and any(adjustment.marked):
        (ref_marked, new_marked), (ref_count, new_count) = adjustment.marked, adjustment.processes
        lines.append(
            f"busy machine: {ref_marked} of {ref_count} processes of {reference_title} and {new_marked} of "
            f"{new_count} of {changed_title} lost the CPU to other processes; their time off the CPU is left out"
        )
    if (adjustment.machine_corrected or adjustment.untracked) and adjustment.machine is not None:
        ratio, low, high = adjustment.machine
        machine = (
            f"busy machine: the machine ran {_percent_change(ratio)} while {changed_title} was recorded "
            f"(speed probe: {ratio:.3f}x [{low:.3f}x .. {high:.3f}x])"
        )
        slope = _slope(adjustment.tracking)
        if adjustment.untracked:
            lines.append(
                f"{machine}, but this benchmark did not follow the probe within the recordings{slope}: "
                "nothing is taken out, and the interval is widened by what the probe's shift could change"
            )
        else:
            lines.append(
                f"{machine}; {adjustment.machine_weight:.0%} of that is taken out, as far as the probe is sure, "
                f"and as far as this benchmark followed it within the recordings{slope}"
            )
        if comparison.verdict == Verdict.INCONCLUSIVE:
            lines.append(
                "busy machine: an interleaved run settles it: --compare-to runs both sides in alternation, "
                "so the load hits both"
            )
    skipped = _machine_skipped(adjustment, reference_title, changed_title)
    if skipped:
        lines.append(f"busy machine: the machine's speed is not corrected for: {skipped}")
    return lines


def _slope(tracking: tuple[float, float] | None) -> str:
    """How far the benchmark followed the probe: " (slope 0.93 +- 0.05)"."""
    return "" if tracking is None else f" (slope {tracking[0]:.2f} +- {tracking[1]:.2f})"


def format_ratio_source(section: Section, correct: bool = True) -> str:
    """Which ratios a table or a figure of *section* shows: corrected for
    a busy machine (how many, and that their verdicts use them) or as
    recorded; of instruction counts, which no busy machine moves."""
    if section.entries and all(entry.reference.get_counter_source() is not None for entry in section.entries):
        return "The ratios are those of instruction counts, which a busy machine does not move: nothing is corrected."
    if not correct:
        return "The ratios are those of the times as recorded: no correction for a busy machine (--no-correction)."
    if section.corrected:
        return (
            f"{section.corrected} of {section.compared} ratios (marked 'corrected') are corrected for a busy machine "
            "(time off the CPU, a machine that ran slower by the speed probe), and their verdicts use them; "
            "--no-correction shows the ratios as recorded."
        )
    return "The ratios are those of the times as recorded: no correction for a busy machine changed them."


def _ratio_interval(comparison: Comparison) -> str:
    return f"{comparison.ratio:.3f}x [{comparison.low:.3f}x .. {comparison.high:.3f}x]"


def _machine_skipped(adjustment: Adjustment, reference_title: str, changed_title: str) -> str | None:
    """Why the speed probes of the two recordings were not compared."""
    if adjustment.interpreter_probes:
        key, one, other = adjustment.interpreters or ("python", "?", "?")
        return (
            f"{reference_title} and {changed_title} carry perf's first speed probe, which timed the interpreter "
            f"under test, and they ran different interpreters ({key}: {one} vs {other})"
        )
    if adjustment.different_probes:
        kinds = " vs ".join(adjustment.probes)
        return (
            f"the speed probes of {reference_title} and {changed_title} are of different kinds ({kinds}), "
            "whose times do not compare"
        )
    return None


def format_win_rate(rate: WinRate, paired: bool = False) -> str:
    """``'faster in 12% of process pairs [5% .. 25%]'`` (``of the
    interleaved pairs`` for an interleaved run)."""
    pairs = "the interleaved pairs" if paired else "process pairs"
    return f"faster in {rate.rate * 100:.0f}% of {pairs} [{rate.low * 100:.0f}% .. {rate.high * 100:.0f}%]"
