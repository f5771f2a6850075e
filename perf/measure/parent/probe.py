"""Ask another interpreter, once, what its workers will be.

:func:`probe_python` runs it as its workers will start (their
environment, ``python -c "import perf"``), before the CPU lock and any
worker: one that cannot import perf is reported at once, in one line, and
what it says (its implementation, the metadata its runs will carry)
chooses its budget and checks ``--append`` files.

Must not: print, or exit.
"""

from __future__ import annotations

import subprocess

from perf.errors import UsageError
from perf.measure.parent.sides import PythonProbe
from perf.measure.parent.workers import describe_exit

__all__ = ["PythonProbe", "probe_python"]


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


def probe_python(python: str, env: dict[str, str], timeout: float = 60.0) -> PythonProbe:
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
            env=env,
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
