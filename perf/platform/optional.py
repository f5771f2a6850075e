"""Optional dependencies, imported only where needed.

psutil is a runtime dependency, but perf keeps working (with less metadata)
where it cannot be imported: some PyPy and free-threaded builds install a
psutil that fails at import time with errors other than ImportError.
"""

from __future__ import annotations

from types import ModuleType

_UNSET = object()
_psutil: object = _UNSET


def load_psutil() -> ModuleType | None:
    """The psutil module, or None when it cannot be imported."""
    global _psutil
    if _psutil is _UNSET:
        try:
            import psutil
        except Exception:  # a broken build can raise anything at import time
            _psutil = None
        else:
            _psutil = psutil
    return _psutil  # type: ignore[return-value]
