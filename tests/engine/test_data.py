"""minigrad.data: shapes, dtypes and seeding of the generated datasets."""

import numpy as np
import pytest

import minigrad
from minigrad import data

ALL = [data.two_moons, data.noisy_line, data.noisy_sine, data.toy_sequence]


@pytest.mark.parametrize("make", ALL)
def test_same_seed_same_data_other_seed_other_data(make):
    first, second, other = make(seed=1), make(seed=1), make(seed=2)
    for a, b, c in zip(first, second, other, strict=True):
        assert np.array_equal(a.numpy(), b.numpy())
        assert not np.array_equal(a.numpy(), c.numpy()) or a.dtype == minigrad.int64


@pytest.mark.parametrize("make", ALL)
def test_without_seed_minigrad_manual_seed_decides(make):
    minigrad.manual_seed(7)
    first = make()
    minigrad.manual_seed(7)
    second = make()
    for a, b in zip(first, second, strict=True):
        assert np.array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("make", ALL)
def test_seed_does_not_consume_minigrad_generator(make):
    minigrad.manual_seed(0)
    make(seed=3)
    after = minigrad.randn(3).tolist()
    minigrad.manual_seed(0)
    assert minigrad.randn(3).tolist() == after


def test_two_moons():
    X, y = data.two_moons(101, noise=0.0, seed=0)
    assert X.shape == (101, 2) and X.dtype == minigrad.float32
    assert y.shape == (101,) and y.dtype == minigrad.int64
    assert sorted(set(y.tolist())) == [0, 1] and int(y.sum().item()) == 51
    points, labels = X.numpy(), y.numpy()
    upper = points[labels == 0]
    np.testing.assert_allclose(np.hypot(upper[:, 0], upper[:, 1]), 1.0, atol=1e-6)
    assert (upper[:, 1] >= -1e-6).all()
    assert not X.requires_grad


def test_noisy_line_follows_the_line():
    x, y = data.noisy_line(500, slope=3.0, intercept=0.5, noise=0.01, seed=0)
    assert x.shape == y.shape == (500, 1) and x.dtype == y.dtype == minigrad.float32
    slope, intercept = np.polyfit(x.numpy()[:, 0], y.numpy()[:, 0], 1)
    assert slope == pytest.approx(3.0, abs=0.01) and intercept == pytest.approx(0.5, abs=0.01)


def test_noisy_sine_sorted_inputs():
    x, y = data.noisy_sine(50, noise=0.0, seed=0)
    assert x.shape == y.shape == (50, 1)
    assert (np.diff(x.numpy()[:, 0]) >= 0).all()
    np.testing.assert_allclose(y.numpy(), np.sin(x.numpy()), atol=1e-6)


def test_toy_sequence_targets_are_next_inputs():
    inputs, targets = data.toy_sequence(length=40, seed=0)
    assert inputs.shape == targets.shape == (40, 1) and inputs.dtype == minigrad.float32
    np.testing.assert_array_equal(inputs.numpy()[1:], targets.numpy()[:-1])
    assert inputs._storage is not targets._storage
