"""Reductions (minigrad/functions/reduce.py): sum, mean and max along dimensions, argmax, errors."""

import numpy as np
import pytest

import minigrad

A = np.array([[0.5, 1.0, 2.0], [1.5, 0.25, 3.0]])


def leaf(values=A, dtype=minigrad.float64):
    return minigrad.tensor(np.array(values), dtype=dtype, requires_grad=True)


# ---- reductions along dimensions ---------------------------------------------------------------


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1, (0, 1)])
def test_sum_and_mean_along_dims(dim, keepdim):
    x = leaf()
    s = x.sum(dim, keepdim=keepdim)
    np.testing.assert_allclose(s.detach().numpy(), A.sum(axis=dim, keepdims=keepdim))
    assert s.grad_fn.name() == "SumBackward1"
    (s * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full_like(A, 2))
    y = leaf()
    m = y.mean(dim, keepdim=keepdim)
    np.testing.assert_allclose(m.detach().numpy(), A.mean(axis=dim, keepdims=keepdim))
    m.sum().backward()
    count = A.size / m.numel()
    np.testing.assert_allclose(y.grad.numpy(), np.full_like(A, 1 / count))


def test_max_along_dim_returns_values_and_indices():
    x = leaf()
    result = x.max(1)
    values, indices = result
    assert values.tolist() == [2.0, 3.0] and indices.tolist() == [2, 2]
    assert result.values is values and indices.dtype == minigrad.int64
    assert values.grad_fn.name() == "MaxBackward0"
    values.sum().backward()
    assert x.grad.tolist() == [[0, 0, 1], [0, 0, 1]]
    assert x.max(0, keepdim=True).values.shape == (1, 3)


def test_argmax():
    x = minigrad.tensor(A)
    assert x.argmax().item() == 5
    assert x.argmax(1).tolist() == [2, 2]
    assert x.argmax(dim=0, keepdim=True).shape == (1, 3)


def test_reduction_errors():
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range"):
        minigrad.zeros(2, 3).sum(2)
    with pytest.raises(RuntimeError, match="^mean\\(\\): could not infer output dtype"):
        minigrad.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError, match="^max\\(\\): Expected reduction dim"):
        minigrad.zeros(0).max()


def test_integer_sum_is_int64():
    assert minigrad.tensor([1, 2], dtype=minigrad.int32).sum().dtype == minigrad.int64
    assert minigrad.tensor([True, True]).sum().item() == 2


def test_an_empty_dims_tuple_or_none_reduces_every_dim_as_in_torch():
    m = minigrad.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], requires_grad=True)
    for total in (m.sum(()), m.sum([]), m.sum(None)):
        assert total.shape == () and total.item() == 5.0
        assert total.grad_fn.name() == "SumBackward1"  # the dim form, as torch records it
    assert m.sum(None, keepdim=True).shape == (1, 1)
    assert m.mean(()).shape == () and m.mean(dim=None).grad_fn.name() == "MeanBackward1"
    assert m.sum().grad_fn.name() == "SumBackward0"


@pytest.mark.parametrize("keepdim", [True, False])
def test_keepdim_without_a_dim_is_torchs_type_error(keepdim):
    m = minigrad.ones(2, 3)
    with pytest.raises(TypeError, match=r"^sum\(\) received an invalid combination of arguments"):
        m.sum(keepdim=keepdim)
    with pytest.raises(TypeError, match=r"^mean\(\) received an invalid combination"):
        m.mean(keepdim=keepdim)
