"""The interpreters of a run: their absolute paths, and what each other one says when run once.

:func:`probe_interpreters` resolves ``--python`` and ``--compare-to``
(a reference command line for ``python -m perf command``), and
:func:`probe_python` runs each interpreter other than this one as its
workers will start (their environment, ``python -c "import perf"``),
before the CPU lock and any worker: one that cannot import perf is
reported at once, in one line, and what it says (its implementation, the
metadata its runs will carry) chooses its budget and checks ``--append``
files.

Must not: print, or exit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING, Mapping

from perf.errors import UsageError
from perf.measure.parent.sides import Probe, PythonProbe
from perf.measure.parent.workers import describe_exit

if TYPE_CHECKING:
    from perf.measure.options import RunOptions
    from perf.measure.values import RunMode

__all__ = ["PythonProbe", "probe_interpreters", "probe_python"]


def probe_interpreters(
    options: RunOptions, mode: RunMode, probe: Probe | None = None
) -> tuple[RunOptions, dict[str, PythonProbe]]:
    """*options* with the absolute paths of --python and --compare-to,
    and what each interpreter other than this one says when probed (by
    *probe*, default :func:`probe_python`) in the environment of its
    workers.  Raises :class:`~perf.errors.UsageError`."""
    import shlex

    from perf.measure.child.tasks import check_program
    from perf.measure.environment import runner_environment

    pythons = [absolute_executable(options.python, "python") if options.python else sys.executable]
    if options.compare_to and mode != "command":
        pythons.append(absolute_executable(options.compare_to, "compare_to"))
    options = options._replace(python=pythons[0], compare_to=pythons[1] if len(pythons) > 1 else options.compare_to)
    env = runner_environment(options)
    if options.compare_to and mode == "command":
        try:
            words = shlex.split(options.compare_to)
        except ValueError as exc:
            raise UsageError(f"--compare-to: {options.compare_to}: {exc}") from None
        try:
            check_program(words)
        except UsageError as exc:
            raise UsageError(f"--compare-to: {exc}") from None
    probes: dict[str, PythonProbe] = {}
    for python in pythons:
        if python == sys.executable or python in probes:
            continue
        try:
            probes[python] = (probe or probe_python)(python, env)
        except UsageError as exc:
            raise UsageError(f"--{'python' if python == options.python else 'compare-to'}: {exc}") from None
    return options, probes


def absolute_executable(executable: str, option: str) -> str:
    """An absolute path that keeps symlinks (a venv's python is one)."""
    import shutil

    found = shutil.which(executable) if os.sep not in executable else executable
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise UsageError(f"--{option.replace('_', '-')}: {executable}: no such executable")
    return os.path.normpath(os.path.abspath(found))


#: run by :func:`probe_python`: import perf (a failure ends with a
#: traceback), then print what the parent wants to know as JSON (the keys
#: are filled in; the code stays valid Python 2, to fail on the import)
_PROBE_CODE = """\
import json, sys
import perf
try:
    from perf.collect import collect_metadata
    collected = collect_metadata()
    metadata = dict((key, collected[key]) for key in KEYS if key in collected)
except Exception:
    metadata = None
sys.stdout.write("\\n" + json.dumps({"implementation": sys.implementation.name, "metadata": metadata}) + "\\n")
"""


def probe_python(python: str, env: Mapping[str, str], timeout: float = 60.0) -> PythonProbe:
    """Run *python* once with the environment *env* of its workers: check
    that it can import perf, and learn its implementation and the metadata
    its runs will record.  Raises :class:`~perf.errors.UsageError` naming
    *python* and the last line of the error when it cannot."""
    import json

    from perf.model.metadata import CHECKED_KEYS

    code = _PROBE_CODE.replace("KEYS", repr(list(CHECKED_KEYS)))
    try:
        result = subprocess.run(
            [python, "-c", code],
            env=dict(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except OSError as exc:
        raise UsageError(f"{python}: cannot run it: {exc.strerror or exc}") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"{python}: no answer within {timeout:g} s to: python -c 'import perf'") from None
    if result.returncode != 0:
        lines = [line.strip() for line in result.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        reason = lines[-1] if lines else describe_exit(result.returncode)
        raise UsageError(f"{python} cannot import perf: {reason}")
    try:
        answer = json.loads(result.stdout.decode("utf-8", "replace").rstrip().rpartition("\n")[2])
        metadata = answer["metadata"]
        return PythonProbe(str(answer["implementation"]), metadata if isinstance(metadata, dict) else None)
    except (ValueError, KeyError, TypeError):
        return PythonProbe("", None)
