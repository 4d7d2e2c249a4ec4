"""Fixtures shared by the viz tests."""

import os
import subprocess
import sys

import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import data, nn, viz


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


@pytest.fixture
def frozen_body() -> viz.Comparison:
    """Notebook 07, section 1: the loss graph before and after body.requires_grad_(False)."""
    x, y = data.noisy_sine(64, seed=0)
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
    body, head = model[:2], model[2]
    names = dict(x=x, y=y, W1=body[0].weight, b1=body[0].bias, W2=head.weight, b2=head.bias)
    loss = F.mse_loss(model(x), y)
    before = viz.snapshot(loss, names=dict(names, loss=loss))
    body.requires_grad_(False)
    loss = F.mse_loss(model(x), y)
    after = viz.snapshot(loss, names=dict(names, loss=loss))
    return viz.Comparison(before, after, "body.requires_grad_(False)", None)
