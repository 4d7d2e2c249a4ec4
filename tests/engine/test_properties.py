"""Property tests: every differentiable op passes gradcheck (float64, finite differences) on
random shapes, and every binary op on random broadcasting pairs of shapes.

Example counts are kept small so the whole suite stays fast; hypothesis still varies shapes,
values and broadcasting patterns from run to run (fixed in CI, see tests/conftest.py).
"""

import operator

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad
from minigrad.autograd import gradcheck

FEW = settings(max_examples=8)

shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
# values kept away from the kinks and poles of the ops (0 for relu/abs/log/sqrt/division,
# the clamp bounds), where finite differences are meaningless
away_from_zero = st.floats(0.2, 2.0) | st.floats(-2.0, -0.2)
positive = st.floats(0.3, 2.0)


def arrays(shape, elements=away_from_zero, unique=False):
    return hnp.arrays(np.float64, shape, elements=elements, unique=unique)


def leaf(values):
    return minigrad.tensor(values, dtype=minigrad.float64, requires_grad=True)


UNARY = {
    "exp": lambda t: t.exp(),
    "sigmoid": lambda t: t.sigmoid(),
    "tanh": lambda t: t.tanh(),
    "relu": lambda t: t.relu(),
    "abs": lambda t: t.abs(),
    "neg": lambda t: -t,
    "pow": lambda t: t**3,
    "pow fractional": lambda t: t.abs() ** 1.5,
    "rpow": lambda t: 1.5**t,
    "rsub": lambda t: 2 - t,
    "rdiv": lambda t: 2 / t,
    "reciprocal": lambda t: t.reciprocal(),
    "clamp": lambda t: t.clamp(-1.13, 1.37),
    "clamp min": lambda t: t.clamp(min=0.57),
    "clone": lambda t: t.clone(),
    "sum": lambda t: t.sum(),
    "mean": lambda t: t.mean(),
    "double": lambda t: t.double(),
    "flatten": lambda t: t.flatten() * 1,
    # A tuple, not *dims: torch refuses permute() with no dims at all, which a 0-d tensor gives.
    "reverse dims": lambda t: t.permute(tuple(reversed(range(t.ndim)))) * 1,
    "unsqueeze": lambda t: t.unsqueeze(0) * 1,
    "expand": lambda t: t.expand(2, *t.shape) * 1,
    "ellipsis": lambda t: t[...] * 1,
    "none index": lambda t: t[None] * 1,
}
POSITIVE_UNARY = {
    "log": lambda t: t.log(),
    "sqrt": lambda t: t.sqrt(),
}
BINARY = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
    "add alpha": lambda x, y: x.add(y, alpha=-2.5),
    "sub alpha": lambda x, y: x.sub(y, alpha=0.5),
}


@FEW
@given(data=st.data(), name=st.sampled_from(sorted(UNARY)))
def test_unary_ops_pass_gradcheck(data, name):
    x = leaf(data.draw(arrays(data.draw(shapes))))
    assert gradcheck(UNARY[name], x)


@FEW
@given(data=st.data())
def test_max_passes_gradcheck_without_ties(data):
    # with ties the derivative does not exist (torch splits the gradient between them)
    values = data.draw(arrays(data.draw(shapes), unique=True))
    # unique is not enough: two values closer than gradcheck's step are a tie for it
    assume(np.diff(np.sort(values.ravel())).min(initial=1.0) > 1e-3)
    assert gradcheck(lambda t: t.max(), leaf(values))


@FEW
@given(data=st.data(), name=st.sampled_from(sorted(POSITIVE_UNARY)))
def test_ops_defined_for_positive_inputs_pass_gradcheck(data, name):
    x = leaf(data.draw(arrays(data.draw(shapes), positive)))
    assert gradcheck(POSITIVE_UNARY[name], x)


@settings(max_examples=20)
@given(
    data=st.data(),
    name=st.sampled_from(sorted(BINARY)),
    pair=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
)
def test_binary_ops_pass_gradcheck_with_broadcasting(data, name, pair):
    left, right = pair.input_shapes
    x, y = leaf(data.draw(arrays(left))), leaf(data.draw(arrays(right)))
    assert gradcheck(BINARY[name], (x, y))


@FEW
@given(
    data=st.data(),
    pair=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3),
)
def test_pow_of_two_tensors_passes_gradcheck(data, pair):
    left, right = pair.input_shapes
    x, y = leaf(data.draw(arrays(left, positive))), leaf(data.draw(arrays(right)))
    assert gradcheck(operator.pow, (x, y))


@FEW
@given(data=st.data(), keepdim=st.booleans())
def test_reductions_along_a_dim_pass_gradcheck(data, keepdim):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    values = data.draw(arrays(shape, unique=True))  # unique: max has no derivative at ties
    # and unique is not enough: two values closer than gradcheck's step are a tie for it
    assume(np.diff(np.sort(values.ravel())).min(initial=1.0) > 1e-3)
    x = leaf(values)
    assert gradcheck(lambda t: t.sum(dim, keepdim=keepdim), x)
    assert gradcheck(lambda t: t.mean(dim, keepdim=keepdim), x)
    assert gradcheck(lambda t: t.max(dim, keepdim=keepdim).values, x)


@FEW
@given(data=st.data())
def test_views_and_indexing_pass_gradcheck(data):
    shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=3, min_side=2, max_side=3))
    x = leaf(data.draw(arrays(shape)))
    index = data.draw(st.integers(0, shape[0] - 1))
    assert gradcheck(lambda t: t[index] * 1, x)
    assert gradcheck(lambda t: t[1:, ::2] * 1, x)
    assert gradcheck(lambda t: t[[0, 1, 0]] * 1, x)  # advanced index with a repeat
    assert gradcheck(lambda t: t.transpose(0, 1) * 1, x)
    assert gradcheck(lambda t: t.reshape(-1) * 1, x)
    assert gradcheck(lambda t: t.transpose(0, 1).reshape(-1) * 1, x)  # reshape that copies
    assert gradcheck(lambda t: t.permute(*reversed(range(t.ndim))) * 1, x)
    assert gradcheck(lambda t: t.unsqueeze(1).squeeze(1) * 1, x)


@FEW
@given(data=st.data(), n=st.integers(1, 3), k=st.integers(1, 3), m=st.integers(1, 3))
def test_matrix_products_pass_gradcheck(data, n, k, m):
    a = leaf(data.draw(arrays((n, k))))
    b = leaf(data.draw(arrays((k, m))))
    v = leaf(data.draw(arrays((k,))))
    w = leaf(data.draw(arrays((k,))))
    assert gradcheck(lambda p, q: p @ q, (a, b))
    assert gradcheck(lambda p, q: p @ q, (a, v))
    assert gradcheck(lambda p, q: p @ q, (v, b))
    assert gradcheck(lambda p, q: p @ q, (v, w))


@FEW
@given(data=st.data(), dim=st.integers(0, 1))
def test_cat_and_stack_pass_gradcheck(data, dim):
    x, y = leaf(data.draw(arrays((2, 3)))), leaf(data.draw(arrays((2, 3))))
    assert gradcheck(lambda p, q: minigrad.cat([p, q], dim), (x, y))
    assert gradcheck(lambda p, q: minigrad.stack([p, q], dim), (x, y))


@FEW
@given(data=st.data())
def test_inplace_ops_on_non_leaves_pass_gradcheck(data):
    x = leaf(data.draw(arrays((3,))))
    y = leaf(data.draw(arrays((3,))))

    def changed_in_place(p, q):
        t = p * 1
        t.mul_(q)
        t[1:] += q[:2]
        t.clamp_(-2.71, 2.93)  # odd bounds: drawn values rarely land on the kink exactly
        return t.exp()

    assert gradcheck(changed_in_place, (x, y))


# ---- .grad from backward(): the engine's buffers never alias leaves or callers' arrays ---------


@settings(max_examples=25)
@given(
    data=st.data(),
    first=st.sampled_from(sorted(BINARY)),
    second=st.sampled_from(sorted(BINARY)),
    unary=st.sampled_from(sorted(UNARY)),
    pair=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
)
def test_backward_twice_accumulates_into_separate_grads(data, first, second, unary, pair):
    left, right = pair.input_shapes
    x, y = leaf(data.draw(arrays(left))), leaf(data.draw(arrays(right)))
    x_before, y_before = x.detach().clone(), y.detach().clone()

    def fn(a, b):
        # a leaf used twice, through both operators, so gradients meet in the engine's buffers
        return UNARY[unary](BINARY[second](BINARY[first](a, b), a)).sum()

    expected = minigrad.autograd.grad(fn(x, y), [x, y])
    fn(x, y).backward()
    fn(x, y).backward()
    for tensor, once in zip((x, y), expected, strict=True):
        np.testing.assert_allclose(tensor.grad.numpy(), 2 * once.numpy(), rtol=1e-12)
        assert tensor.grad.numpy().flags.writeable
    assert not np.shares_memory(x.grad.numpy(), y.grad.numpy())
    assert np.array_equal(x.detach().numpy(), x_before.numpy())
    assert np.array_equal(y.detach().numpy(), y_before.numpy())
