"""Builders shared by the tests (tests/ is on sys.path through pytest's
``pythonpath`` setting)."""

from __future__ import annotations

import doctest
from pathlib import Path

from perf.platform.sysfs import SysFS


def make_tree(root: Path, files: dict[str, str]) -> SysFS:
    """A fake system root: *files* maps paths such as ``"proc/loadavg"``
    to their text; returns a SysFS reading below *root*."""
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return SysFS(root)


class FakeClock:
    """A clock for deterministic timing tests: each call advances the time
    by *step* seconds, rounded down to multiples of *tick* (a coarse clock)."""

    def __init__(self, step: float = 1e-7, tick: float = 0.0, start: float = 1000.0) -> None:
        self.step = step
        self.tick = tick
        self.now = start
        self.calls = 0

    def __call__(self) -> float:
        self.calls += 1
        self.now += self.step
        if self.tick:
            return (self.now // self.tick) * self.tick
        return self.now


def runner_given(argv):
    """Runner options parsed as a bench script's parser does, not checked."""
    from perf.cli.main import ArgumentParser
    from perf.measure.arguments import add_runner_arguments
    from perf.measure.options import RunOptions
    from perf.measure.values import DEFAULT_BUDGET

    parser = ArgumentParser(prog="bench")
    add_runner_arguments(parser, DEFAULT_BUDGET, 1, 0, 0.1)
    return RunOptions.parsed(vars(parser.parse_args(argv)))


def module_imports(relative_path):
    """The modules a source file of perf imports (``perf/analysis/x.py``),
    read from its syntax tree: ``import a.b`` and ``from a.b import c``."""
    import ast

    path = Path(__file__).resolve().parents[1] / relative_path
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    return imported


def example_repo(path, commits, regression, slowdown=0.05):
    """bench/history/example_repo.py's git repository in *path* (a pure-Python
    checksum module, *regression*: the first commit made *slowdown*
    slower); its ExampleRepo."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "example_repo", Path(__file__).resolve().parent.parent / "bench" / "history" / "example_repo.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_example_repo(str(path), commits=commits, regression=regression, slowdown=slowdown)


def busy_recording(path, machine, hit=(), processes=10, speed=1.0, **metadata):
    """Write a recording of a benchmark "loop" with the workers' evidence
    of a busy machine to *path*: *machine* how much slower the machine ran
    (values and speed probe alike), *speed* how much slower the code ran
    (values only), *hit* the processes that kept 70 % of
    the CPU; *metadata* goes into every run (``speed_probe``, the
    interpreter's keys).  Returns the path as a str."""
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run
    from perf.storage.files import dump

    runs = []
    for process in range(processes):
        share = 0.7 if process in hit else 0.999
        # the machine's state of each process moves its values and its
        # probe alike (the benchmark follows the probe within a recording)
        state = 1 + 0.002 * (process % 4)
        value = 1e-6 * speed * machine * state * (1 + 0.0005 * (process % 3)) / (share / 0.999)
        probe = 1e-4 * machine * state * (1 + 0.0002 * (process % 5))
        run_metadata = {"name": "loop", "cpu_share": share, "speed_probe_before": probe, "speed_probe_after": probe}
        run_metadata.update(metadata)
        runs.append(Run([value, value * 1.001], metadata=run_metadata, collect_metadata=False))
    dump(Benchmark(runs), str(path))
    return str(path)


def fake_measurer():
    """A CommitMeasurer whose sessions run no worker (for history record):
    the worktrees, builds and ``--python`` are real; each commit's process
    means are the size of its checksum.py in microseconds, one per round,
    with the round and the seed a session records.  ``--fail`` in the
    measured command fails the first commit of a session as a worker would.
    Returns the class; its ``sessions`` list logs the commits of each session."""
    import os
    from typing import ClassVar

    from perf.errors import WorkerError
    from perf.history.git import short
    from perf.history.worktrees import CommitMeasurer
    from perf.measure.parent.schedule import Progress
    from perf.measure.parent.workers import WorkerOutput
    from perf.model.benchmark import Benchmark
    from perf.model.run import Run

    class FakeMeasurer(CommitMeasurer):
        #: the commits of each session, shared by every measurer of this class
        sessions: ClassVar[list[list[str]]] = []

        def record(self, commits, events=None, on_listed=None):
            sides = [self.side(commit) for commit in commits]  # worktree, build, --python
            self.sessions.append(list(commits))
            seed = 76 + len(self.sessions)  # each session its own, as a real one
            rounds = self.command.plan.options.processes
            if "--fail" in self.command.extra:
                raise WorkerError(f"worker 1/{rounds} of 'checksum' ({short(commits[0])}) failed with exit code 1")
            if on_listed is not None:
                on_listed(["checksum"])
            benchmarks = []
            for commit, side in zip(commits, sides):
                size = os.path.getsize(os.path.join(side.cwd, "checksum.py"))
                # two commits of identical code still write different files, as real runs do
                metadata = {"name": "checksum", "loops": 1, "ab_seed": seed, "fake_commit": commit}
                runs = [
                    Run([size * 1e-6, size * 1.01e-6], metadata={**metadata, "ab_pair": number}, collect_metadata=False)
                    for number in range(1, rounds + 1)
                ]
                benchmarks.append(Benchmark(runs))
            for number in range(rounds):
                for index in range(len(commits)):
                    output = WorkerOutput(benchmarks[index], "", 0.1)
                    if events is not None:
                        events.progress(index, Progress("checksum", number + 1, rounds, output, 0.1))
            return ["checksum"], [benchmarks]

    return FakeMeasurer


def fake_hook_package(folder: Path) -> None:
    """An installed package of hooks, as pip leaves one in *folder*: a
    module and a dist-info folder whose entry points name its classes, in
    both groups.  ``only_pyperf`` (``pyperf.hook`` only) adds the metadata
    ``fake_hook: ran`` to the runs of its worker."""
    (folder / "fake_perf_hooks.py").write_text(
        "from perf.measure.hooks import HookBase\n"
        "class PyperfOnly(HookBase):\n"
        "    def teardown(self, metadata):\n"
        "        metadata['fake_hook'] = 'ran'\n"
        "class BothPyperf(HookBase): pass\n"
        "class BothPerf(HookBase): pass\n"
    )
    info = folder / "fake_perf_hooks-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-perf-hooks\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[pyperf.hook]\n"
        "only_pyperf = fake_perf_hooks:PyperfOnly\n"
        "both = fake_perf_hooks:BothPyperf\n"
        "perf_record = fake_perf_hooks:BothPyperf\n"
        "\n[perf.hook]\n"
        "both = fake_perf_hooks:BothPerf\n"
    )


#: the documentation
DOC = Path(__file__).resolve().parent.parent / "doc"

#: the title of api.rst's section whose examples start workers
FROM_CODE = "Running benchmarks from code"


def doc_page(page: str) -> str:
    return (DOC / page).read_text(encoding="utf-8")


def doc_section(page: str, title: str) -> str:
    """The section *title* of *page*: from its title to the next title of
    the same level (a line of dashes under a line of text)."""
    lines = doc_page(page).splitlines(keepends=True)
    start = next(index for index, line in enumerate(lines) if line.rstrip("\n") == title)
    end = next(
        (
            index - 1
            for index in range(start + 2, len(lines))
            if set(lines[index].rstrip("\n")) == {"-"} and lines[index - 1].strip()
        ),
        len(lines),
    )
    return "".join(lines[start:end])


def run_doctests(text: str, name: str) -> None:
    """Run the examples of *text* (the page or section *name*)."""
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, name, name, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.REPORT_NDIFF, verbose=False)
    runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted > 0, f"no example found in {name}"
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples of {name} failed (see stdout)"


def render_page(files, *args, **kwargs):
    """The HTML report of *files* with what is said of the files computed
    first, as ``python -m perf report`` does."""
    from perf.analysis.summaries import summarize_files
    from perf.render.html.page import render_report
    from perf.render.plots.distribution import panel_names

    summaries = summarize_files([suite for _title, suite in files], panel_names(files))
    return render_report(files, *args, summaries=summaries, **kwargs)


def fake_probe(python, env):
    """A probe of another interpreter that runs nothing: a CPython."""
    from perf.measure.parent.sides import PythonProbe

    return PythonProbe("cpython", None)


def parse_options(
    argv, *, budget=None, warmups=1, loops=0, min_time=0.1, mode="script", plan=True, program=(), hooks=()
):
    """Runner options of the command line *argv*, parsed and checked as a
    bench script's Runner does (*budget*, *warmups*, *loops*, *min_time*:
    its ``Runner(...)`` defaults, *hooks* its hook descriptors); *plan*: also
    checked against this machine and the other interpreters (probed by
    :func:`fake_probe`)."""
    from perf.cli.main import ArgumentParser
    from perf.measure.arguments import add_runner_arguments
    from perf.measure.options import RunOptions, check_options
    from perf.measure.plan import plan_run
    from perf.measure.values import DEFAULT_BUDGET, GivenBudget

    budget = budget or DEFAULT_BUDGET
    parser = ArgumentParser(prog="bench")
    add_runner_arguments(parser, budget, warmups, loops, min_time)
    defaults = GivenBudget(budget.processes, budget.values, warmups)
    values = vars(parser.parse_args(argv))
    if not plan:
        return check_options(RunOptions.parsed(values), mode, defaults, jit=False, hooks=hooks)
    plan = plan_run(
        values, mode, ("bench.py",), program=program, defaults=defaults, jit=False, hooks=hooks, probe=fake_probe
    )
    return plan.options


#: a fleet's history (history publish): b1 is 20 % slower from this commit on
FLEET_CHANGE_AT = 20


def fleet_commit(index):
    return f"{index:02d}" + "c" * 38


def fleet_result(path, index, host, names=("b1", "b2", "b3")):
    """A result file of commit number *index* recorded on *host*: each
    benchmark of *names* with 8 processes, b1 20 % slower from
    :data:`FLEET_CHANGE_AT` on."""
    import random

    import perf
    from perf.storage import files

    rng = random.Random(f"{index}-{host}")
    benchmarks = []
    for number, name in enumerate(names):
        mean = (1 + number) * 1e-3 * (1.2 if name == "b1" and index >= FLEET_CHANGE_AT else 1.0)
        metadata = {
            "name": name,
            "commit_id": fleet_commit(index),
            "commit_date": f"2026-10-{1 + index // 24:02d}T{index % 24:02d}:00:00+00:00",
            "commit_branch": "main",
            "hostname": host,
        }
        runs = [
            perf.Run([mean * (1 + rng.gauss(0, 0.003)) for _ in range(2)], metadata=metadata, collect_metadata=False)
            for _ in range(8)
        ]
        benchmarks.append(perf.Benchmark(runs))
    files.dump(perf.BenchmarkSuite(benchmarks), str(path))
    return str(path)


def fleet_store(tmp_path, commits=30, machines=("m1", "m2")):
    """A history store of *machines*' histories of *commits* commits."""
    from perf.cli.main import main

    store = tmp_path / "store"
    results = [fleet_result(tmp_path / f"{host}-{i}.json", i, host) for i in range(commits) for host in machines]
    assert main(["history", "add", str(store), *results]) == 0
    return store


def history_cli(capsys, *args):
    """``python -m perf history ARGS`` in this process: status, stdout, stderr."""
    from perf.cli.main import main

    status = main(["history", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def chromium(tmp_path, url, *flags):
    """Headless Chromium on *url* with *flags* (``--dump-dom``,
    ``--screenshot=...``): its completed process, and the console errors
    the page logged."""
    import subprocess

    command = [
        "chromium",
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
        *flags,
        url,
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    log = result.stdout + result.stderr
    return result, [line for line in log.splitlines() if "Uncaught" in line or "ERROR:CONSOLE" in line]
