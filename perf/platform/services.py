"""System services (irqbalance): is one running, start it, stop it.

Behind a small interface so that tests use a fake and never touch the
services of the machine.  The real one asks systemd (``systemctl``); where
there is no systemd it knows nothing (``is_active`` returns None) and
changes nothing.

Must not: decide which services to stop.
"""

from __future__ import annotations

import shutil
import subprocess


class ServiceManager:
    """The services of the real machine, through ``systemctl``."""

    def __init__(self, systemctl: str | None = None) -> None:
        self.systemctl = systemctl if systemctl is not None else shutil.which("systemctl")

    def _run(self, *args: str) -> subprocess.CompletedProcess[str] | None:
        if not self.systemctl:
            return None
        try:
            return subprocess.run([self.systemctl, *args], capture_output=True, text=True, timeout=60, check=False)
        except (OSError, subprocess.SubprocessError):
            return None

    def is_active(self, name: str) -> bool | None:
        """True when the service runs, False when it is installed but
        stopped, None when it is not installed or nothing can tell."""
        loaded = self._run("show", "--property=LoadState,ActiveState", "--", name)
        if loaded is None or loaded.returncode != 0:
            return None
        properties = dict(line.split("=", 1) for line in loaded.stdout.splitlines() if "=" in line)
        if properties.get("LoadState") != "loaded":
            return None
        state = properties.get("ActiveState")
        if state in ("active", "activating", "reloading"):
            return True
        if state in ("inactive", "deactivating", "failed"):
            return False
        return None

    def set_active(self, name: str, active: bool) -> str | None:
        """Start or stop the service; an error message, or None."""
        action = "start" if active else "stop"
        result = self._run(action, "--", name)
        if result is None:
            return f"cannot run systemctl {action} {name}"
        if result.returncode != 0:
            detail = (result.stderr or result.stdout).strip().splitlines()
            reason = f": {detail[-1]}" if detail else ""
            return f"systemctl {action} {name} failed with exit code {result.returncode}{reason}"
        return None
