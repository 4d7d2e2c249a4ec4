"""The optional peers: torch (used when importable, never installed) and micrograd (PyPI).

micrograd is installed only when asked (`python -m benchmarks --install-peers`); without it its
lines are reported as skipped, with that option named.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import subprocess
import sys
from types import ModuleType

from . import paths

PEERS = ("torch", "micrograd")


def optional_import(name: str) -> ModuleType | None:
    """The module, or None when it is not installed (or fails to import)."""
    try:
        return importlib.import_module(name)
    except Exception:  # a broken optional peer must not stop the other rows
        return None


def install_peers() -> list[str]:
    """pip-install benchmarks/requirements.txt into this interpreter when something is missing
    (only with --install-peers); returns the problems to print under the table.

    torch is deliberately not in that file: the only acceptable build is torch==2.13.0 (CPU),
    which the project's CI installs; here it is used when importable and skipped otherwise.
    """
    wanted = []
    for line in paths.REQUIREMENTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            wanted.append(line)
    missing = []
    for requirement in wanted:
        name, _, version = requirement.partition("==")
        try:
            installed = importlib.metadata.version(name.strip())
        except importlib.metadata.PackageNotFoundError:
            missing.append(requirement)
            continue
        if version and installed != version.strip():
            missing.append(requirement)
    if not missing:
        return []
    print(f"bench: installing optional peers: {', '.join(missing)}", flush=True)
    completed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", *missing], check=False
    )
    if completed.returncode != 0:
        return [f"could not install {', '.join(missing)} (pip exit {completed.returncode})"]
    importlib.invalidate_caches()
    return []


def version_of(distribution: str) -> str | None:
    """Installed version of a distribution, or None."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
