"""Inference mode, from test_autograd.py's TestAutogradInferenceMode: which tensors are
inference tensors (`torch.is_inference`), what requires grad, which views and in-place
changes are allowed inside and outside the mode, and the errors when they are not."""

from __future__ import annotations

import pytest

from ..conftest import error_of, plain

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

INPLACE = {"add_": lambda t: t.add_(2), "transpose_": lambda t: t.transpose_(0, 1)}


def facts(lib, t):
    """What these tests look at: inference tensor, requires_grad, leaf, view."""
    return [lib.is_inference(t), t.is_inference(), t.requires_grad, t.is_leaf, t._is_view()]


def test_inference_mode_context_manager(parity):
    def script(lib, note):
        note("outside", lib.is_inference_mode_enabled())
        with lib.inference_mode():
            note("inside", lib.is_inference_mode_enabled())
            with lib.inference_mode(False):
                note("inside False", lib.is_inference_mode_enabled())
                note("grad inside False", lib.is_grad_enabled())
            note("back inside", lib.is_inference_mode_enabled())
        note("after", lib.is_inference_mode_enabled())

    parity(script)


def test_inference_mode_decorator(parity):
    def script(lib, note):
        def func(x):
            note("mode inside", lib.is_inference_mode_enabled())
            return x * x

        decorators = {
            "True": lib.inference_mode(True),
            "False": lib.inference_mode(False),
            "mode=True": lib.inference_mode(mode=True),
        }
        decorated = {label: decorator(func) for label, decorator in decorators.items()}
        decorated["bare"] = lib.inference_mode(func)
        decorated["mode=func"] = lib.inference_mode(mode=func)
        for label, wrapped in decorated.items():
            for requires_grad in (True, False):
                d = wrapped(lib.ones(1, 2, 3, requires_grad=requires_grad))
                note(f"{label} {requires_grad}", [lib.is_inference(d), d.requires_grad])

    parity(script)


def test_inference_mode_tensor_creation(parity):
    def script(lib, note):
        with lib.inference_mode():
            note("ones", facts(lib, lib.ones(1, 2, 3)))
            note("ones requires_grad", facts(lib, lib.ones(1, 2, 3, requires_grad=True)))
            note("requires_grad_(False)", facts(lib, lib.ones(1, 2, 3).requires_grad_(False)))
        c = lib.ones(2)
        note("outside", facts(lib, c))
        note("version of a normal tensor", c._version)

    parity(script)


def test_inference_mode_existing_autograd_session(parity):
    def script(lib, note):
        s = lib.ones(1, 2, 3, requires_grad=True)
        a = s.clone()
        out = a * a
        with lib.inference_mode():
            a.add_(2)
        note("a is inference", lib.is_inference(a))
        note("a version", a._version)
        note("backward", error_of(lambda: out.backward(lib.ones_like(out))))

    parity(script)


def test_inference_mode_inf_tensor_in_inf_mode_functional_op(parity):
    def script(lib, note):
        with lib.inference_mode():
            for requires_grad in (True, False):
                c = lib.ones(1, 2, 3, requires_grad=requires_grad)
                note(f"c * c {requires_grad}", facts(lib, c * c))

    parity(script)


def test_inference_mode_inf_tensor_in_inf_mode_inplace_op(parity):
    def script(lib, note):
        for name, fn in INPLACE.items():

            @lib.inference_mode()
            def run(fn=fn, name=name):
                for requires_grad in (True, False):
                    c = lib.ones(1, 2, 3, requires_grad=requires_grad)
                    fn(c)
                    note(f"{name} {requires_grad}", [lib.is_inference(c), c.requires_grad])

            run()

    parity(script)


def test_inference_mode_inf_tensor_in_inf_mode_view_op(parity):
    def script(lib, note):
        with lib.inference_mode():
            for requires_grad in (True, False):
                c = lib.ones(1, 2, 3, requires_grad=requires_grad)
                note(f"view {requires_grad}", facts(lib, c.view(-1)))

    parity(script)


def test_inference_mode_inf_tensor_in_normal_mode_functional_op(parity):
    def script(lib, note):
        for requires_grad in (True, False):
            with lib.inference_mode():
                c = lib.ones(1, 2, 3, requires_grad=requires_grad)
        out = c * c  # (the last c, made without requires_grad)
        note("c * c", facts(lib, out))
        note("value", out)

    parity(script)


def test_inference_mode_inf_tensor_in_normal_mode_inplace_op(parity):
    def script(lib, note):
        for name, fn in INPLACE.items():
            for requires_grad in (False, True):
                with lib.inference_mode():
                    c = lib.ones(1, 2, 3, requires_grad=requires_grad)
                note(f"{name} {requires_grad}", error_of(lambda fn=fn, c=c: fn(c)))

    parity(script)


def test_inference_mode_inf_tensor_in_normal_mode_view_op(parity):
    def script(lib, note):
        for requires_grad in (True, False):
            with lib.inference_mode():
                c = lib.ones(1, 2, 3, requires_grad=requires_grad)
            note(f"view {requires_grad}", facts(lib, c.view(-1)))
            note("version of an inference tensor", error_of(lambda c=c: c._version))

    parity(script)


def test_normal_tensor_inplace_output_in_inference_mode(parity):
    def script(lib, note):
        for name, fn in INPLACE.items():
            for requires_grad in (True, False):
                a = lib.ones(1, 2, 3, requires_grad=requires_grad).clone()
                with lib.inference_mode():
                    fn(a)
                    note(f"{name} once", [lib.is_inference(a), a.requires_grad])
                    fn(a)
                    note(f"{name} twice", [lib.is_inference(a), a.requires_grad])
                    view = a.view(-1)
                    note(f"{name} view", [lib.is_inference(view), view.requires_grad])

    parity(script)


def test_normal_tensor_inplace_output_in_normal_mode(parity):
    def script(lib, note):
        for name, fn in INPLACE.items():
            for requires_grad in (True, False):
                a = lib.ones(1, 2, 3, requires_grad=requires_grad).clone()
                with lib.inference_mode():
                    fn(a)
                fn(a)
                fn(a)
                note(f"{name} {requires_grad}", [lib.is_inference(a), a.requires_grad])
                view = a.view(-1)
                note(f"{name} view", [lib.is_inference(view), view.requires_grad])
                note(f"{name} a", a)

    parity(script)


def test_normal_tensor_view_output_in_inference_mode(parity):
    def script(lib, note):
        for requires_grad in (True, False):
            a = lib.ones(1, 2, 3, requires_grad=requires_grad).clone()
            with lib.inference_mode():
                out = a.view(-1)
                note(f"view {requires_grad}", facts(lib, out))
                tmp = out.view(-1)
                note(f"view of view {requires_grad}", facts(lib, tmp))
                tmp.add_(2)
                note("after add_", [lib.is_inference(tmp), tmp.requires_grad])
                note("versions", [a._version, tmp._version])

    parity(script)


def test_normal_tensor_view_output_in_normal_mode(parity):
    def script(lib, note):
        for requires_grad in (True, False):
            a = lib.ones(1, 2, 3, requires_grad=requires_grad).clone()
            with lib.inference_mode():
                out = a.view(-1)
            tmp = out * out
            note(f"out * out {requires_grad}", [lib.is_inference(tmp), tmp.requires_grad])
            note(f"add_ {requires_grad}", error_of(lambda out=out: out.add_(2)))
            tmp = out.view(2, 3)
            note(f"view {requires_grad}", [lib.is_inference(tmp), tmp.requires_grad])

    parity(script)


def test_mix_inference_and_normal_tensor_functional_op(parity):
    def script(lib, note):
        for requires_grad in (True, False):
            s = lib.ones(1, 2, 3, requires_grad=requires_grad)
            with lib.inference_mode():
                c = lib.ones(1, 2, 3, requires_grad=requires_grad)
            out = c.add(s)
            note(f"add {requires_grad}", [lib.is_inference(out), out.requires_grad])
            if requires_grad:
                out.backward(lib.ones_like(out))
                note("c.grad", plain(c.grad))
                note("c * s", error_of(lambda c=c, s=s: c * s))

    parity(script)


def test_mix_inference_and_normal_tensor_inplace_op(parity):
    def script(lib, note):
        for requires_grad in (True, False):
            s = lib.ones(1, 2, 3, requires_grad=requires_grad)
            a = s.clone()
            with lib.inference_mode():
                c = lib.ones(1, 2, 3)
            note("c is inference", lib.is_inference(c))
            note(f"a.mul_(c) {requires_grad}", error_of(lambda a=a, c=c: a.mul_(c)))
            note(f"mul out=c {requires_grad}", error_of(lambda s=s, c=c: lib.mul(s, s, out=c)))

    parity(script)


def test_mix_inference_and_normal_tensor_view_op(parity):
    def script(lib, note):
        for requires_grad in (True, False):
            s = lib.ones(1, 2, 3, requires_grad=requires_grad)
            with lib.inference_mode():
                c = lib.ones(1, 2, 3)
            tmp1 = c.view_as(s)
            note(f"c.view_as(s) {requires_grad}", [lib.is_inference(tmp1), tmp1.requires_grad])
            tmp2 = s.view_as(c)
            note(f"s.view_as(c) {requires_grad}", [lib.is_inference(tmp2), tmp2.requires_grad])

    parity(script)


def test_inference_mode_handle_direct_view_on_rebase(parity):
    def script(lib, note):
        for name, fn in INPLACE.items():
            for requires_grad in (True, False):
                a = lib.ones(1, 2, 3, requires_grad=requires_grad).clone()
                with lib.inference_mode():
                    view_out = a.view_as(a)
                note(f"{name} {requires_grad}", error_of(lambda fn=fn, v=view_out: fn(v)))

    parity(script)


def test_inference_mode_handle_indirect_view_on_rebase(parity):
    def script(lib, note):
        for name, fn in INPLACE.items():
            for requires_grad in (True, False):
                a = lib.ones(1, 2, 3, requires_grad=requires_grad).clone()
                with lib.inference_mode():
                    view_out = a.view(-1)
                fn(a)
                note(f"{name} {requires_grad}", error_of(lambda v=view_out: v.grad_fn))

    parity(script)
