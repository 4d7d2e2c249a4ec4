"""Operations: values, gradients (against hand-written numpy), grad_fn names, broadcasting in
every binary op, integer dtype rules and the errors for impossible shapes."""

import operator
import warnings

import numpy as np
import pytest

import minigrad

A = np.array([[0.5, 1.0, 2.0], [1.5, 0.25, 3.0]])


def leaf(values=A, dtype=minigrad.float64):
    return minigrad.tensor(np.array(values), dtype=dtype, requires_grad=True)


def grad_of(fn, values=A):
    x = leaf(values)
    fn(x).sum().backward()
    return x.grad.numpy()


# ---- unary ops: value, gradient and node name -----------------------------------------------

UNARY = {
    # name: (minigrad call, numpy value, numpy derivative, grad_fn name)
    "exp": (lambda t: t.exp(), np.exp, np.exp, "ExpBackward0"),
    "log": (lambda t: t.log(), np.log, lambda x: 1 / x, "LogBackward0"),
    "sigmoid": (
        lambda t: t.sigmoid(),
        lambda x: 1 / (1 + np.exp(-x)),
        lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2,
        "SigmoidBackward0",
    ),
    "tanh": (lambda t: t.tanh(), np.tanh, lambda x: 1 - np.tanh(x) ** 2, "TanhBackward0"),
    "relu": (lambda t: (t - 1).relu(), lambda x: np.maximum(x - 1, 0), lambda x: x > 1, None),
    "sqrt": (lambda t: t.sqrt(), np.sqrt, lambda x: 0.5 / np.sqrt(x), "SqrtBackward0"),
    "abs": (lambda t: (t - 1).abs(), lambda x: np.abs(x - 1), lambda x: np.sign(x - 1), None),
    "neg": (lambda t: -t, np.negative, lambda x: -np.ones_like(x), "NegBackward0"),
    "pow": (lambda t: t**3, lambda x: x**3, lambda x: 3 * x**2, "PowBackward0"),
    "rpow": (lambda t: 2**t, lambda x: 2**x, lambda x: 2**x * np.log(2), "PowBackward2"),
    "rsub": (lambda t: 1 - t, lambda x: 1 - x, lambda x: -np.ones_like(x), "RsubBackward1"),
    "rdiv": (lambda t: 2 / t, lambda x: 2 / x, lambda x: -2 / x**2, "MulBackward0"),
    "reciprocal": (lambda t: t.reciprocal(), lambda x: 1 / x, lambda x: -1 / x**2, None),
    "clamp": (
        lambda t: t.clamp(0.6, 2.0),
        lambda x: np.clip(x, 0.6, 2.0),
        lambda x: (x >= 0.6) & (x <= 2.0),
        "ClampBackward1",
    ),
    "round": (lambda t: t.round(), np.round, np.zeros_like, "RoundBackward0"),
    "clone": (lambda t: t.clone(), lambda x: x, np.ones_like, "CloneBackward0"),
    "sum": (lambda t: t.sum(), np.sum, np.ones_like, "SumBackward0"),
    "mean": (lambda t: t.mean(), np.mean, lambda x: np.full_like(x, 1 / x.size), "MeanBackward0"),
    "max": (lambda t: t.max(), np.max, lambda x: x == x.max(), "MaxBackward1"),
}


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_value_gradient_and_name(name):
    call, value, derivative, node_name = UNARY[name]
    x = leaf()
    out = call(x)
    np.testing.assert_allclose(out.detach().numpy(), value(A), rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), derivative(A), rtol=1e-12)
    if node_name:
        assert out.grad_fn.name() == node_name


def test_max_shares_the_gradient_between_ties():
    x = leaf([1.0, 3.0, 3.0])
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]


def test_relu_and_abs_have_zero_gradient_at_zero():
    assert grad_of(lambda t: t.relu(), [0.0, 1.0]).tolist() == [0.0, 1.0]
    assert grad_of(lambda t: t.abs(), [0.0, -2.0]).tolist() == [0.0, -1.0]


def test_sigmoid_is_stable_for_large_inputs():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow RuntimeWarning from numpy
        out = minigrad.tensor([-1000.0, 0.0, 1000.0]).sigmoid()
    assert out.tolist() == [0.0, 0.5, 1.0]


# ---- binary ops and broadcasting -----------------------------------------------------------------

BINARY = {
    "add": (operator.add, lambda x, y: (np.ones_like(x), np.ones_like(y))),
    "sub": (operator.sub, lambda x, y: (np.ones_like(x), -np.ones_like(y))),
    "mul": (operator.mul, lambda x, y: (y, x)),
    "div": (operator.truediv, lambda x, y: (1 / y, -x / y**2)),
    "pow": (operator.pow, lambda x, y: (y * x ** (y - 1), x**y * np.log(x))),
}
SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3)), ((2, 1), (1, 3)), ((), (2, 3)),
          ((2, 3), ()), ((4, 1, 3), (2, 1)), ((1,), (3, 1))]  # fmt: skip


@pytest.mark.parametrize("left,right", SHAPES)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_ops_broadcast_and_reduce_gradients(name, left, right):
    op, partials = BINARY[name]
    rng = np.random.default_rng(0)
    x_values, y_values = rng.uniform(0.5, 2, left), rng.uniform(0.5, 2, right)
    x, y = leaf(x_values), leaf(y_values)
    out = op(x, y)
    expected = op(x_values, y_values)
    np.testing.assert_allclose(out.detach().numpy(), expected)
    out.sum().backward()
    dx, dy = partials(*np.broadcast_arrays(x_values, y_values))
    np.testing.assert_allclose(x.grad.numpy(), minigrad.autograd.unbroadcast(dx, left))
    np.testing.assert_allclose(y.grad.numpy(), minigrad.autograd.unbroadcast(dy, right))
    assert x.grad.shape == left and y.grad.shape == right


def test_alpha_in_add_and_sub():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    out = x.add(y, alpha=2) + x.sub(y, alpha=3)
    assert out.tolist() == [-1.0, 0.0]
    out.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and y.grad.tolist() == [-1.0, -1.0]


def test_incompatible_shapes():
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of"):
        minigrad.ones(2, 3) + minigrad.ones(4)
    with pytest.raises(RuntimeError, match="must match"):
        minigrad.ones(2, 3) * minigrad.ones(2)


def test_operations_with_numbers_and_arrays_on_either_side():
    x = minigrad.tensor([1.0, 2.0])
    assert (x + 1).tolist() == (1 + x).tolist() == [2.0, 3.0]
    assert (x * np.array([2.0, 3.0])).tolist() == [2.0, 6.0]
    with pytest.raises(TypeError):  # as torch: an array on the left is refused
        np.array([2.0, 3.0]) * x
    assert (3 - x).tolist() == [2.0, 1.0] and (4 / x).tolist() == [4.0, 2.0]
    with pytest.raises(TypeError, match="unsupported operand"):
        x + "a"


# ---- dtype rules ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make,dtype",
    [
        (lambda i, f, d: i + i, "int64"),
        (lambda i, f, d: i * 2, "int64"),
        (lambda i, f, d: i * 1.5, "float32"),
        (lambda i, f, d: i / i, "float32"),
        (lambda i, f, d: i + f, "float32"),
        (lambda i, f, d: i + d, "float64"),
        (lambda i, f, d: f + d, "float64"),
        (lambda i, f, d: f * 2.5, "float32"),
        (lambda i, f, d: d * 2.5, "float64"),
        (lambda i, f, d: f + minigrad.tensor(1.0, dtype=minigrad.float64), "float32"),
        (lambda i, f, d: i.to(minigrad.int32) + i.to(minigrad.int32), "int32"),
        (lambda i, f, d: i.to(minigrad.int32) + i, "int64"),
        (lambda i, f, d: i**2, "int64"),
        (lambda i, f, d: i**0.5, "float32"),
        (lambda i, f, d: 2**i, "int64"),
        (lambda i, f, d: 2.0**i, "float32"),
        (lambda i, f, d: i.exp(), "float32"),
        (lambda i, f, d: (i > 1) + (i > 2), "bool"),
        (lambda i, f, d: (i > 1) + 1, "int64"),
    ],
)
def test_type_promotion(make, dtype):
    i = minigrad.tensor([1, 2, 3])
    f = minigrad.tensor([1.0, 2.0, 3.0])
    d = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64)
    assert make(i, f, d).dtype.name == dtype


def test_gradients_keep_the_leaf_dtype():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    (x * minigrad.tensor([1.0, 2.0], dtype=minigrad.float64)).sum().backward()
    assert x.grad.dtype == minigrad.float32


# ---- joining ---------------------------------------------------------------------------------


def test_cat_and_stack():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    c = minigrad.cat([x, y])
    s = minigrad.stack([x, y], dim=1)
    assert c.tolist() == [1.0, 2.0, 3.0, 4.0] and c.grad_fn.name() == "CatBackward0"
    assert s.tolist() == [[1.0, 3.0], [2.0, 4.0]] and s.grad_fn.name() == "StackBackward0"
    (c * minigrad.tensor([1.0, 2.0, 3.0, 4.0], dtype=minigrad.float64)).sum().backward()
    (s * 10).sum().backward()
    assert x.grad.tolist() == [11.0, 12.0] and y.grad.tolist() == [13.0, 14.0]


def test_sigmoid_of_a_0d_tensor() -> None:
    # numpy gives a scalar, not an array, for a 0-d ufunc result: sigmoid must still work
    x = minigrad.tensor(0.5, requires_grad=True)
    out = x.sigmoid()
    out.backward()
    s = 1 / (1 + np.exp(np.float32(-0.5)))
    assert out.shape == () and out.item() == pytest.approx(float(s))
    assert x.grad.shape == () and x.grad.item() == pytest.approx(float(s * (1 - s)))
