"""The tools compared and the interpreters they run in: where they are,
what they are, in which order the sides of a round run."""

from __future__ import annotations

import argparse
import glob
import os
import random
import shutil
import subprocess
from typing import Iterator, Sequence, TypeVar

from kit.run import perf_env, stdout_of

T = TypeVar("T")

#: the pytest experiments' interpreters: a venv with pytest-benchmark and
#: without perf, and a venv with perf and without pytest-benchmark (so that
#: the ``benchmark`` fixture is perf's)
PTB_PYTHON = "/work/venv-ptb/bin/python"
PERF_PYTHON = "/work/venv-perf/bin/python"
PYTEST_TOOLS = ("ptb", "perf")
LABELS = {"ptb": "pytest-benchmark", "perf": "perf"}


def add_pytest_tools(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """Add ``--tools``, ``--ptb-python`` and ``--perf-python`` to *parser*,
    parse, and check ``--tools`` (a tuple in the namespace)."""
    parser.add_argument("--tools", default="ptb,perf", help="which tools: ptb, perf or ptb,perf (default)")
    parser.add_argument("--ptb-python", default=PTB_PYTHON, help=f"with pytest-benchmark (default: {PTB_PYTHON})")
    parser.add_argument("--perf-python", default=PERF_PYTHON, help=f"with perf's plugin (default: {PERF_PYTHON})")
    args = parser.parse_args()
    args.tools = tuple(tool for tool in args.tools.split(",") if tool)
    if not args.tools or any(tool not in PYTEST_TOOLS for tool in args.tools):
        parser.error("--tools: ptb, perf or ptb,perf")
    return args


def versions(python: str, packages: str) -> str:
    """``3.11.7 pytest 9.2.0 perf 3.0.0``: *python*'s version and its
    *packages*' (space-separated names)."""
    code = (
        "import importlib.metadata as m, sys\n"
        f"print(sys.version.split()[0], *(f'{{p}} {{m.version(p)}}' for p in {packages.split()!r}))"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False, env=perf_env(tree=None))
    return done.stdout.strip() or done.stderr.strip().splitlines()[-1]


def has_module(python: str, module: str, env: dict[str, str] | None = None) -> bool:
    """*python* imports *module* (pyperf: is there a rival to run?)."""
    env = perf_env() if env is None else env
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True, env=env, check=False).returncode == 0


def python_label(python: str) -> str:
    """``CPython 3.11.7``."""
    code = "import sys, platform; print(platform.python_implementation(), sys.version.split()[0])"
    return stdout_of([python, "-c", code]).strip()


def pyenv_pythons(only: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """[(name, path)]: the newest CPython 3.9 .. 3.13 of pyenv
    (``3.11``...), then ``pypy3`` when installed; *only*: these names."""
    found = []
    root = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=False).stdout.strip()
    for minor in range(9, 14):
        paths = sorted(glob.glob(os.path.join(root, "versions", f"3.{minor}.*", "bin", f"python3.{minor}")))
        if paths:
            found.append((f"3.{minor}", paths[-1]))
    pypy = shutil.which("pypy3")
    if pypy:
        found.append(("pypy3", pypy))
    return [(name, path) for name, path in found if not only or name in only]


def python_path(name: str) -> str:
    """An interpreter named on the command line: a path or a command as
    it is, or a pyenv version (``3.12``, ``3.12.1``)."""
    if os.sep in name or shutil.which(name):
        return name
    root = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=False).stdout.strip()
    minor = ".".join(name.split(".")[:2])
    paths = sorted(glob.glob(os.path.join(root, "versions", f"{name}*", "bin", f"python{minor}")))
    if not paths:
        raise SystemExit(f"no interpreter {name!r} (a path, a command, or a pyenv version)")
    return paths[-1]


def alternate(items: Sequence[T], index: int) -> list[T]:
    """The sides of round *index* (from 0): in order in even rounds,
    reversed in odd ones, so that a drift of the machine hits each side
    first as often."""
    return list(items) if index % 2 == 0 else list(items)[::-1]


def shuffled_rounds(cells: Sequence[T], rounds: int, rng: random.Random) -> Iterator[list[T]]:
    """*rounds* rounds of *cells*, each in an order shuffled by *rng*
    (lazily: draws made between two rounds come after the first's)."""
    for _ in range(rounds):
        order = list(cells)
        rng.shuffle(order)
        yield order
