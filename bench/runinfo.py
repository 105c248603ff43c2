"""Where a benchmark figure comes from: what every committed result records about its run. The one provenance
helper of bench/: command line, git commit (with +dirty), start time, load average and machine (the machine is
shared; numbers are only comparable within one run)."""
import os
import platform
import subprocess
import sys
import time
from pathlib import Path


def git_commit() -> str:
    """The checked-out commit, with ``+dirty`` if the work tree has uncommitted changes ("unknown" outside
    git)."""
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def load_now() -> list:
    """The 1, 5 and 15 minute load averages now (to record beside a measurement)."""
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else []


def run_info(**machine) -> dict:
    """Command line, commit, time, load average and machine (with the versions or settings `machine` adds), as a
    JSON-ready dict."""
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"command": " ".join([Path(sys.executable).name] + sys.argv), "git_commit": git_commit(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "load_average": load_now(),
            "machine": {"platform": platform.platform(), "processor": cpu, "cpus": os.cpu_count(),
                        "python": platform.python_version(), **machine}}
