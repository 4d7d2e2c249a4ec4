"""Fixtures shared by the viz tests."""

import os
import subprocess
import sys

import pytest


@pytest.fixture
def outputs_under_hash_seeds():
    """Run a Python script in fresh interpreters with different PYTHONHASHSEED values.

    Returns the standard outputs, one per seed: a test asserts they are equal, which shows the
    output does not depend on set or dict ordering of strings (or on id()).
    """

    def run(script: str, seeds: tuple[str, ...] = ("0", "4242")) -> list[str]:
        outputs = []
        for seed in seeds:
            env = dict(os.environ, PYTHONHASHSEED=seed)
            done = subprocess.run(
                [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
            )
            outputs.append(done.stdout)
        return outputs

    return run
