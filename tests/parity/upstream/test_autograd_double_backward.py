"""PyTorch's test/test_autograd.py, create_graph family: gradients recorded by
`create_graph=True`, their graph (node class names and edges) and the second backward through it.

Each test is named after the upstream test it takes its facts from; the script is our own,
written once against `lib` (torch or minigrad) and run with both (tests/parity/conftest.py).
The graph a recorded backward builds is compared node for node by `graph_desc` (upstream's own
helper: the class names of the nodes below a gradient's grad_fn), and by
tests/parity/test_graph_structure_parity.py for the programs the notebooks draw. The formulas
of single ops under double backward are tests/parity/test_double_backward_parity.py (and the
api family).

Upstream tests of this family left out here, and why:
- test_custom_autograd_repeated_grad_grad: needs prod(dim) (api family).
- test_inplace_on_view_backward: nn.InstanceNorm2d and F.threshold are not in minigrad.
- test_grad_materialize_grads, test_unused_grad_requires_grad_with_materialize:
  autograd.grad's materialize_grads argument (api family).
- test_accumulate_grad_tensor_reference's sparse half: sparse tensors.
"""

from __future__ import annotations

import pytest

from ..conftest import plain, warnings_of

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def graph_desc(fn):
    """The graph below `fn` by the Python class names of its nodes (upstream's helper)."""
    if fn is None:
        return "None"
    inner = ", ".join(graph_desc(next_fn) for next_fn, _ in fn.next_functions)
    return f"{type(fn).__name__}({inner})"


def _xy(lib):
    x = lib.tensor([[0.5, -1.0], [2.0, 1.5]], requires_grad=True)
    y = lib.tensor([[1.0, 0.25], [-0.5, 3.0]], requires_grad=True)
    return x, y


def test_hessian_vector(parity):
    def script(lib, note):
        x, y = _xy(lib)
        z = x**2 + y * x + y**2
        z.backward(lib.ones(2, 2), create_graph=True)
        note("x.grad", x.grad)
        note("y.grad", y.grad)
        note("x.grad's graph", graph_desc(x.grad.grad_fn))
        note("y.grad's graph", graph_desc(y.grad.grad_fn))
        grad_sum = 2 * x.grad + y.grad
        grad_sum.backward(lib.ones(2, 2))
        note("x.grad + Hessian-vector product", plain(x.grad))
        note("y.grad + Hessian-vector product", plain(y.grad))
        x.grad = None
        y.grad = None

    parity(script)


def test_grad(parity):
    def script(lib, note):
        x, y = _xy(lib)
        z = x**2 + y * x + y**2
        z.backward(lib.ones(2, 2), create_graph=True)
        grad_sum = 2 * x.grad + y.grad
        (x_hv,) = lib.autograd.grad(
            outputs=[grad_sum], grad_outputs=[lib.ones(2, 2)], inputs=[x], create_graph=True
        )
        note("x_hv", x_hv)
        note("x_hv's graph", graph_desc(x_hv.grad_fn))
        note("x.grad unchanged", plain(x.grad))
        x.grad = None
        y.grad = None

    parity(script)


def test_grad_nonleaf(parity):
    def script(lib, note):
        x_init, y = _xy(lib)
        x = x_init
        grad_output = lib.ones(2, 2)

        def fn(x):
            return x**2 + y * x + y**2

        for step in range(3):
            (grad_x,) = lib.autograd.grad(fn(x), x, grad_outputs=grad_output, create_graph=True)
            note(f"step {step}: grad_x", grad_x)
            note(f"step {step}: .grad untouched", [y.grad is None, x.grad is None])
            x = x + 0.05 * grad_x
        note("x after three steps", x)
        note("x's graph", graph_desc(x.grad_fn))
        x.backward(grad_output)
        note("y.grad", plain(y.grad))
        note("x_init.grad", plain(x_init.grad))

    parity(script)


def test_grad_nonleaf_many_outputs(parity):
    def script(lib, note):
        x = lib.arange(8.0).reshape(4, 2).requires_grad_()
        a, b = x.chunk(2)
        called = []
        x.register_hook(lambda grad: called.append(True))
        go = lib.tensor([[1.0, -1.0], [0.5, 2.0]])
        grad_a, grad_b = lib.autograd.grad((a + 2 * b), [a, b], grad_outputs=go, create_graph=True)
        note("grads", [grad_a, grad_b])
        note("x's hook", called)
        note("x.grad", x.grad is None)

    parity(script)


def test_accumulate_grad(parity):
    def script(lib, note):
        for create_graph in (False, True):
            x = lib.tensor([[0.5, -1.0], [2.0, 1.5]], requires_grad=True)
            y = x + 2
            y.backward(lib.ones(2, 2), retain_graph=True)
            x_grad = x.grad
            y.backward(lib.ones(2, 2), create_graph=create_graph)
            note(f"create_graph={create_graph}: same .grad object", x.grad is x_grad)
            note(f"create_graph={create_graph}: first .grad object now", plain(x_grad))
            note(f"create_graph={create_graph}: x.grad", plain(x.grad))
            note(f"create_graph={create_graph}: x.grad recorded", x.grad.requires_grad)
            x.grad = None

    parity(script)


def test_accumulate_grad_tensor_reference(parity):
    def script(lib, note):
        for create_graph in (False, True):
            params = lib.tensor([1.5, 1.5]).requires_grad_()
            params.grad = lib.tensor([1.5, 1.5])
            grad_saved = params.grad
            params.backward(lib.tensor([1.5, 1.5]), create_graph=create_graph)
            note(f"create_graph={create_graph}: reference kept", grad_saved is params.grad)
            note(f"create_graph={create_graph}: grad", params.grad)
            params.grad = None

    parity(script)


def test_backward_create_graph_warns(parity):
    def script(lib, note):
        b = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        c = b * b
        # torch warns once per process (minigrad too); ask for the text in a fresh way
        caught = warnings_of(lambda: c.backward(lib.ones_like(c), create_graph=True))
        note("backward warns at most the reference-cycle warning", len(caught) <= 1)
        b.grad = None
        caught = warnings_of(lambda: lib.autograd.grad(c, b, lib.ones_like(c), create_graph=True))
        note("grad does not warn", caught)

    parity(script)
