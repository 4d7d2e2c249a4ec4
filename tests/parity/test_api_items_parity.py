"""minigrad 4's API items from the held-out sets, against torch 2.13: which `_saved_<name>`
attributes a node has, dtype rules of bool and small integer tensors, nn.Parameter of an
inference tensor, cross_entropy with class probabilities, hardtanh and leaky_relu under
create_graph (WGAN-GP), autograd.functional, the legacy Variable, as_tensor, device="cpu"."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import error_of, plain

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def saved_names(node):
    return sorted(name for name in dir(node) if name.startswith(("_saved_", "_raw_saved_")))


def test_saved_attributes_only_for_what_a_node_saved(parity):
    def script(lib, note):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        for label, out in (
            ("mul", a * a),
            ("mul by a constant", a * lib.tensor([3.0, 4.0])),
            ("exp", a.exp()),
            ("sin", a.sin()),
            ("pow", a**3),
        ):
            note(f"{label} dir", saved_names(out.grad_fn))
            note(f"{label} _saved_self", error_of(lambda out=out: out.grad_fn._saved_self))
            note(f"{label} _saved_result", error_of(lambda out=out: out.grad_fn._saved_result))

    parity(script)


def test_dtype_rules_of_small_tensors(parity):
    def script(lib, note):
        t = lib.tensor([True, False])
        note("bool - bool", error_of(lambda: t - t))
        note("bool ** 2", t**2)
        note("bool ** 0.5", t**0.5)
        note("uint8 + int8", lib.tensor([200], dtype=lib.uint8) + lib.tensor([-1], dtype=lib.int8))

    parity(script)


def test_parameter_of_an_inference_tensor(parity):
    def script(lib, note):
        with lib.inference_mode():
            made = lib.ones(2)
        note("Parameter", error_of(lambda: lib.nn.Parameter(made)))
        note("no grad", lib.nn.Parameter(made, requires_grad=False).requires_grad)

    parity(script)


def test_cross_entropy_with_class_probabilities(parity):
    def script(lib, note):
        F = lib.nn.functional
        target = lib.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
        for reduction in ("mean", "sum", "none"):
            logits = lib.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 0.3]], requires_grad=True)
            loss = F.cross_entropy(logits, target, reduction=reduction)
            note(reduction, loss)
            loss.sum().backward()
            note(f"{reduction} grad", plain(logits.grad))

    parity(script)


def test_hardtanh_and_leaky_relu_twice(parity):
    def script(lib, note):
        F = lib.nn.functional
        x = lib.tensor([-2.0, -0.5, 0.5, 2.0], requires_grad=True)
        for label, fn in (
            ("hardtanh", lambda t: F.hardtanh(t)),
            ("hardtanh bounds", lambda t: F.hardtanh(t, -1.0, 1.5)),
            ("leaky_relu", lambda t: F.leaky_relu(t, 0.2)),
        ):
            out = fn(x)
            note(label, out)
            (g,) = lib.autograd.grad(out.sum(), x, create_graph=True)
            note(f"{label} grad", g)
            note(f"{label} grad of grad", list(lib.autograd.grad(g.sum(), x, allow_unused=True)))

    parity(script)


def test_wgan_gp_penalty_with_a_leaky_relu_critic(parity):
    def script(lib, note):
        F = lib.nn.functional
        w1 = lib.tensor([[0.5, -1.0], [1.5, 0.25]], requires_grad=True)
        w2 = lib.tensor([[1.0], [-2.0]], requires_grad=True)
        real = lib.tensor([[1.0, 2.0], [0.5, -1.0]])
        fake = lib.tensor([[-1.0, 0.5], [2.0, 1.0]])
        alpha = lib.tensor([[0.3], [0.7]])
        mixed = (alpha * real + (1 - alpha) * fake).requires_grad_()
        score = F.leaky_relu(mixed @ w1, 0.2) @ w2
        (g,) = lib.autograd.grad(score.sum(), mixed, create_graph=True)
        penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
        penalty.backward()
        note("penalty", penalty)
        note("grads", [plain(w1.grad), plain(w2.grad)])

    parity(script)


def test_jacobian_and_hessian(parity):
    def script(lib, note):
        functional = lib.autograd.functional
        x = lib.tensor([1.0, 2.0, -0.5])
        note("jacobian", functional.jacobian(lambda v: v**2 * v.sum(), x))
        note("jacobian of two", list(functional.jacobian(lambda a, b: a * b, (x, x + 1))))
        note("hessian", functional.hessian(lambda v: (v**3).sum() + v.prod(), x))
        kept = functional.jacobian(lambda v: v.exp(), x.requires_grad_(), create_graph=True)
        note("create_graph", [plain(kept), kept.requires_grad])

    parity(script)


def test_legacy_names_and_conversions(parity):
    def script(lib, note):
        x = lib.tensor([1.0, 2.0])
        v = lib.autograd.Variable(x, requires_grad=True)
        note("Variable", [v is x, v.requires_grad, isinstance(x, lib.autograd.Variable)])
        note("inf", [lib.inf, str(lib.nan)])
        array = np.array([1.0, 2.0])
        t = lib.as_tensor(array)
        note("as_tensor shares", [bool(np.shares_memory(t.numpy(), array)), t])
        note("as_tensor of a tensor", lib.as_tensor(x) is x)
        note("type", [x.type().split(".")[-1], x.type(lib.float64)])
        note("_is_view", [x._is_view(), x[1:]._is_view(), x.view(2)._is_view()])
        for make in (lib.ones, lib.zeros, lib.rand):
            note(make.__name__, make(2, device="cpu").shape)
        note("like", lib.zeros_like(x, device="cpu"))

    parity(script)


def test_pack_hook_runs_without_grad_mode(parity):
    """The issue's fact that torch packs with grad mode off, so a clone
    made in a pack hook does not require grad."""

    def script(lib, note):
        seen = []

        def pack(t):
            seen.append(lib.is_grad_enabled())
            clone = t.clone()
            seen.append(clone.requires_grad)
            return clone

        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = (x * 2) * x
        note("grad mode, clone requires grad", seen)
        y.sum().backward()
        note("x.grad", plain(x.grad))

    parity(script)
