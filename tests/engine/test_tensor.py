"""Tensor basics: creation, dtypes, flags, conversion, printing, and the three ways of cutting
the graph (detach, detach_, .data), each checked against torch 2.13's behaviour
(docs/cheatsheet.md; tests/parity compares with torch itself)."""

import copy
import re

import numpy as np
import pytest

import minigrad
from minigrad import Tensor


def sigmoid_graph():
    a = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return a, a.sigmoid()


# ---- creation and dtypes --------------------------------------------------------------------


def test_default_dtypes():
    assert minigrad.tensor([1.0, 2.0]).dtype == minigrad.float32
    assert minigrad.tensor([1, 2]).dtype == minigrad.int64
    assert minigrad.tensor([True]).dtype == minigrad.bool
    assert minigrad.tensor(np.zeros(2)).dtype == minigrad.float64  # numpy arrays keep theirs
    assert minigrad.zeros(2, 3).dtype == minigrad.float32
    assert minigrad.arange(3).dtype == minigrad.int64
    assert minigrad.arange(0.0, 1.0, 0.25).dtype == minigrad.float32
    assert minigrad.tensor([1, 2], dtype=minigrad.float64).dtype == minigrad.float64


def test_factories():
    assert minigrad.zeros(2, 3).shape == (2, 3)
    assert minigrad.ones((2, 3)).tolist() == [[1.0] * 3] * 2
    assert minigrad.full((2,), 7.0).tolist() == [7.0, 7.0]
    assert minigrad.linspace(0, 1, 3).tolist() == [0.0, 0.5, 1.0]
    x = minigrad.tensor([[1, 2]])
    assert minigrad.zeros_like(x).tolist() == [[0, 0]]
    assert minigrad.ones_like(x).dtype == minigrad.int64
    assert minigrad.zeros(2, requires_grad=True).requires_grad
    assert sorted(minigrad.randperm(5).tolist()) == [0, 1, 2, 3, 4]
    r = minigrad.randint(0, 3, (10,))
    assert r.dtype == minigrad.int64 and set(r.tolist()) <= {0, 1, 2}


def test_manual_seed_makes_random_numbers_repeat():
    minigrad.manual_seed(3)
    first = minigrad.randn(4).tolist(), minigrad.rand(2).tolist()
    minigrad.manual_seed(3)
    assert (minigrad.randn(4).tolist(), minigrad.rand(2).tolist()) == first
    assert minigrad.randn(2, 2).dtype == minigrad.float32


def test_from_numpy_shares_memory():
    array = np.arange(3.0)
    t = minigrad.from_numpy(array)
    array[0] = 9
    assert t.tolist() == [9.0, 1.0, 2.0]
    assert np.shares_memory(t.numpy(), array)


def test_tensor_copies_its_data():
    array = np.arange(3.0)
    t = minigrad.tensor(array)
    array[0] = 9
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_unknown_dtype_is_a_clear_error():
    with pytest.raises(TypeError, match="must be minigrad.dtype"):
        minigrad.tensor([1.0], dtype="float32")
    with pytest.raises(TypeError, match="does not support numpy dtype complex128"):
        minigrad.tensor(np.zeros(2, dtype=complex))
    with pytest.raises(ValueError, match="too many dimensions 'str'"):  # torch's words
        minigrad.tensor(["a", "b"])


def test_only_floating_tensors_require_grad():
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype"):
        minigrad.tensor([1, 2, 3], requires_grad=True)
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype"):
        minigrad.tensor([1, 2]).requires_grad_()
    assert minigrad.tensor([1.0], dtype=minigrad.float64, requires_grad=True).requires_grad


# ---- shape and conversion -------------------------------------------------------------------


def test_shape_helpers():
    t = minigrad.zeros(2, 3)
    assert t.shape == (2, 3) and repr(t.shape) == "minigrad.Size([2, 3])"
    assert t.size() == (2, 3) and t.size(1) == 3 and t.size(-1) == 3
    assert t.dim() == t.ndim == 2 and t.numel() == 6 and len(t) == 2
    assert [row.shape for row in t] == [(3,), (3,)]
    assert t.shape.numel() == 6


def test_item_tolist_cpu_device():
    t = minigrad.tensor([[1.5]])
    assert t.item() == 1.5 and isinstance(t.item(), float)
    assert minigrad.tensor(3).item() == 3
    assert t.tolist() == [[1.5]]
    assert t.cpu() is t and t.device == "cpu"
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted"):
        minigrad.zeros(2).item()
    assert float(minigrad.tensor(2.5)) == 2.5 and int(minigrad.tensor(2)) == 2
    assert f"{minigrad.tensor(0.12345):.2f}" == "0.12"


def test_numpy_refuses_tensors_that_require_grad():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()
    with pytest.raises(RuntimeError):
        np.asarray(x)
    array = x.detach().cpu().numpy()
    array[0] = 100
    assert x.tolist() == [100.0, 2.0]  # the idiom shares memory


def test_to_and_conversions():
    x = minigrad.tensor([1.7, -1.7], requires_grad=True)
    assert x.to(minigrad.float32) is x
    d = x.double()
    assert d.dtype == minigrad.float64 and d.grad_fn.name() == "ToCopyBackward0"
    assert x.detach().long().tolist() == [1, -1]
    d.sum().backward()
    assert x.grad.dtype == minigrad.float32 and x.grad.tolist() == [1.0, 1.0]


# ---- printing -------------------------------------------------------------------------------


def test_repr_suffixes():
    a, out = sigmoid_graph()
    assert repr(out) == "tensor([0.7311, 0.8808, 0.9526], grad_fn=<SigmoidBackward0>)"
    assert repr(a) == "tensor([1., 2., 3.], requires_grad=True)"
    assert repr(a.sum()) == "tensor(6., grad_fn=<SumBackward0>)"
    assert repr(minigrad.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(minigrad.tensor([1.0], dtype=minigrad.float64)) == (
        "tensor([1.], dtype=minigrad.float64)"
    )
    assert re.fullmatch(r"<SigmoidBackward0 object at 0x[0-9a-f]+>", repr(out.grad_fn))
    assert repr(minigrad.float32) == "minigrad.float32"


# ---- flags ----------------------------------------------------------------------------------


def test_flags_of_leaves_and_results():
    a, out = sigmoid_graph()
    assert a.is_leaf and a.requires_grad and a.grad_fn is None
    assert not out.is_leaf and out.requires_grad and out.grad_fn.name() == "SigmoidBackward0"
    c = minigrad.tensor([1.0]) * 2
    assert c.is_leaf and not c.requires_grad and c.grad_fn is None
    assert a._version == 0 and a._base is None


def test_requires_grad_setter():
    x = minigrad.tensor([1.0])
    x.requires_grad = True
    assert x.requires_grad
    assert x.requires_grad_(False) is x and not x.requires_grad
    y = minigrad.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="^you can only change requires_grad flags of leaf"):
        y.requires_grad_(False)
    assert y.requires_grad_(True) is y


def test_serials_give_creation_order():
    first, second = minigrad.zeros(1), minigrad.zeros(1)
    assert first._serial < second._serial
    assert first._storage.serial < second._storage.serial


# ---- cutting the graph: detach() ------------------------------------------------------------


def test_detach_shares_memory_and_version_counter():
    a, out = sigmoid_graph()
    c = out.detach()
    assert c is not out
    assert np.shares_memory(c.numpy(), out.detach().numpy())
    assert c._storage is out._storage and c._version_counter is out._version_counter
    assert not c.requires_grad and c.grad_fn is None and c.is_leaf
    c.zero_()
    assert out._version == 1 and out.tolist() == [0.0, 0.0, 0.0]


def test_detach_then_zero_makes_backward_fail():
    a, out = sigmoid_graph()
    out.detach().zero_()
    with pytest.raises(RuntimeError) as error:
        out.sum().backward()
    assert str(error.value).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [minigrad.FloatTensor [3]], which is output 0 of Sigmoid, is at version 1; "
        "expected version 0 instead. Hint:"
    )


def test_backward_on_detached_tensor_fails():
    a, out = sigmoid_graph()
    c = out.detach()
    with pytest.raises(
        RuntimeError,
        match="^element 0 of tensors does not require grad and does not have a grad_fn",
    ):
        c.sum().backward()
    assert a.grad is None


def test_detached_tensor_can_become_a_new_leaf():
    a, out = sigmoid_graph()
    c = out.detach().requires_grad_(True)
    assert c.is_leaf and c.requires_grad
    (c * 2).sum().backward()
    assert c.grad.tolist() == [2.0, 2.0, 2.0]
    assert a.grad is None


def test_detach_clone_is_independent():
    a, out = sigmoid_graph()
    copy = out.detach().clone()
    assert copy.grad_fn is None and not copy.requires_grad
    assert not np.shares_memory(copy.numpy(), out.detach().numpy())
    copy.zero_()
    assert out._version == 0
    cloned = out.clone()
    assert cloned.grad_fn.name() == "CloneBackward0"
    assert not np.shares_memory(cloned.detach().numpy(), out.detach().numpy())


# ---- cutting the graph: detach_() -----------------------------------------------------------


def test_detach_inplace_returns_the_same_object():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    x = a * 2
    alias = x
    assert x.detach_() is x
    assert alias.is_leaf and not alias.requires_grad and alias.grad_fn is None


def test_detach_inplace_keeps_edges_recorded_earlier():
    a = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = 2 * a
    c = b.sum()
    b.detach_()
    c.backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0]


def test_detach_inplace_on_a_used_leaf_leaves_grad_none():
    a = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (a * 2).sum()
    a.detach_()
    y.backward()  # no error
    assert a.grad is None


def test_detach_inplace_refuses_views():
    a = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(
        RuntimeError, match=r"^Can't detach views in-place\. Use detach\(\) instead\."
    ):
        (a * 2)[1:].detach_()


# ---- cutting the graph: .data ---------------------------------------------------------------


def test_data_is_an_alias_with_a_fresh_version_counter():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = x.data
    assert np.shares_memory(d.numpy(), x.detach().numpy()) and d._storage is x._storage
    assert d._version_counter is not x._version_counter
    assert not d.requires_grad and d.is_leaf
    d.mul_(2)
    assert x.tolist() == [2.0, 4.0, 6.0]
    assert (x._version, d._version) == (0, 1)


def test_data_zero_gives_a_silently_wrong_gradient():
    a, out = sigmoid_graph()
    out.data.zero_()
    out.sum().backward()  # no error: the change escaped the version check
    assert a.grad.tolist() == [0.0, 0.0, 0.0]


def test_data_change_of_a_saved_input_is_not_noticed():
    a = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * a
    a.data.mul_(2)
    b.sum().backward()
    assert a.grad.tolist() == [4.0, 8.0, 12.0]  # 2 * (the modified a), silently


def test_data_setter_replaces_contents_of_the_same_object():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    same = x
    x.data = minigrad.tensor([[5.0, 6.0], [7.0, 8.0]])
    assert same is x and x.shape == (2, 2) and x.requires_grad and x.is_leaf
    with pytest.raises(
        RuntimeError,
        match="^data set to a tensor that requires gradients must be floating point or complex",
    ):
        x.data = minigrad.tensor([1, 2])
    y = minigrad.tensor([1.0])
    y.data = minigrad.tensor([1, 2])
    assert y.dtype == minigrad.int64
    with pytest.raises(TypeError):
        y.data = [1.0]


def test_comparisons_are_never_recorded():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    for result in (a > 1, a < 1, a >= 1, a <= 1, a == 1, a != 1, a.eq(a)):
        assert result.dtype == minigrad.bool and result.grad_fn is None
    assert (a > 1).tolist() == [False, True]
    assert bool((a > 0).all()) and not bool((a > 1).all()) and bool((a > 1).any())
    assert a.allclose(minigrad.tensor([1.0, 2.0]))
    assert hash(a) != hash(minigrad.tensor([1.0, 2.0]))


def test_bool_of_many_elements_is_ambiguous():
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value"):
        bool(minigrad.zeros(2))


def test_tensor_constructor_class():
    t = Tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.dtype == minigrad.float32


def test_deepcopy_of_a_leaf_is_independent_and_keeps_its_grad():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    (a * 1).sum().backward()
    b = copy.deepcopy(a)
    (b * 2).sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]  # the copy's gradient does not land in the original
    assert b.grad.tolist() == [3.0, 3.0]
    assert b.is_leaf and b.requires_grad
    assert not np.shares_memory(a._array, b._array)


def test_deepcopy_of_a_non_leaf_is_refused_like_torch():
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(minigrad.tensor([1.0], requires_grad=True) * 2)


def test_full_uses_torch_default_dtypes():
    assert minigrad.full((4,), 0.5).dtype == minigrad.float32
    assert minigrad.full((2, 2), 3).dtype == minigrad.int64
    assert minigrad.full((2,), 1.0, dtype=minigrad.float64).dtype == minigrad.float64
    assert minigrad.full((3,), 2.0).tolist() == [2.0, 2.0, 2.0]


def test_tensor_of_a_tensor_warns_as_torch_does():
    source = minigrad.ones(2) * 2
    with pytest.warns(UserWarning, match=r"^To copy construct from a tensor"):
        copy = minigrad.tensor(source)
    assert copy.tolist() == [2.0, 2.0] and not copy.requires_grad
