"""Custom autograd Functions written once against either library, for the engine-3 parity cases.

`functions(L)` returns them for the library `L` (torch or minigrad): the same source, so a case
that uses `Square.apply(x)` runs the same code on both sides.
"""

from __future__ import annotations

from typing import Any


def functions(lib: Any) -> dict[str, Any]:  # noqa: C901 - one small class per behaviour
    """The Function subclasses the cases use, built on `lib.autograd.Function`."""
    Function = lib.autograd.Function  # noqa: N806
    once_differentiable = lib.autograd.function.once_differentiable

    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    class RoundSTE(Function):
        @staticmethod
        def forward(ctx, x):
            return x.round()

        @staticmethod
        def backward(ctx, grad):
            return grad

    class GradReverse(Function):
        @staticmethod
        def forward(ctx, x, strength):
            ctx.strength = strength
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return -ctx.strength * grad, None

    class Needs(Function):
        @staticmethod
        def forward(ctx, x, y, k):
            ctx.seen = ctx.needs_input_grad
            return x * y * k

        @staticmethod
        def backward(ctx, grad):
            return grad, grad, None

    class DirtyDouble(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return 2 * grad

    class TwoOutputs(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            return 2 * grad_a + 3 * grad_b

    class NonDiff(Function):
        @staticmethod
        def forward(ctx, x):
            out, mask = x * 2, (x > 1).float()
            ctx.mark_non_differentiable(mask)
            return out, mask

        @staticmethod
        def backward(ctx, grad_out, grad_mask):
            return 2 * grad_out + grad_mask

    class Passthrough(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 5

    class TooFew(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, grad):
            return (grad,)

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return grad.expand(7)

    class SaveOutput(Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, grad):
            (out,) = ctx.saved_tensors
            return grad * out

    class SaveNumber(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(3)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    class Once(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    class NoMaterialize(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            ctx.got_none = grad_b is None
            return 2 * grad_a if grad_b is None else 2 * grad_a + 3 * grad_b

    class NewStyle(Function):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k, None

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad

    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

    return {name: value for name, value in locals().items() if isinstance(value, type)}
