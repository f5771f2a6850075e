"""Display of metadata values, driven by the registry in perf.model.metadata.

Must not: compute statistics, read files, print.
"""

from __future__ import annotations

from typing import Any, Mapping

from perf.model.metadata import get_metadata_info
from perf.render.units import VALUE_FORMATTERS


def format_metadata(name: str, value: Any) -> str:
    """Format one metadata value for display: ``format_metadata('loops',
    2**15)`` gives ``'2^15'``."""
    return VALUE_FORMATTERS[get_metadata_info(name).formatter](value)


def format_metadata_lines(metadata: Mapping[str, Any]) -> list[str]:
    """``- name: value`` lines, sorted by name."""
    return [f"- {name}: {format_metadata(name, value)}" for name, value in sorted(metadata.items())]
