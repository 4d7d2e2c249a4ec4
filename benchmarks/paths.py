"""Where things are: the repository, the results file, the READMEs, the optional peers.

Other modules read these as `paths.REPO` (not `from .paths import REPO`) so that a test can
point them at a temporary copy.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent  # benchmarks/
REPO = HERE.parent
DEFAULT_JSON = HERE / "results" / "latest.json"
REQUIREMENTS = HERE / "requirements.txt"
