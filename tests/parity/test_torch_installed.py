"""One test that says whether the parity suite could run: it needs torch 2.13.0 exactly.

Without torch the other modules here are not collected (conftest.py), so this skip is the only
trace of them in pytest's counts; `make test` prints its reason in its summary.
"""

import pytest

from .conftest import torch

TORCH_VERSION = "2.13.0"
INSTALL = f".venv/bin/python -m pip install torch=={TORCH_VERSION}"
NOT_INSTALLED = (
    "torch is not installed, so the torch-parity tests in tests/parity were not collected; "
    f"to run them: {INSTALL}, then `make test` (or .venv/bin/python -m pytest tests/parity)"
)


@pytest.mark.parity
def test_torch_is_the_version_minigrad_follows() -> None:
    if torch is None:
        pytest.skip(NOT_INSTALLED)
    version = torch.__version__.split("+")[0]
    assert version == TORCH_VERSION, (
        f"torch {torch.__version__} is installed, but minigrad follows torch {TORCH_VERSION}: "
        f"the parity tests compare against the wrong behaviour; run {INSTALL}"
    )
