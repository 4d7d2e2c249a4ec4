"""viz.cut_stepper tells the same story with real torch: errors, gradients and values per frame.

Every route runs twice, once on minigrad and once with `lib=torch` (the same steps, torch's
tensors). Each frame must agree on the error (type and first sentence, as everywhere in the
parity tests), the gradients and the printed values; the last frame's comparison with the
correct gradient must agree too. The torch run's error is torch's own text, unchanged.
"""

from __future__ import annotations

import traceback

import pytest

from minigrad import viz
from minigrad.viz.stepper import ROUTES

from .conftest import first_sentence

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.parity


def section(summary: str, title: str) -> list[str]:
    """The indented lines under `title:` in a frame summary."""
    lines = summary.splitlines()
    if f"{title}:" not in lines:
        return []
    start = lines.index(f"{title}:") + 1
    body = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        body.append(line)
    return body


def error_key(error: str | None) -> tuple[str, str] | None:
    if error is None:
        return None
    kind, _, message = error.partition(": ")
    return kind, first_sentence(message)


@pytest.mark.parametrize("route", ROUTES)
def test_each_frame_agrees_with_torch(route: str) -> None:
    ours = viz.cut_stepper(route)
    theirs = viz.cut_stepper(route, lib=torch)
    assert len(ours.frames) == len(theirs.frames)
    for mine, torchs in zip(ours.frames, theirs.frames, strict=True):
        where = f"{route} step {mine.index + 1} ({mine.label})"
        assert mine.label == torchs.label.replace("torch.", "mg."), where
        assert error_key(mine.error) == error_key(torchs.error), where
        assert mine.gradients == torchs.gradients, where
        assert section(mine.summary, "values") == section(torchs.summary, "values"), where
    last_mine, last_torch = ours.frames[-1], theirs.frames[-1]
    verdict = "beside the correct gradient (the same backward with nothing cut or changed)"
    assert section(last_mine.summary, verdict) == section(last_torch.summary, verdict)


def test_the_torch_run_shows_torch_error_text_unchanged() -> None:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out.detach().zero_()
    with pytest.raises(RuntimeError) as caught:
        out.sum().backward()
    printed = "".join(traceback.format_exception_only(caught.value)).strip()
    assert viz.cut_stepper("detach", lib=torch).frames[-1].error == printed
    assert printed.startswith("RuntimeError: one of the variables needed for gradient")


def test_the_claimed_outcomes_are_torch_outcomes() -> None:
    """The sentences the course builds on these stories, checked on torch's run."""
    correct = "a.grad = tensor([0.1966, 0.1050, 0.0452])"
    outcome = {
        route: viz.cut_stepper(route, lib=torch).frames[-1]
        for route in ["detach", "detach_", "data", "numpy", "clone_detach", "no_grad"]
    }
    for route in ("detach", "detach_", "no_grad"):
        assert "modified by an inplace operation" in outcome[route].error, route
    for route in ("data", "numpy"):
        assert outcome[route].error is None
        assert outcome[route].gradients == ("a.grad = tensor([0., 0., 0.])",), route
    assert outcome["clone_detach"].gradients == (correct,)
