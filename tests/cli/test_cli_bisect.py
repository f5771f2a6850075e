"""python -m perf bisect: checks before measuring, the printed steps, the
answer, --json and exit statuses (the measurements are faked: real git
worktrees, no worker)."""

from __future__ import annotations

import json
import math

import pytest
from helpers import example_repo

from perf.analysis.compare import compare_paired_process_means
from perf.cli.main import main
from perf.history.bisect import Step
from perf.history.worktrees import CommitMeasurer
from perf.render.bisect import format_answer, format_step


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return example_repo(tmp_path_factory.mktemp("bisect") / "repo", commits=8, regression=5)


@pytest.fixture
def measured(monkeypatch, repo):
    """Fake sessions: commits from the regression on are 5 % slower; the
    changed side is 0.5 % slow and fast in turn (no randomness)."""
    calls = []
    speeds = {commit: 1.05 if index >= repo.regression else 1.0 for index, commit in enumerate(repo.commits)}

    def measure(self, reference, changed):
        calls.append((reference, changed))
        self.side(reference), self.side(changed)  # the worktrees are made
        noise = [1.005 if index % 2 else 1 / 1.005 for index in range(6)]
        return [("checksum", [speeds[reference]] * 6, [speeds[changed] * factor for factor in noise])]

    monkeypatch.setattr(CommitMeasurer, "measure", measure)
    return speeds, calls


def run(capsys, *args):
    status = main(["bisect", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def test_prints_each_step_and_the_first_bad_commit(repo, capsys, measured, tmp_path):
    output = tmp_path / "bisect.json"
    status, out, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--json", output, "--", "bench.py", "-p", "6")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"BAD {repo.commits[-1][:10]} readme: mention the benchmark"
    assert lines[1].startswith("    vs GOOD: 1.05x slower [") and lines[1].endswith("(6 pairs, 1 round): different")
    assert lines[2].startswith(f"Step 1: {repo.commits[3][:10]} ")
    assert lines[3].startswith("    vs GOOD: ") and lines[4].startswith("    vs BAD:  1.05x faster")
    assert lines[5] == "    => good (6 pairs, 1 round)"
    assert lines[-1] == f"First bad commit: {repo.first_bad} checksum: cover the trailer block"
    document = json.loads(output.read_text())
    assert document["first_bad"] == repo.first_bad
    first, *candidates = document["steps"]
    assert first["commit"] == repo.commits[-1] and first["ratio_bad"] is None and first["ci_bad"] is None
    assert first["ratio_good"] == pytest.approx(1.05, rel=1e-3)
    assert [step["verdict"] for step in candidates] == ["good", "bad", "good"]
    for step in candidates:
        assert set(step) == {
            "commit",
            "subject",
            "ratio_good",
            "ci_good",
            "ratio_bad",
            "ci_bad",
            "verdict",
            "processes",
            "rounds",
        }
        assert step["ci_good"][0] <= step["ratio_good"] <= step["ci_good"][1]
        assert step["processes"] == 6
    # GOOD, BAD and 3 candidates: at most log2(7) + 3
    assert len({commit for call in measured[1] for commit in call}) == 5


def test_cannot_decide_exits_with_1(repo, capsys, measured, tmp_path):
    speeds, _ = measured
    for commit in speeds:
        speeds[commit] = 1.0
    output = tmp_path / "bisect.json"
    status, out, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--json", output, "--", "bench.py")
    assert (status, err) == (1, "")
    assert out.splitlines()[-1] == (
        f"cannot decide: GOOD and BAD perform alike; the first bad commit is one of 7: "
        f"{repo.commits[1][:10]}..{repo.commits[-1][:10]}"
    )
    assert json.loads(output.read_text())["first_bad"] is None


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
        (["HEAD~7", "HEAD", "--max-rounds", "0", "--", "bench.py"], "--max-rounds"),
    ],
)
def test_bad_input_is_refused_before_measuring(repo, capsys, measured, args, message):
    status, _out, err = run(capsys, *args[:2], "--repo", repo.path, *args[2:])
    assert status == 2
    assert err.startswith("ERROR: ") and err.count("\n") == 1
    assert __import__("re").search(message, err), err
    assert measured[1] == []


def test_not_a_git_repository(tmp_path, capsys, measured):
    status, _, err = run(capsys, "HEAD~1", "HEAD", "--repo", tmp_path, "--", "bench.py")
    assert (status, err) == (2, f"ERROR: not a git repository: {tmp_path}\n")


def test_an_existing_json_file_is_kept(repo, tmp_path, capsys, measured):
    output = tmp_path / "bisect.json"
    output.write_text("mine\n")
    status, _, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--json", output, "--", "bench.py")
    assert status == 2
    assert err == f"ERROR: {output}: the file already exists (use --replace to overwrite it)\n"
    assert output.read_text() == "mine\n"
    assert measured[1] == []
    status, _, _ = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--json", output, "--replace", "--", "bench.py")
    assert status == 0
    assert json.loads(output.read_text())["first_bad"] == repo.first_bad


def test_the_json_folder_must_exist(repo, tmp_path, capsys, measured):
    output = tmp_path / "missing" / "bisect.json"
    status, _, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--json", output, "--", "bench.py")
    assert (status, err) == (2, f"ERROR: {output}: the folder {output.parent} does not exist\n")


def test_a_failing_build_names_the_commit(repo, capsys, measured):
    status, out, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--build", "exit 3", "--", "bench.py")
    assert status == 1
    assert err.startswith(f"ERROR: {repo.commits[0][:10]}: the build 'exit 3' failed with exit status 3")
    assert out == f"Building {repo.commits[0][:10]}...\n"


def test_python_missing_in_the_worktree(repo, capsys, measured):
    status, _, err = run(capsys, "HEAD~7", "HEAD", "--repo", repo.path, "--python", "./python", "--", "bench.py")
    assert status == 2
    assert err == f"ERROR: --python: ./python: no such executable in the worktree of {repo.commits[0][:10]}\n"


def comparison(ratio):
    return compare_paired_process_means([1.0, 1.0, 1.0], [ratio * 0.99, ratio, ratio * 1.01])


def test_format_step():
    step = Step("a" * 40, "subject", comparison(1.05), comparison(1.0), comparison(1.02), "bad", 10, 2)
    lines = format_step(3, step)
    assert lines[0] == f"Step 3: {'a' * 10} subject"
    assert lines[1].startswith("    vs GOOD: 1.05x slower [")
    assert lines[2].startswith("    vs BAD:  no change [") or lines[2].startswith("    vs BAD:  1.00x")
    assert lines[3] == "    => bad (10 pairs, 2 rounds)"


def test_format_answer():
    assert format_answer("b" * 40, "the subject", None, ["b" * 40]) == f"First bad commit: {'b' * 40} the subject"
    text = format_answer(None, None, "why", ["1" * 40, "2" * 40, "3" * 40])
    assert text == f"cannot decide: why; the first bad commit is one of 3: {'1' * 10}..{'3' * 10}"
    assert math.isfinite(comparison(1.0).high)
