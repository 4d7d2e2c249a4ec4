"""Custom autograd Functions for the held-out parity cases, written once for either library.

`functions(L)` returns them built on `L.autograd.Function` (torch or minigrad), as a learner
would write them after reading torch's "Extending torch.autograd" page: the same source runs on
both sides, so a case compares only what the library does with it.
"""

from __future__ import annotations

from typing import Any


def functions(lib: Any) -> dict[str, Any]:  # noqa: C901 - one small class per behaviour
    """The Function subclasses the held-out cases use, built on `lib.autograd.Function`."""
    Function = lib.autograd.Function  # noqa: N806

    class ScaleBy(Function):
        """y = x * k for a Python number k; k gets no gradient."""

        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k, None

    class ScaleByOneGrad(Function):
        """Like ScaleBy, but backward forgets the None for k."""

        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k

    class TooMany(Function):
        """backward returns three gradients for one input."""

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad, grad, grad

    class NumberGrad(Function):
        """backward returns a Python number instead of a tensor."""

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return 1.0

    class IntGrad(Function):
        """backward returns an integer tensor for a float input."""

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad.long()

    class ReturnsList(Function):
        """forward returns a list, not a tensor or tuple."""

        @staticmethod
        def forward(ctx, x):
            return [x * 2, x * 3]

        @staticmethod
        def backward(ctx, a, b):
            return a + b

    class ReturnsNumber(Function):
        """forward returns a Python float."""

        @staticmethod
        def forward(ctx, x):
            return 3.0

        @staticmethod
        def backward(ctx, grad):
            return grad

    class Identity(Function):
        """forward returns its input unchanged (no mark_dirty)."""

        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 10

    class SaveMiddle(Function):
        """Saves an intermediate that is neither input nor output."""

        @staticmethod
        def forward(ctx, x):
            middle = x * 2
            ctx.save_for_backward(middle)
            return middle * 3

        @staticmethod
        def backward(ctx, grad):
            (middle,) = ctx.saved_tensors
            return grad * middle

    class SaveNone(Function):
        """save_for_backward(None) is allowed and gives None back."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, None)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            x, nothing = ctx.saved_tensors
            return grad * 2 if nothing is None else grad

    class SaveTwice(Function):
        """Reads ctx.saved_tensors twice in backward."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (first,) = ctx.saved_tensors
            (second,) = ctx.saved_tensors
            return grad * (first + second)

    class TwoInputs(Function):
        """z = x * y with both gradients; records needs_input_grad."""

        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            ctx.flags = ctx.needs_input_grad
            return x * y

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            return grad * y, grad * x

    class DirtyNonInput(Function):
        """mark_dirty on a tensor that is not an input."""

        @staticmethod
        def forward(ctx, x):
            out = x * 2
            ctx.mark_dirty(out)
            return out

        @staticmethod
        def backward(ctx, grad):
            return grad

    class MaxOut(Function):
        """Returns a value and an integer argmax marked non-differentiable."""

        @staticmethod
        def forward(ctx, x):
            value, index = x.max(0)
            ctx.mark_non_differentiable(index)
            ctx.save_for_backward(x, index)
            return value, index

        @staticmethod
        def backward(ctx, grad_value, grad_index):
            x, index = ctx.saved_tensors
            grad = lib.zeros_like(x)
            grad[index] = grad_value
            return grad

    class WrongShapeGrad(Function):
        """backward returns a gradient of the wrong shape."""

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return lib.ones(5)

    class AddOneInPlace(Function):
        """Changes its input in place and says so with mark_dirty."""

        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    class AddOneNoDirty(Function):
        """Changes its input in place without mark_dirty."""

        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    class MulSetup(Function):
        """y = x * k in the setup_context style (forward takes no ctx)."""

        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k, None

    class OnceSquare(Function):
        """x * x with a backward marked once_differentiable."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x

    class NoMaterialize(Function):
        """Two outputs; set_materialize_grads(False), so an unused output's gradient is None."""

        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            total = grad_a * 2 if grad_a is not None else None
            if grad_b is not None:
                total = grad_b * 3 if total is None else total + grad_b * 3
            return total

    class NoneGrad(Function):
        """backward returns None for an input that requires grad."""

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return None

    class SaveNumber(Function):
        """save_for_backward of a Python number (only tensors or None may be saved)."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3.0)
            return x * 3

        @staticmethod
        def backward(ctx, grad):
            return grad * 3

    class SaveOutput(Function):
        """y = exp(x), saving the output y for backward."""

        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, grad):
            (out,) = ctx.saved_tensors
            return grad * out

    class NoBackward(Function):
        """forward only: the learner forgot to write backward."""

        @staticmethod
        def forward(ctx, x):
            return x * 2

    class ViewOut(Function):
        """Returns a view of its input (the first two elements)."""

        @staticmethod
        def forward(ctx, x):
            return x[:2]

        @staticmethod
        def backward(ctx, grad):
            full = lib.zeros(3, dtype=grad.dtype)
            full[:2] = grad
            return full

    return {
        cls.__name__: cls
        for cls in (
            SaveNumber,
            SaveOutput,
            NoBackward,
            ViewOut,
            WrongShapeGrad,
            AddOneInPlace,
            AddOneNoDirty,
            MulSetup,
            OnceSquare,
            NoMaterialize,
            NoneGrad,
            ScaleBy,
            ScaleByOneGrad,
            TooMany,
            NumberGrad,
            IntGrad,
            ReturnsList,
            ReturnsNumber,
            Identity,
            SaveMiddle,
            SaveNone,
            SaveTwice,
            TwoInputs,
            DirtyNonInput,
            MaxOut,
        )
    }
