"""The machine a run happened on: processor, versions, commit, load."""

from __future__ import annotations

import datetime
import gc
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

from . import NUMPY_LOADED_FIRST, ONE_THREAD_ENV, paths
from .harness import Context
from .peers import version_of


def cpu_model() -> str:
    """The processor's name as /proc/cpuinfo gives it (platform's guess elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit() -> str:
    """HEAD's short hash, with '+dirty' when minigrad/ has uncommitted changes."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=paths.REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "minigrad"],
            cwd=paths.REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def machine_info(ctx: Context) -> dict[str, Any]:
    """Everything needed to compare figures across machines and runs."""
    try:
        dot = subprocess.run(["dot", "-V"], capture_output=True, text=True, check=False).stderr
    except OSError:
        dot = ""
    info: dict[str, Any] = {
        "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": ctx.torch.__version__ if ctx.torch else None,
        "torch_threads": ctx.torch.get_num_threads() if ctx.torch else None,
        "micrograd": version_of("micrograd") if ctx.micrograd else None,
        "graphviz_python": version_of("graphviz"),
        "graphviz_dot": dot.strip().removeprefix("dot - ") or None,
        "minigrad_commit": git_commit(),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        # one thread for numpy's BLAS (benchmarks/__init__.py), if set before numpy loaded
        "blas_threads": {name: os.environ.get(name) for name in ONE_THREAD_ENV},
        "numpy_loaded_before_thread_settings": NUMPY_LOADED_FIRST,
        "gc_enabled_during_timing": gc.isenabled(),
        "gc_frozen_objects": ctx.frozen_objects,  # what the process held before the first row
        "clock": "time.process_time (CPU time); wall time for viz renders and the course",
        # other work on the machine inflates every figure: a load above the core count shows it
        "load_average_at_start": ctx.load_at_start,
        "load_average_at_end": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    return info
