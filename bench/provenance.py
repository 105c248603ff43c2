"""Where a benchmark figure comes from: the command, the commit, the machine and its load.

Every script under bench/ that writes a result the README cites puts `provenance()` at the top of its
JSON, so a figure can be traced to the run that measured it (`bench/results/*.json`).
"""
import os
import platform
import subprocess
import sys
import time
from pathlib import Path


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent, capture_output=True, text=True,
                             timeout=10)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def provenance() -> dict:
    """The command line, git commit (with a dirty flag), date, machine and load average of this run."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "command": " ".join([Path(sys.executable).name] + sys.argv),
        "commit": _git("rev-parse", "HEAD") or "unknown",
        "dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {"cpu": _cpu_model(), "cores": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version()},
        "load_average_at_start": list(load) if load else None,
    }


def load_now() -> list:
    """The 1, 5 and 15 minute load averages now (to record beside a measurement)."""
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else []
