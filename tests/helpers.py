"""Builders shared by the tests (tests/ is on sys.path through pytest's
``pythonpath`` setting)."""

from __future__ import annotations

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
