"""Small datasets made by code, for the course's training loops (no downloads).

Every function takes a `seed`: with a number it always returns the same data (from numpy's
generator, seeded with it); with None the numpy generator is seeded by one 64-bit draw from
minigrad's generator, so `minigrad.manual_seed` at the top of a notebook fixes it too. torch has
no such datasets, so these numbers are minigrad's own; a torch version of a notebook builds the
data with minigrad.data and converts it (`torch.from_numpy(X.numpy())`).
Inputs are float32 tensors, class labels int64 (what CrossEntropyLoss expects).
"""

from __future__ import annotations

import numpy as np

from . import random
from ._tensor import Tensor
from .creation import from_numpy

__all__ = ["noisy_line", "noisy_sine", "toy_sequence", "two_moons"]


def _rng(seed: int | None) -> np.random.Generator:
    return np.random.default_rng(random.seed_from() if seed is None else seed)


def two_moons(
    n_samples: int = 200, noise: float = 0.1, seed: int | None = None
) -> tuple[Tensor, Tensor]:
    """Two interleaved half circles: X of shape (n, 2) float32, y of shape (n,) int64 in {0, 1}.

    Class 0 is the upper moon, class 1 the lower one (shifted right and down), as in
    scikit-learn's make_moons; the samples are shuffled.
    """
    rng = _rng(seed)
    n_upper = n_samples // 2
    n_lower = n_samples - n_upper
    upper_angle = np.linspace(0, np.pi, n_upper)
    lower_angle = np.linspace(0, np.pi, n_lower)
    upper = np.stack([np.cos(upper_angle), np.sin(upper_angle)], axis=1)
    lower = np.stack([1 - np.cos(lower_angle), 0.5 - np.sin(lower_angle)], axis=1)
    points = np.concatenate([upper, lower]) + rng.normal(0, noise, size=(n_samples, 2))
    labels = np.concatenate([np.zeros(n_upper), np.ones(n_lower)]).astype(np.int64)
    order = rng.permutation(n_samples)
    return from_numpy(points[order].astype(np.float32)), from_numpy(labels[order])


def noisy_line(
    n_samples: int = 100,
    slope: float = 2.0,
    intercept: float = -1.0,
    noise: float = 0.1,
    seed: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Points near y = slope * x + intercept, x uniform in [-1, 1]: x and y of shape (n, 1)."""
    rng = _rng(seed)
    x = rng.uniform(-1, 1, size=(n_samples, 1))
    y = slope * x + intercept + rng.normal(0, noise, size=(n_samples, 1))
    return from_numpy(x.astype(np.float32)), from_numpy(y.astype(np.float32))


def noisy_sine(
    n_samples: int = 100, noise: float = 0.1, seed: int | None = None
) -> tuple[Tensor, Tensor]:
    """Points near y = sin(x), x sorted in [-pi, pi]: x and y of shape (n, 1) (for plots)."""
    rng = _rng(seed)
    x = np.sort(rng.uniform(-np.pi, np.pi, size=n_samples)).reshape(-1, 1)
    y = np.sin(x) + rng.normal(0, noise, size=(n_samples, 1))
    return from_numpy(x.astype(np.float32)), from_numpy(y.astype(np.float32))


def toy_sequence(
    length: int = 200, period: float = 25.0, noise: float = 0.05, seed: int | None = None
) -> tuple[Tensor, Tensor]:
    """A noisy sine wave split into inputs and next-step targets, for an RNN.

    Returns (inputs, targets), both of shape (length, 1): targets[t] is the value that follows
    inputs[t], so a recurrent model learns to predict one step ahead. Long enough that
    backpropagating through all of it is wasteful: the setting of truncated BPTT.
    """
    rng = _rng(seed)
    phase = rng.uniform(0, 2 * np.pi)
    steps = np.arange(length + 1)
    wave = np.sin(2 * np.pi * steps / period + phase) + rng.normal(0, noise, size=length + 1)
    wave = wave.astype(np.float32).reshape(-1, 1)
    return from_numpy(wave[:-1].copy()), from_numpy(wave[1:].copy())
