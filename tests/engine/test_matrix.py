"""Matrix products (minigrad/functions/linalg.py): values, gradients, node names, errors."""

import numpy as np
import pytest

import minigrad

A = np.array([[0.5, 1.0, 2.0], [1.5, 0.25, 3.0]])


def leaf(values=A, dtype=minigrad.float64):
    return minigrad.tensor(np.array(values), dtype=dtype, requires_grad=True)


# ---- matrix products --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "left,right,name",
    [((2, 3), (3, 4), "MmBackward0"), ((2, 3), (3,), "MvBackward0"),
     ((3,), (3, 4), "SqueezeBackward4"), ((3,), (3,), "DotBackward0")],
)  # fmt: skip
def test_matmul_values_gradients_and_names(left, right, name):
    rng = np.random.default_rng(1)
    x_values, y_values = rng.normal(size=left), rng.normal(size=right)
    x, y = leaf(x_values), leaf(y_values)
    out = x @ y
    assert out.grad_fn.name() == name
    np.testing.assert_allclose(out.detach().numpy(), x_values @ y_values)
    out.sum().backward()
    g = np.ones(np.shape(x_values @ y_values))
    if len(left) == 1 and len(right) == 1:
        expected_x, expected_y = y_values, x_values
    else:
        x2 = x_values.reshape(1, -1) if len(left) == 1 else x_values
        y2 = y_values.reshape(-1, 1) if len(right) == 1 else y_values
        g2 = g.reshape(x2.shape[0], y2.shape[1])
        expected_x, expected_y = (g2 @ y2.T).reshape(left), (x2.T @ g2).reshape(right)
    np.testing.assert_allclose(x.grad.numpy(), expected_x)
    np.testing.assert_allclose(y.grad.numpy(), expected_y)


def test_matmul_errors_name_the_problem():
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and"):
        minigrad.ones(2, 3) @ minigrad.ones(2, 3)
    with pytest.raises(RuntimeError, match="^size mismatch"):
        minigrad.ones(2, 3) @ minigrad.ones(2)
    with pytest.raises(RuntimeError, match="^inconsistent tensor size"):
        minigrad.ones(3) @ minigrad.ones(2)
    with pytest.raises(RuntimeError, match="^expected m1 and m2 to have the same dtype"):
        minigrad.ones(2, 3) @ minigrad.ones(3, 2, dtype=minigrad.float64)
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D"):
        minigrad.tensor(2.0) @ minigrad.ones(2)
    with pytest.raises(
        RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(4x2 and 3x2"
    ):
        minigrad.ones(2, 2, 2) @ minigrad.ones(3, 2)


def test_matmul_with_a_constant_saves_only_what_it_needs():
    w = leaf(np.ones((3, 2)))
    out = minigrad.ones(4, 3, dtype=minigrad.float64) @ w
    assert set(out.grad_fn.saved) == {"self"}
    assert out.grad_fn.next_functions[0] == (None, 0)
