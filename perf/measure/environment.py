"""What a worker process starts with: its environment and the layout checks.

A worker gets a clean environment (doc/compatibility.rst, runner options): ``PATH``,
``HOME``, the temporary-folder and Windows system variables, the locale
variables unless ``--no-locale``, ``PYTHONPATH``, ``PYTHON_GIL`` and
``PYTHON_CPU_COUNT`` (as pyperf >= 2.7: a free-threaded build's GIL and
the CPU count the interpreter reports), and what ``--inherit-environ``
names (or everything with ``--copy-env``).

Layout bias (doc/design.rst, R7): the size of the environment moves
the stack, and so the alignment of everything the code touches.  Every
worker gets :data:`PADDING_VARIABLE` with a random length of 0 to 4095
bytes, so that each process samples another layout instead of all of them
sharing one; the worker records the length as ``env_padding`` metadata.

Must not: spawn processes, print.
"""

from __future__ import annotations

import os
import random
import sys
from typing import TYPE_CHECKING, Iterable, Mapping

from perf.platform.sysfs import DEFAULT, SysFS

if TYPE_CHECKING:
    from perf.measure.options import RunOptions

PADDING_VARIABLE = "PERF_ENV_PADDING"
MAX_PADDING = 4095

#: always passed on
BASE_VARIABLES = (
    "PATH",
    "HOME",
    "TEMP",
    "TMP",
    "TMPDIR",
    "COMSPEC",
    "SystemRoot",
    "SYSTEMROOT",
    "PYTHONPATH",
    "PYTHON_GIL",
    "PYTHON_CPU_COUNT",
)
LOCALE_VARIABLES = (
    "LANG",
    "LANGUAGE",
    "LC_ADDRESS",
    "LC_ALL",
    "LC_COLLATE",
    "LC_CTYPE",
    "LC_IDENTIFICATION",
    "LC_MEASUREMENT",
    "LC_MESSAGES",
    "LC_MONETARY",
    "LC_NAME",
    "LC_NUMERIC",
    "LC_PAPER",
    "LC_TELEPHONE",
    "LC_TIME",
)


def _is_installed_folder(folder: str) -> bool:
    return os.path.basename(folder) in ("site-packages", "dist-packages")


def perf_source_folder() -> str | None:
    """The folder perf was imported from, when it is not an installed
    location (a source tree or an editable install): workers need it on
    their path to import the same perf."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folder = os.path.dirname(package)
    return None if _is_installed_folder(folder) else folder


def worker_environment(
    environ: Mapping[str, str],
    *,
    inherit: Iterable[str] = (),
    copy_env: bool = False,
    locale: bool = True,
    padding: int = 0,
    extra_path: str | None = None,
) -> dict[str, str]:
    """The environment of one worker process."""
    if copy_env:
        env = dict(environ)
    else:
        names = list(BASE_VARIABLES) + (list(LOCALE_VARIABLES) if locale else []) + list(inherit)
        env = {name: environ[name] for name in names if name in environ}
    if extra_path:
        paths = env.get("PYTHONPATH", "").split(os.pathsep) if env.get("PYTHONPATH") else []
        if extra_path not in paths:
            env["PYTHONPATH"] = os.pathsep.join([extra_path, *paths])
    if not 0 <= padding <= MAX_PADDING:
        raise ValueError(f"padding must be in [0, {MAX_PADDING}], got {padding}")
    env[PADDING_VARIABLE] = "x" * padding
    return env


def runner_environment(
    options: RunOptions, environ: Mapping[str, str] = os.environ, padding: int = 0
) -> dict[str, str]:
    """The environment of a worker of a run with the *options*
    (``--inherit-environ``, ``--copy-env``, ``--no-locale``, ``--hook``),
    with perf's source folder on its path when perf is not installed."""
    inherit = list(options.inherit_environ)
    if options.hook:
        from perf.measure.hooks import PERF_RECORD_ENVIRON

        inherit += PERF_RECORD_ENVIRON
    return worker_environment(
        environ,
        inherit=inherit,
        copy_env=options.copy_env,
        locale=not options.no_locale,
        padding=padding,
        extra_path=perf_source_folder(),
    )


def random_padding(rng: random.Random) -> int:
    return rng.randint(0, MAX_PADDING)


def padding_length(environ: Mapping[str, str] = os.environ) -> int | None:
    """The padding this worker was given (None outside a perf worker)."""
    value = environ.get(PADDING_VARIABLE)
    return None if value is None else len(value)


def layout_warnings(env: Mapping[str, str], sysfs: SysFS = DEFAULT) -> list[str]:
    """Why workers would all share one memory layout, if they would."""
    warnings = []
    aslr = sysfs.read_first_line("/proc/sys/kernel/randomize_va_space") if sys.platform.startswith("linux") else None
    if aslr == "0":
        warnings.append(
            "ASLR is disabled (/proc/sys/kernel/randomize_va_space = 0): every worker gets the same memory "
            "layout, so the result holds for that layout only"
        )
    seed = env.get("PYTHONHASHSEED")
    if seed is not None and seed != "random":
        warnings.append(
            f"PYTHONHASHSEED={seed} is passed on to workers: every worker uses the same hash seed, "
            "so the result holds for that seed only"
        )
    return warnings
