"""python -m perf bisect: checks before measuring, the printed steps, the
answer, --json, --budget, -b and exit statuses (the measurements are
faked: real git worktrees, no worker)."""

from __future__ import annotations

import json
import re

import pytest
from helpers import example_repo

import perf
from perf.analysis.compare import compare_paired_process_means
from perf.cli.bisect import parse_duration
from perf.cli.main import main
from perf.history.bisect import CLEAREST, Choice, Estimate, Judgement, Step
from perf.history.worktrees import CommitMeasurer
from perf.render.bisect import format_answer, format_choice, format_duration, format_more, format_step


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return example_repo(tmp_path_factory.mktemp("bisect") / "repo", commits=8, regression=5)


class Fake:
    """Fake sessions: commits from the regression on are 5 % slower (of
    benchmark "checksum"; "other" never changes); each commit's process
    means move 0.5 % up and down in turn, one commit in two the other way
    (no randomness)."""

    def __init__(self, repo):
        self.speeds = {commit: 1.05 if index >= repo.regression else 1.0 for index, commit in enumerate(repo.commits)}
        self.index = {commit: index for index, commit in enumerate(repo.commits)}
        self.names = ["checksum"]
        self.calls = []
        self.spread = 1.005

    def benchmark(self, name, commit, rounds, session):
        runs = []
        for round_ in range(1, rounds + 1):
            speed = self.speeds[commit] if name == "checksum" else 1.0
            value = speed * self.spread ** (1 if (round_ + self.index[commit]) % 2 else -1) * 1e-3
            metadata = {"name": name, "ab_pair": round_, "ab_seed": session, "cpu_share": 0.99}
            runs.append(perf.Run([value], metadata=metadata, collect_metadata=False))
        return perf.Benchmark(runs)


@pytest.fixture
def fake(monkeypatch, repo):
    state = Fake(repo)

    def benchmarks(self, commit):
        self.side(commit)
        return list(state.names)

    def rounds(self, commits, benchmarks=None, rounds=None, events=None):
        for commit in commits:
            self.side(commit)  # the worktrees are made
        state.calls.append((list(commits), benchmarks, rounds))
        chosen = list(state.names if benchmarks is None else benchmarks)
        return [[state.benchmark(name, commit, rounds, len(state.calls)) for commit in commits] for name in chosen]

    monkeypatch.setattr(CommitMeasurer, "benchmarks", benchmarks)
    monkeypatch.setattr(CommitMeasurer, "rounds", rounds)
    return state


def run(capsys, *args):
    status = main(["bisect", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def test_prints_each_step_and_the_first_bad_commit(repo, capsys, fake, tmp_path):
    output = tmp_path / "bisect.json"
    status, out, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--json", output, "--", "bench.py", "-p", "6")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "Step 1, session 1: GOOD, BAD and 3 commits, 6 rounds (0 sec of 20 min spent)"
    assert lines[1] == "Benchmark: checksum (the script's only one)"
    assert lines[2].startswith("Step 1: 1 session, 6 rounds, ")
    assert lines[3].startswith("    BAD vs GOOD: 1.05x slower [") and lines[3].endswith(": different")
    assert lines[4] == f"    {repo.commits[2][:10]} {subject(repo, 2)}"
    assert lines[5].startswith("        vs GOOD: ") and ", vs BAD: 1.05x faster [" in lines[5]
    assert re.fullmatch(
        r"        vs their midpoint: 0\.97\dx \[0\.9\d\dx \.\. 0\.9\d\dx\] at 99% \(6 rounds\) => good", lines[6]
    )
    assert f"First bad commit: {repo.first_bad} checksum: cover the trailer block" == lines[-1]
    assert lines[-2].startswith("Measured 5 commits in ")
    document = json.loads(output.read_text())
    assert document["first_bad"] == repo.first_bad and document["reason"] is None
    assert document["benchmark"] == "checksum" and document["more"] is None
    assert document["references"]["ratio"] == pytest.approx(1.05, rel=1e-3)
    assert document["measured"] == 5 and document["budget"] == 1200
    first, *_ = document["steps"]
    assert [candidate["commit"] for candidate in first["candidates"]] == [repo.commits[i] for i in (2, 4, 5)]
    assert [candidate["verdict"] for candidate in first["candidates"]] == ["good", "good", "bad"]
    for candidate in first["candidates"]:
        assert set(candidate) == {
            "commit",
            "subject",
            "ratio_good",
            "ci_good",
            "ratio_bad",
            "ci_bad",
            "position",
            "ci_position",
            "verdict",
            "rounds",
        }
        assert candidate["ci_good"][0] <= candidate["ratio_good"] <= candidate["ci_good"][1]
    # every session: GOOD and BAD first
    assert all(commits[:2] == [repo.commits[0], repo.commits[-1]] for commits, _, _ in fake.calls)


def subject(repo, index):
    import subprocess

    command = ["git", "log", "-1", "--format=%s", repo.commits[index]]
    return subprocess.run(command, cwd=repo.path, capture_output=True, text=True, check=True).stdout.strip()


def test_alike_references_cannot_decide_and_exit_with_1(repo, capsys, fake, tmp_path):
    for commit in fake.speeds:
        fake.speeds[commit] = 1.0
    fake.spread = 1.001
    output = tmp_path / "bisect.json"
    status, out, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--json", output, "--", "bench.py")
    assert (status, err) == (1, "")
    assert out.splitlines()[-1] == (
        f"cannot decide: GOOD and BAD perform alike; the first bad commit is one of 7: "
        f"{repo.commits[1][:10]}..{repo.commits[-1][:10]}"
    )
    assert json.loads(output.read_text())["first_bad"] is None


def test_a_spent_budget_says_how_much_more_would_decide(repo, capsys, fake, monkeypatch):
    fake.spread = 1.2  # +-20 %: a 5 % difference needs more rounds than the budget allows
    clock = iter(range(0, 10**6, 5))
    monkeypatch.setattr("time.monotonic", lambda: float(next(clock)))
    status, out, _ = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--budget", "1m", "--", "bench.py")
    assert status == 1
    lines = out.splitlines()
    assert lines[-2].startswith("cannot decide: the budget is spent: GOOD and BAD cannot be told apart yet after ")
    assert re.fullmatch(
        r"About .* more would likely decide it \(\d+ more rounds of 5 commits, .* each\): try --budget \d+[smh].*\.",
        lines[-1],
    ), lines[-1]


def test_several_benchmarks_follow_the_clearest_and_say_why(repo, capsys, fake):
    fake.names = ["other", "checksum"]
    status, out, _ = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--", "bench.py")
    assert status == 0
    (line,) = [line for line in out.splitlines() if line.startswith("Following")]
    assert line.startswith(
        "Following checksum, the benchmark whose interval of BAD against GOOD lies furthest from 1 (1.05x slower ["
    )
    assert "; the others: other no change [" in line or "; the others: other 1.00x" in line
    assert fake.calls[0][1] is None and all(benchmarks == ["checksum"] for _, benchmarks, _ in fake.calls[1:])


def test_the_benchmark_given_is_followed(repo, capsys, fake):
    fake.names = ["other", "checksum"]
    status, out, _ = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "-b", "checksum", "--", "bench.py")
    assert status == 0
    assert "Benchmark: checksum (-b)" in out.splitlines()
    assert all(benchmarks == ["checksum"] for _, benchmarks, _ in fake.calls)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "HEAD", "--", "bench.py"], "unknown revision: nope"),
        (["HEAD~7", "nope", "--", "bench.py"], "unknown revision: nope"),
        (["HEAD", "HEAD~7", "--", "bench.py"], r"\(GOOD\) is not an ancestor of .* \(BAD\)"),
        (["HEAD~7", "HEAD"], "missing the command to measure: add -- and a bench script"),
        (["HEAD~7", "HEAD", "--"], "missing the command to measure after --"),
        (["HEAD~7", "HEAD", "--", "-c", "pass"], "must be a bench script or -m perf timeit, not -c"),
        (["HEAD~7", "HEAD", "--", "bench.py", "-o", "x.json"], "-o cannot be given after --"),
        (["HEAD~7", "HEAD", "--", "bench.py", "-p", "0"], "after --: argument -p/--processes"),
        (["HEAD~7", "HEAD", "--", "bench.py", "-p", "1"], "after --: -p must be at least 2"),
        (["HEAD~7", "HEAD", "--budget", "0", "--", "bench.py"], "argument --budget: must be more than 0 seconds"),
        (["HEAD~7", "HEAD", "--budget", "soon", "--", "bench.py"], "argument --budget: expected a duration such as"),
        (["HEAD~7", "HEAD", "--budget", "5x", "--", "bench.py"], "argument --budget: expected a duration"),
        (["HEAD~7", "HEAD", "-b", "a", "-b", "b", "--", "bench.py"], "bisect follows one benchmark: -b was given 2"),
        (["HEAD~7", "HEAD", "-b", "nope", "--", "bench.py"], r"-b nope: the script has no such benchmark \(its "),
        (["HEAD~7", "HEAD", "--max-rounds", "3", "--", "bench.py"], "unrecognized arguments: --max-rounds"),
    ],
)
def test_bad_input_is_refused_before_measuring(repo, capsys, fake, args, message):
    fake.names = ["checksum", "other"]
    status, _out, err = run(capsys, *args[:2], "--repo", repo.path, *args[2:])
    assert status == 2
    assert err.startswith("ERROR: ") and err.count("\n") == 1, err
    assert re.search(message, err), err
    assert fake.calls == []


def test_an_unknown_benchmark_names_the_scripts(repo, capsys, fake):
    fake.names = ["checksum", "other"]
    status, _, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "-b", "nope", "--", "bench.py")
    assert (status, err) == (2, "ERROR: -b nope: the script has no such benchmark (its benchmarks: checksum, other)\n")


def test_not_a_git_repository(tmp_path, capsys, fake):
    status, _, err = run(capsys, "HEAD~1", "HEAD", "--repo", tmp_path, "--", "bench.py")
    assert (status, err) == (2, f"ERROR: not a git repository: {tmp_path}\n")


def test_an_existing_json_file_is_kept(repo, tmp_path, capsys, fake):
    output = tmp_path / "bisect.json"
    output.write_text("mine\n")
    status, _, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--json", output, "--", "bench.py")
    assert status == 1
    assert err == f"ERROR: {output}: the file already exists (use --replace to overwrite it)\n"
    assert output.read_text() == "mine\n"
    assert fake.calls == []
    status, _, _ = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--json", output, "--replace", "--", "bench.py")
    assert status == 0
    assert json.loads(output.read_text())["first_bad"] == repo.first_bad


def test_the_json_folder_must_exist(repo, tmp_path, capsys, fake):
    output = tmp_path / "missing" / "bisect.json"
    status, _, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--json", output, "--", "bench.py")
    assert (status, err) == (2, f"ERROR: {output}: the folder {output.parent} does not exist\n")


def test_a_failing_build_names_the_commit(repo, capsys, fake):
    status, out, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--build", "exit 3", "--", "bench.py")
    assert status == 1
    assert err.startswith(f"ERROR: {repo.commits[0][:10]}: the build 'exit 3' failed with exit status 3")
    assert out == f"Building {repo.commits[0][:10]}...\n"


def test_python_missing_in_the_worktree(repo, capsys, fake):
    status, _, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--python", "./python", "--", "bench.py")
    assert status == 2
    assert err == f"ERROR: --python: ./python: no such executable in the worktree of {repo.commits[0][:10]}\n"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("20m", 1200),
        ("900s", 900),
        ("900", 900),
        ("1h30m", 5400),
        ("1.5h", 5400),
        ("2m30s", 150),
        (" 45S ", 45),
        ("20 min", 1200),
        ("1 hour 5 minutes", 3900),
        ("90 sec", 90),
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "5x", "-5m", "1h1h", "m", "1.5.2s", "20 min later"])
def test_parse_duration_refuses(text):
    import argparse

    with pytest.raises(argparse.ArgumentTypeError, match="expected a duration such as 20m"):
        parse_duration(text)


@pytest.mark.parametrize(
    ("seconds", "text"), [(59.2, "60s"), (150, "3m"), (1200, "20m"), (3600, "1h"), (5401, "1h31m")]
)
def test_format_duration_reads_back(seconds, text):
    assert format_duration(seconds) == text
    assert parse_duration(text) >= seconds


def comparison(ratio):
    return compare_paired_process_means([1.0, 1.0, 1.0], [ratio * 0.99, ratio, ratio * 1.01])


def test_format_step():
    judgement = Judgement("a" * 40, "subject", comparison(1.05), comparison(1.0), comparison(1.02), "bad", 20)
    step = Step(2, comparison(1.05), "different", (judgement,), ("a" * 40, "b" * 40), 2, 20, 75.0)
    lines = format_step(step)
    assert lines[0] == "Step 2: 2 sessions, 20 rounds, 1 min 15.0 sec"
    assert lines[1].startswith("    BAD vs GOOD: 1.05x slower [") and lines[1].endswith("]: different")
    assert lines[2] == f"    {'a' * 10} subject"
    assert lines[3].startswith("        vs GOOD: 1.05x slower [") and ", vs BAD: 1.00x faster [" in lines[3]
    assert lines[4].startswith("        vs their midpoint: 1.020x [") and lines[4].endswith("at 95% (20 rounds) => bad")
    assert lines[5] == f"    2 commits left: {'a' * 10}..{'b' * 10}"


def test_format_choice_names_the_others():
    choice = Choice("b", CLEAREST, (("a", comparison(1.0)), ("b", comparison(1.11))))
    text = format_choice(choice)
    assert text.startswith("Following b, the benchmark whose interval of BAD against GOOD lies furthest from 1 (1.11x")
    assert "; the others: a " in text


def test_format_more():
    text = format_more(Estimate(24, 3, 15.0), spent=1200)
    assert (
        text
        == "About 6 min more would likely decide it (24 more rounds of 3 commits, 15.0 sec each): try --budget 26m."
    )


def test_format_answer():
    assert format_answer("b" * 40, "the subject", None, ["b" * 40]) == f"First bad commit: {'b' * 40} the subject"
    text = format_answer(None, None, "why", ["1" * 40, "2" * 40, "3" * 40])
    assert text == f"cannot decide: why; the first bad commit is one of 3: {'1' * 10}..{'3' * 10}"


def test_format_summary_says_how_far_the_rounds_moved():
    from perf.history.bisect import BisectResult
    from perf.render.bisect import format_summary

    result = BisectResult(None, (), "why", (), None, None, (0.062, 0.248), True, 109.3, 1200.0, None)
    assert format_summary(result) == (
        "Measured 2 commits in 1 min 49.3 sec (budget 20 min); with the time off the CPU left out, "
        "BAD/GOOD moved 6.2 % from round to round (24.8 % as timed)."
    )
    as_timed = result._replace(cpu_time=False, spread=(0.061, 0.061))
    assert format_summary(as_timed).endswith("(budget 20 min); BAD/GOOD moved 6.1 % from round to round.")
