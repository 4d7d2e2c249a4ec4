"""The order in which the leaves' hooks run when several leaves get their gradient from one node.

Every leaf's node (AccumulateGrad) has the same sequence number, so the engine's ready queue sees
them as equal, and which runs first is decided by the shape of the binary heap the queue is: in
torch a C++ std::priority_queue, in minigrad Python's heapq, which move an element through the
heap the same way. The order shows in the hooks' calls and in the sums of gradients.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def test_leaves_hooks_run_in_the_order_of_torch_ready_queue(parity):
    def script(lib, note):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        c = lib.tensor([1.0], requires_grad=True)
        log = []
        for name, leaf in (("a", a), ("b", b), ("c", c)):
            leaf.register_hook(lambda grad, name=name: log.append(name))
        for label, loss in [
            ("a * b * 2", lambda: (a * b * 2).sum()),
            ("a + b + c", lambda: (a + b + c).sum()),
            ("a * 2 + b * 3 + c * 4", lambda: (a * 2 + b * 3 + c * 4).sum()),
            ("(a * b).sum() + c.sum()", lambda: (a * b).sum() + c.sum()),
        ]:
            log.clear()
            loss().backward()
            note(label, list(log))

    parity(script)
