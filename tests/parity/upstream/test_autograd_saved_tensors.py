"""PyTorch's test/test_autograd.py, saved tensors family: what a node keeps for backward, the
raw saved handles (`grad_fn._raw_saved_*`), and `saved_tensors_hooks`.

Each test is named after the upstream test it takes its facts from; the script is our own,
written once against `lib` (torch or minigrad) and run with both (tests/parity/conftest.py).
Where upstream uses `sin` (an op of the api family), `exp` or `pow` stands in: the fact
checked is about saving, not about the op.

Upstream tests of this family left out here, and why:
- test_saved_tensor_hooks_extra_enter_during_bw_no_leak,
  test_custom_function_saving_mutated_view_no_leak: the garbage collector (disable_gc).
- test_saved_tensor_constructor_with_hooks, test_saved_tensor_constructor_forbidden_without_flag:
  torch._C._autograd._make_saved_tensor and torch.autograd.SavedTensor() (private).
- test_clear_saved_tensors_on_access, test_clear_saved_tensors_on_access_double_access_error:
  a Function class attribute torch added for memory (clear_saved_tensors_on_access).
- test_save_on_cpu_and_checkpoint, test_graph_save_on_cpu_cuda: checkpoint, CUDA tensors
  (test_graph_save_on_cpu is here without its sparse tensors).
- test_saving_variable_to_disk: torch.save / torch.load.
- test_disabling_saved_tensor_hooks, test_disabling_saved_tensor_hooks_nested:
  torch.autograd.graph.disable_saved_tensors_hooks and a private torch._C query.
- test_node_post_hook_registered_during_unpack_hook: torch._C._current_autograd_node.
"""

from __future__ import annotations

import pytest

from ..conftest import error_of, plain

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _hooks(lib):
    return lib.autograd.graph.saved_tensors_hooks


def test_saved_tensor_hooks_extra_exit_during_bw_no_crash(parity):
    def script(lib, note):
        def unpack(x):
            ctx_1.__exit__(None, None, None)
            return x

        ctx_1 = _hooks(lib)(lambda x: x, unpack)
        ctx_2 = _hooks(lib)(lambda x: x, lambda x: x)
        for _ in range(10):
            with ctx_2:
                ctx_1.__enter__()
                x = lib.ones(3, 3, requires_grad=True)
                x.exp().sum().backward()
        for _ in range(10):
            ctx_1.__exit__(None, None, None)
        a = lib.tensor(1.0, requires_grad=True)
        y = a.exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda x: x, lambda x: x)
        y.backward()
        note("a.grad", plain(a.grad))

    parity(script)


def test_get_data_and_hooks_from_raw_saved_variable(parity):
    def script(lib, note):
        def pack_hook(t):
            return t

        def unpack_hook(t):
            return t

        a = lib.tensor(2.0, requires_grad=True)
        with _hooks(lib)(pack_hook, unpack_hook):
            b = a**2
        c = b.exp()
        d = c**2
        pow_sv = b.grad_fn._raw_saved_self
        exp_sv = c.grad_fn._raw_saved_result
        pow2_sv = d.grad_fn._raw_saved_self
        note("packed object as is", pow_sv.data is a)
        note("its unpack hook", pow_sv.unpack_hook is unpack_hook)
        note("a saved output is not the output object", exp_sv.data is c)
        note("... and has the output's values", exp_sv.data)
        note("no unpack hook", exp_sv.unpack_hook is None)
        note("a saved input is the input", pow2_sv.data is c)

    parity(script)


def test_no_unnecessary_unwrapping(parity):
    def script(lib, note):
        a = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        b = a * a
        c = a * b
        d = lib.exp(a)
        note("b saved a (self)", b.grad_fn._saved_self is a)
        note("b saved a (other)", b.grad_fn._saved_other is a)
        note("c saved a", c.grad_fn._saved_self is a)
        note("c saved b", c.grad_fn._saved_other is b)
        note("d's saved result", d.grad_fn._saved_result)
        note("... is not d itself", d.grad_fn._saved_result is d)
        c.sum().backward()
        note("after backward", error_of(lambda: c.grad_fn._saved_self))
        note("a untouched", a)

    parity(script)


def test_saved_variable_version_counter(parity):
    def script(lib, note):
        a = lib.tensor([0.5, -1.0], requires_grad=True)
        b = lib.exp(a)
        b_unpacked = b.grad_fn._saved_result
        note("versions", [b._version, b_unpacked._version])
        with lib.no_grad():
            b += 1
        note("values after b += 1", plain(b_unpacked))
        note("versions after b += 1", [b._version, b_unpacked._version])

    parity(script)


def test_saved_variable_packing_unpacking_saved_original_with_hooks(parity):
    def script(lib, note):
        for is_leaf in (True, False):

            def get_input():
                leaf = lib.tensor([0.5, -1.0, 2.0, 1.5, -0.5], requires_grad=True)
                return leaf if is_leaf else 1 + leaf  # noqa: B023 - used at once

            a = get_input()
            y = a * a
            y.grad_fn._raw_saved_self.register_hooks(lambda x: 2 * x, lambda x: x / 2)
            note("unpacked", y.grad_fn._saved_self)
            note("history kept", y.grad_fn._saved_self.grad_fn is a.grad_fn)
            y.sum().backward()
            note("leaf grad", None if not is_leaf else plain(a.grad))

            a = get_input()
            y = a * a
            y.grad_fn._raw_saved_self.register_hooks(lambda x: 2 * x, lambda x: x)
            note("unpacked (doubled)", y.grad_fn._saved_self)
            y.sum().backward()
            note("leaf grad (one factor doubled)", None if not is_leaf else plain(a.grad))

            a = get_input()
            y = a**3
            y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
            (g,) = lib.autograd.grad(y.sum(), (a,), create_graph=True)
            note("first gradient", g)
            g.sum().backward()
            note("second gradient", None if not is_leaf else plain(a.grad))

            a = get_input()
            y = a * a
            y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: 1)
            note("unpack returns a number", error_of(lambda: y.grad_fn._saved_self))  # noqa: B023

            def inplace_double(x):
                x *= 2
                return x

            a = get_input()
            t = a * a
            note(
                "pack changes its input",
                error_of(
                    lambda: t.grad_fn._raw_saved_self.register_hooks(  # noqa: B023
                        inplace_double, lambda x: x / 2
                    )
                ),
            )

    parity(script)


def test_saved_variable_saved_original_inplace_detach(parity):
    def script(lib, note):
        a = lib.tensor(1.0, requires_grad=True).clone()
        b = a.pow(2)
        a.detach_()
        note("saved input detached in place", error_of(lambda: b.backward()))
        a = lib.tensor(1.0, requires_grad=True).clone()
        b = a.exp()
        a.detach_()
        note("saved output, input detached", error_of(lambda: b.backward()))

    parity(script)


def test_saved_variable_packing_unpacking_did_not_save_original_with_hooks(parity):
    def script(lib, note):
        a = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = lib.exp(a)
        y.grad_fn._raw_saved_result.register_hooks(lambda x: x, lambda x: x)
        note("unpacked", y.grad_fn._saved_result)
        note("its grad_fn is y's", y.grad_fn._saved_result.grad_fn is y.grad_fn)
        y.sum().backward()
        note("a.grad", plain(a.grad))

    parity(script)


def test_saved_variable_packing_unpacking_saved_original_with_default_hooks(parity):
    def script(lib, note):
        packs = []

        def pack(x):
            packs.append(x.shape)
            return x

        with _hooks(lib)(pack, lambda x: x):
            a = lib.ones(5, requires_grad=True)
            y = a * a
        note("packs", len(packs))
        for pack_hook, unpack_hook in [
            (lambda x: x, lambda x: x),
            (lambda x: 2 * x, lambda x: x / 2),
            (lambda x: 2 * x, lambda x: x),
        ]:
            with _hooks(lib)(pack_hook, unpack_hook):
                a = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
                y = a * a
                note("saved", [y.grad_fn._saved_self, y.grad_fn._saved_other])
                y.sum().backward()
                note("a.grad", plain(a.grad))
        a = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = a * a
        note("after the hooks", y.grad_fn._saved_self is a)

    parity(script)


def test_saved_variable_packing_unpacking_did_not_save_original_with_default_hooks(parity):
    def script(lib, note):
        with _hooks(lib)(lambda x: x, lambda x: x):
            a = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
            y = lib.exp(a)
            note("unpacked", y.grad_fn._saved_result)
            y.sum().backward()
            note("a.grad", plain(a.grad))

    parity(script)


def test_setting_default_saved_variable_hooks_twice_should_not_fail(parity):
    def script(lib, note):
        with _hooks(lib)(lambda x: x, lambda x: x):
            with _hooks(lib)(lambda x: x, lambda x: x):
                note("nested", True)

    parity(script)


def test_setting_default_saved_variable_hooks_twice_should_use_inner(parity):
    def script(lib, note):
        with _hooks(lib)(lambda x: 3 * x, lambda x: 3 * x):
            b = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
            with _hooks(lib)(lambda x: 5 * x, lambda x: 5 * x):
                a = lib.tensor([1.5, 1.0, -2.0], requires_grad=True)
                y = a * a
            z = b * b
        y.sum().backward()
        z.sum().backward()
        note("a.grad (inner hooks)", plain(a.grad))
        note("b.grad (outer hooks)", plain(b.grad))

    parity(script)


def test_saved_tensor_hooks_custom_error_propagation(parity):
    def script(lib, note):
        class CustomError(Exception):
            pass

        def bad_pack(x):
            raise CustomError("pack")

        def bad_unpack(x):
            raise CustomError("unpack")

        a = lib.tensor(1.0, requires_grad=True)
        with _hooks(lib)(bad_pack, lambda x: x):
            note("pack raises", error_of(lambda: lib.exp(a)))
        with _hooks(lib)(lambda x: x, bad_unpack):
            out = lib.exp(a)
            note("unpack raises", error_of(lambda: out.backward()))

    parity(script)


def test_saved_tensor_hooks_custom_function_intermediates(parity):
    def script(lib, note):
        class Func(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                intermediate = x.exp()
                ctx.save_for_backward(intermediate.clone().detach_().requires_grad_(True))
                return x.exp()

            @staticmethod
            def backward(ctx, grad_out):
                (intermediate,) = ctx.saved_tensors
                return grad_out * intermediate

        a = lib.tensor(1.0, requires_grad=True)
        with _hooks(lib)(lambda x: x, lambda x: x):
            out = Func.apply(a)
        out.backward()
        note("a.grad", plain(a.grad))

    parity(script)


def test_unpack_hooks_exec_count(parity):
    def script(lib, note):
        counts = {"pack": 0, "unpack": 0}

        def pack_hook(x):
            counts["pack"] += 1
            return x

        def unpack_hook(x):
            counts["unpack"] += 1
            return x

        x = lib.ones(4, requires_grad=True)
        y = lib.ones(4, requires_grad=False)
        with _hooks(lib)(pack_hook, unpack_hook):
            out = x * y
            note("after forward", dict(counts))
            out.sum().backward()
            note("after backward", dict(counts))

    parity(script)


def test_saved_tensors_hook_version_counter_not_shared(parity):
    def script(lib, note):
        a = lib.tensor(1.0, requires_grad=True)

        class Test(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.exp()

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                before = a._version
                x.add_(1)
                note("a's version unchanged", a._version == before)
                return grad_output

        replacement = a.clone()
        with _hooks(lib)(lambda x: replacement, lambda x: x):
            b = Test.apply(a)
        b.backward()
        note("a.grad", plain(a.grad))

    parity(script)


def test_pack_hook_with_inplace_modification_should_fail(parity):
    def script(lib, note):
        a = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)

        def inc(x):
            x += 1
            return x

        with _hooks(lib)(inc, lambda x: x):
            note("in the context", error_of(lambda: lib.exp(a)))
        y = lib.exp(a)
        note(
            "registered on the handle",
            error_of(lambda: y.grad_fn._raw_saved_result.register_hooks(inc, lambda x: x)),
        )

    parity(script)


def test_default_saved_tensors_hooks_double_backward(parity):
    def script(lib, note):
        values = [0.5, -1.0, 2.0]
        with _hooks(lib)(lambda x: x, lambda x: x):
            a = lib.tensor(values, requires_grad=True)
            (g,) = lib.autograd.grad((a**3).sum(), (a,), create_graph=True)
            g.sum().backward()
            note("identity hooks", plain(a.grad))

        with _hooks(lib)(lambda x: 2 * x, lambda x: x):
            a = lib.tensor(values, requires_grad=True)
            s = (a**3).sum()
        (g,) = lib.autograd.grad(s, (a,), create_graph=True)
        note("first gradient (a saved doubled)", g)
        g.sum().backward()
        note("forward under the hooks", plain(a.grad))

        a = lib.tensor(values, requires_grad=True)
        s = (a**3).sum()
        with _hooks(lib)(lambda x: 2 * x, lambda x: x):
            (g,) = lib.autograd.grad(s, (a,), create_graph=True)
            g.sum().backward()
            note("backward under the hooks", plain(a.grad))

        with _hooks(lib)(lambda x: 2 * x, lambda x: x):
            a = lib.tensor(values, requires_grad=True)
            s = (a**3).sum()
            (g,) = lib.autograd.grad(s, (a,), create_graph=True)
            g.sum().backward()
            note("both under the hooks", plain(a.grad))

    parity(script)


def test_wrapped_number_saved_tensors_hooks(parity):
    def script(lib, note):
        def err_hook(x):
            raise RuntimeError("this hook should not be called")

        with _hooks(lib)(err_hook, err_hook):
            a = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
            out = (a * 3).sum()
            note("grad", lib.autograd.grad(out, (a,)))

    parity(script)


def test_custom_function_saved_tensors(parity):
    def script(lib, note):
        def get_fn(save):
            class MyFn(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    if save:
                        ctx.save_for_backward(x, None)
                    return x

                @staticmethod
                def backward(ctx, g):
                    return g

            return MyFn

        a = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = get_fn(True).apply(a)
        saved = y.grad_fn.saved_tensors
        note("saved_tensors", [saved[0] is a, saved[1]])
        y.sum().backward()
        note("after backward", error_of(lambda: y.grad_fn.saved_tensors))
        y = get_fn(False).apply(a)
        note("nothing saved", y.grad_fn.saved_tensors)

    parity(script)


def test_grad_fn_attr_bindings(parity):
    """What each kind of `_saved_<name>` gives: a tensor, a raw saved handle, an int; after
    backward the tensors are freed but the numbers stay; an input's sizes are a tuple of ints.
    (Upstream also reads `_saved_indices` and the fields of interpolate, pdist, logit,
    div(rounding_mode) and threshold, ops or fields minigrad does not have; the `_saved_*` of
    every node minigrad makes are compared in tests/parity/test_saved_fields_parity.py.)"""

    def script(lib, note):
        a = lib.ones(1, requires_grad=True)
        b = lib.zeros(1, requires_grad=True)
        stacked = lib.stack([a, b], dim=0)
        product = (a * 2) * b
        note("a tensor", product.grad_fn._saved_self)
        note("... is a Tensor", isinstance(product.grad_fn._saved_self, lib.Tensor))
        raw = product.grad_fn._raw_saved_self
        note("a raw handle takes hooks", callable(raw.register_hooks))
        note("... two functions", error_of(lambda: raw.register_hooks(None, None)))
        note("... not one", error_of(lambda: raw.register_hooks(lambda x: x, None)))
        note("an int", stacked.grad_fn._saved_dim)
        note("... is an int", type(stacked.grad_fn._saved_dim) is int)
        note("pow's exponent", (a**3).grad_fn._saved_exponent)
        raw.register_hooks(lambda x: x, lambda x: x)
        product.sum().backward()
        note("a freed tensor", error_of(lambda: product.grad_fn._saved_self))
        note("an int after backward", stacked.grad_fn._saved_dim)

        a = lib.ones(2, 2, requires_grad=True)
        square = a * a
        square.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
        square.sum().backward()
        again = square.grad_fn._raw_saved_self
        same = lambda x: x  # noqa: E731
        note("hooks on a freed value", error_of(lambda: again.register_hooks(same, same)))
        note("a name the op does not save", error_of(lambda: a.sum().grad_fn._saved_self))
        note("cat's dim", lib.cat([a, a], dim=1).grad_fn._saved_dim)
        # as given, and unsigned: dim=-1 shows as 2**64 - 1 in torch
        note("cat's dim -1", lib.cat([a, a], dim=-1).grad_fn._saved_dim)
        note("stack's dim -2", lib.stack([a, a], dim=-2).grad_fn._saved_dim)
        sizes = a.sum().grad_fn._saved_self_sym_sizes
        note("an input's sizes", (type(sizes).__name__, sizes))
        note("... of ints", [type(size).__name__ for size in sizes])

    parity(script)


def test_graph_save_on_cpu(parity):
    def script(lib, note):
        for pin_memory in (False, True):
            a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
            with lib.autograd.graph.save_on_cpu(pin_memory=pin_memory) as entered:
                y = a.exp()
                z = (a * 2).pow(2)
            saved = y.grad_fn._saved_result
            note("with ... as", entered)
            note("saved result: same memory as y", saved.data_ptr() == y.data_ptr())
            note("saved result requires grad", saved.requires_grad)
            (y.sum() + z.sum()).backward()
            note(f"grad, pin_memory={pin_memory}", plain(a.grad))
            b = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
            with lib.autograd.graph.save_on_cpu(pin_memory=pin_memory):
                (g,) = lib.autograd.grad(b.pow(3).sum(), (b,), create_graph=True)
            g.sum().backward()
            note("second order under save_on_cpu", plain(b.grad))

    parity(script)
