"""python -m perf system show|tune|reset on fake machines (--root), and
read-only on this one."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest
from system_fakes import AMD_BOX, INTEL_LAPTOP, ISOLATED_SPLIT, MACHINES, VM, build, snapshot

from perf.cli.main import main
from perf.system.state import DEFAULT_STATE_FILE

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent


def run(capsys, *argv):
    status = main(["system", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def machine_files(root):
    """The tree without /run (the state file and the lock files live there)."""
    return {path: data for path, data in snapshot(root).items() if not path.startswith("run/")}


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_tune_then_reset_leaves_every_file_as_it_was(tmp_path, capsys, name):
    root = build(tmp_path, MACHINES[name])
    before = machine_files(root)
    status, out, err = run(capsys, "tune", "--root", root)
    assert (status, err) == (0, ""), out
    assert out.startswith("Tune the system configuration to run benchmarks\n\nActions\n=======\n\n")
    assert machine_files(root) != before  # something was tuned on every machine
    assert (root / DEFAULT_STATE_FILE.lstrip("/")).exists()
    status, out, err = run(capsys, "reset", "--root", root)
    assert (status, err) == (0, ""), out
    assert "Reset: removed " in out
    assert machine_files(root) == before
    assert not (root / DEFAULT_STATE_FILE.lstrip("/")).exists()


def test_show_on_an_untuned_vm(tmp_path, capsys):
    root = build(tmp_path, VM)
    status, out, _ = run(capsys, "show", "--root", root)
    assert status == 2
    assert out.startswith("Show the system configuration\n\nSystem state\n============\n\n")
    assert "Perf event: Maximum sample rate: 100000 per second" in out
    assert "\nAdvices\n=======\n" in out
    assert out.endswith(
        'Run "python3 -m perf system tune" to tune the system configuration to run benchmarks\n'.replace(
            "python3", os.path.basename(sys.executable)
        )
    )


def test_show_after_tune_is_ready(tmp_path, capsys):
    root = build(tmp_path, ISOLATED_SPLIT)
    assert run(capsys, "tune", "--root", root)[0] == 0
    status, out, _ = run(capsys, "--root", root)  # show is the default action
    assert status == 0, out
    assert out.endswith("OK! System ready for benchmarking\n")
    # what tune could not fix stays as a warning: CPUs 1 and 3 share their cores
    assert "CPU isolation: CPU 1 is isolated but its Hyper-Threading sibling CPU 0 is not" in out


def test_tune_twice_then_reset_restores_the_first_state(tmp_path, capsys):
    root = build(tmp_path, AMD_BOX)
    before = machine_files(root)
    run(capsys, "tune", "--root", root)
    status, out, _ = run(capsys, "tune", "--root", root)
    assert status == 0 and "\nActions\n" not in out  # nothing left to change
    run(capsys, "reset", "--root", root)
    assert machine_files(root) == before


def test_dry_run_changes_nothing(tmp_path, capsys):
    root = build(tmp_path, INTEL_LAPTOP)
    before = snapshot(root)
    status, out, _ = run(capsys, "tune", "--dry-run", "--root", root)
    assert status == 0
    assert out.startswith("Tune the system configuration to run benchmarks (dry run: nothing is written)\n")
    assert "Perf event: would write '1' into /proc/sys/kernel/perf_event_max_sample_rate" in out
    assert snapshot(root) == before


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["show", "--dry-run"], "ERROR: --dry-run applies to tune and reset"),
        (["show", "--affinity", "7"], "ERROR: --affinity: CPU 7 is not online (online: 0-1)"),
        (["show", "--affinity", "x"], "ERROR: argument --affinity: invalid CPU list 'x'"),
        (["restart"], "ERROR: argument action: invalid choice: 'restart'"),
    ],
)
def test_bad_options_are_one_line(tmp_path, capsys, argv, message):
    root = build(tmp_path, VM)
    status, out, err = run(capsys, *argv, "--root", root)
    assert status == 2 and out == ""  # usage errors
    assert err.startswith(message) and err.count("\n") == 1


def test_corrupt_state_file_is_one_line_and_changes_nothing(tmp_path, capsys):
    root = build(tmp_path, VM)
    state = root / DEFAULT_STATE_FILE.lstrip("/")
    state.parent.mkdir(parents=True)
    state.write_text("{")
    before = machine_files(root)
    status, out, err = run(capsys, "reset", "--root", root)
    assert (status, out) == (1, "")
    assert err.startswith(f"ERROR: {state}: cannot read the saved state: ") and err.count("\n") == 1
    assert machine_files(root) == before
    assert state.read_text() == "{"


def test_tune_refuses_while_a_benchmark_runs(tmp_path, capsys):
    root = build(tmp_path, VM)
    before = machine_files(root)
    status, out, err = run_with_lock_in_other_process(capsys, root)
    assert (status, out) == (1, "")
    assert err.startswith("ERROR: a benchmark is running on CPU 1 (pid ") and "system tune would change" in err
    assert machine_files(root) == before


def run_with_lock_in_other_process(capsys, root):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from perf.platform.lock import CpuLock; "
            "CpuLock([1], folder=sys.argv[1], command=['bench']).acquire(); print('locked', flush=True); "
            "sys.stdin.read()",
            str(root / "run/lock/perf"),
        ],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        return run(capsys, "tune", "--root", root)
    finally:
        holder.stdin.close()
        holder.wait(10)
        holder.stdout.close()


def _can_run_as_nobody():
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    try:
        subprocess.run([sys.executable, "-c", "pass"], user=65534, cwd="/", check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return False  # this interpreter lives where another user cannot run it (/root)
    return True


@pytest.mark.skipif(not _can_run_as_nobody(), reason="needs root and an interpreter user nobody can run")
def test_not_root_is_one_line_and_changes_nothing():
    folder = tempfile.mkdtemp()
    try:
        os.chmod(folder, 0o755)
        root = build(folder, VM)
        before = snapshot(root)
        for action in ("tune", "reset"):
            result = subprocess.run(
                [sys.executable, "-m", "perf", "system", action, "--root", str(root)],
                env=dict(os.environ, PYTHONPATH=str(ROOT)),
                capture_output=True,
                text=True,
                check=False,
                user=65534,
                cwd="/",
            )
            assert result.returncode == 1, result.stderr
            assert result.stdout == ""
            assert result.stderr == (
                f"ERROR: system {action} writes to /sys and /proc: run it as root (or use --dry-run)\n"
            )
        assert snapshot(root) == before
    finally:
        shutil.rmtree(folder)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads Linux /sys and /proc")
def test_show_on_this_machine_reads_only():
    result = subprocess.run(
        [sys.executable, "-m", "perf", "system", "show"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 2), result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.startswith("Show the system configuration\n")


def _real_files():
    paths = ["/proc/sys/kernel/perf_event_max_sample_rate", "/proc/irq/default_smp_affinity"]
    paths += [str(path) for path in sorted(pathlib.Path("/proc/irq").glob("*/smp_affinity"))]
    contents = {}
    for path in paths:
        try:
            with open(path, "rb") as file:
                contents[path] = file.read()
        except OSError:
            pass
    return contents


@pytest.mark.real_system
@pytest.mark.skipif(
    os.environ.get("PERF_TEST_REAL_SYSTEM") != "1", reason="changes this machine: set PERF_TEST_REAL_SYSTEM=1"
)
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_tune_then_reset_on_this_machine(tmp_path):
    before = _real_files()
    state = tmp_path / "state.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    tune = subprocess.run(
        [sys.executable, "-m", "perf", "system", "tune", "--state-file", str(state)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    try:
        assert "Traceback" not in tune.stderr
        assert tune.returncode in (0, 1), tune.stderr
    finally:
        reset = subprocess.run(
            [sys.executable, "-m", "perf", "system", "reset", "--state-file", str(state)],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
    assert reset.returncode == 0, reset.stdout + reset.stderr
    assert _real_files() == before
    assert not state.exists()


@pytest.mark.parametrize("action", ["show", "tune", "reset"])
def test_a_platform_without_any_knob(tmp_path, capsys, action):
    """Not Linux, or a container without /sys and /proc: nothing to do, said once."""
    status, out, err = run(capsys, action, "--root", tmp_path)
    assert (status, err) == (0, "")
    assert out.endswith("\n\nNo operation is available on this platform: nothing to show or change\n")
