"""PyTorch's test/test_autograd.py, hooks family: tensor hooks, node pre-hooks and post-hooks,
their order and counts, retain_grad / retains_grad, post-accumulate-grad hooks.

Each test is named after the upstream test it takes its facts from; the script is our own,
written once against `lib` (torch or minigrad) and run with both (tests/parity/conftest.py).

Upstream tests of this family left out here, and why:
- test_node_post_hook_registered_during_unpack_hook: needs torch._C._current_autograd_node
  (private).
- test_hooks_cpp: needs nn.BatchNorm1d, which minigrad does not have (the fact it checks, a
  tensor hook on a module's output, is test_hooks' with a C++ node).
- test_grad_fn_prehooks_multiple_outputs, test_retains_grad_inplace_multiple_outputs,
  test_tensor_hooks_inplace_multiple_outputs: the torch.var_mean half needs var_mean (an op
  of the api family); the custom-Function half of each is here.
- test_retain_grad_cycle: needs torch._C._WeakTensorRef (private).
- test_will_engine_execute_node, test_current_graph_task_id,
  test_current_graph_task_execution_order: private torch._C functions.
- test_backward_hook_relative_ordering: names nodes of torch's Linear (AddmmBackward0,
  TBackward0) and BackwardHookFunctionBackward, a C++-internal node of module hooks.
- test_multi_grad_all_hooks here leaves out upstream's C++ extension and undefined gradients
  (torch._C._functions.UndefinedGrad); what it checks of register_multi_grad_hook is here.
- test_hook_closure_cycle, test_create_graph_and_full_backward_hook_cycle,
  test_post_accumulate_grad_hook_gets_cleaned_up: reference cycles through the C++ node and
  the Python garbage collector (torch internals; minigrad's graph is plain Python objects).
- test_reentrant_with_leaf_variable_hook: a leaf's hook that swaps its .grad around a nested
  backward (written here as test_reentrant_with_non_leaf_variable_hook's twin only).
"""

from __future__ import annotations

import copy

import pytest

from ..conftest import error_of, plain, warnings_of

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _double_mul(lib):
    """A custom Function with two outputs (x * 2, x * 3)."""

    class DoubleMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    return DoubleMul


def _mul2(lib, custom):
    """x * 2, as a built-in op or as a custom Function."""
    if not custom:
        return lambda x: x * 2

    class Mul2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return Mul2.apply


# ---- tensor hooks -----------------------------------------------------------------------------


def test_hooks(parity):
    def script(lib, note):
        x = lib.ones(5, 5, requires_grad=True)
        y = lib.ones(5, 5) * 4
        y.requires_grad_(True)
        counter = [0]

        def bump(inc):
            def hook(grad):
                note(f"hook {inc} gets a tensor", isinstance(grad, lib.Tensor))
                counter[0] += inc

            return hook

        z = x**2 + x * 2 + x * y + y
        x.register_hook(bump(0))
        first = z.register_hook(bump(1))
        z.backward(lib.ones(5, 5), retain_graph=True)
        note("counter after one hook", counter[0])
        second = z.register_hook(bump(2))
        z.backward(lib.ones(5, 5), retain_graph=True)
        note("counter after two hooks", counter[0])
        second.remove()
        z.backward(lib.ones(5, 5), retain_graph=True)
        note("counter after removing one", counter[0])
        first.remove()
        z.register_hook(lambda grad: grad.mul(2))
        with lib.no_grad():
            y.grad.zero_()
        z.backward(lib.ones(5, 5), retain_graph=True)
        note("y.grad with z's gradient doubled", plain(y.grad))
        y.register_hook(lambda grad: grad.mul(2))
        with lib.no_grad():
            y.grad.zero_()
        z.backward(lib.ones(5, 5))
        note("y.grad doubled twice", plain(y.grad))

    parity(script)


def test_hook_with_no_name(parity):
    def script(lib, note):
        class CloneHook:  # a callable without __name__
            def __call__(self, grad):
                return grad.clone()

        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True).clone()
        x.register_hook(CloneHook())
        note("error", error_of(lambda: x.sum().backward()))

    parity(script)


def test_hook_none(parity):
    def script(lib, note):
        class NoneGradientFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                note("needs_input_grad", list(ctx.needs_input_grad))
                return x, y

            @staticmethod
            def backward(ctx, grad_x, grad_y):
                return grad_x, None

        seen = []
        x = lib.ones(2, 2, requires_grad=True)
        y = lib.ones(2, 2)
        rx, ry = NoneGradientFunction.apply(x, y)
        note("ry requires grad", ry.requires_grad)
        rx.register_hook(lambda grad: seen.append(grad is not None))
        note("hook on ry", error_of(lambda: ry.register_hook(lambda grad: None)))
        (rx + ry).sum().backward()
        note("hook saw a gradient", seen)

    parity(script)


def test_grad_nonleaf_register_hook(parity):
    def script(lib, note):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
        parts = x.unbind()
        results = [None]

        def hook(grad):
            results[0] = grad

        parts[0].register_hook(hook)
        parts[0].backward()
        note("hook got", plain(results[0]))
        note("x.grad", plain(x.grad))
        for i in range(1, 5):
            results[0] = None
            parts[i].backward()
            note(f"hook after part {i}", results[0] is None)
            note(f"x.grad after part {i}", plain(x.grad))

    parity(script)


def test_tensor_hooks_inplace(parity):
    def script(lib, note):
        seen = []

        def hook(label):
            def run(grad):
                seen.append((label, grad.tolist()))
                return grad * 2

            return run

        a = lib.tensor([1.0], requires_grad=True)
        b = a.clone()
        b.register_hook(hook("before mul_"))
        b.mul_(2)
        b.register_hook(hook("after mul_"))
        b.sum().backward()
        note("hooks", seen)
        note("a.grad", plain(a.grad))

        seen.clear()
        a = lib.tensor([1.0], requires_grad=True)
        b = a.clone()
        b.register_hook(hook("before two mul_"))
        b.mul_(2)
        b.mul_(2)
        b.sum().backward()
        note("hooks with two in-place ops", seen)
        note("a.grad with two in-place ops", plain(a.grad))

    parity(script)


def test_tensor_hooks_inplace_multiple_outputs(parity):
    def script(lib, note):
        counts = [0, 0, 0]
        grads = []

        def counter(i):
            def hook(grad):
                counts[i] += 1
                grads.append((i, grad.tolist()))

            return hook

        b = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        out1, out2 = _double_mul(lib).apply(b)
        out1.register_hook(counter(0))
        out2.register_hook(counter(1))
        out1.mul_(2)
        out1.register_hook(counter(2))
        (out1 + out2 * 3).sum().backward()
        note("counts", counts)
        note("grads", grads)

    parity(script)


def test_tensor_hooks_inplace_over_view(parity):
    def script(lib, note):
        fired = []
        base = lib.tensor([1.0], requires_grad=True).clone()
        view = base[:]
        view2 = base[:]
        view.register_hook(lambda grad: fired.append("view's first hook"))
        view2.register_hook(lambda grad: fired.append("view2's first hook"))
        view.mul_(2)
        note("view2 grad_fn", view2.grad_fn.name())  # reading it moves view2 onto the new base
        view2.register_hook(lambda grad: fired.append(("view2's second hook", grad.tolist())))
        (view + view2).sum().backward()
        note("hooks that fired", fired)

    parity(script)


# ---- retain_grad ------------------------------------------------------------------------------


def test_tensor_grad_warnings(parity):
    def script(lib, note):
        dummy = lib.empty(1)
        dummy.requires_grad_()
        note("leaf .grad", warnings_of(lambda: dummy.grad))
        dummy = dummy.clone()
        note("non-leaf .grad", warnings_of(lambda: dummy.grad))
        dummy.retain_grad()
        note("retained .grad", warnings_of(lambda: dummy.grad))

    parity(script)


def test_retain_grad(parity):
    def script(lib, note):
        inp = lib.tensor([[0.5, 1.0, -2.0]], requires_grad=True)
        h1 = inp * 3
        out = (h1 * h1).sum()
        h1.retain_grad()
        h1.retain_grad()
        note("retains_grad", h1.retains_grad)
        out.backward(retain_graph=True)
        note("h1.grad", plain(h1.grad))
        out.backward(retain_graph=True)
        note("h1.grad accumulated", plain(h1.grad))
        with lib.no_grad():
            inp.grad.zero_()
        inp.retain_grad()
        inp.retain_grad()
        note("leaf retains_grad", inp.retains_grad)
        out.backward()
        note("input.grad", plain(inp.grad))

    parity(script)


def test_retain_grad_inplace(parity):
    def script(lib, note):
        a = lib.tensor([1.0], requires_grad=True).clone()
        a.retain_grad()
        a.mul_(2)
        a.sum().backward()
        note("a.grad", plain(a.grad))

        a = lib.tensor([1.0], requires_grad=True).clone()
        a.retain_grad()
        a.mul_(2)
        a.mul_(2)
        a.sum().backward()
        note("a.grad after two mul_", plain(a.grad))

        x = lib.tensor([1.0], requires_grad=True).clone()
        x.retain_grad()
        x_view = x[:]
        x_view *= 2
        x *= 2
        x.sum().backward()
        note("x.grad (in place over a view, then on the base)", plain(x.grad))

        x = lib.zeros(4)
        y = x.view(2, 2)
        y.add_(lib.ones(2, 2, requires_grad=True))
        note("base that did not require grad", x)

    parity(script)


def test_retains_grad_inplace_multiple_outputs(parity):
    def script(lib, note):
        double_mul = _double_mul(lib)
        b = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        first, second = double_mul.apply(b)
        first.retain_grad()
        second.retain_grad()
        first.mul_(2)
        (first + second).sum().backward()
        note("first.grad", plain(first.grad))
        note("second.grad", plain(second.grad))

        a = b.detach().requires_grad_(True)
        first, second = double_mul.apply(a)
        first.mul_(2)
        out = (first + second).sum()
        note("autograd.grad", [plain(g) for g in lib.autograd.grad(out, (first, second))])

    parity(script)


def test_retain_grad_inplace_over_view(parity):
    def script(lib, note):
        base = lib.tensor([1.0], requires_grad=True).clone()
        view = base[:]
        view2 = base[:]
        view.retain_grad()
        view2.retain_grad()
        view.mul_(2)
        (view + view2).sum().backward()
        note("view.grad", plain(view.grad))
        note("view2.grad", plain(view2.grad))

    parity(script)


def test_retains_grad_can_always_observe_tensor_prehook(parity):
    def script(lib, note):
        a = lib.tensor(1.0, requires_grad=True)
        b = a.clone()
        b.register_hook(lambda g: g * 2)
        b.retain_grad()
        b.register_hook(lambda g: g * 2)
        b.clone().backward()
        note("b.grad (retained between two hooks)", b.grad.item())

        a = lib.tensor(1.0, requires_grad=True)
        b = a.clone()
        b.retain_grad()
        b.register_hook(lambda g: g * 2)
        b.clone().backward()
        note("b.grad (retained before the hook)", b.grad.item())

    parity(script)


# ---- node pre-hooks and post-hooks --------------------------------------------------------------


def test_grad_fn_prehooks(parity):
    def run(lib, note, custom):
        mul2 = _mul2(lib, custom)
        a = lib.tensor([1.0], requires_grad=True)
        b = mul2(a)
        pre, post = [0], [0]

        def posthook(grad_inputs, grad_outputs):
            note("pre-hooks run before the post-hook", pre[0])
            note("post-hook's grad_outputs", plain(grad_outputs[0]))
            note("post-hook's grad_inputs", plain(grad_inputs[0]))
            post[0] += 1
            return grad_inputs

        def prehook(grad_outputs):
            pre[0] += 1
            return (grad_outputs[0] * 2,)

        b.grad_fn.register_hook(posthook)
        b.grad_fn.register_hook(posthook)
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(lambda g: None)
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(lambda g: g)
        b.grad_fn.register_prehook(lambda g: None)
        b.sum().backward()
        note("counts", (pre[0], post[0]))
        note("a.grad", plain(a.grad))

        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = mul2(a)

        def prehook_none(grad_outputs):
            pre[0] += 1

        b.grad_fn.register_prehook(prehook_none)
        b.sum().backward()
        note("pre count after a None pre-hook", pre[0])
        note("a.grad (unchanged by a None pre-hook)", plain(a.grad))

    def script(lib, note):
        for custom in (True, False):
            run(lib, note, custom)

    parity(script)


def test_grad_fn_prehooks_multiple_outputs(parity):
    def script(lib, note):
        class DoubleMul2(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k, y):
                ctx.k = k
                return k * x * 2, k, k * y * 2

            @staticmethod
            def backward(ctx, g1, gk, g2):
                return ctx.k * g1 * 2, None, ctx.k * g2 * 2

        counter = [0]

        def prehook(grad_outputs):
            g1, gk, g2 = grad_outputs
            note("gradient of the number output", gk)
            counter[0] += 1
            return (g1 * 2, None, g2 * 2)

        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = lib.tensor([[0.5, 0.5], [1.5, 2.5]], requires_grad=True)
        c, _, d = DoubleMul2.apply(a, 3, b)
        c.grad_fn.register_prehook(prehook)
        (c + d).sum().backward()
        note("count", counter[0])
        note("a.grad", plain(a.grad))
        note("b.grad", plain(b.grad))

    parity(script)


def test_grad_fn_prehooks_remove_hooks(parity):
    def run(lib, note, custom):
        mul2 = _mul2(lib, custom)
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = mul2(a)
        counter = [0]

        def prehook(grad_outputs):
            counter[0] += 1

        handle = b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(prehook)
        handle.remove()
        b.sum().backward()
        note("count after removing one", counter[0])
        note("a.grad", plain(a.grad))

        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = mul2(a)
        counter = [0]
        handles = []

        def remover(grad_outputs):
            handles[0].remove()
            handles[1].remove()  # removing a removed hook again is fine

        def counting(grad_outputs):
            counter[0] += 1

        b.grad_fn.register_prehook(remover)
        handles.append(b.grad_fn.register_prehook(counting))
        handles.append(b.grad_fn.register_prehook(counting))
        handles[1].remove()
        b.sum().backward()
        note("count when a hook removes the next one during backward", counter[0])

    def script(lib, note):
        for custom in (True, False):
            run(lib, note, custom)

    parity(script)


# ---- order and counts ---------------------------------------------------------------------------


def test_prehook_ordering(parity):
    def script(lib, note):
        log = []

        def tensor_hook(g):
            log.append("tensor")
            return g * 3

        def node_prehook(gs):
            log.append("node")
            return tuple(g * 2 for g in gs)

        a = lib.tensor(1.0, requires_grad=True)
        b = a.clone()
        b.grad_fn.register_prehook(node_prehook)
        b.register_hook(tensor_hook)
        b.grad_fn.register_prehook(node_prehook)
        acc = b.grad_fn.next_functions[0][0]
        a.register_hook(tensor_hook)
        acc.register_prehook(node_prehook)
        a.register_hook(tensor_hook)

        b.sum().backward(retain_graph=True)
        note("backward", log)
        note("a.grad", plain(a.grad))
        log.clear()
        lib.autograd.grad(b.sum(), inputs=(a,), retain_graph=True)
        note("autograd.grad to the leaf", log)
        log.clear()
        b.sum().backward(inputs=(b,))
        note("backward(inputs=(b,))", log)
        note("b.grad", b.grad.item())

    parity(script)


def test_hook_edge_case_when_called_with_grad(parity):
    def script(lib, note):
        a = lib.tensor(1.0, requires_grad=True)
        b = a * 2
        c = b * 2
        counts = {"tensor": 0, "pre": 0, "post": 0}

        def count(kind):
            def hook(*args):
                counts[kind] += 1

            return hook

        a.register_hook(count("tensor"))
        b.register_hook(count("tensor"))
        acc = b.grad_fn.next_functions[0][0]
        acc.register_hook(count("post"))
        acc.register_prehook(count("pre"))
        b.grad_fn.register_hook(count("post"))
        b.grad_fn.register_prehook(count("pre"))

        calls = {
            "grad to b": lambda: lib.autograd.grad(c, inputs=(b,), retain_graph=True),
            "grad to a and b": lambda: lib.autograd.grad(c, inputs=(a, b), retain_graph=True),
            "backward": lambda: c.backward(retain_graph=True),
            "backward to a and b": lambda: c.backward(inputs=(a, b), retain_graph=True),
        }
        for label, call in calls.items():
            for kind in counts:
                counts[kind] = 0
            call()
            note(label, dict(counts))

    parity(script)


def test_accumulate_grad_posthooks_can_observe_tensor_prehook(parity):
    def script(lib, note):
        a = lib.tensor(1.0, requires_grad=True)
        b = a.clone()
        acc = b.grad_fn.next_functions[0][0]

        def posthook(grad_inputs, grad_outputs):
            note("post-hook grad_inputs", len(grad_inputs))
            note("post-hook grad_outputs", plain(grad_outputs[0]))

        def prehook(grad_outputs):
            note("pre-hook grad_outputs", [plain(g) for g in grad_outputs])

        acc.register_hook(posthook)
        acc.register_prehook(prehook)
        a.register_hook(lambda g: g * 2)
        b.backward()
        note("a.grad", plain(a.grad))

    parity(script)


def test_accumulate_grad_posthooks_should_not_execute(parity):
    def script(lib, note):
        ran = []
        a = lib.tensor(1.0, requires_grad=True)
        a.register_hook(lambda g: ran.append("a's tensor hook"))
        b = lib.tensor(1.0, requires_grad=True)
        c = a.clone()
        acc = c.grad_fn.next_functions[0][0]
        acc.register_hook(lambda gi, go: ran.append("a's AccumulateGrad post-hook"))
        out = a + b + c
        out.sum().backward(inputs=[b])
        note("hooks that ran", ran)
        note("b.grad", plain(b.grad))
        note("a.grad", plain(a.grad))

    parity(script)


# ---- post-accumulate-grad hooks -----------------------------------------------------------------


def test_post_accumulate_grad_hook_on_non_leaf(parity):
    def script(lib, note):
        leaf = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        non_leaf = 2.0 * leaf
        note(
            "error",
            error_of(lambda: non_leaf.register_post_accumulate_grad_hook(lambda t: None)),
        )

    parity(script)


def test_post_accumulate_grad_hook_multiple_hooks(parity):
    def script(lib, note):
        def hook1(tensor):
            tensor.sub_(tensor.grad)

        def hook2(tensor):
            tensor.mul_(4.0)

        tensor = lib.tensor([0.5, 1.5, 2.5], requires_grad=True)
        tensor.register_post_accumulate_grad_hook(hook1)
        tensor.register_post_accumulate_grad_hook(hook2)
        tensor.sum().backward()
        note("tensor after both hooks, in order", tensor)

    parity(script)


def test_post_accumulate_grad_hook_multiple_tensors(parity):
    def script(lib, note):
        def hook(tensor):
            tensor.sub_(tensor.grad)

        t1 = lib.tensor([0.5, 1.5, 2.5], requires_grad=True)
        t2 = lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
        t1.register_post_accumulate_grad_hook(hook)
        t2.register_post_accumulate_grad_hook(hook)
        t1.sum().backward()
        t2.sum().backward()
        note("t1", t1)
        note("t2", t2)

    parity(script)


def test_post_accumulate_grad_hook_returns_not_None(parity):
    def script(lib, note):
        tensor = lib.ones(2, 3, requires_grad=True)
        tensor.register_post_accumulate_grad_hook(lambda t: t.grad)
        note("error", error_of(lambda: tensor.sum().backward()))

    parity(script)


def test_post_accumulate_grad_hook_ordering(parity):
    def script(lib, note):
        tensor = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        log = []

        def pre_hook(grad):
            log.append("tensor hook")
            return grad.sub(2.0)

        def acc_grad_node_pre_hook(grad_out):
            log.append("AccumulateGrad pre-hook")
            return (grad_out[0].div(5.0),)

        def post_acc_grad_hook(t):
            log.append("post-accumulate hook")
            t.grad.add_(0.5)

        def acc_grad_node_post_hook(grad_in, grad_out):
            log.append("AccumulateGrad post-hook")
            tensor.grad = grad_out[0].mul(10)

        acc = tensor.view_as(tensor).grad_fn.next_functions[0][0]
        tensor.register_hook(pre_hook)
        acc.register_prehook(acc_grad_node_pre_hook)
        tensor.register_post_accumulate_grad_hook(post_acc_grad_hook)
        acc.register_hook(acc_grad_node_post_hook)
        tensor.sum().backward()
        note("order", log)
        note("tensor.grad", plain(tensor.grad))

    parity(script)


def test_post_accumulate_grad_hook_e2e(parity):
    def script(lib, note):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        inp = lib.tensor([[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]])
        optims = {}

        def step_in_backward(param):
            optims[param].step()
            optims[param].zero_grad()

        handles = []
        for p in model.parameters():
            optims[p] = lib.optim.Adam([p])
            handles.append(p.register_post_accumulate_grad_hook(step_in_backward))
        model_copy = copy.deepcopy(model)
        optim_copy = lib.optim.Adam(model_copy.parameters())
        for _ in range(5):
            model(inp).sum().backward()
            model_copy(inp).sum().backward()
            optim_copy.step()
            optim_copy.zero_grad()
        for p_ref, p in zip(model_copy.parameters(), model.parameters(), strict=True):
            note("stepped in backward as by the optimizer", bool((p_ref - p).abs().max() < 1e-6))
            note("parameter", p)
        for h in handles:
            h.remove()
        frozen = [p.detach().clone() for p in model.parameters()]
        for _ in range(5):
            model(inp).sum().backward()
        for before, p in zip(frozen, model.parameters(), strict=True):
            note("unchanged once the hooks are removed", bool((before - p).abs().max() == 0))

    parity(script)


# ---- hooks of a custom Function's outputs ------------------------------------------------------


def test_return_leaf(parity):
    def script(lib, note):
        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a, a + b

            @staticmethod
            def backward(ctx, grad_a, grad_b):
                return grad_a + grad_b, grad_b

        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = lib.tensor([[0.5, 0.5], [0.5, 0.5]], requires_grad=True)
        q, p = Identity.apply(x, y)
        seen = []
        q.register_hook(lambda grad: seen.append(plain(grad)))
        (q + p + x).sum().backward()
        note("q's hook saw only q's gradient", seen)
        note("x.grad", plain(x.grad))
        note("y.grad", plain(y.grad))

    parity(script)


# ---- module backward hooks ---------------------------------------------------------------------


def test_full_backward_hook_double_backward(parity):
    def script(lib, note):
        x = lib.tensor([0.3], requires_grad=True)
        y = lib.tensor([0.8])
        func = lib.nn.MSELoss()
        counter = [0]

        def hook(module, grad_input, grad_output):
            counter[0] += 1

        func.register_full_backward_hook(hook)
        f = func(x, y)
        (gradx_f,) = lib.autograd.grad(f, x, create_graph=True)
        note("count after the first gradient", counter[0])
        note("gradient of the gradient", [plain(g) for g in lib.autograd.grad(gradx_f, x)])
        note("count after the second gradient", counter[0])

    parity(script)


def test_reentrant_with_non_leaf_variable_hook(parity):
    def script(lib, note):
        param = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        handles = []

        def manual_increase_gradient(grad):
            handles[0].remove()
            with lib.enable_grad():  # a backward of its own, inside the hook
                g = grad.detach().requires_grad_()
                out = ((g * 2) + 5).sum()
                out.backward()
            return g.grad + grad

        tmp = param * param
        handles.append(tmp.register_hook(manual_increase_gradient))
        tmp.sum().backward()
        note("param.grad", plain(param.grad))

    parity(script)


# ---- multi-grad hooks (torch.autograd.graph.register_multi_grad_hook) -------------------------


def test_multi_grad_all_hooks(parity):
    def script(lib, note):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        c, d = a * b, a * b
        calls = []
        handle = lib.autograd.graph.register_multi_grad_hook(
            (a, b, c, d), lambda grads: calls.append([plain(g) for g in grads])
        )
        c.sum().backward(retain_graph=True)  # d is not in this graph: None for it
        note("one backward, one call", calls)
        c.sum().backward(inputs=(a,), retain_graph=True)  # b is not asked for: None for it
        note("inputs=(a,)", calls[-1])
        (grad_d,) = lib.autograd.grad(d.sum(), (d,), retain_graph=True)
        note("autograd.grad of a non-leaf", [calls[-1], plain(grad_d)])
        note("error: autograd.grad of a leaf", error_of(lambda: lib.autograd.grad(d.sum(), (b,))))
        handle.remove()
        before = len(calls)
        (a * b).sum().backward()
        note("removed: no more calls", len(calls) - before)
        note("handle", type(handle).__name__)

    parity(script)


def test_multi_grad_any_hooks(parity):
    def script(lib, note):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        frozen = lib.tensor([5.0, 6.0])  # does not require grad: no hook goes on it
        calls = []
        handle = lib.autograd.graph.register_multi_grad_hook(
            (a, b, frozen), lambda grad: calls.append(plain(grad)), mode="any"
        )
        (a * b * frozen).sum().backward()  # both leaves get a gradient: one call, the first
        note("one call per backward", calls)
        (a * b).sum().backward(inputs=[b])
        note("inputs=[b]", calls[-1])
        handle.remove()
        (a * b).sum().backward()
        note("calls after remove", len(calls))

    parity(script)


def test_multi_grad_hooks_invalid_mode(parity):
    def script(lib, note):
        a = lib.tensor([1.0], requires_grad=True)
        register = lib.autograd.graph.register_multi_grad_hook
        note("mode='x'", error_of(lambda: register((a,), print, mode="x")))
        note("a tensor without a graph", error_of(lambda: register((lib.tensor([1.0]),), print)))

    parity(script)
