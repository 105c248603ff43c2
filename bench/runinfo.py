"""What every committed benchmark JSON records about its run: command line, git commit, load average and
machine (the machine is shared; numbers are only comparable within one run)."""
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


def run_info() -> dict:
    """Command line, commit, time, load average and machine, as a JSON-ready dict."""
    return {"command": " ".join([Path(sys.executable).name] + sys.argv), "git_commit": git_commit(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "load_average": list(os.getloadavg()),
            "machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
                        "cpus": os.cpu_count(), "python": platform.python_version()}}
