"""What the runner prints: progress, verbose samples, results, warnings.

Progress goes to stderr: on a terminal one line rewritten in place
(processes done / total, time left), otherwise one dot per worker.
Results go to stdout.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, Callable, Sequence, TextIO, Union

from perf.measure.child.tasks import Task
from perf.measure.options import RunOptions
from perf.measure.parent.session import SessionEvents
from perf.model.benchmark import Benchmark

#: the runner's options: checked and frozen, or a namespace
Options = Union[RunOptions, argparse.Namespace]

if TYPE_CHECKING:
    from perf.measure.child.metric import Metric
    from perf.measure.parent.saving import PartialSave
    from perf.measure.parent.schedule import Progress
    from perf.measure.parent.stopping import StoppingRule
    from perf.platform.lock import Holder


def sample_printer(task: Task, metric: Metric) -> Callable[[str, int, float], None]:
    """Verbose mode in a worker: one line per sample, as pyperf prints them,
    in the unit of the *metric* (a time is shared out between inner loops)."""
    from perf.render.units import format_value

    counts: dict[str, int] = {}
    unit = metric.unit
    inner = (task.inner_loops or 1) if metric.timed else 1

    def on_sample(kind: str, loops: int, raw: float) -> None:
        counts[kind] = counts.get(kind, 0) + 1
        value = format_value(unit, raw / (loops * inner))
        text = f"{value} (loops: {loops}, raw: {format_value(unit, raw)})"
        print(f"{kind.capitalize()} {counts[kind]}: {text}", flush=True)

    return on_sample


def _format_left(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class ProgressLine:
    """Processes done / total and time left, on stderr."""

    def __init__(self, quiet: bool, prefix: str = "", stream: TextIO | None = None, verbose: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.verbose = verbose
        self.prefix = prefix
        self.tty = self.stream.isatty()
        self.printed = False

    def update(self, progress: Any) -> None:
        """Called by the manager after each worker (a ``Progress``)."""
        output = progress.output
        self._worker_stderr(output.stderr)
        if self.quiet:
            return
        if self.verbose:
            print(f"{self.prefix}Worker {progress.done}/{progress.total}: {output.elapsed:.2f} s", flush=True)
            print(flush=True)
            return
        if self.tty:
            left = progress.elapsed / progress.done * (progress.total - progress.done)
            text = f"{self.prefix}{progress.name}: {progress.done}/{progress.total} processes"
            if progress.done < progress.total:
                text += f", {_format_left(left)} left"
            self.stream.write("\r\x1b[K" + text)
        else:
            self.stream.write(".")
        self.stream.flush()
        self.printed = True

    def show(self, text: str, stderr: str = "") -> None:
        """A worker finished, with a line of the caller's (*text*, shown on a
        terminal; a dot otherwise); *stderr*: what the worker wrote there."""
        self._worker_stderr(stderr)
        if self.quiet:
            return
        self.stream.write("\r\x1b[K" + text if self.tty else ".")
        self.stream.flush()
        self.printed = True

    def _worker_stderr(self, stderr: str) -> None:
        """A worker's stderr (the benchmarked code's warnings), above the line."""
        if stderr.strip():
            self.close()
            self.stream.write(stderr if stderr.endswith("\n") else stderr + "\n")

    def close(self) -> None:
        """End the line (a new line after the dots), if one is shown."""
        if self.printed:
            self.stream.write("\r\x1b[K" if self.tty else "\n")
            self.stream.flush()
            self.printed = False


def print_layout_warnings(options: RunOptions) -> None:
    """ASLR and hash-seed warnings, on the environment the workers get."""
    from perf.measure.environment import layout_warnings, runner_environment

    if options.quiet:
        return
    for warning in layout_warnings(runner_environment(options)):
        print(f"WARNING: {warning}", file=sys.stderr)


def _extra_displays(benchmark: Benchmark, args: Options) -> list[str]:
    lines: list[str] = []
    if args.metadata:
        from perf.render.metadata import format_metadata_lines

        lines += ["Metadata:", *("- " + line for line in format_metadata_lines(benchmark.get_metadata())), ""]
    if args.dump:
        from perf.analysis.summaries import value_figures
        from perf.render.dump import format_dump

        lines += [*format_dump(benchmark, value_figures(benchmark), quiet=args.quiet, verbose=args.verbose), ""]
    if args.hist:
        from perf.render.hist import format_histogram

        lines += [*format_histogram([(None, benchmark)]), ""]
    if args.stats:
        from perf.analysis.summaries import benchmark_stats
        from perf.render.stats import format_stats

        lines += [*format_stats(benchmark, benchmark_stats(benchmark)), ""]
    return lines


def print_result(benchmark: Benchmark, args: Options, show_name: bool, checks: bool) -> None:
    """Extra displays, stability warnings, then the result line."""
    from perf.analysis.intervals import benchmark_log_interval
    from perf.analysis.summaries import value_figures
    from perf.render.benchmark import format_result

    lines = _extra_displays(benchmark, args)
    if checks:
        lines += _check_lines(benchmark, args)
    line = format_result(benchmark, value_figures(benchmark), interval=benchmark_log_interval(benchmark))
    lines.append(f"{benchmark.get_name()}: {line}" if show_name else line)
    print("\n".join(lines), flush=True)


def _check_lines(benchmark: Benchmark, args: Options) -> list[str]:
    """The full warning block; without pyperf's "Not enough samples"
    bullet when the run stopped on precision (stops_on_precision():
    print_precision_note() says how precise it got)."""
    from perf.analysis.checks import check_benchmark
    from perf.render.checks import format_warnings

    checks = check_benchmark(benchmark)
    if stops_on_precision(args):
        checks = [check for check in checks if check.code != "sample_size"]
    if not checks:
        return []
    return [*format_warnings(checks, benchmark), ""]


def print_comparison(name: str | None, labels: Sequence[str], benchmarks: Sequence[Benchmark], args: Options) -> None:
    """``--compare-to``: both results, then the comparison: the ratio with
    its interval and verdict (paired when the runs were interleaved), as
    ``compare_to`` prints it, and a line that says what the verdict means.

    A run that stopped on precision gives no inconclusive verdict's advice
    on the pairs a +-1 % interval would need (print_precision_note() says
    how precise it got).

    The two sides are compared as every suite comparison, once
    (perf.analysis.finished.finish_comparison); sides it cannot compare (no
    values, other units or clocks) get a line that says why."""
    from perf.analysis.finished import finish_comparison
    from perf.analysis.intervals import benchmark_log_interval
    from perf.analysis.summaries import value_figures
    from perf.render.benchmark import format_result
    from perf.render.compare import format_mean_line, format_verdict

    prefix = f"{name}: " if name else ""
    for label, benchmark in zip(labels, benchmarks):
        line = format_result(benchmark, value_figures(benchmark), interval=benchmark_log_interval(benchmark))
        print(f"{label}: {prefix}{line}")
    print()
    finished = finish_comparison([[benchmark] for benchmark in benchmarks])
    for skipped in finished.incompatible:
        print(f"{prefix}not compared: {skipped.reason}")
    for entry in finished.entries:
        print(prefix + format_mean_line((labels[0], labels[1]), entry, 0, meaning=False))
        needed = not stops_on_precision(args)
        print(prefix + format_verdict(entry.comparisons[0], finished.margin, needed=needed))


def stops_on_precision(args: Options) -> bool:
    """The run has a stopping rule on precision (the default, or
    --target-precision): it chose its processes, and says why it stopped
    instead of pyperf's "Not enough samples" bullet (which asks for twice
    the precision, and would contradict it)."""
    return getattr(args, "target_precision", None) is not None or getattr(args, "precision_default", False)


def print_precision_note(args: Options, rule: StoppingRule, precision: float, count: int) -> None:
    """A run that stops on precision: why it stopped.  On precision: how
    precise it got, after how many processes (pairs with --compare-to).
    Otherwise: what stopped it, how far the interval got, and about how
    many would reach the target."""
    from perf.analysis.intervals import MAX_PROCESSES, scaled_count

    if not stops_on_precision(args):
        return
    pairs = bool(getattr(args, "compare_to", None))
    unit = "interleaved pairs" if pairs else "processes"
    reached = f"+-{precision * 100:.1f}% after {count} {unit}"
    target = rule.target
    if precision <= target:
        if not getattr(args, "quiet", False):
            print(f"Stopped on precision: {reached} (target +-{target * 100:g}%)")
        return
    if count < rule.maximum:
        limit = f"time limit, {rule.seconds:g} s of workers"
    elif getattr(args, "precision_default", False):
        limit = f"most {unit} of the default budget"
    else:
        limit = "--max-processes"
    text = f"Target precision not reached: {reached} (target +-{target * 100:g}%, stopped by the {limit})"
    needed = scaled_count(count, precision, target, ratio=pairs)
    if needed is not None:
        about = f"more than {needed}" if needed >= MAX_PROCESSES else f"about {needed}"
        text += f"; {about} {unit.rsplit(maxsplit=1)[-1]} would reach it"
    print(text)


def show_results(
    name: str | None, results: Sequence[Benchmark], options: RunOptions, labels: Sequence[str] | None
) -> None:
    """The result (or, with two sides, the comparison), and with a
    stopping rule (the default, or --target-precision) why it stopped."""
    from perf.measure.parent.stopping import stopping_rule

    rule = stopping_rule(options)
    if len(results) == 1:
        print_result(results[0], options, name is not None, checks=not options.quiet)
        if rule is not None:
            means = results[0].get_process_means()
            print_precision_note(options, rule, rule.precision(means), len(means))
        return
    assert labels is not None
    print_comparison(name, labels, results, options)
    if rule is not None:
        pairs = [benchmark.get_process_means() for benchmark in results]
        print_precision_note(options, rule, rule.paired_precision(*pairs), len(pairs[0]))


class RunEvents(SessionEvents):
    """What the runner shows of a session: progress on stderr, the wait
    for another run's CPUs, what was saved of a stopped suite."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.line: ProgressLine | None = None

    def progress(self, side: int, progress: Progress) -> None:
        if self.line is None:
            self.line = ProgressLine(self.options.quiet, verbose=self.options.verbose)
        self.line.update(progress)

    def starting(self) -> None:
        print_layout_warnings(self.options)

    def finished(self) -> None:
        """The end of a run: clear the progress line."""
        if self.line is not None:
            self.line.close()
            self.line = None

    def lock_wait(self, holders: list[Holder]) -> None:
        from perf.platform.cpus import format_cpu_list

        sys.stdout.flush()
        cpu_text = format_cpu_list(holder.cpu for holder in holders)
        print(
            f"Waiting for the benchmark running on CPU {cpu_text} ({holders[0].describe()}) to finish "
            "(--lock fail: stop instead)",
            file=sys.stderr,
            flush=True,
        )

    def partial_save(self, saved: PartialSave, *, interrupted: bool) -> None:
        for error in saved.errors:
            print(f"ERROR: {error}", file=sys.stderr)
        sys.stdout.flush()
        print(stop_line(saved, "Interrupted" if interrupted else "Stopped"), file=sys.stderr)


def stop_line(saved: PartialSave, head: str) -> str:
    """The one line that says what a stopped run saved and what it did not."""
    if not saved.complete and not saved.incomplete:
        return f"{head} before any worker finished: nothing was saved"
    marked = ", marked incomplete" if saved.where else ""
    kept = [f"{name} (complete)" for name in saved.complete]
    kept += [f"{name} ({done} of {total} processes{marked})" for name, done, total in saved.incomplete]
    where = f"saved to {saved.where}" if saved.where else "nothing was saved (no -o)"
    line = f"{head}: {where}: {', '.join(kept)}"
    if saved.not_run:
        line += f"; not run: {', '.join(saved.not_run)}"
    return line


def lock_command(program_args: Sequence[str]) -> list[str]:
    """How the CPU lock describes this run to another that waits for it:
    the command line as typed (``python -m perf timeit``, not the path of
    perf/__main__.py)."""
    import os
    import shlex

    argv = list(sys.argv)
    if tuple(program_args[:2]) == ("-m", "perf"):
        argv[:1] = ["-m", "perf"]
    return [shlex.quote(word) for word in (os.path.basename(sys.executable), *argv)]


def announce(name: str, pipe: int | None) -> None:
    """``--worker-list``: send the name of a declared benchmark."""
    import os

    from perf.measure.protocol import name_line

    line = name_line(name)
    if pipe is None:
        sys.stdout.write(line.decode("utf-8"))
        return
    while line:
        line = line[os.write(pipe, line) :]


def print_user_traceback(exc: BaseException) -> None:
    """The traceback of the benchmarked code, without perf's frames."""
    import os
    import traceback

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    error = traceback.TracebackException.from_exception(exc)
    frames = [frame for frame in error.stack if not os.path.abspath(frame.filename).startswith(package + os.sep)]
    error.stack = traceback.StackSummary.from_list(frames)
    sys.stdout.flush()
    print("".join(error.format()), end="", file=sys.stderr)
