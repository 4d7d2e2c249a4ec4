"""Views: shared memory, shared version counter, `_base`, and the node each view records."""

import warnings

import numpy as np
import pytest

import minigrad


def base():
    a = minigrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    return a, a * 1


def shares(x, y):
    return np.shares_memory(x.detach().numpy(), y.detach().numpy())


VIEWS = {
    "slice": (lambda b: b[1:], "SliceBackward0"),
    "select": (lambda b: b[0], "SelectBackward0"),
    "select scalar": (lambda b: b[0, 1], "SelectBackward0"),
    "column": (lambda b: b[:, 1], "SelectBackward0"),
    "step": (lambda b: b[:, ::2], "SliceBackward0"),
    "none": (lambda b: b[None], "UnsqueezeBackward0"),
    "ellipsis": (lambda b: b[...], "AliasBackward0"),
    "view": (lambda b: b.view(3, 2), "ViewBackward0"),
    "view -1": (lambda b: b.view(-1), "ViewBackward0"),
    "reshape": (lambda b: b.reshape(6), "ViewBackward0"),
    "flatten": (lambda b: b.flatten(), "ViewBackward0"),
    "transpose": (lambda b: b.transpose(0, 1), "TransposeBackward0"),
    "t": (lambda b: b.t(), "TBackward0"),
    "T": (lambda b: b.T, "PermuteBackward0"),
    "permute": (lambda b: b.permute(1, 0), "PermuteBackward0"),
    "unsqueeze": (lambda b: b.unsqueeze(-1), "UnsqueezeBackward0"),
    "squeeze": (lambda b: b[None].squeeze(), "SqueezeBackward0"),
    "squeeze dim": (lambda b: b[None].squeeze(0), "SqueezeBackward1"),
    "expand": (lambda b: b[None].expand(4, 2, 3), "ExpandBackward0"),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_views_share_memory_version_and_base(name):
    make, node_name = VIEWS[name]
    a, b = base()
    v = make(b)
    assert v.grad_fn.name() == node_name
    assert shares(v, b) and v._storage is b._storage
    assert v._version_counter is b._version_counter
    assert v._base is b and b._base is None
    # the gradient through a view lands on the elements it looked at
    weights = minigrad.tensor(np.arange(v.numel(), dtype=np.float32).reshape(v.shape))
    (v * weights).sum().backward()
    expected = np.zeros(6, dtype=np.float32)
    np.add.at(expected, make(minigrad.tensor(np.arange(6).reshape(2, 3))).numpy().ravel(),
              weights.numpy().ravel())  # fmt: skip
    np.testing.assert_array_equal(a.grad.numpy().ravel(), expected)


def test_a_view_of_a_view_has_the_root_as_base():
    _, b = base()
    v = b[1:][0][1:]
    assert v._base is b and v.tolist() == [5.0, 6.0]


def test_change_through_a_view_shows_in_the_base_and_bumps_the_shared_version():
    _, b = base()
    v = b[0]
    with minigrad.no_grad():
        v.mul_(10)
    assert b.tolist()[0] == [10.0, 20.0, 30.0]
    assert b._version == v._version == 1


def test_view_that_needs_a_copy_is_refused_and_reshape_copies():
    m = minigrad.zeros(2, 3)
    with pytest.raises(RuntimeError, match="^view size is not compatible with input tensor's size"):
        m.t().view(6)
    r = m.t().reshape(6)
    assert r._base is None and not shares(r, m)
    with pytest.raises(RuntimeError, match=r"^shape '\[4\]' is invalid for input of size 6"):
        m.view(4)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        m.view(-1, -1)


def test_reshape_copy_records_clone_then_unsafe_view():
    a = minigrad.zeros(2, 3, requires_grad=True)
    r = a.t().reshape(6)
    assert r.grad_fn.name() == "UnsafeViewBackward0"
    assert r.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    r.sum().backward()
    assert a.grad.tolist() == [[1.0] * 3] * 2


def test_views_of_tensors_that_need_no_grad_are_views_without_nodes():
    x = minigrad.zeros(4)
    v = x[1:]
    assert v._base is x and v.grad_fn is None and shares(v, x)


def test_views_made_under_no_grad_are_not_recorded():
    a, b = base()
    with minigrad.no_grad():
        v = b[0]
    assert v.grad_fn is None and v._base is b


def test_advanced_indexing_copies():
    a, b = base()
    picked = b[[0, 1], [2, 0]]
    assert picked.tolist() == [3.0, 4.0] and picked._base is None and not shares(picked, b)
    assert picked.grad_fn.name() == "IndexBackward0"
    masked = b[b > 4]
    assert masked.tolist() == [5.0, 6.0]
    idx = minigrad.tensor([0, 0])
    repeated = b[idx]
    repeated.sum().backward()
    assert a.grad.tolist() == [[2.0] * 3, [0.0] * 3]  # a repeated index adds up


def test_index_errors():
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        minigrad.zeros(3)[5]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 1"):
        minigrad.zeros(3)[0, 0]


def test_expand_errors_and_values():
    x = minigrad.tensor([[1.0], [2.0]])
    assert x.expand(2, 3).tolist() == [[1.0] * 3, [2.0] * 3]
    assert x.expand(-1, 2).shape == (2, 2)
    with pytest.raises(
        RuntimeError,
        match=r"^The expanded size of the tensor \(3\) must match the existing size \(2\)",
    ):
        x.expand(3, 3)


def test_t_refuses_three_dimensions():
    with pytest.raises(RuntimeError, match=r"^t\(\) expects a tensor with <= 2 dimensions"):
        minigrad.zeros(1, 1, 1).t()


def test_detach_of_a_view_shares_memory_and_counter():
    _, b = base()
    d = b[0].detach()
    assert shares(d, b) and d._version_counter is b._version_counter
    assert d._base is None and d.grad_fn is None


def test_dot_T_warns_outside_two_dimensions_like_torch():
    with pytest.warns(UserWarning, match="^The use of `x.T` on tensors of dimension other than 2"):
        assert minigrad.zeros(3).T.shape == (3,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert minigrad.zeros(2, 3).T.shape == (3, 2)
