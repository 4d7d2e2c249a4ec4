"""Parity with torch: losses (values and gradients), layers, graphs, and optimizer steps.

The same weights are copied into both libraries; results must agree to float32 precision.
"""

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.parity

RNG = np.random.default_rng(1234)


def pair(array, requires_grad=True):
    """The same values as a minigrad and a torch leaf."""
    array = np.array(array, dtype=np.float32)
    return (
        minigrad.tensor(array.copy(), requires_grad=requires_grad),
        torch.tensor(array.copy(), requires_grad=requires_grad),
    )


def close(ours, theirs, atol=1e-6, rtol=1e-5):
    theirs = theirs.detach().numpy() if hasattr(theirs, "detach") else theirs
    np.testing.assert_allclose(ours.detach().numpy(), theirs, atol=atol, rtol=rtol)


def copy_weights(ours, theirs):
    """Copy a minigrad module's parameters into the torch module with the same layout."""
    with torch.no_grad():
        for (name, p_ours), (name_t, p_theirs) in zip(
            ours.named_parameters(), theirs.named_parameters(), strict=True
        ):
            assert name == name_t
            p_theirs.copy_(torch.from_numpy(p_ours.detach().numpy().copy()))


# ---- losses -------------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(reduction):
    (x, tx), (t, tt) = pair(RNG.normal(size=(5, 3))), pair(RNG.normal(size=(5, 3)))
    ours = F.mse_loss(x, t, reduction=reduction)
    theirs = torch.nn.functional.mse_loss(tx, tt, reduction=reduction)
    close(ours, theirs)
    weights = RNG.normal(size=ours.shape).astype(np.float32)
    ours.backward(minigrad.tensor(weights))
    theirs.backward(torch.tensor(weights))
    close(x.grad, tx.grad)
    close(t.grad, tt.grad)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("options", ["plain", "weight", "ignore_index"])
def test_cross_entropy(reduction, options):
    x, tx = pair(RNG.normal(size=(6, 4)) * 3)
    target = np.array([0, 3, 1, 1, 2, 3])
    kwargs_ours, kwargs_torch = {}, {}
    if options == "weight":
        w = np.array([0.5, 1.0, 2.0, 0.1], dtype=np.float32)
        kwargs_ours["weight"], kwargs_torch["weight"] = minigrad.tensor(w), torch.tensor(w)
    if options == "ignore_index":
        target[2] = -100
    ours = F.cross_entropy(x, minigrad.tensor(target), reduction=reduction, **kwargs_ours)
    theirs = torch.nn.functional.cross_entropy(
        tx, torch.tensor(target), reduction=reduction, **kwargs_torch
    )
    close(ours, theirs)
    ours.sum().backward()
    theirs.sum().backward()
    close(x.grad, tx.grad)


def test_cross_entropy_module_and_single_sample():
    x, tx = pair(RNG.normal(size=(4,)))
    close(
        nn.CrossEntropyLoss()(x, minigrad.tensor(2)),
        torch.nn.CrossEntropyLoss()(tx, torch.tensor(2)),
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("options", ["plain", "weight", "pos_weight"])
def test_bce_with_logits(reduction, options):
    x, tx = pair(RNG.normal(size=(4, 3)) * 20)  # large logits: the stable formula matters
    t, tt = pair(RNG.uniform(size=(4, 3)))
    kwargs_ours, kwargs_torch = {}, {}
    if options != "plain":
        w = RNG.uniform(0.1, 3, size=(3,)).astype(np.float32)
        kwargs_ours[options], kwargs_torch[options] = minigrad.tensor(w), torch.tensor(w)
    ours = F.binary_cross_entropy_with_logits(x, t, reduction=reduction, **kwargs_ours)
    theirs = torch.nn.functional.binary_cross_entropy_with_logits(
        tx, tt, reduction=reduction, **kwargs_torch
    )
    close(ours, theirs, atol=1e-5)
    ours.sum().backward()
    theirs.sum().backward()
    close(x.grad, tx.grad)
    close(t.grad, tt.grad, atol=1e-5)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_family(name, dim):
    x, tx = pair(RNG.normal(size=(3, 5)) * 4)
    ours = getattr(F, name)(x, dim=dim)
    theirs = getattr(torch.nn.functional, name)(tx, dim=dim)
    close(ours, theirs)
    weights = RNG.normal(size=(3, 5)).astype(np.float32)
    ours.backward(minigrad.tensor(weights))
    theirs.backward(torch.tensor(weights))
    close(x.grad, tx.grad)


# ---- layers -------------------------------------------------------------------------------------


def test_linear_forward_backward():
    ours, theirs = nn.Linear(3, 4), torch.nn.Linear(3, 4)
    copy_weights(ours, theirs)
    x, tx = pair(RNG.normal(size=(5, 3)))
    close(ours(x), theirs(tx))
    ours(x).pow(2).sum().backward()
    theirs(tx).pow(2).sum().backward()
    close(x.grad, tx.grad, atol=1e-5)
    close(ours.weight.grad, theirs.weight.grad, atol=1e-5)
    close(ours.bias.grad, theirs.bias.grad, atol=1e-5)


def test_rnn_cell_forward_backward():
    ours, theirs = nn.RNNCell(3, 4), torch.nn.RNNCell(3, 4)
    copy_weights(ours, theirs)
    xs = RNG.normal(size=(3, 2, 3)).astype(np.float32)
    h, th = None, None
    for step in xs:
        h, th = ours(minigrad.tensor(step), h), theirs(torch.tensor(step), th)
    close(h, th)
    h.sum().backward()
    th.sum().backward()
    for p_ours, p_theirs in zip(ours.parameters(), theirs.parameters(), strict=True):
        close(p_ours.grad, p_theirs.grad, atol=1e-5)


def test_embedding_backward():
    ours, theirs = nn.Embedding(5, 3), torch.nn.Embedding(5, 3)
    copy_weights(ours, theirs)
    idx = np.array([[0, 4], [4, 2]])
    close(ours(minigrad.tensor(idx)), theirs(torch.tensor(idx)))
    ours(minigrad.tensor(idx)).sum().backward()
    theirs(torch.tensor(idx)).sum().backward()
    close(ours.weight.grad, theirs.weight.grad)


def node_names(fn, depth):
    """Nested class names of a graph, `depth` levels down (both libraries name node classes
    alike; torch's name() says 'torch::autograd::AccumulateGrad', so use the class name)."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return (type(fn).__name__, [node_names(n, depth - 1) for n, _ in fn.next_functions])


def test_mlp_and_loss_graph_names_match_torch():
    ours = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    x = RNG.normal(size=(4, 2)).astype(np.float32)
    target = np.array([0, 1, 1, 0])
    loss_ours = F.cross_entropy(ours(minigrad.tensor(x)), minigrad.tensor(target))
    loss_theirs = torch.nn.functional.cross_entropy(theirs(torch.tensor(x)), torch.tensor(target))
    assert node_names(loss_ours.grad_fn, 6) == node_names(loss_theirs.grad_fn, 6)


def test_rnn_cell_graph_names_match_torch():
    ours, theirs = nn.RNNCell(2, 3), torch.nn.RNNCell(2, 3)
    x = np.ones((1, 2), dtype=np.float32)
    h_ours = ours(minigrad.tensor(x), ours(minigrad.tensor(x)))
    h_theirs = theirs(torch.tensor(x), theirs(torch.tensor(x)))
    assert node_names(h_ours.grad_fn, 5) == node_names(h_theirs.grad_fn, 5)


# ---- optimizers ---------------------------------------------------------------------------------

OPTIMIZERS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.02, "betas": (0.5, 0.9), "eps": 1e-6, "weight_decay": 0.05}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.05, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.02, "weight_decay": 0.1, "amsgrad": True, "maximize": True}),
]


@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS)
def test_optimizer_steps_match_torch(name, kwargs):
    minigrad.manual_seed(0)
    ours = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    copy_weights(ours, theirs)
    opt_ours = getattr(optim, name)(ours.parameters(), **kwargs)
    opt_theirs = getattr(torch.optim, name)(theirs.parameters(), **kwargs)
    rng = np.random.default_rng(5)
    for _ in range(5):
        x = rng.normal(size=(16, 3)).astype(np.float32)
        y = rng.normal(size=(16, 2)).astype(np.float32)
        for model, opt, lib, fn in (
            (ours, opt_ours, minigrad, F.mse_loss),
            (theirs, opt_theirs, torch, torch.nn.functional.mse_loss),
        ):
            loss = fn(model(lib.tensor(x)), lib.tensor(y))
            opt.zero_grad()
            loss.backward()
            opt.step()
    for p_ours, p_theirs in zip(ours.parameters(), theirs.parameters(), strict=True):
        close(p_ours, p_theirs, atol=1e-6, rtol=0)


def test_lr_change_through_param_groups_matches_torch():
    (p, tp) = pair([1.0, -2.0])
    opt_ours, opt_theirs = (
        optim.SGD([p], lr=0.1, momentum=0.9),
        torch.optim.SGD([tp], lr=0.1, momentum=0.9),
    )
    for step in range(4):
        for opt, param in ((opt_ours, p), (opt_theirs, tp)):
            for group in opt.param_groups:
                group["lr"] = 0.1 / (step + 1)
            opt.zero_grad()
            (param * param).sum().backward()
            opt.step()
    close(p, tp)


def test_state_dict_keys_match_torch():
    ours = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.RNNCell(3, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.RNNCell(3, 2))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_on_probabilities(reduction):
    p, tp = pair(RNG.uniform(0.01, 0.99, size=(4, 3)))
    t, tt = pair(RNG.uniform(size=(4, 3)))
    ours = F.binary_cross_entropy(p, t, reduction=reduction)
    theirs = torch.nn.functional.binary_cross_entropy(tp, tt, reduction=reduction)
    close(ours, theirs, atol=1e-5)
    ours.sum().backward()
    theirs.sum().backward()
    close(p.grad, tp.grad, atol=1e-4)
    close(t.grad, tt.grad, atol=1e-5)


def test_leaky_relu_and_reprs():
    x, tx = pair(RNG.normal(size=(3, 4)))
    ours, theirs = F.leaky_relu(x, 0.1), torch.nn.functional.leaky_relu(tx, 0.1)
    close(ours, theirs)
    ours.sum().backward()
    theirs.sum().backward()
    close(x.grad, tx.grad)
    for a, b in [
        (nn.LeakyReLU(0.2), torch.nn.LeakyReLU(0.2)),
        (nn.Dropout(0.3), torch.nn.Dropout(0.3)),
        (nn.BCELoss(), torch.nn.BCELoss()),
        (nn.Embedding(4, 2, padding_idx=1), torch.nn.Embedding(4, 2, padding_idx=1)),
        (nn.ModuleList([nn.ReLU()]), torch.nn.ModuleList([torch.nn.ReLU()])),
        (nn.Identity(), torch.nn.Identity()),
    ]:
        assert repr(a) == repr(b)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm(norm_type, max_norm):
    grads = [RNG.normal(size=(3, 4)).astype(np.float32), RNG.normal(size=(2,)).astype(np.float32)]
    ours = [minigrad.zeros(*g.shape, requires_grad=True) for g in grads]
    theirs = [torch.zeros(*g.shape, requires_grad=True) for g in grads]
    for o, t, g in zip(ours, theirs, grads, strict=True):
        o.grad, t.grad = minigrad.tensor(g.copy()), torch.tensor(g.copy())
    norm = nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    close(norm, torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type))
    for o, t in zip(ours, theirs, strict=True):
        close(o.grad, t.grad)
