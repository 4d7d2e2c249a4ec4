"""The right answers of 09 E2 and 10 E2 spelled with torch names (tests/course's
TORCH_SPELLINGS: minimum / maximum, Tensor.square, F.hardtanh), run with torch: each gives what
the exercise asks, the same numbers as the reference answer. tests/course then checks that the
course's checks praise them, as soon as minigrad has the names.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "course"))
from test_lesson_exercise_checks import TORCH_SPELLINGS, name_of  # noqa: E402


def define_for_torch(source: str, name: str):
    """Compile a learner's answer with torch as `mg` (and torch's functional as F)."""
    source = source.replace("import minigrad.nn.functional as F", "import torch.nn.functional as F")
    namespace = {"mg": torch}
    exec(compile(source, f"<answer {name}>", "exec"), namespace)
    return namespace[name]


@pytest.mark.parametrize("name,source,names", TORCH_SPELLINGS, ids=name_of)
def test_torch_spellings_give_the_reference_answer_under_torch(name, source, names) -> None:
    answer = define_for_torch(source, name)
    if name == "clip_grad":
        grad = torch.tensor([[-3.0, 0.5], [2.0, -0.25]])
        before = grad.clone()
        assert torch.equal(answer(grad), grad.clamp(-1.0, 1.0))
        assert torch.equal(grad, before)  # the hook leaves its argument alone
        return
    results = []
    for penalty in (
        answer,
        lambda w, x: (
            torch.autograd.grad((x @ w).tanh().sum(), x, create_graph=True)[0] ** 2
        ).sum(),
    ):
        w = torch.tensor([1.0, 0.5], requires_grad=True)
        inputs = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
        value = penalty(w, inputs)
        assert w.grad is None and inputs.grad is None
        value.backward()
        results.append((round(value.item(), 4), [round(v, 4) for v in w.grad.tolist()]))
    assert results[0] == results[1]
