"""Tests written from PyTorch's test/test_autograd.py (see MANIFEST.toml): each runs one script
against torch and against minigrad with the `parity` fixture of tests/parity/conftest.py."""

from __future__ import annotations

from pathlib import Path

try:
    import torch
except ImportError:
    torch = None

# Without torch there is nothing to compare with; test_manifest.py still runs.
collect_ignore = [
    str(path) for path in Path(__file__).parent.glob("test_autograd_*.py") if torch is None
]
